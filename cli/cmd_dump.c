/*
 * cli/cmd_dump.c — `retrace dump TRACE`: one line per call, with enums and
 * flags by name and handles as stable symbolic numbers (<VkBuffer 7>: the
 * seventh buffer the trace mentions), so dumps of two captures of the same
 * program can be diffed.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hashmap.h"
#include "typedmap.h"
#include "trace.h"
#include "vkcodec.h"

void cmd_dump_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace dump TRACE [--calls A-B] [--frame N] [--json]\n"
            "  Prints every call: SEQ vkName(param=value, ...) = RESULT. Handles print as\n"
            "  <VkType N>, numbered per type in order of first appearance.\n"
            "  Lines starting with '--' are memory updates, frame ends and annotations.\n"
            "  --calls A-B  only packets with sequence numbers A to B (inclusive)\n"
            "  --frame N    only frame N (frames count from 1)\n"
            "  --json       one JSON object per line\n"
            "exit: 0 ok, 2 usage, 3 unreadable or corrupt trace (what was good is printed)\n");
}

struct dump {
    uint64_t first_seq, last_seq;
    uint64_t frame; /* 0 = all */
    bool json;
    uint64_t current_frame;
    struct rt_typed_map numbers; /* (VkObjectType, id) -> symbolic number */
    struct rt_hashmap counts;   /* VkObjectType -> handles numbered so far */
    enum rt_vk_cmd *commands;   /* trace command id -> codec command, or RT_VK_CMD_COUNT */
    struct rt_arena arena;
    char *line;
    size_t line_size;
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
}

static rt_status parse_range(const char *text, uint64_t *first, uint64_t *last)
{
    char *end;
    errno = 0;
    *first = strtoull(text, &end, 10);
    *last = *first;
    if (*end == '-')
        *last = strtoull(end + 1, &end, 10);
    if (errno || *end || end == text || *last < *first)
        return rt_errorf(RT_ERR_USAGE, "bad call range '%s' (expected A-B)", text);
    return rt_ok_status();
}

static int parse_args(int argc, char **argv, struct dump *d, const char **path)
{
    static const struct option options[] = {
        {"calls", required_argument, NULL, 'c'}, {"frame", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0}};
    const struct rt_command *self = cli_find_command("dump");
    d->last_seq = UINT64_MAX;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'c': {
            rt_status s = parse_range(optarg, &d->first_seq, &d->last_seq);
            if (!rt_ok(&s))
                return cli_usage_error(self, "%s", s.msg);
            break;
        }
        case 'f':
            d->frame = strtoull(optarg, &end, 10);
            if (*end || d->frame == 0)
                return cli_usage_error(self, "bad frame '%s' (frames count from 1)", optarg);
            break;
        case 'j': d->json = true; break;
        case 'h': cmd_dump_usage(stdout); return -1;
        default: return cli_usage_error(self, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(self, "expected one TRACE");
    *path = argv[optind];
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
    if (text)
        cJSON_AddStringToObject(o, "text", text);
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        puts(s);
    free(s);
    cJSON_Delete(o);
}

static rt_status print_call(struct dump *d, const struct rt_trace_header *h, const struct rt_trace_packet *p)
{
    enum rt_vk_cmd cmd = d->commands[p->u.call.command_id];
    const char *name = h->command_names[p->u.call.command_id];
    if (cmd == RT_VK_CMD_COUNT || rt_vk_args_size(cmd) == 0) {
        if (d->json)
            print_json(d, p, "call", name, "not decodable by this build");
        else
            printf("%" PRIu64 " %s(...) [not decodable by this build]\n", p->seq, name);
        return rt_ok_status();
    }
    RT_TRY(format_call(d, cmd, p));
    if (d->json)
        print_json(d, p, "call", name, d->line);
    else
        printf("%" PRIu64 " %s\n", p->seq, d->line);
    return rt_ok_status();
}

static rt_status print_packet(struct dump *d, const struct rt_trace_header *h, const struct rt_trace_packet *p)
{
    char text[160];
    switch (p->type) {
    case RT_TRACE_PACKET_CALL:
        return print_call(d, h, p);
    case RT_TRACE_PACKET_MEMORY_UPDATE:
        snprintf(text, sizeof text, "memory <VkDeviceMemory %" PRIu64 "> offset=%" PRIu64 " size=%zu",
                 symbolic_handle(d, VK_OBJECT_TYPE_DEVICE_MEMORY, p->u.memory.memory_id), p->u.memory.offset,
                 p->u.memory.size);
        break;
    case RT_TRACE_PACKET_FRAME_END:
        snprintf(text, sizeof text, "end of frame %" PRIu64, p->u.frame_end.frame);
        break;
    case RT_TRACE_PACKET_ANNOTATION:
        snprintf(text, sizeof text, "annotation %u: %.*s", p->u.annotation.kind,
                 (int)(p->u.annotation.length > 120 ? 120 : p->u.annotation.length), p->u.annotation.text);
        break;
    case RT_TRACE_PACKET_UNSUPPORTED:
        snprintf(text, sizeof text, "%s: not recorded faithfully: %.*s",
                 h->command_names[p->u.unsupported.command_id],
                 (int)(p->u.unsupported.length > 100 ? 100 : p->u.unsupported.length), p->u.unsupported.reason);
        break;
    default:
        return rt_ok_status();
    }
    if (d->json)
        print_json(d, p, "event", NULL, text);
    else
        printf("%" PRIu64 " -- %s\n", p->seq, text);
    return rt_ok_status();
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
        if (wanted(d, &p))
            RT_TRY(print_packet(d, h, &p));
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
        return rc < 0 ? 0 : rc;
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
