/* replay/draws_scan.c — which recordings made before frame F does frame F
 * submit? A frame that re-submits command buffers recorded earlier (vkcube,
 * vkd3d-gears after their first frame) records no draws of its own; its draws
 * are in those earlier recordings. Before the replay starts, a second reader
 * reads the trace up to frame F's end, following each command buffer's
 * current recording (the seq of its vkBeginCommandBuffer), the secondaries
 * each recording executes, and what frame F's submissions hold. The replay
 * then numbers and dumps the draws of those recordings as frame F's
 * (docs/FORMATS.md 7.1). Only recording, executing and submitting calls are
 * decoded. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "draws.h"

/* Commands that run other command buffers inside the first (a table: no name compares). */
static const bool executes[RT_VK_CMD_COUNT] = {[RT_VK_CMD_vkCmdExecuteCommands] = true};

struct scan {
    struct rt_hashmap current;   /* captured command buffer -> seq of its recording's begin */
    uint64_t (*kids)[2];         /* {parent recording seq, child recording seq} pairs */
    size_t kid_count, kid_capacity;
    uint64_t frame_start;        /* the seq at which frame F begins */
    struct rt_hashmap *out;      /* recording seq -> 1, those begun before frame F */
    bool oom;
    /* per walked call */
    uint64_t handles[64];
    uint32_t handle_count;
};

static void collect(void *user, VkObjectType type, void *slot, bool output)
{
    struct scan *s = user;
    uint64_t id;
    memcpy(&id, slot, sizeof id);
    if (type == VK_OBJECT_TYPE_COMMAND_BUFFER && id && !output && s->handle_count < 64)
        s->handles[s->handle_count++] = id;
}

static uint64_t recording_of(const struct scan *s, uint64_t cb)
{
    uint64_t seq = 0;
    return rt_hashmap_get(&s->current, cb, &seq) ? seq : 0;
}

static void add_kid(struct scan *s, uint64_t parent, uint64_t child)
{
    if (s->kid_count == s->kid_capacity) {
        size_t n = s->kid_capacity ? s->kid_capacity * 2 : 64;
        void *grown = realloc(s->kids, n * sizeof *s->kids);
        if (!grown) {
            s->oom = true;
            return;
        }
        s->kids = grown;
        s->kid_capacity = n;
    }
    s->kids[s->kid_count][0] = parent;
    s->kids[s->kid_count][1] = child;
    s->kid_count++;
}

/* Recording SEQ runs in frame F: an earlier one is frame F's, and so are the secondaries it executes. */
static void submitted(struct scan *s, uint64_t seq, uint32_t depth)
{
    uint64_t had = 0;
    if (!seq || depth > 4)
        return;
    if (seq < s->frame_start && !rt_hashmap_get(s->out, seq, &had) && !rt_hashmap_put(s->out, seq, 1))
        s->oom = true;
    for (size_t i = 0; i < s->kid_count; i++) /* few secondaries per frame: a scan is enough */
        if (s->kids[i][0] == seq)
            submitted(s, s->kids[i][1], depth + 1);
}

static rt_status scan_call(struct scan *s, struct replay *r, const struct rt_trace_header *h,
                           const struct rt_trace_packet *p, struct rt_arena *arena, bool in_frame)
{
    enum rt_vk_cmd cmd = r->commands[p->u.call.command_id];
    uint64_t flags = cmd < RT_VK_CMD_COUNT ? rt_vk_cmd_flags(cmd) : 0;
    bool begins = cmd < RT_VK_CMD_COUNT && (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_BEGINS_RECORDING);
    bool submits = in_frame && (flags & RT_VK_CMD_FLAG_SUBMITS);
    if (!begins && !submits && !(cmd < RT_VK_CMD_COUNT && executes[cmd]))
        return rt_ok_status();
    void *args;
    enum rt_vk_cmd decoded;
    rt_status st = replay_decode_call(h, r->commands, p, arena, &decoded, &args);
    if (!rt_ok(&st)) { /* the replay itself will say so */
        rt_status_free(&st);
        return rt_ok_status();
    }
    s->handle_count = 0;
    rt_vk_walk_handles(decoded, args, collect, s);
    if (begins && s->handle_count && !rt_hashmap_put(&s->current, s->handles[0], p->seq))
        s->oom = true;
    for (uint32_t i = 1; executes[decoded] && i < s->handle_count; i++)
        add_kid(s, recording_of(s, s->handles[0]), recording_of(s, s->handles[i]));
    for (uint32_t i = 0; submits && i < s->handle_count; i++)
        submitted(s, recording_of(s, s->handles[i]), 0);
    return s->oom ? rt_errorf(RT_ERR_INTERNAL, "out of memory") : rt_ok_status();
}

rt_status replay_draws_scan(struct replay *r, uint64_t frame, struct rt_hashmap *out)
{
    struct rt_trace_reader *reader = NULL;
    RT_TRY(rt_status_wrap(rt_trace_reader_open(r->opts->trace_path, &reader), "%s", r->opts->trace_path));
    const struct rt_trace_header *h = rt_trace_reader_header(reader);
    struct scan s = {.out = out, .frame_start = UINT64_MAX};
    struct rt_arena arena;
    rt_arena_init(&arena, 0, (size_t)1 << 28);
    rt_hashmap_init(&s.current);
    uint64_t done = 0; /* frames ended */
    rt_status st = rt_ok_status();
    struct rt_trace_packet p;
    while (rt_ok(&st) && done < frame) {
        st = rt_trace_reader_next(reader, &p);
        if (!rt_ok(&st) || p.type == RT_TRACE_PACKET_END)
            break;
        if (p.type == RT_TRACE_PACKET_FRAME_END && ++done + 1 == frame)
            s.frame_start = p.seq + 1;
        if (frame == 1 && s.frame_start == UINT64_MAX)
            s.frame_start = 0; /* nothing is earlier than frame 1 */
        if (p.type == RT_TRACE_PACKET_CALL && p.u.call.command_id < h->command_count)
            st = scan_call(&s, r, h, &p, &arena, done + 1 == frame);
    }
    if (!rt_ok(&st) && !s.oom) { /* a damaged trace: the replay says where, the scan finds what it can */
        rt_status_free(&st);
        st = rt_ok_status();
    }
    free(s.kids);
    rt_hashmap_finish(&s.current);
    rt_arena_finish(&arena);
    rt_trace_reader_destroy(reader);
    return st;
}
