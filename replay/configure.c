/* replay/configure.c — the engine's side of a replay configuration: the
 * hooks of replay_config.h. Each runs the hooks of the workarounds that are
 * on (replay/workarounds/: one descriptor each, in registry order) at the
 * point it concerns (device creation, a call, a submission, a new
 * allocation, a frame's end), and applies what is not a workaround: the
 * delays (delays.c, gpu_stall.c), the replay's pipeline cache
 * (pipeline_cache.c) and the report's per-frame times and screenshots. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "replay_config.h"
#include "workarounds/workaround.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool replay_workaround(const struct replay *r, enum rt_workaround w)
{
    return r->config && r->config->cfg->workarounds[w];
}

/* The workarounds that are on, in registry order: for (w = first(r); w; w = next(r, w)). */
static const struct replay_workaround *next_on(const struct replay *r, int from)
{
    for (int i = from; r->config && i < RT_WA_COUNT; i++)
        if (r->config->cfg->workarounds[i])
            return replay_workarounds[i];
    return NULL;
}

#define EACH_WORKAROUND(r, w) for (const struct replay_workaround *w = next_on(r, 0); w; w = next_on(r, (int)w->id + 1))

rt_status replay_config_begin(struct replay *r)
{
    struct rt_replay_outcome *o = &r->result->outcome;
    snprintf(o->application, sizeof o->application, "%s", r->header->application_name);
    if (r->header->has_device)
        snprintf(o->capture_device, sizeof o->capture_device, "%s", r->header->device.device_name);
    if (!r->opts->config)
        return rt_ok_status();
    struct replay_config_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    st->cfg = r->opts->config;
    for (uint32_t i = 0; i < st->cfg->delay_count; i++)
        st->delay[st->cfg->delays[i].event] = &st->cfg->delays[i];
    rt_jitter_init(&st->jitter, st->cfg->seed);
    rt_hashmap_init(&st->readback_cmds);
    st->frame_start = now_seconds();
    r->config = st;
    return rt_ok_status();
}

void replay_config_finish(struct replay *r)
{
    struct replay_config_state *st = r->config;
    if (!st)
        return;
    rt_hashmap_finish(&st->readback_cmds);
    free(st);
    r->config = NULL;
}

static rt_status grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return rt_ok_status();
    size_t n = *capacity ? *capacity * 2 : 64;
    void *grown = realloc(*items, n * size);
    if (!grown)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    *items = grown;
    *capacity = n;
    return rt_ok_status();
}

void replay_config_frame_end(struct replay *r)
{
    struct rt_replay_outcome *o = &r->result->outcome;
    EACH_WORKAROUND(r, w)
        if (w->frame_end)
            w->frame_end(r);
    if (!r->config || o->frame_count >= RT_REPLAY_MAX_FRAME_TIMES)
        return;
    double now = now_seconds();
    rt_status s = grow((void **)&o->frame_ms, &o->frame_capacity, o->frame_count, sizeof *o->frame_ms);
    if (rt_ok(&s))
        o->frame_ms[o->frame_count++] = (now - r->config->frame_start) * 1e3;
    r->config->frame_start = now;
}

void replay_config_screenshot(struct replay *r, uint64_t frame, const char *path)
{
    struct rt_replay_outcome *o = &r->result->outcome;
    size_t capacity = o->screenshot_capacity;
    rt_status s = grow((void **)&o->screenshot_frames, &capacity, o->screenshot_count, sizeof *o->screenshot_frames);
    if (rt_ok(&s))
        s = grow((void **)&o->screenshot_paths, &o->screenshot_capacity, o->screenshot_count,
                 sizeof *o->screenshot_paths);
    char *copy = rt_ok(&s) ? strdup(path) : NULL;
    if (!copy)
        return; /* out of memory: the report lists one screenshot fewer */
    o->screenshot_frames[o->screenshot_count] = frame;
    o->screenshot_paths[o->screenshot_count++] = copy;
}

void rt_replay_outcome_finish(struct rt_replay_outcome *o)
{
    for (size_t i = 0; i < o->screenshot_count; i++)
        free(o->screenshot_paths[i]);
    free(o->frame_ms);
    free(o->screenshot_frames);
    free(o->screenshot_paths);
    o->frame_ms = NULL;
    o->screenshot_frames = NULL;
    o->screenshot_paths = NULL;
    o->frame_count = o->frame_capacity = o->screenshot_count = o->screenshot_capacity = 0;
}

void replay_config_validation_message(struct replay *r, const char *message_id)
{
    if (message_id && !strncmp(message_id, "SYNC-HAZARD", 11))
        r->result->outcome.sync_hazards++;
}

