/* replay/workarounds/readback_barrier.c — readback-barrier: a full barrier
 * before every transfer read, and a submission that reads back into a
 * buffer first waits for every earlier submission (a program that forgot a
 * barrier or a fence before reading its results). Which commands are
 * transfer reads, and into what, is the command table's (transfer_dst). */
#include <inttypes.h>
#include <string.h>

#include "workaround.h"

#define ID RT_WA_READBACK_BARRIER

struct counters {
    uint64_t barriers_inserted, readbacks_waited, submissions_waited;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static rt_status live_command_buffer(struct replay *r, VkCommandBuffer captured, VkCommandBuffer *out)
{
    uint64_t live = 0;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)captured, &live));
    *out = (VkCommandBuffer)(uintptr_t)live;
    return rt_ok_status();
}

static bool found_command_buffer(struct replay *r, VkCommandBuffer captured, VkCommandBuffer *out)
{
    rt_status s = live_command_buffer(r, captured, out);
    return rt_ok(&s);
}

/* Every write before, on this queue, made visible to transfer reads after. */
static rt_status insert_barrier(struct replay *r, VkCommandBuffer captured, bool into_buffer)
{
    VkCommandBuffer cmd;
    RT_TRY(live_command_buffer(r, captured, &cmd));
    struct replay_device *dev = replay_device_of(r, cmd);
    if (!dev)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": a command buffer of an unknown device", r->call_seq);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    dev->dispatch.device.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                              0, 1, &barrier, 0, NULL, 0, NULL);
    counters(r)->barriers_inserted++;
    if (into_buffer && !rt_hashmap_put(&r->config->readback_cmds, (uint64_t)(uintptr_t)cmd, 1))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    return rt_ok_status();
}

/* Recording: a barrier before each transfer read; a command buffer recorded
 * again no longer holds its old readbacks. */
static rt_status before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    enum rt_vk_transfer_dst dst = rt_vk_commands[cmd].transfer_dst;
    bool begins = rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_BEGINS_RECORDING;
    if (dst == RT_VK_TRANSFER_NONE && !begins)
        return rt_ok_status();
    VkCommandBuffer cmdbuf, live; /* the first member of a recorded command's block */
    memcpy(&cmdbuf, args, sizeof cmdbuf);
    if (dst != RT_VK_TRANSFER_NONE)
        return insert_barrier(r, cmdbuf, dst == RT_VK_TRANSFER_BUFFER);
    if (found_command_buffer(r, cmdbuf, &live))
        rt_hashmap_remove(&r->config->readback_cmds, (uint64_t)(uintptr_t)live);
    return rt_ok_status();
}

struct readback_search {
    struct replay *r;
    bool found;
};

static void find_readback(void *user, VkObjectType type, void *slot, bool output)
{
    struct readback_search *q = user;
    VkCommandBuffer captured, live;
    uint64_t v;
    if (type != VK_OBJECT_TYPE_COMMAND_BUFFER || output || q->found)
        return;
    memcpy(&captured, slot, sizeof captured);
    q->found = found_command_buffer(q->r, captured, &live) &&
               rt_hashmap_get(&q->r->config->readback_cmds, (uint64_t)(uintptr_t)live, &v);
}

/* Submission: one that runs a command buffer copying into a buffer first
 * waits for every earlier submission on the device, whichever fence or
 * semaphore the trace gave it. Its command buffers are wherever the
 * argument block keeps them. */
static rt_status before_submit(struct replay *r, struct replay_device *dev, enum rt_vk_cmd cmd, void *args)
{
    struct readback_search q = {r, false};
    if (!(rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_EXECUTES))
        return rt_ok_status();
    rt_vk_walk_handles(cmd, args, find_readback, &q);
    if (!q.found || !r->config->submissions_in_flight)
        return rt_ok_status();
    dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
    counters(r)->readbacks_waited++;
    counters(r)->submissions_waited += r->config->submissions_in_flight;
    r->config->submissions_in_flight = 0;
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, barriers_inserted),
                                                        REPLAY_WA_COUNTER(struct counters, readbacks_waited),
                                                        REPLAY_WA_COUNTER(struct counters, submissions_waited)};

const struct replay_workaround replay_wa_readback_barrier = {
    .info = {"readback-barrier",
             "a full barrier before every transfer read; readbacks wait for all earlier submissions",
             "recording: before every copy or blit that reads with the transfer stage (vkCmdCopyBuffer,\n"
             "vkCmdCopyImage, vkCmdCopyImageToBuffer, vkCmdCopyBufferToImage, vkCmdBlitImage and their\n"
             "...2 forms), records a memory barrier ALL_COMMANDS (memory writes) -> TRANSFER (reads).\n"
             "submission: a submission holding a copy into a buffer (a readback) first waits until\n"
             "every earlier submission on the device has completed, not only those its own fence or\n"
             "semaphores cover. The report counts the barriers and the waits."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .before_call = before_call,
    .before_submit = before_submit,
};
