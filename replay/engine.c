/* replay/engine.c — the packet loop and the generic call path. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "draws.h"
#include "log.h"
#include "replay_config.h"
#include "replay_trim.h"

#define MAX_OUTPUTS 4096

struct output_handle {
    void *slot;
    VkObjectType type;
    uint64_t captured;
};

struct handle_walk {
    struct replay *r;
    rt_status status;
    size_t output_count;
    struct output_handle outputs[MAX_OUTPUTS];
};

static uint64_t slot_read(const void *slot)
{
    uint64_t v;
    memcpy(&v, slot, sizeof v);
    return v;
}

static void slot_write(void *slot, uint64_t v) { memcpy(slot, &v, sizeof v); }

rt_status replay_live(struct replay *r, VkObjectType type, uint64_t captured, uint64_t *live_out)
{
    if (captured == 0) {
        *live_out = 0;
        return rt_ok_status();
    }
    if (!rt_typed_map_get(&r->handles, type, captured, live_out))
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 " uses a handle (object type %d, id 0x%" PRIx64
                         ") that the trace never created", r->call_seq, (int)type, captured);
    return rt_ok_status();
}

rt_status replay_remember(struct replay *r, VkObjectType type, uint64_t captured, uint64_t live)
{
    if (!rt_typed_map_put(&r->handles, type, captured, live))
        return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory for the handle map", r->call_seq);
    return rt_ok_status();
}

static void map_one(void *user, VkObjectType type, void *slot, bool output)
{
    struct handle_walk *w = user;
    uint64_t captured = slot_read(slot);
    if (output) {
        if (w->output_count < MAX_OUTPUTS)
            w->outputs[w->output_count++] = (struct output_handle){slot, type, captured};
        else if (rt_ok(&w->status)) /* a handle replay could not map later: never drop it silently */
            w->status = rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 " makes more than %d handles, more than replay "
                                  "can follow", w->r->call_seq, MAX_OUTPUTS);
        return;
    }
    uint64_t live = 0;
    if (rt_ok(&w->status))
        w->status = replay_live(w->r, type, captured, &live);
    slot_write(slot, live);
}

/* One walk state per replay, reused by every call: a call's outputs are
 * read back right after it, and calls do not nest. */
static struct handle_walk *start_walk(struct replay *r)
{
    if (!r->walk && !(r->walk = malloc(sizeof *r->walk)))
        return NULL;
    r->walk->r = r;
    r->walk->status = rt_ok_status();
    r->walk->output_count = 0;
    return r->walk;
}

rt_status replay_map_inputs(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    struct handle_walk *w = start_walk(r);
    if (!w)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_vk_walk_handles(cmd, args, map_one, w);
    return w->status;
}

struct replay_device *replay_device_of(struct replay *r, const void *live_dispatchable)
{
    uint64_t value = 0;
    if (!live_dispatchable)
        return NULL;
    uint64_t key = (uint64_t)(uintptr_t) * (void *const *)live_dispatchable;
    return rt_hashmap_get(&r->devices, key, &value) ? (struct replay_device *)(uintptr_t)value : NULL;
}

const char *replay_result_name(VkResult result)
{
    const struct rt_vk_enum_desc *e = &rt_vk_enums[RT_VK_ENUM_VkResult];
    for (uint32_t i = 0; i < e->count; i++)
        if (e->values[i].value == result)
            return e->values[i].full;
    return "unknown VkResult";
}

rt_status replay_check_result(struct replay *r, enum rt_vk_cmd cmd, VkResult captured, VkResult replayed)
{
    if (replayed >= 0 || captured < 0)
        return rt_ok_status();
    return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": %s failed on the replay device (%s) where the "
                     "capture succeeded", r->call_seq, rt_vk_cmd_name(cmd), replay_result_name(replayed));
}

/* The dispatch table for a command: the device's for device commands. */
static const struct replay_dispatch *dispatch_for(struct replay *r, enum rt_vk_cmd cmd, const void *args,
                                                  struct replay_dispatch *instance_only)
{
    const void *first;
    memcpy(&first, args, sizeof first); /* instance and device commands start with a dispatchable handle */
    if (rt_vk_cmd_level(cmd) == RT_VK_LEVEL_DEVICE) {
        struct replay_device *dev = replay_device_of(r, first);
        return dev ? &dev->dispatch : NULL;
    }
    const struct replay_instance *inst = rt_vk_cmd_level(cmd) == RT_VK_LEVEL_GLOBAL ? NULL : replay_instance_of(r, first);
    instance_only->instance = inst ? inst->dispatch : r->instance_dispatch;
    return instance_only;
}

