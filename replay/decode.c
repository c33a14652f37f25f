/* replay/decode.c — turning a call packet into a decoded argument block, the
 * first thing replay does with every call and the first place it can refuse
 * one. `retrace info --check` runs the same code (rt_replay_checker), so a
 * trace that replay would refuse at call N is reported at call N: a command
 * this build does not know, parameters that do not decode, or a handle the
 * trace never created (followed the way replay follows them: every handle a
 * call writes is known from then on, and calls replay skips are not looked
 * into). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"

struct rt_replay_checker {
    const struct rt_trace_header *header;
    enum rt_vk_cmd *commands;
    struct rt_arena arena;
    struct rt_typed_map handles; /* captured ids the trace made so far (values unused) */
    uint64_t seq;
    rt_status status;
    uint32_t guard, samples_guard; /* a trimmed trace's snapshot guard commands (replay skips them) */
    size_t output_count;
    struct checked_handle {
        VkObjectType type;
        uint64_t id;
    } outputs[4096];
};

rt_status replay_map_commands(const struct rt_trace_header *h, enum rt_vk_cmd **out)
{
    *out = calloc(h->command_count + 1u, sizeof **out);
    if (!*out)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (uint32_t i = 0; i < h->command_count; i++)
        if (!rt_vk_cmd_from_name(h->command_names[i], &(*out)[i]))
            (*out)[i] = RT_VK_CMD_COUNT;
    return rt_ok_status();
}

rt_status replay_decode_call(const struct rt_trace_header *h, const enum rt_vk_cmd *commands,
                             const struct rt_trace_packet *p, struct rt_arena *arena, enum rt_vk_cmd *cmd_out,
                             void **args_out)
{
    enum rt_vk_cmd cmd = commands[p->u.call.command_id];
    const char *name = h->command_names[p->u.call.command_id];
    if (cmd == RT_VK_CMD_COUNT || rt_vk_args_size(cmd) == 0)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": %s is not known to this build of retrace",
                         p->seq, name);
    rt_arena_reset(arena);
    void *args = rt_arena_calloc(arena, 1, rt_vk_args_size(cmd), 16);
    if (!args)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    struct rt_dec dec;
    rt_dec_init(&dec, p->u.call.params, p->u.call.size, arena);
    RT_TRY(rt_status_wrap(rt_vk_decode_call(&dec, cmd, args), "call %" PRIu64 " (%s)", p->seq, name));
    *cmd_out = cmd;
    *args_out = args;
    return rt_ok_status();
}

rt_status rt_replay_checker_create(const struct rt_trace_header *header, struct rt_replay_checker **out)
{
    struct rt_replay_checker *c = calloc(1, sizeof *c);
    if (!c)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    c->header = header;
    c->guard = replay_snapshot_guard_id(header);
    c->samples_guard = replay_snapshot_samples_guard_id(header);
    rt_arena_init(&c->arena, 0, (size_t)1 << 30);
    rt_typed_map_init(&c->handles);
    rt_status s = replay_map_commands(header, &c->commands);
    if (!rt_ok(&s)) {
        rt_replay_checker_destroy(c);
        return s;
    }
    *out = c;
    return rt_ok_status();
}

/* Inputs must be known (as replay_live demands); outputs become known. */
static void check_handle(void *user, VkObjectType type, void *slot, bool output)
{
    struct rt_replay_checker *c = user;
    uint64_t id, unused;
    memcpy(&id, slot, sizeof id);
    if (!id || !rt_ok(&c->status))
        return;
    if (output) {
        if (c->output_count < sizeof c->outputs / sizeof c->outputs[0])
            c->outputs[c->output_count++] = (struct checked_handle){type, id};
        else
            c->status = rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 " makes more than %zu handles, more than replay "
                                  "can follow", c->seq, sizeof c->outputs / sizeof c->outputs[0]);
    } else if (!rt_typed_map_get(&c->handles, type, id, &unused)) {
        c->status = rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 " uses a handle (object type %d, id 0x%" PRIx64
                              ") that the trace never created", c->seq, (int)type, id);
    }
}

rt_status rt_replay_check_packet(struct rt_replay_checker *c, const struct rt_trace_packet *p)
{
    if (p->type != RT_TRACE_PACKET_CALL || p->u.call.command_id == c->guard ||
        p->u.call.command_id == c->samples_guard)
        return rt_ok_status();
    enum rt_vk_cmd cmd;
    void *args;
    RT_TRY(replay_decode_call(c->header, c->commands, p, &c->arena, &cmd, &args));
    if (replay_handler(cmd) == replay_skip)
        return rt_ok_status(); /* replay looks at nothing in it */
    c->seq = p->seq;
    c->status = rt_ok_status();
    c->output_count = 0;
    rt_vk_walk_handles(cmd, args, check_handle, c);
    for (size_t i = 0; i < c->output_count && rt_ok(&c->status); i++)
        if (!rt_typed_map_put(&c->handles, c->outputs[i].type, c->outputs[i].id, 1))
            c->status = rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status s = c->status; /* the caller's now */
    c->status = rt_ok_status();
    return s;
}

void rt_replay_checker_destroy(struct rt_replay_checker *c)
{
    if (!c)
        return;
    rt_arena_finish(&c->arena);
    rt_typed_map_finish(&c->handles);
    free(c->commands);
    free(c);
}
