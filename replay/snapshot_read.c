/*
 * replay/snapshot_read.c — reading the live state for `retrace trim`
 * (replay_trim.h): buffer bytes and image texels through staging copies,
 * the bytes of host-visible memory outside live buffers from the replay's
 * mapping, fence, event and timeline semaphore states through their queries.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "replay_trim.h"
#include "snapshot_staging.h"

rt_status rt_replay_read_buffer(struct replay *r, uint64_t buffer, uint64_t offset, uint64_t size, void *out)
{
    uint64_t live;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_BUFFER, buffer, &live));
    struct snapshot_staging s;
    RT_TRY(snapshot_staging_begin(r, size, &s));
    VkBufferCopy region = {.srcOffset = offset, .dstOffset = 0, .size = size};
    s.dev->dispatch.device.vkCmdCopyBuffer(s.cmd, (VkBuffer)(uintptr_t)live, s.buffer, 1, &region);
    rt_status st = snapshot_staging_submit(&s);
    if (rt_ok(&st))
        memcpy(out, s.map, size);
    snapshot_staging_end(&s);
    return st;
}

rt_status rt_replay_read_image(struct replay *r, uint64_t image, const struct rt_replay_image_region *g, void *out,
                               uint64_t size)
{
    uint64_t live;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_IMAGE, image, &live));
    VkImage img = (VkImage)(uintptr_t)live;
    VkImageAspectFlags barrier = snapshot_barrier_aspects(replay_image_format(r, img), g->aspect);
    struct snapshot_staging s;
    RT_TRY(snapshot_staging_begin(r, size, &s));
    VkImageLayout layout = (VkImageLayout)g->layout;
    snapshot_image_barrier(&s, img, barrier, g->mip, g->layer, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy copy = {.imageSubresource = {g->aspect, g->mip, g->layer, 1},
                              .imageOffset = {(int32_t)g->x, (int32_t)g->y, (int32_t)g->z},
                              .imageExtent = {g->width, g->height, g->depth}};
    s.dev->dispatch.device.vkCmdCopyImageToBuffer(s.cmd, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s.buffer, 1,
                                                  &copy);
    snapshot_image_barrier(&s, img, barrier, g->mip, g->layer, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout);
    rt_status st = snapshot_staging_submit(&s);
    if (rt_ok(&st))
        memcpy(out, s.map, size);
    snapshot_staging_end(&s);
    return st;
}

rt_status rt_replay_read_sync(struct replay *r, uint32_t type, uint64_t object, uint64_t *value_out)
{
    uint64_t live;
    RT_TRY(replay_live(r, (VkObjectType)type, object, &live));
    struct replay_device *dev = r->device;
    if (!dev)
        return rt_errorf(RT_ERR_BAD_INPUT, "a synchronisation object without a device");
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkResult res = VK_SUCCESS;
    *value_out = 0;
    if (type == VK_OBJECT_TYPE_FENCE) {
        res = d->vkGetFenceStatus(dev->handle, (VkFence)(uintptr_t)live);
        *value_out = res == VK_SUCCESS;
    } else if (type == VK_OBJECT_TYPE_EVENT) {
        res = d->vkGetEventStatus(dev->handle, (VkEvent)(uintptr_t)live);
        *value_out = res == VK_EVENT_SET;
    } else if (type == VK_OBJECT_TYPE_SEMAPHORE) {
        PFN_vkGetSemaphoreCounterValue get = d->vkGetSemaphoreCounterValue ? d->vkGetSemaphoreCounterValue
                                                                            : d->vkGetSemaphoreCounterValueKHR;
        res = get ? get(dev->handle, (VkSemaphore)(uintptr_t)live, value_out) : VK_ERROR_FEATURE_NOT_PRESENT;
    }
    if (res < 0)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "reading the state of object type %u id 0x%" PRIx64 " failed (%s)",
                         type, object, replay_result_name(res));
    return rt_ok_status();
}

/* One query at a time: a pool's queries may be in any state, and a call
 * over several returns only one VkResult. */
