/*
 * replay/snapshot_apply.c — replaying a trimmed trace's state snapshot
 * (trace/FORMAT.md "State snapshots"): the guard call is skipped, buffer and
 * image contents are copied in through staging buffers (images moved to
 * their recorded layouts), fences, semaphores and events are put in their
 * recorded states, and query pools reset with the queries that were
 * available made available again (their results may differ: a replay
 * needs them available, as the frames may wait for them), and multisampled
 * images' samples drawn back (snapshot_samples.c). While trimming, and
 * inside a snapshot, buffers and images get the transfer usage those copies
 * need, and multisampled images the sampled (trimming) or attachment
 * (snapshot) usage their samples need where the device has it.
 */
#include <inttypes.h>
#include <string.h>

#include "formats.h"
#include "log.h"
#include "replay_trim.h"
#include "snapshot_samples.h"
#include "snapshot_staging.h"
#include "trace_snapshot.h"

static uint32_t command_id(const struct rt_trace_header *h, const char *name)
{
    for (uint32_t i = 0; i < h->command_count; i++)
        if (!strcmp(h->command_names[i], name))
            return i;
    return UINT32_MAX;
}

uint32_t replay_snapshot_guard_id(const struct rt_trace_header *h)
{
    return command_id(h, rt_trace_snapshot_guard);
}

uint32_t replay_snapshot_samples_guard_id(const struct rt_trace_header *h)
{
    return command_id(h, rt_trace_snapshot_samples_guard);
}

/* vkCreateBuffer and vkCreateImage: the decoded create info lives in the
 * call's arena, which replay may change (as its workarounds do). */
void replay_snapshot_adjust(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    bool trimming = r->opts->trim != NULL;
    if ((!trimming && !r->in_snapshot) || !(rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_CREATES))
        return;
    int32_t type = rt_vk_commands[cmd].object_type; /* the command table's: vkCreateBuffer, vkCreateImage */
    if (type == VK_OBJECT_TYPE_BUFFER) {
        VkBufferCreateInfo *info = (VkBufferCreateInfo *)((struct rt_vk_args_vkCreateBuffer *)args)->pCreateInfo;
        if (info)
            info->usage |= trimming ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT : VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    } else if (type == VK_OBJECT_TYPE_IMAGE) {
        VkImageCreateInfo *info = (VkImageCreateInfo *)((struct rt_vk_args_vkCreateImage *)args)->pCreateInfo;
        if (info && !(info->usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT)) {
            info->usage |= trimming ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : VK_IMAGE_USAGE_TRANSFER_DST_BIT;
            if (info->samples != VK_SAMPLE_COUNT_1_BIT && info->tiling == VK_IMAGE_TILING_OPTIMAL)
                info->usage |= replay_samples_usage(r, info->format, info->samples, trimming);
        }
    }
}

static rt_status apply_buffer(struct replay *r, const struct rt_trace_buffer_content *c)
{
    uint64_t live;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_BUFFER, c->buffer_id, &live));
    struct snapshot_staging s;
    RT_TRY(snapshot_staging_begin(r, c->size, &s));
    memcpy(s.map, c->data, c->size);
    VkBufferCopy region = {.srcOffset = 0, .dstOffset = c->offset, .size = c->size};
    s.dev->dispatch.device.vkCmdCopyBuffer(s.cmd, s.buffer, (VkBuffer)(uintptr_t)live, 1, &region);
    rt_status st = snapshot_staging_submit(&s);
    snapshot_staging_end(&s);
    return st;
}

/* The first piece of a subresource starts from UNDEFINED, except a stencil
 * aspect whose depth (written first, same barrier) must be kept. */
static VkImageLayout before_piece(VkFormat format, const struct rt_trace_image_content *c)
{
    bool first = c->y == 0 && c->z == 0;
    bool keeps_depth = c->aspect == VK_IMAGE_ASPECT_STENCIL_BIT &&
                       (snapshot_barrier_aspects(format, c->aspect) & VK_IMAGE_ASPECT_DEPTH_BIT);
    return first && !keeps_depth ? VK_IMAGE_LAYOUT_UNDEFINED : (VkImageLayout)c->layout;
}

