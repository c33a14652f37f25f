/* replay/snapshot_staging.c — staging buffers and one-shot command buffers for snapshots. */
#include <string.h>

#include "formats.h"
#include "staging.h"
#include "snapshot_staging.h"

rt_status snapshot_staging_begin(struct replay *r, VkDeviceSize size, struct snapshot_staging *s)
{
    *s = (struct snapshot_staging){.dev = r->device};
    if (!s->dev || !s->dev->any_queue)
        return rt_errorf(RT_ERR_BAD_INPUT, "snapshot content before the trace made a device and a queue");
    struct rt_readback_device rd = {s->dev->handle, &s->dev->dispatch.device, &r->gpu_memory, NULL};
    /* storage: the multisampled images' samples go through it (snapshot_samples.c) */
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    rt_status st = rt_staging_begin(&rd, s->dev->any_queue_family, size, usage, &s->staging);
    if (!rt_ok(&st)) {
        *s = (struct snapshot_staging){0};
        return rt_status_wrap(st, "snapshot");
    }
    s->buffer = s->staging.buffer;
    s->map = s->staging.map;
    s->cmd = s->staging.cmd;
    /* Earlier submissions' writes, and the host's staging writes, are made
     * visible to the copies that follow. */
    VkMemoryBarrier all = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                           .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
                           .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    s->dev->dispatch.device.vkCmdPipelineBarrier(s->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                                                 VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &all, 0, NULL, 0, NULL);
    return rt_ok_status();
}

rt_status snapshot_staging_submit(struct snapshot_staging *s)
{
    return rt_status_wrap(rt_staging_submit(&s->staging, s->dev->any_queue, 0, NULL, NULL), "snapshot");
}

void snapshot_staging_end(struct snapshot_staging *s)
{
    rt_staging_end(&s->staging);
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
