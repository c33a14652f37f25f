/*
 * replay/replay_calls.h — the generated calls (gen/emit_replay.py): one
 * function per command that calls it through a dispatch table with the
 * parameters of its decoded argument block, storing the result there; and
 * the table of hand-written handlers that gen/handwritten.py lists.
 */
#ifndef RT_REPLAY_CALLS_H
#define RT_REPLAY_CALLS_H

#include "status.h"
#include "vk_commands_gen.h"
#include "vk_dispatch_gen.h"

struct replay_dispatch {
    struct rt_vk_instance_dispatch instance;
    struct rt_vk_device_dispatch device;
};

/** Returns the command's VkResult, or VK_SUCCESS for commands without one. */
typedef VkResult (*replay_call_fn)(const struct replay_dispatch *dispatch, void *args);

/** Indexed by enum rt_vk_cmd; NULL for global commands and disabled platforms. */
extern const replay_call_fn replay_calls[RT_VK_CMD_COUNT];

struct replay;
/* A hand-written command: args are decoded, handles still captured ids. */
typedef rt_status (*replay_handler_fn)(struct replay *r, void *args, uint64_t captured_result);

/** Indexed by enum rt_vk_cmd; NULL where the generic call path runs. */
extern const replay_handler_fn replay_handlers[RT_VK_CMD_COUNT];

#endif