/* Hazards between submissions (draws in one, the copy reading them in the
 * next) are checked only with this enable, which the layers of Vulkan SDK
 * 1.3.2xx (Debian 12's) read from the environment; later layers ignore it. */
static void enable_submit_validation(void)
{
    static const char key[] = "VALIDATION_CHECK_ENABLE_SYNCHRONIZATION_VALIDATION_QUEUE_SUBMIT";
    const char *old = getenv("VK_LAYER_ENABLES");
    char value[1024];
    if (old && strstr(old, key))
        return;
    snprintf(value, sizeof value, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", key);
    setenv("VK_LAYER_ENABLES", value, 1);
}

const void *replay_config_instance_chain(struct replay *r, const void *next)
{
    static const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    if (!r->opts->config || r->opts->config->validate != RT_VALIDATE_SYNC)
        return next;
    enable_submit_validation();
    VkValidationFeaturesEXT *f = rt_arena_calloc(&r->arena, 1, sizeof *f, 8);
    if (!f)
        return next;
    *f = (VkValidationFeaturesEXT){.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, .pNext = next,
                                   .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = enables};
    return f;
}

/* --- submission: the workarounds' hooks around it, the gpu delay ---------- */

static struct replay_gpu_stall *stall_of(struct replay *r, struct replay_device *dev)
{
    for (int i = 0; i < REPLAY_MAX_STALLS; i++)
        if (r->config->stalls[i] && *(struct replay_device **)r->config->stalls[i] == dev)
            return r->config->stalls[i];
    return NULL;
}

static rt_status before_submit(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    VkQueue captured;
    uint64_t live = 0;
    memcpy(&captured, args, sizeof captured); /* every submit starts with its queue */
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_QUEUE, (uint64_t)(uintptr_t)captured, &live));
    VkQueue queue = (VkQueue)(uintptr_t)live;
    struct replay_device *dev = replay_device_of(r, queue);
    if (!dev)
        return rt_ok_status();
    EACH_WORKAROUND(r, w)
        if (w->before_submit)
            RT_TRY(w->before_submit(r, dev, cmd, args));
    struct replay_gpu_stall *stall = r->config->delay[RT_DELAY_GPU] ? stall_of(r, dev) : NULL;
    if (stall && (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_EXECUTES))
        RT_TRY(replay_gpu_stall_submit(r, stall, queue));
    return rt_ok_status();
}

static rt_status after_submit(struct replay *r, const void *args)
{
    VkQueue queue;
    memcpy(&queue, args, sizeof queue); /* mapped to the live queue by the call */
    r->config->submissions_in_flight++;
    struct replay_device *dev = replay_device_of(r, queue);
    if (!dev)
        return rt_ok_status();
    EACH_WORKAROUND(r, w)
        if (w->after_submit)
            RT_TRY(w->after_submit(r, dev, queue));
    return rt_ok_status();
}

/* --- calls --------------------------------------------------------------------- */

/* --pipeline-cache: every pipeline the trace creates uses the replay's cache. */
static void use_replay_cache(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    VkPipelineCache *slot = rt_vk_cmd_arg(cmd, args, rt_vk_commands[cmd].pipeline_cache_arg);
    if (r->config->cache && slot)
        *slot = (VkPipelineCache)(uintptr_t)replay_pipeline_cache_id(r->config->cache);
}

rt_status replay_config_before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (!r->config)
        return rt_ok_status();
    replay_delay_before_call(r, cmd);
    EACH_WORKAROUND(r, w)
        if (w->before_call)
            RT_TRY(w->before_call(r, cmd, args));
    if (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_SUBMITS)
        return before_submit(r, cmd, args);
    if (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_CREATES_PIPELINE)
        use_replay_cache(r, cmd, args);
    return rt_ok_status();
}

rt_status replay_config_after_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (!r->config)
        return rt_ok_status();
    if (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_SUBMITS)
        return after_submit(r, args);
    EACH_WORKAROUND(r, w)
        if (w->after_call)
            RT_TRY(w->after_call(r, cmd, args));
    return rt_ok_status();
}

/* --- device creation and memory ------------------------------------------------ */

rt_status replay_config_adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    if (!r->config)
        return rt_ok_status();
    /* first: the chain loses the structures of extensions strip-unsupported
     * already left out, before any workaround adds to it */
    replay_strip_device_chain(r, info);
    EACH_WORKAROUND(r, w)
        if (w->adjust_device)
            RT_TRY(w->adjust_device(r, info));
    return rt_ok_status();
}

rt_status replay_config_new_memory(struct replay *r, struct replay_device *dev, VkDeviceMemory memory,
                                   VkDeviceSize size, uint32_t type_index)
{
    EACH_WORKAROUND(r, w)
        if (w->new_memory)
            RT_TRY(w->new_memory(r, dev, memory, size, type_index));
    return rt_ok_status();
}