rt_status rt_replay_read_queries(struct replay *r, uint64_t pool, uint32_t count, uint32_t values,
                                 uint8_t *available)
{
    uint64_t live;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_QUERY_POOL, pool, &live));
    struct replay_device *dev = r->device;
    if (!dev || values == 0 || values > 31)
        return rt_errorf(RT_ERR_BAD_INPUT, "a query pool without a device, or with %u values a query", values);
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkResult res = d->vkDeviceWaitIdle(dev->handle);
    uint64_t data[32];
    for (uint32_t i = 0; i < count && res >= 0; i++) {
        memset(data, 0, sizeof data);
        res = d->vkGetQueryPoolResults(dev->handle, (VkQueryPool)(uintptr_t)live, i, 1, sizeof data, data, sizeof data,
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
        available[i] = data[values] != 0;
    }
    if (res < 0)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "reading the availability of query pool 0x%" PRIx64 " failed (%s)",
                         pool, replay_result_name(res));
    return rt_ok_status();
}

struct span {
    uint64_t lo, hi;
};

static int by_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool add_span(struct span **spans, size_t *count, size_t *cap, uint64_t lo, uint64_t hi)
{
    if (*count == *cap) {
        struct span *more = realloc(*spans, (*cap *= 2) * sizeof **spans);
        if (!more)
            return false;
        *spans = more;
    }
    (*spans)[(*count)++] = (struct span){lo, hi};
    return true;
}

/* [lo, hi) of every live buffer and image bound to MEMORY, sorted. An image
 * whose size at capture the trace never asked is not a span: its bytes are
 * carried (the image's own contents are written over them). */
static rt_status resource_spans(struct replay *r, uint64_t memory, struct span **out, size_t *count_out)
{
    size_t count = 0, cap = 16;
    struct span *spans = malloc(cap * sizeof *spans);
    bool ok = spans != NULL;
    struct rt_hashmap_iter it;
    uint64_t key, value;
    rt_hashmap_iter_init(&it, &r->resources.buffers);
    while (ok && rt_hashmap_iter_next(&it, &key, &value)) {
        const struct replay_buffer *b = (const struct replay_buffer *)(uintptr_t)value;
        if (b->bound && b->memory == memory)
            ok = add_span(&spans, &count, &cap, b->offset, b->offset + b->size);
    }
    rt_hashmap_iter_init(&it, &r->resources.images);
    while (ok && rt_hashmap_iter_next(&it, &key, &value)) {
        const struct replay_image *i = (const struct replay_image *)(uintptr_t)value;
        if (i->bound && i->memory == memory && i->captured_size)
            ok = add_span(&spans, &count, &cap, i->offset, i->offset + i->captured_size);
    }
    if (!ok) {
        free(spans);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    qsort(spans, count, sizeof *spans, by_start);
    *out = spans;
    *count_out = count;
    return rt_ok_status();
}

static rt_status emit_range(struct replay *r, uint64_t memory, uint64_t lo, uint64_t hi, size_t max, uint8_t *buf,
                            rt_replay_bytes_fn emit, void *user)
{
    for (uint64_t at = lo; at < hi; at += max) {
        size_t n = (size_t)(hi - at < max ? hi - at : max);
        if (!replay_memory_read(r, memory, at, n, 0, buf, NULL))
            return rt_ok_status(); /* not the host's to read here */
        RT_TRY(emit(user, at, buf, n));
    }
    return rt_ok_status();
}

rt_status rt_replay_memory_holes(struct replay *r, uint64_t memory, size_t max, rt_replay_bytes_fn emit, void *user)
{
    struct replay_memory *m = replay_memory_of(r, memory);
    if (!m || !(m->captured_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) || !max)
        return rt_ok_status(); /* device-local at capture: no mapped write ever reached it */
    struct span *spans = NULL;
    size_t count = 0;
    RT_TRY(resource_spans(r, memory, &spans, &count));
    uint8_t *buf = malloc(max);
    rt_status s = buf ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    uint64_t at = 0;
    for (size_t i = 0; i <= count && rt_ok(&s) && at < m->size; i++) {
        uint64_t lo = i < count ? spans[i].lo : m->size;
        if (lo > at)
            s = emit_range(r, memory, at, lo < m->size ? lo : m->size, max, buf, emit, user);
        if (i < count && spans[i].hi > at)
            at = spans[i].hi;
    }
    free(buf);
    free(spans);
    return s;
}