/* Queries (vkGet*, vkEnumerate*) that make no handle only tell the
 * application something about the capture device; replaying them is pointless. */
static bool is_pure_query(enum rt_vk_cmd cmd, size_t outputs)
{
    return outputs == 0 && (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_QUERY);
}

rt_status replay_generic_call(struct replay *r, enum rt_vk_cmd cmd, void *args, uint64_t captured_result)
{
    struct handle_walk *w = start_walk(r);
    if (!w)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_vk_walk_handles(cmd, args, map_one, w);
    rt_status s = w->status;
    struct replay_dispatch instance_only;
    const struct replay_dispatch *d = rt_ok(&s) ? dispatch_for(r, cmd, args, &instance_only) : NULL;
    if (rt_ok(&s) && is_pure_query(cmd, w->output_count)) {
        r->result->skipped_calls++;
    } else if (rt_ok(&s) && (!d || !replay_calls[cmd])) {
        s = rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": %s cannot be called on the replay device",
                      r->call_seq, rt_vk_cmd_name(cmd));
    } else if (rt_ok(&s)) {
        VkResult result = replay_calls[cmd](d, args);
        s = replay_check_result(r, cmd, (VkResult)(int32_t)captured_result, result);
        for (size_t i = 0; i < w->output_count && rt_ok(&s); i++) {
            uint64_t live = slot_read(w->outputs[i].slot);
            if (w->outputs[i].captured && live)
                s = replay_remember(r, w->outputs[i].type, w->outputs[i].captured, live);
        }
    }
    return s;
}

/* Commands whose meaning the generic path cannot know (gen/handwritten.py). */
replay_handler_fn replay_handler(enum rt_vk_cmd cmd)
{
    return (unsigned)cmd < RT_VK_CMD_COUNT ? replay_handlers[cmd] : NULL;
}

rt_status replay_skip(struct replay *r, void *args, uint64_t captured_result)
{
    (void)args;
    (void)captured_result;
    r->result->skipped_calls++;
    return rt_ok_status();
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static rt_status replay_call_packet(struct replay *r, const struct rt_trace_packet *p)
{
    enum rt_vk_cmd cmd;
    void *args;
    if (p->u.call.command_id == r->snapshot_guard || /* a trimmed trace's (snapshot_apply.c) */
        p->u.call.command_id == r->snapshot_samples_guard)
        return rt_ok_status();
    RT_TRY(replay_decode_call(r->header, r->commands, p, &r->arena, &cmd, &args));
    if (r->opts->trim && r->opts->trim->call)
        RT_TRY(r->opts->trim->call(r->opts->trim->user, p, cmd, args));
    replay_snapshot_adjust(r, cmd, args);
    double start = r->opts->stats ? now_seconds() : 0;
    r->current_cmd = cmd;
    r->in_call = true;
    r->packet = p;
    if (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_SUBMITS) {
        r->last_submit_seq = p->seq;
        r->last_submit_frame = r->frame + 1;
        r->last_submit_cmd = cmd;
    }
    replay_handler_fn handler = replay_handler(cmd);
    if (replay_present_waits_needed(r, cmd, args))
        RT_TRY(replay_present_waits_flush(r, rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_DESTROYS)); /* swapchain.c */
    r->own_depth++; /* verify's and the configuration's calls are replay's own (instance.c) */
    replay_verify_before_call(r, cmd, args, p->u.call.return_value); /* verify.c */
    rt_status s = replay_config_before_call(r, cmd, args);
    r->own_depth--;
    bool skip = false; /* --skip-draws (draws.c) */
    if (rt_ok(&s) && r->draws)
        s = replay_draws_before_call(r, cmd, args, &skip);
    if (rt_ok(&s) && !skip)
        s = handler ? handler(r, args, p->u.call.return_value) : replay_generic_call(r, cmd, args, p->u.call.return_value);
    r->own_depth++;
    if (rt_ok(&s) && !skip)
        s = replay_config_after_call(r, cmd, args);
    if (rt_ok(&s) && r->draws) /* a skipped draw is dumped too: what its target holds without it */
        s = replay_draws_after_call(r, cmd, args);
    rt_status v = replay_verify_after_call(r, cmd, args, p->seq); /* exit 5 when it cannot go on */
    r->own_depth--;
    if (rt_ok(&s))
        s = v;
    else
        rt_status_free(&v); /* the call's own error is the one said */
    if (r->opts->stats) {
        r->calls_per_command[cmd]++;
        r->seconds_per_command[cmd] += now_seconds() - start;
    }
    r->result->calls++;
    r->in_call = false;
    r->packet = NULL;
    return s;
}

static void show_progress(const struct replay *r)
{
    if (r->opts->progress)
        fprintf(stderr, "\rframe %" PRIu64 " of %" PRIu64, r->frame, r->opts->total_frames);
}

static int by_time(const void *a, const void *b, void *times)
{
    double ta = ((const double *)times)[*(const uint32_t *)a], tb = ((const double *)times)[*(const uint32_t *)b];
    return ta < tb ? 1 : ta > tb ? -1 : 0;
}

static void print_stats(const struct replay *r, double seconds)
{
    FILE *out = r->opts->stats_out ? r->opts->stats_out : stdout;
    fprintf(out, "frames %" PRIu64 " in %.3f s: %.1f frames per second\n", r->frame, seconds,
            seconds > 0 ? (double)r->frame / seconds : 0.0);
    uint32_t order[RT_VK_CMD_COUNT], n = 0;
    for (uint32_t i = 0; i < RT_VK_CMD_COUNT; i++)
        if (r->calls_per_command[i])
            order[n++] = i;
    qsort_r(order, n, sizeof order[0], by_time, r->seconds_per_command);
    fprintf(out, "%10s %12s %10s  command\n", "calls", "total ms", "us/call");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = order[i];
        fprintf(out, "%10" PRIu64 " %12.3f %10.2f  %s\n", r->calls_per_command[c], r->seconds_per_command[c] * 1e3,
                r->seconds_per_command[c] * 1e6 / (double)r->calls_per_command[c], rt_vk_cmd_name((enum rt_vk_cmd)c));
    }
}