static rt_status apply_image(struct replay *r, const struct rt_trace_image_content *c)
{
    uint64_t live;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_IMAGE, c->image_id, &live));
    VkImage img = (VkImage)(uintptr_t)live;
    VkFormat format = replay_image_format(r, img);
    VkImageAspectFlags aspects = snapshot_barrier_aspects(format, c->aspect);
    struct snapshot_staging s;
    RT_TRY(snapshot_staging_begin(r, c->size, &s));
    memcpy(s.map, c->data, c->size);
    snapshot_image_barrier(&s, img, aspects, c->mip, c->layer, before_piece(format, c),
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkBufferImageCopy copy = {.imageSubresource = {c->aspect, c->mip, c->layer, 1},
                              .imageOffset = {(int32_t)c->x, (int32_t)c->y, (int32_t)c->z},
                              .imageExtent = {c->width, c->height, c->depth}};
    s.dev->dispatch.device.vkCmdCopyBufferToImage(s.cmd, s.buffer, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                                                  &copy);
    snapshot_image_barrier(&s, img, aspects, c->mip, c->layer, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           (VkImageLayout)c->layout);
    rt_status st = snapshot_staging_submit(&s);
    snapshot_staging_end(&s);
    return st;
}

static rt_status signal_by_submit(struct replay_device *dev, VkFence fence, VkSemaphore semaphore)
{
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .signalSemaphoreCount = semaphore ? 1 : 0,
                           .pSignalSemaphores = &semaphore};
    VkResult res = dev->dispatch.device.vkQueueSubmit(dev->any_queue, semaphore ? 1 : 0, &submit, fence);
    if (res == VK_SUCCESS)
        res = dev->dispatch.device.vkQueueWaitIdle(dev->any_queue);
    return res == VK_SUCCESS ? rt_ok_status()
                             : rt_errorf(RT_ERR_CANNOT_REPLAY, "snapshot: signalling failed (%s)", replay_result_name(res));
}

/* A fence created signaled is signaled already: submitting with it again is
 * invalid (and hung NVIDIA's driver); one signaled at creation but not at A
 * is reset. */
static rt_status fence_state(struct replay_device *dev, VkFence fence, bool signaled)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    bool now = d->vkGetFenceStatus(dev->handle, fence) == VK_SUCCESS;
    if (signaled && !now)
        return signal_by_submit(dev, fence, VK_NULL_HANDLE);
    if (!signaled && now && d->vkResetFences(dev->handle, 1, &fence) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "snapshot: vkResetFences failed");
    return rt_ok_status();
}

static rt_status apply_sync(struct replay *r, const struct rt_trace_sync_state *c)
{
    uint64_t live;
    RT_TRY(replay_live(r, (VkObjectType)c->object_type, c->object_id, &live));
    struct replay_device *dev = r->device;
    if (!dev || !dev->any_queue)
        return rt_errorf(RT_ERR_BAD_INPUT, "snapshot state of an object before a device and a queue");
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    if (c->object_type == VK_OBJECT_TYPE_FENCE)
        return fence_state(dev, (VkFence)(uintptr_t)live, c->value != 0);
    if (c->object_type == VK_OBJECT_TYPE_SEMAPHORE && !c->timeline && c->value)
        return signal_by_submit(dev, VK_NULL_HANDLE, (VkSemaphore)(uintptr_t)live);
    if (c->object_type == VK_OBJECT_TYPE_EVENT && c->value)
        return d->vkSetEvent(dev->handle, (VkEvent)(uintptr_t)live) == VK_SUCCESS
                   ? rt_ok_status() : rt_errorf(RT_ERR_CANNOT_REPLAY, "snapshot: vkSetEvent failed");
    if (c->object_type == VK_OBJECT_TYPE_SEMAPHORE && c->timeline) {
        uint64_t now = 0;
        PFN_vkGetSemaphoreCounterValue get = d->vkGetSemaphoreCounterValue ? d->vkGetSemaphoreCounterValue
                                                                            : d->vkGetSemaphoreCounterValueKHR;
        PFN_vkSignalSemaphore signal = d->vkSignalSemaphore ? d->vkSignalSemaphore : d->vkSignalSemaphoreKHR;
        if (!get || !signal)
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "snapshot: the device has no timeline semaphores");
        VkSemaphoreSignalInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                      .semaphore = (VkSemaphore)(uintptr_t)live, .value = c->value};
        if (get(dev->handle, info.semaphore, &now) == VK_SUCCESS && now < c->value &&
            signal(dev->handle, &info) != VK_SUCCESS)
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "snapshot: vkSignalSemaphore failed");
    }
    return rt_ok_status();
}

