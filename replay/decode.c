/* replay/decode.c — turning a call packet into a decoded argument block, the
 * first thing replay does with every call and the first place it can refuse
 * one. `retrace info --check` runs the same code (rt_replay_checker), so a
 * trace that replay would refuse at call N is reported at call N. */
#include <inttypes.h>
#include <stdlib.h>

#include "replay_internal.h"

struct rt_replay_checker {
    const struct rt_trace_header *header;
    enum rt_vk_cmd *commands;
    struct rt_arena arena;
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
    rt_arena_init(&c->arena, 0, (size_t)1 << 30);
    rt_status s = replay_map_commands(header, &c->commands);
    if (!rt_ok(&s)) {
        rt_replay_checker_destroy(c);
        return s;
    }
    *out = c;
    return rt_ok_status();
}

rt_status rt_replay_check_packet(struct rt_replay_checker *c, const struct rt_trace_packet *p)
{
    if (p->type != RT_TRACE_PACKET_CALL)
        return rt_ok_status();
    enum rt_vk_cmd cmd;
    void *args;
    return replay_decode_call(c->header, c->commands, p, &c->arena, &cmd, &args);
}

void rt_replay_checker_destroy(struct rt_replay_checker *c)
{
    if (!c)
        return;
    rt_arena_finish(&c->arena);
    free(c->commands);
    free(c);
}