static rt_status replay_packet(struct replay *r, const struct rt_trace_packet *p)
{
    r->call_seq = p->seq;
    switch (p->type) {
    case RT_TRACE_PACKET_CALL:
        return replay_call_packet(r, p);
    case RT_TRACE_PACKET_MEMORY_UPDATE:
        r->result->memory_updates++;
        return replay_memory_update(r, p->u.memory.memory_id, p->u.memory.offset, p->u.memory.data,
                                    p->u.memory.size);
    case RT_TRACE_PACKET_UNSUPPORTED:
        r->result->unsupported++;
        rt_log(RT_LOG_WARN, "replay: the capture could not record %s (%.*s); the replay may differ",
               r->header->command_names[p->u.unsupported.command_id], (int)p->u.unsupported.length,
               p->u.unsupported.reason);
        return rt_ok_status();
    case RT_TRACE_PACKET_FRAME_END:
        r->frame++;
        replay_config_frame_end(r);
        replay_draws_frame_end(r);
        show_progress(r);
        return rt_ok_status();
    case RT_TRACE_PACKET_VERIFY:
        return replay_verify_packet(r, p); /* verify.c */
    case RT_TRACE_PACKET_ANNOTATION:
        replay_verify_annotation(r, p);
        return rt_ok_status();
    case RT_TRACE_PACKET_SNAPSHOT_BEGIN:
    case RT_TRACE_PACKET_SNAPSHOT_END:
    case RT_TRACE_PACKET_BUFFER_CONTENT:
    case RT_TRACE_PACKET_IMAGE_CONTENT:
    case RT_TRACE_PACKET_SYNC_STATE:
    case RT_TRACE_PACKET_QUERY_STATE:
    case RT_TRACE_PACKET_IMAGE_SAMPLES:
        return replay_snapshot_packet(r, p);
    default:
        return rt_ok_status();
    }
}

static rt_status map_commands(struct replay *r)
{
    r->calls_per_command = calloc(RT_VK_CMD_COUNT, sizeof *r->calls_per_command);
    r->seconds_per_command = calloc(RT_VK_CMD_COUNT, sizeof *r->seconds_per_command);
    if (!r->calls_per_command || !r->seconds_per_command)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->snapshot_guard = replay_snapshot_guard_id(r->header);
    r->snapshot_samples_guard = replay_snapshot_samples_guard_id(r->header);
    return replay_map_commands(r->header, &r->commands);
}

static void wait_idle(struct replay *r);

/* retrace trim: the replay stops where the trim's first frame begins. */
static bool trim_stops(struct replay *r, rt_status *s)
{
    const struct rt_replay_trim_hooks *t = r->opts->trim;
    if (!t || r->frame + 1 < t->stop_frame)
        return false;
    wait_idle(r);
    *s = t->stopped ? t->stopped(t->user, r) : rt_ok_status();
    return true;
}

