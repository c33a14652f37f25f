/*
 * cli/cmd_dump.c — `retrace dump TRACE`: one line per call, with enums and
 * flags by name and handles as stable symbolic numbers (<VkBuffer 7>: the
 * seventh buffer the trace mentions), so dumps of two captures of the same
 * program can be diffed.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "escape.h"
#include "hashmap.h"
#include "typedmap.h"
#include "trace.h"
#include "trace_snapshot.h"
#include "vkcodec.h"

enum { OPT_CALLS = 1, OPT_FRAME, OPT_JSON };
static const struct cli_option options[] = {
    {"calls", 0, CLI_VALUE, OPT_CALLS, "A-B", "only packets with sequence numbers A to B (inclusive; A- to the end)"},
    {"frame", 0, CLI_VALUE, OPT_FRAME, "N", "only frame N (frames count from 1)"},
    {"json", 0, CLI_FLAG, OPT_JSON, NULL, "one JSON object per line"},
    {0}};

void cmd_dump_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace dump TRACE [--calls A-B] [--frame N] [--json]\n"
            "  Prints every call: SEQ vkName(param=value, ...) = RESULT. Handles print as\n"
            "  <VkType N>, numbered per type in order of first appearance.\n"
            "  Lines starting with '--' are memory updates, frame ends and annotations;\n"
            "  a trimmed trace's state snapshot is indented with '| '.\n");
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "ok"},
        {RT_ERR_USAGE, "usage"},
        {RT_ERR_BAD_INPUT, "unreadable or corrupt trace (what was good is printed)"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

struct dump {
    uint64_t first_seq, last_seq;
    uint64_t frame; /* 0 = all */
    bool json;
    uint64_t current_frame;
    bool in_snapshot; /* between a trimmed trace's snapshot begin and end: indented */
    struct rt_typed_map numbers; /* (VkObjectType, id) -> symbolic number */
    struct rt_hashmap counts;   /* VkObjectType -> handles numbered so far */
    enum rt_vk_cmd *commands;   /* trace command id -> codec command, or RT_VK_CMD_COUNT */
    struct rt_arena arena;
    char *line;
    size_t line_size;
    struct cli_text text, name; /* escaped output (escape.h) */
    bool silent; /* a packet before the range asked: its handles are numbered, nothing printed */
};

/* The namer: the Nth distinct handle of a type is number N; VK_NULL_HANDLE 0. */
static uint64_t symbolic_handle(void *user, VkObjectType type, uint64_t id)
{
    struct dump *d = user;
    if (id == 0)
        return 0;
    uint64_t number = 0;
    if (rt_typed_map_get(&d->numbers, (uint32_t)type, id, &number))
        return number;
    rt_hashmap_get(&d->counts, (uint64_t)type, &number);
    number++;
    if (!rt_hashmap_put(&d->counts, (uint64_t)type, number) ||
        !rt_typed_map_put(&d->numbers, (uint32_t)type, id, number))
        return id; /* out of memory: the raw id still identifies it */
    return number;
}

static void dump_finish(struct dump *d)
{
    rt_typed_map_finish(&d->numbers);
    rt_hashmap_finish(&d->counts);
    rt_arena_finish(&d->arena);
    free(d->commands);
    free(d->line);
    cli_text_finish(&d->text);
    cli_text_finish(&d->name);
}

/* "A-B", "A-" (to the end) or "A": sequence numbers, strict (no sign, no junk, no overflow). */
static int parse_range(struct cli_args *p, uint64_t *first, uint64_t *last)
{
    char text[64];
    const char *dash = strchr(p->value, '-');
    size_t n = dash ? (size_t)(dash - p->value) : strlen(p->value);
    if (n < sizeof text) {
        memcpy(text, p->value, n);
        text[n] = '\0';
    }
    if (n < sizeof text && cli_parse_u64(text, 0, UINT64_MAX, first) &&
        ((dash && !dash[1] && (*last = UINT64_MAX)) ||
         cli_parse_u64(dash ? dash + 1 : text, *first, UINT64_MAX, last)))
        return 0;
    return cli_bad_value(p->cmd, p->option, "A-B, A- or A, call numbers from 0 with A <= B",
                         p->value);
}

/* 0 to go on, CLI_HELP_SHOWN, or an exit code. */
static int parse_args(int argc, char **argv, struct dump *d, const char **path)
{
    const struct rt_command *self = cli_find_command("dump");
    d->last_seq = UINT64_MAX;
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, 0);
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        int rc = 0;
        switch (id) {
        case CLI_ARGS_STOP: return p.result;
        case OPT_CALLS: rc = parse_range(&p, &d->first_seq, &d->last_seq); break;
        case OPT_FRAME:
            if (!cli_parse_u64(p.value, 1, UINT64_MAX, &d->frame))
                rc = cli_bad_value(self, p.option, "a frame number (frames count from 1)",
                                   p.value);
            break;
        case OPT_JSON: d->json = true; break;
        default:
            if (*path)
                return cli_usage_error(self, "expected one TRACE, got '%s' too", p.value);
            *path = p.value;
        }
        if (rc)
            return rc;
    }
    if (!*path)
        return cli_usage_error(self, "expected one TRACE");
    return 0;
}

