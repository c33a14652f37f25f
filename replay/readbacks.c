/* replay/readbacks.c — what an offscreen program reads back. A program with
 * no swapchain shows its frames by copying images into host-visible buffers
 * (vkCmdCopyImageToBuffer) and reading them. With --readbacks DIR, every such
 * copy is saved after its submission completes, as DIR/readback_NNNNNN.png
 * (1-based, in submission order; .bin + .json for formats no PNG holds,
 * readback/convert.h), from the bytes the copy wrote: the same bytes the
 * program itself saw at capture. A copy that cannot be saved is a warning,
 * counted in the result: the replay goes on. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "draws.h"
#include "log.h"
#include "readback.h"
#include "replay_internal.h"

struct image_copy {
    VkBuffer buffer;
    VkDeviceSize offset;
    uint32_t row_length, width, height;
    VkFormat format;
    VkImageAspectFlags aspect;
    bool more_slices; /* a 3D extent or several layers: the first slice is saved */
};

struct copy_list {
    VkCommandPool pool; /* live; its destruction frees the command buffer */
    size_t count, capacity;
    struct image_copy *items;
};

static struct copy_list *list_of(struct replay *r, VkCommandBuffer cmd, bool create)
{
    uint64_t value = 0;
    if (rt_hashmap_get(&r->recorded_copies, (uint64_t)(uintptr_t)cmd, &value))
        return (struct copy_list *)(uintptr_t)value;
    if (!create)
        return NULL;
    struct copy_list *l = calloc(1, sizeof *l);
    if (l && !rt_hashmap_put(&r->recorded_copies, (uint64_t)(uintptr_t)cmd, (uint64_t)(uintptr_t)l)) {
        free(l);
        return NULL;
    }
    return l;
}

rt_status replay_begin_command_buffer(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkBeginCommandBuffer *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkBeginCommandBuffer, args, captured_result));
    struct copy_list *l = list_of(r, a->commandBuffer, false);
    if (l)
        l->count = 0; /* beginning a command buffer resets it */
    return rt_ok_status();
}

static void drop_list(struct replay *r, uint64_t cmd)
{
    uint64_t value = 0;
    if (!rt_hashmap_get(&r->recorded_copies, cmd, &value))
        return;
    struct copy_list *l = (struct copy_list *)(uintptr_t)value;
    free(l->items);
    free(l);
    rt_hashmap_remove(&r->recorded_copies, cmd);
}

/* A new command buffer starts with no copies, whatever an earlier one under
 * the same handle recorded; its pool is remembered for vkDestroyCommandPool. */
rt_status replay_allocate_command_buffers(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkAllocateCommandBuffers *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkAllocateCommandBuffers, args, captured_result));
    if (a->result != VK_SUCCESS || !r->opts->readback_dir)
        return rt_ok_status();
    for (uint32_t i = 0; i < a->pAllocateInfo->commandBufferCount; i++) {
        drop_list(r, (uint64_t)(uintptr_t)a->pCommandBuffers[i]);
        struct copy_list *l = list_of(r, a->pCommandBuffers[i], true);
        if (!l)
            return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
        l->pool = a->pAllocateInfo->commandPool;
    }
    return rt_ok_status();
}

rt_status replay_free_command_buffers(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkFreeCommandBuffers *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkFreeCommandBuffers, args, captured_result));
    for (uint32_t i = 0; i < a->commandBufferCount && a->pCommandBuffers; i++)
        drop_list(r, (uint64_t)(uintptr_t)a->pCommandBuffers[i]);
    return rt_ok_status();
}

rt_status replay_destroy_command_pool(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkDestroyCommandPool *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkDestroyCommandPool, args, captured_result));
    struct rt_hashmap_iter it;
    uint64_t cmd, value;
    rt_hashmap_iter_init(&it, &r->recorded_copies);
    while (rt_hashmap_iter_next(&it, &cmd, &value))
        if (a->commandPool && ((struct copy_list *)(uintptr_t)value)->pool == a->commandPool)
            drop_list(r, cmd); /* removing the entry just returned is allowed */
    return rt_ok_status();
}

static rt_status add_copy(struct copy_list *l, const struct image_copy *c)
{
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? l->capacity * 2 : 4;
        struct image_copy *grown = realloc(l->items, capacity * sizeof *grown);
        if (!grown)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        l->items = grown;
        l->capacity = capacity;
    }
    l->items[l->count++] = *c;
    return rt_ok_status();
}

/* Remembers one region of an image-to-buffer copy recorded into CMD. */
static rt_status record_region(struct replay *r, VkCommandBuffer cmd, VkImage image, VkBuffer buffer,
                               VkDeviceSize offset, uint32_t row_length, VkImageSubresourceLayers sub,
                               VkExtent3D extent)
{
    struct copy_list *l = list_of(r, cmd, true);
    if (!l)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    struct image_copy c = {buffer, offset, row_length, extent.width, extent.height, replay_image_format(r, image),
                           sub.aspectMask, extent.depth > 1 || sub.layerCount > 1};
    return add_copy(l, &c);
}

rt_status replay_cmd_copy_image_to_buffer(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCmdCopyImageToBuffer *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkCmdCopyImageToBuffer, args, captured_result));
    for (uint32_t i = 0; i < a->regionCount && r->opts->readback_dir; i++) {
        const VkBufferImageCopy *c = &a->pRegions[i];
        RT_TRY(record_region(r, a->commandBuffer, a->srcImage, a->dstBuffer, c->bufferOffset, c->bufferRowLength,
                             c->imageSubresource, c->imageExtent));
    }
    return rt_ok_status();
}