/* Reads and replays packets until the end, the end frame, or an error. */
static rt_status replay_stream(struct replay *r, struct rt_trace_reader *reader)
{
    struct rt_trace_packet p;
    for (;;) {
        rt_status s = rt_trace_reader_next(reader, &p);
        if (!rt_ok(&s)) {
            r->result->good_prefix_only = true;
            return s;
        }
        if (p.type == RT_TRACE_PACKET_END)
            return rt_ok_status();
        RT_TRY(replay_packet(r, &p));
        rt_status stopped;
        if (p.type == RT_TRACE_PACKET_FRAME_END && trim_stops(r, &stopped))
            return stopped;
        if (r->opts->end_frame && r->frame >= r->opts->end_frame)
            return rt_ok_status();
    }
}

static void wait_idle(struct replay *r)
{
    struct rt_hashmap_iter it;
    uint64_t value;
    rt_status_drop(replay_present_waits_flush(r, false)); /* idle: nothing left to wait, these too */
    rt_hashmap_iter_init(&it, &r->devices);
    while (rt_hashmap_iter_next(&it, NULL, &value)) {
        struct replay_device *dev = (struct replay_device *)(uintptr_t)value;
        dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
    }
}

static void replay_finish(struct replay *r)
{
    wait_idle(r); /* a trace that ended early may leave work in flight */
    replay_swapchain_finish(r);
    replay_memory_finish(r);
    replay_instance_finish(r);
    replay_config_finish(r); /* after the devices, whose caches it saved */
    replay_addresses_finish(r);
    replay_readbacks_finish(r);
    replay_verify_finish(r);
    rt_typed_map_finish(&r->handles);
    rt_hashmap_finish(&r->memories);
    rt_hashmap_finish(&r->swapchains);
    replay_resources_finish(&r->resources);
    rt_hashmap_finish(&r->queue_families);
    rt_hashmap_finish(&r->recorded_copies);
    rt_arena_finish(&r->arena);
    free(r->walk);
    free(r->commands);
    free(r->calls_per_command);
    free(r->seconds_per_command);
}

static rt_status replay_once(const struct rt_replay_options *opts, struct rt_replay_result *result,
                             struct replay *r, uint32_t pass)
{
    struct rt_trace_reader *reader = NULL;
    RT_TRY(rt_status_wrap(rt_trace_reader_open(opts->trace_path, &reader), "%s", opts->trace_path));
    *r = (struct replay){.opts = opts, .result = result, .header = rt_trace_reader_header(reader), .pass = pass};
    rt_arena_init(&r->arena, 0, (size_t)1 << 30);
    rt_typed_map_init(&r->handles);
    rt_hashmap_init(&r->devices);
    rt_hashmap_init(&r->instances);
    rt_hashmap_init(&r->memories);
    rt_hashmap_init(&r->swapchains);
    replay_resources_init(&r->resources);
    rt_hashmap_init(&r->queue_families);
    rt_hashmap_init(&r->recorded_copies);
    rt_status s = map_commands(r);
    if (rt_ok(&s))
        s = replay_config_begin(r);
    if (rt_ok(&s))
        s = replay_draws_begin(r);
    if (rt_ok(&s))
        s = replay_stream(r, reader);
    rt_status drawn = replay_draws_finish(r); /* draws.json, while the devices live */
    if (rt_ok(&s))
        s = drawn;
    else
        rt_status_free(&drawn);
    if (opts->progress)
        fputc('\n', stderr);
    if (!rt_ok(&s) && result->good_prefix_only) {
        struct rt_trace_progress pr;
        rt_trace_reader_progress(reader, &pr);
        s = rt_status_wrap(s, "replayed the good part (%" PRIu64 " calls, %" PRIu64 " complete frames) of %s",
                           pr.calls, pr.frames, opts->trace_path);
    }
    result->frames += r->frame;
    result->last_frame = r->frame;
    rt_trace_reader_destroy(reader);
    return s;
}

rt_status rt_replay_run(const struct rt_replay_options *opts, struct rt_replay_result *result)
{
    *result = (struct rt_replay_result){0};
    if (volkInitialize() != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot load the Vulkan loader (libvulkan.so.1)");
    double start = now_seconds();
    rt_status s = rt_ok_status();
    uint32_t loops = opts->loop ? opts->loop : 1;
    for (uint32_t i = 0; i < loops && rt_ok(&s); i++) {
        struct replay *r = calloc(1, sizeof *r);
        if (!r)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        double loop_start = now_seconds();
        replay_crash_watch(r);
        s = replay_once(opts, result, r, i + 1);
        if (opts->stats && rt_ok(&s))
            print_stats(r, now_seconds() - loop_start);
        replay_finish(r);
        replay_crash_watch(NULL);
        free(r);
    }
    result->seconds = now_seconds() - start;
    return s;
}