/* An empty begin/end or a timestamp makes a query available; its result
 * (zero samples, a new time) is not the capture's, which is what a replay of
 * the frames can have. Types written by other commands are only reset. */
static bool make_available(const struct rt_vk_device_dispatch *d, VkCommandBuffer cmd, VkQueryPool pool,
                           uint32_t type, uint32_t query)
{
    if (type == VK_QUERY_TYPE_TIMESTAMP) {
        d->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, query);
        return true;
    }
    if (type != VK_QUERY_TYPE_OCCLUSION && type != VK_QUERY_TYPE_PIPELINE_STATISTICS &&
        type != VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT && type != VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT &&
        type != VK_QUERY_TYPE_MESH_PRIMITIVES_GENERATED_EXT)
        return false;
    d->vkCmdBeginQuery(cmd, pool, query, 0);
    d->vkCmdEndQuery(cmd, pool, query);
    return true;
}

static rt_status apply_queries(struct replay *r, const struct rt_trace_query_state *q)
{
    uint64_t live;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_QUERY_POOL, q->pool_id, &live));
    VkQueryPool pool = (VkQueryPool)(uintptr_t)live;
    struct snapshot_staging s;
    RT_TRY(snapshot_staging_begin(r, 16, &s));
    const struct rt_vk_device_dispatch *d = &s.dev->dispatch.device;
    d->vkCmdResetQueryPool(s.cmd, pool, 0, q->count);
    uint32_t left = 0;
    for (uint32_t i = 0; i < q->count; i++)
        left += q->available[i] && !make_available(d, s.cmd, pool, q->query_type, i);
    rt_status st = snapshot_staging_submit(&s);
    snapshot_staging_end(&s);
    if (rt_ok(&st))
        st = replay_verify_made_queries(r, live, q->count, q->available);
    if (left)
        rt_log(RT_LOG_WARN, "snapshot: %u queries of query pool 0x%" PRIx64 " (type %u) were available and are "
               "only reset: a replay cannot write queries of that type", left, q->pool_id, q->query_type);
    return st;
}

rt_status replay_snapshot_packet(struct replay *r, const struct rt_trace_packet *p)
{
    struct rt_trace_buffer_content b;
    struct rt_trace_image_content i;
    struct rt_trace_sync_state s;
    struct rt_trace_query_state q;
    struct rt_trace_image_samples m;
    rt_status st = rt_ok_status();
    if (p->type == RT_TRACE_PACKET_SNAPSHOT_BEGIN)
        r->in_snapshot = true;
    else if (p->type == RT_TRACE_PACKET_SNAPSHOT_END)
        r->in_snapshot = false;
    else if (rt_trace_buffer_content_decode(p, &b))
        st = apply_buffer(r, &b);
    else if (rt_trace_image_content_decode(p, &i))
        st = apply_image(r, &i);
    else if (rt_trace_sync_state_decode(p, &s))
        st = apply_sync(r, &s);
    else if (rt_trace_query_state_decode(p, &q))
        st = apply_queries(r, &q);
    else if (rt_trace_image_samples_decode(p, &m))
        st = replay_snapshot_write_samples(r, &m);
    const struct rt_replay_trim_hooks *t = r->opts->trim;
    if (rt_ok(&st) && t && t->snapshot)
        st = t->snapshot(t->user, p);
    return rt_status_wrap(st, "snapshot packet %" PRIu64, p->seq);
}
