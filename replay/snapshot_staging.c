/* replay/snapshot_staging.c — staging buffers and one-shot command buffers for snapshots. */
#include <string.h>

#include "formats.h"
#include "readback.h"
#include "snapshot_staging.h"

#define VK_TRY(call, what)                                                                              \
    do {                                                                                                \
        VkResult vk_try_ = (call);                                                                      \
        if (vk_try_ != VK_SUCCESS)                                                                      \
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "snapshot: %s failed (%s)", what,                   \
                             replay_result_name(vk_try_));                                              \
    } while (0)

static rt_status make_buffer(struct replay *r, VkDeviceSize size, struct snapshot_staging *s)
{
    const struct rt_vk_device_dispatch *d = &s->dev->dispatch.device;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size ? size : 1,
                               .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VK_TRY(d->vkCreateBuffer(s->dev->handle, &info, NULL, &s->buffer), "vkCreateBuffer (staging)");
    VkMemoryRequirements req;
    d->vkGetBufferMemoryRequirements(s->dev->handle, s->buffer, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
    if (!rt_readback_host_memory_type(&r->gpu_memory, req.memoryTypeBits, &alloc.memoryTypeIndex))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "snapshot: the device has no host-visible coherent memory for staging");
    VK_TRY(d->vkAllocateMemory(s->dev->handle, &alloc, NULL, &s->memory), "vkAllocateMemory (staging)");
    VK_TRY(d->vkBindBufferMemory(s->dev->handle, s->buffer, s->memory, 0), "vkBindBufferMemory (staging)");
    VK_TRY(d->vkMapMemory(s->dev->handle, s->memory, 0, VK_WHOLE_SIZE, 0, &s->map), "vkMapMemory (staging)");
    return rt_ok_status();
}

static rt_status make_commands(struct snapshot_staging *s)
{
    const struct rt_vk_device_dispatch *d = &s->dev->dispatch.device;
    VkCommandPoolCreateInfo pinfo = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                     .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                     .queueFamilyIndex = s->dev->any_queue_family};
    VK_TRY(d->vkCreateCommandPool(s->dev->handle, &pinfo, NULL, &s->pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cinfo = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = s->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    VK_TRY(d->vkAllocateCommandBuffers(s->dev->handle, &cinfo, &s->cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_TRY(d->vkBeginCommandBuffer(s->cmd, &begin), "vkBeginCommandBuffer");
    /* Earlier submissions' writes, and the host's staging writes, are made
     * visible to the copies that follow. */
    VkMemoryBarrier all = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                           .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
                           .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    d->vkCmdPipelineBarrier(s->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &all, 0, NULL, 0, NULL);
    return rt_ok_status();
}

rt_status snapshot_staging_begin(struct replay *r, VkDeviceSize size, struct snapshot_staging *s)
{
    *s = (struct snapshot_staging){.dev = r->device};
    if (!s->dev || !s->dev->any_queue)
        return rt_errorf(RT_ERR_BAD_INPUT, "snapshot content before the trace made a device and a queue");
    rt_status st = make_buffer(r, size, s);
    if (rt_ok(&st))
        st = make_commands(s);
    if (!rt_ok(&st))
        snapshot_staging_end(s);
    return st;
}

rt_status snapshot_staging_submit(struct snapshot_staging *s)
{
    const struct rt_vk_device_dispatch *d = &s->dev->dispatch.device;
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_MEMORY_READ_BIT};
    d->vkCmdPipelineBarrier(s->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &to_host, 0, NULL,
                            0, NULL);
    VK_TRY(d->vkEndCommandBuffer(s->cmd), "vkEndCommandBuffer");
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &s->cmd};
    VK_TRY(d->vkQueueSubmit(s->dev->any_queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
    VK_TRY(d->vkQueueWaitIdle(s->dev->any_queue), "vkQueueWaitIdle");
    return rt_ok_status();
}

void snapshot_staging_end(struct snapshot_staging *s)
{
    if (!s->dev)
        return;
    const struct rt_vk_device_dispatch *d = &s->dev->dispatch.device;
    if (s->pool)
        d->vkDestroyCommandPool(s->dev->handle, s->pool, NULL);
    if (s->buffer)
        d->vkDestroyBuffer(s->dev->handle, s->buffer, NULL);
    if (s->memory)
        d->vkFreeMemory(s->dev->handle, s->memory, NULL);
    *s = (struct snapshot_staging){0};
}

VkImageAspectFlags snapshot_barrier_aspects(VkFormat format, VkImageAspectFlags aspect)
{
    const struct rt_format_info *f = rt_format_find(format);
    VkImageAspectFlags all = 0;
    for (uint32_t i = 0; f && i < f->component_count; i++)
        all |= f->components[i].channel == 'D' ? VK_IMAGE_ASPECT_DEPTH_BIT
               : f->components[i].channel == 'S' ? VK_IMAGE_ASPECT_STENCIL_BIT : 0;
    return all ? all : aspect;
}

void snapshot_image_barrier(struct snapshot_staging *s, VkImage image, VkImageAspectFlags aspects, uint32_t mip,
                            uint32_t layer, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                              .oldLayout = from, .newLayout = to,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                              .subresourceRange = {aspects, mip, 1, layer, 1}};
    s->dev->dispatch.device.vkCmdPipelineBarrier(s->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                                 VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}