static rt_status map_commands(struct dump *d, const struct rt_trace_header *h)
{
    d->commands = calloc(h->command_count ? h->command_count : 1, sizeof *d->commands);
    if (!d->commands)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (uint32_t i = 0; i < h->command_count; i++)
        if (!rt_vk_cmd_from_name(h->command_names[i], &d->commands[i]))
            d->commands[i] = RT_VK_CMD_COUNT;
    return rt_ok_status();
}

/* Formats the call into d->line, growing it to fit. */
static rt_status format_call(struct dump *d, enum rt_vk_cmd cmd, const struct rt_trace_packet *p)
{
    rt_arena_reset(&d->arena);
    void *args = rt_arena_calloc(&d->arena, 1, rt_vk_args_size(cmd), 16);
    if (!args)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    struct rt_dec dec;
    rt_dec_init(&dec, p->u.call.params, p->u.call.size, &d->arena);
    RT_TRY(rt_status_wrap(rt_vk_decode_call(&dec, cmd, args), "call %" PRIu64 " (%s)", p->seq,
                          rt_vk_cmd_name(cmd)));
    struct rt_vk_print_opts opts = {.namer = symbolic_handle, .user = d};
    size_t n = rt_vk_format_call(d->line, d->line_size, cmd, args, &opts);
    if (n >= d->line_size) {
        char *bigger = realloc(d->line, n + 1);
        if (!bigger)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        d->line = bigger;
        d->line_size = n + 1;
        rt_vk_format_call(d->line, d->line_size, cmd, args, &opts);
    }
    return rt_ok_status();
}

/* One object per line; every string was escaped (escape.h), so it is valid
 * UTF-8 whatever bytes the trace holds. */
static void print_json(const struct dump *d, const struct rt_trace_packet *p, const char *kind,
                       const char *command, const char *text)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "seq", (double)p->seq);
    cJSON_AddNumberToObject(o, "frame", (double)d->current_frame);
    cJSON_AddStringToObject(o, "kind", kind);
    if (command)
        cJSON_AddStringToObject(o, "command", command);
    if (p->type == RT_TRACE_PACKET_CALL)
        cJSON_AddNumberToObject(o, "thread", p->u.call.thread_id);
    if (d->in_snapshot || p->type == RT_TRACE_PACKET_SNAPSHOT_END)
        cJSON_AddBoolToObject(o, "snapshot", true);
    cJSON_AddStringToObject(o, "text", text);
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        puts(s);
    free(s);
    cJSON_Delete(o);
}

/*
 * Prints one packet: "SEQ TEXT" for a call, "SEQ -- TEXT" for an event, or
 * its JSON object. NAME (may be NULL) and TEXT (LEN bytes) come from the
 * trace and may hold any bytes: control characters and invalid UTF-8 are
 * escaped here, in text and JSON alike.
 */
static rt_status emit(struct dump *d, const struct rt_trace_packet *p, const char *name,
                      const char *text, size_t len)
{
    if (d->silent)
        return rt_ok_status();
    if (!cli_escape(&d->text, text, len) || (name && !cli_escape(&d->name, name, strlen(name))))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    bool call = p->type == RT_TRACE_PACKET_CALL;
    if (d->json)
        print_json(d, p, call ? "call" : "event", name ? d->name.data : NULL, d->text.data);
    else
        printf("%" PRIu64 " %s%s%s\n", p->seq, d->in_snapshot ? "  | " : "", call ? "" : "-- ", d->text.data);
    return rt_ok_status();
}