/* vkCmdCopyImageToBuffer2 and its KHR alias: one argument layout, each
 * called through its own entry point (a Vulkan 1.2 device has only the KHR one). */
static rt_status copy_image_to_buffer2(struct replay *r, enum rt_vk_cmd cmd, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCmdCopyImageToBuffer2 *a = args;
    RT_TRY(replay_generic_call(r, cmd, args, captured_result));
    const VkCopyImageToBufferInfo2 *info = a->pCopyImageToBufferInfo;
    for (uint32_t i = 0; info && i < info->regionCount && r->opts->readback_dir; i++) {
        const VkBufferImageCopy2 *c = &info->pRegions[i];
        RT_TRY(record_region(r, a->commandBuffer, info->srcImage, info->dstBuffer, c->bufferOffset,
                             c->bufferRowLength, c->imageSubresource, c->imageExtent));
    }
    return rt_ok_status();
}

rt_status replay_cmd_copy_image_to_buffer2(struct replay *r, void *args, uint64_t captured_result)
{
    return copy_image_to_buffer2(r, RT_VK_CMD_vkCmdCopyImageToBuffer2, args, captured_result);
}

rt_status replay_cmd_copy_image_to_buffer2_khr(struct replay *r, void *args, uint64_t captured_result)
{
    return copy_image_to_buffer2(r, RT_VK_CMD_vkCmdCopyImageToBuffer2KHR, args, captured_result);
}

static rt_status save_copy(struct replay *r, const struct image_copy *c, const char *stem)
{
    if (c->format == VK_FORMAT_UNDEFINED)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "%s: the copied image's format is unknown (an image replay did "
                         "not create)", stem);
    const uint8_t *bytes = replay_buffer_host_pointer(r, c->buffer);
    if (!bytes)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "%s: the copy's buffer is not in host-visible memory", stem);
    VkDeviceSize size = replay_buffer_size(r, c->buffer);
    if (c->offset > size)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: the copy starts past the end of its buffer", stem);
    RT_TRY(rt_readback_save(c->format, c->aspect, bytes + c->offset, (size_t)(size - c->offset), c->width,
                            c->height, c->row_length, stem, NULL, 0));
    if (c->more_slices)
        rt_log(RT_LOG_WARN, "replay: %s: the copy has several layers or depth slices; the first is saved", stem);
    return rt_ok_status();
}

/* A copy that cannot be saved is said, never the end of the replay. */
static rt_status save_or_warn(struct replay *r, const struct image_copy *c)
{
    char stem[PATH_MAX + 64];
    replay_output_stem(r, r->opts->readback_dir, "readback", ++r->readbacks_saved, stem, sizeof stem);
    rt_status s = save_copy(r, c, stem);
    if (rt_ok(&s)) {
        r->result->readbacks++;
    } else if (s.code != RT_ERR_INTERNAL || strstr(s.msg, "cannot create") || strstr(s.msg, "write error")) {
        rt_log(RT_LOG_WARN, "replay: read-back not saved: %s", s.msg);
        r->result->conversion_warnings++;
        s = rt_ok_status();
    }
    return s; /* out of memory ends the replay */
}

/* After a submission: wait for it, then save the copies its command buffers made. */
rt_status replay_save_readbacks(struct replay *r, VkQueue queue, const VkCommandBuffer *cmds, uint32_t count)
{
    if (!r->opts->readback_dir)
        return rt_ok_status();
    bool waited = false;
    for (uint32_t i = 0; i < count; i++) {
        struct copy_list *l = list_of(r, cmds[i], false);
        for (size_t k = 0; l && k < l->count; k++) {
            if (!waited) {
                struct replay_device *dev = replay_device_of(r, queue);
                if (dev)
                    dev->dispatch.device.vkQueueWaitIdle(queue);
                waited = true;
            }
            RT_TRY(save_or_warn(r, &l->items[k]));
        }
    }
    return rt_ok_status();
}

void replay_readbacks_finish(struct replay *r)
{
    struct rt_hashmap_iter it;
    uint64_t value;
    rt_hashmap_iter_init(&it, &r->recorded_copies);
    while (rt_hashmap_iter_next(&it, NULL, &value)) {
        struct copy_list *l = (struct copy_list *)(uintptr_t)value;
        free(l->items);
        free(l);
    }
    rt_hashmap_finish(&r->recorded_copies);
    rt_hashmap_init(&r->recorded_copies);
}

rt_status replay_queue_submit(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkQueueSubmit *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkQueueSubmit, args, captured_result));
    for (uint32_t i = 0; i < a->submitCount; i++) {
        RT_TRY(replay_save_readbacks(r, a->queue, a->pSubmits[i].pCommandBuffers,
                                     a->pSubmits[i].commandBufferCount));
        RT_TRY(replay_draws_submitted(r, a->queue, a->pSubmits[i].pCommandBuffers,
                                      a->pSubmits[i].commandBufferCount));
    }
    return rt_ok_status();
}

rt_status replay_queue_submit2(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkQueueSubmit2 *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkQueueSubmit2, args, captured_result));
    for (uint32_t i = 0; i < a->submitCount && (r->opts->readback_dir || r->draws); i++) {
        const VkSubmitInfo2 *s = &a->pSubmits[i];
        for (uint32_t k = 0; k < s->commandBufferInfoCount; k++) {
            RT_TRY(replay_save_readbacks(r, a->queue, &s->pCommandBufferInfos[k].commandBuffer, 1));
            RT_TRY(replay_draws_submitted(r, a->queue, &s->pCommandBufferInfos[k].commandBuffer, 1));
        }
    }
    return rt_ok_status();
}