static rt_status print_call(struct dump *d, const struct rt_trace_header *h, const struct rt_trace_packet *p)
{
    enum rt_vk_cmd cmd = d->commands[p->u.call.command_id];
    const char *name = h->command_names[p->u.call.command_id];
    if (!strcmp(name, rt_trace_snapshot_guard)) {
        static const char guard[] = "snapshot guard: replays older than trace format 1.2 stop here";
        return emit(d, p, name, guard, sizeof guard - 1);
    }
    if (!strcmp(name, rt_trace_snapshot_samples_guard)) {
        static const char guard[] = "snapshot samples guard: replays older than trace format 1.4 stop here";
        return emit(d, p, name, guard, sizeof guard - 1);
    }
    if (cmd == RT_VK_CMD_COUNT || rt_vk_args_size(cmd) == 0) {
        char text[512];
        int n = d->json ? snprintf(text, sizeof text, "not decodable by this build")
                        : snprintf(text, sizeof text, "%.200s(...) [not decodable by this build]",
                                   name);
        return emit(d, p, name, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    }
    RT_TRY(format_call(d, cmd, p));
    return emit(d, p, name, d->line, strlen(d->line));
}

/* PREFIX then up to MAX bytes of PAYLOAD (which may hold NULs) into BUF. */
static size_t compose(char *buf, size_t size, const char *prefix, const char *payload,
                      size_t length, size_t max)
{
    size_t n = (size_t)snprintf(buf, size, "%s", prefix);
    n = n < size ? n : size - 1;
    size_t take = length < max ? length : max;
    take = take < size - n ? take : size - n;
    memcpy(buf + n, payload, take);
    return n + take;
}

/* "verify <VkDeviceMemory 3> 0+4096, <VkDeviceMemory 3> 61440+4096": a
 * verification point's ranges (replay --verify checks them), the first few. */
static size_t verify_text(struct dump *d, const struct rt_trace_packet *p, char *text, size_t size)
{
    struct rt_trace_verify_cursor c;
    struct rt_trace_verify_range g;
    size_t n = (size_t)snprintf(text, size, "verify %u ranges:", p->u.verify.count);
    rt_trace_verify_begin(p, &c);
    for (unsigned i = 0; n < size && rt_trace_verify_next(&c, &g); i++)
        n += (size_t)(i < 4 ? snprintf(text + n, size - n, "%s <VkDeviceMemory %" PRIu64 "> %" PRIu64 "+%u",
                                       i ? "," : "", symbolic_handle(d, VK_OBJECT_TYPE_DEVICE_MEMORY, g.memory_id),
                                       g.offset, g.size)
                             : i == 4 ? snprintf(text + n, size - n, ", ...") : 0);
    return n;
}

/* A trimmed trace's snapshot packets (trace_snapshot.h), one line each. */
static size_t snapshot_text(struct dump *d, const struct rt_trace_packet *p, char *text, size_t size)
{
    struct rt_trace_snapshot_begin b;
    struct rt_trace_snapshot_end e;
    struct rt_trace_buffer_content bc;
    struct rt_trace_image_content ic;
    struct rt_trace_image_samples is;
    struct rt_trace_sync_state ss;
    struct rt_trace_query_state qs;
    if (rt_trace_snapshot_begin_decode(p, &b))
        return (size_t)snprintf(text, size, "snapshot begin: state at frame %" PRIu64 " of %.*s, then its frames %"
                                PRIu64 "-%" PRIu64, b.first_frame, (int)b.source_length, b.source, b.first_frame,
                                b.last_frame);
    if (rt_trace_snapshot_end_decode(p, &e))
        return (size_t)snprintf(text, size, "snapshot end: %" PRIu64 " packets, %" PRIu64 " bytes", e.packet_count,
                                e.bytes);
    if (rt_trace_buffer_content_decode(p, &bc))
        return (size_t)snprintf(text, size, "content <VkBuffer %" PRIu64 "> offset=%" PRIu64 " size=%zu",
                                symbolic_handle(d, VK_OBJECT_TYPE_BUFFER, bc.buffer_id), bc.offset, bc.size);
    if (rt_trace_image_content_decode(p, &ic))
        return (size_t)snprintf(text, size, "content <VkImage %" PRIu64 "> aspect=0x%x mip=%u layer=%u layout=%u "
                                "region=%u,%u,%u+%ux%ux%u size=%zu", symbolic_handle(d, VK_OBJECT_TYPE_IMAGE,
                                ic.image_id), ic.aspect, ic.mip, ic.layer, ic.layout, ic.x, ic.y, ic.z, ic.width,
                                ic.height, ic.depth, ic.size);
    if (rt_trace_sync_state_decode(p, &ss))
        return (size_t)snprintf(text, size, "sync object type %u <%" PRIu64 "> value=%" PRIu64, ss.object_type,
                                symbolic_handle(d, (VkObjectType)ss.object_type, ss.object_id), ss.value);
    if (rt_trace_query_state_decode(p, &qs)) {
        uint32_t available = 0;
        for (uint32_t i = 0; i < qs.count; i++)
            available += qs.available[i] != 0;
        return (size_t)snprintf(text, size, "queries <VkQueryPool %" PRIu64 "> type=%u available=%u of %u",
                                symbolic_handle(d, VK_OBJECT_TYPE_QUERY_POOL, qs.pool_id), qs.query_type, available,
                                qs.count);
    }
    if (rt_trace_image_samples_decode(p, &is))
        return (size_t)snprintf(text, size, "samples <VkImage %" PRIu64 "> aspect=0x%x layer=%u layout=%u samples=%u "
                                "kind=%u region=%u,%u+%ux%u size=%zu", symbolic_handle(d, VK_OBJECT_TYPE_IMAGE,
                                is.image_id), is.aspect, is.layer, is.layout, is.samples, is.kind, is.x, is.y,
                                is.width, is.height, is.size);
    return (size_t)snprintf(text, size, "snapshot packet that does not decode");
}

static rt_status print_packet(struct dump *d, const struct rt_trace_header *h, const struct rt_trace_packet *p)
{
    char text[512], prefix[256];
    size_t n = 0;
    switch (p->type) {
    case RT_TRACE_PACKET_CALL:
        return print_call(d, h, p);
    case RT_TRACE_PACKET_MEMORY_UPDATE:
        n = (size_t)snprintf(text, sizeof text, "memory <VkDeviceMemory %" PRIu64 "> offset=%" PRIu64
                             " size=%zu", symbolic_handle(d, VK_OBJECT_TYPE_DEVICE_MEMORY,
                             p->u.memory.memory_id), p->u.memory.offset, p->u.memory.size);
        break;
    case RT_TRACE_PACKET_FRAME_END:
        n = (size_t)snprintf(text, sizeof text, "end of frame %" PRIu64, p->u.frame_end.frame);
        break;
    case RT_TRACE_PACKET_ANNOTATION:
        snprintf(prefix, sizeof prefix, "annotation %u: ", p->u.annotation.kind);
        n = compose(text, sizeof text, prefix, p->u.annotation.text, p->u.annotation.length, 120);
        break;
    case RT_TRACE_PACKET_UNSUPPORTED:
        snprintf(prefix, sizeof prefix, "%.200s: not recorded faithfully: ",
                 h->command_names[p->u.unsupported.command_id]);
        n = compose(text, sizeof text, prefix, p->u.unsupported.reason, p->u.unsupported.length,
                    100);
        break;
    case RT_TRACE_PACKET_VERIFY:
        n = verify_text(d, p, text, sizeof text);
        break;
    default:
        /* trace/ says which types are the snapshot's (a list here lagged
         * behind when IMAGE_SAMPLES came; duplicates D36) */
        if (!rt_trace_packet_is_snapshot(p->type))
            return rt_ok_status();
        n = snapshot_text(d, p, text, sizeof text);
        break;
    }
    return emit(d, p, NULL, text, n < sizeof text ? n : sizeof text - 1);
}

static bool wanted(const struct dump *d, const struct rt_trace_packet *p)
{
    return p->seq >= d->first_seq && p->seq <= d->last_seq &&
           (d->frame == 0 || d->frame == d->current_frame);
}

static rt_status dump_trace(struct dump *d, struct rt_trace_reader *r)
{
    const struct rt_trace_header *h = rt_trace_reader_header(r);
    RT_TRY(map_commands(d, h));
    struct rt_trace_packet p;
    d->current_frame = 1;
    for (;;) {
        RT_TRY(rt_trace_reader_next(r, &p));
        if (p.type == RT_TRACE_PACKET_END || (d->frame && d->current_frame > d->frame) || p.seq > d->last_seq)
            return rt_ok_status();
        /* Every packet before the range is read as if printed, so a handle
         * has the number it has in a full dump, whatever range is asked. */
        if (p.type == RT_TRACE_PACKET_SNAPSHOT_END)
            d->in_snapshot = false;
        d->silent = !wanted(d, &p);
        RT_TRY(print_packet(d, h, &p));
        if (p.type == RT_TRACE_PACKET_SNAPSHOT_BEGIN)
            d->in_snapshot = true;
        if (p.type == RT_TRACE_PACKET_FRAME_END)
            d->current_frame++;
    }
}

int cmd_dump_run(int argc, char **argv)
{
    struct dump d = {0};
    const char *path = NULL;
    int rc = parse_args(argc, argv, &d, &path);
    if (rc)
        return cli_exit_code(rc);
    rt_typed_map_init(&d.numbers);
    rt_hashmap_init(&d.counts);
    rt_arena_init(&d.arena, 0, 0);
    struct rt_trace_reader *r = NULL;
    rt_status s = rt_status_wrap(rt_trace_reader_open(path, &r), "%s", path);
    if (rt_ok(&s))
        s = dump_trace(&d, r);
    if (!rt_ok(&s) && r) {
        struct rt_trace_progress pr;
        rt_trace_reader_progress(r, &pr);
        fflush(stdout);
        fprintf(stderr, "retrace: the trace is good up to byte %" PRIu64 " (%" PRIu64 " calls, %" PRIu64
                " complete frames)\n", pr.good_bytes, pr.calls, pr.frames);
    }
    rt_trace_reader_destroy(r);
    dump_finish(&d);
    return cli_fail(s);
}
