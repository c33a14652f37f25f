/* readback/readback.c — presented image to PNG (see readback.h). */
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "formats.h"
#include "readback.h"

struct readback {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
};

bool rt_readback_host_memory_type(const VkPhysicalDeviceMemoryProperties *memory, uint32_t allowed,
                                  uint32_t *index_out)
{
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < memory->memoryTypeCount; i++) {
        if ((allowed & (1u << i)) && (memory->memoryTypes[i].propertyFlags & want) == want) {
            *index_out = i;
            return true;
        }
    }
    return false;
}

static bool make_buffer(const struct rt_readback_device *dev, VkDeviceSize size, struct readback *rb)
{
    const struct rt_vk_device_dispatch *d = dev->dispatch;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                               .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    if (d->vkCreateBuffer(dev->device, &info, NULL, &rb->buffer) != VK_SUCCESS)
        return false;
    VkMemoryRequirements req;
    d->vkGetBufferMemoryRequirements(dev->device, rb->buffer, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
    return rt_readback_host_memory_type(dev->memory, req.memoryTypeBits, &alloc.memoryTypeIndex) &&
           d->vkAllocateMemory(dev->device, &alloc, NULL, &rb->memory) == VK_SUCCESS &&
           d->vkBindBufferMemory(dev->device, rb->buffer, rb->memory, 0) == VK_SUCCESS;
}

static bool make_commands(const struct rt_readback_device *dev, uint32_t family, struct readback *rb)
{
    const struct rt_vk_device_dispatch *d = dev->dispatch;
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = family};
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (d->vkCreateCommandPool(dev->device, &pool, NULL, &rb->pool) != VK_SUCCESS ||
        d->vkCreateFence(dev->device, &fence, NULL, &rb->fence) != VK_SUCCESS)
        return false;
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = rb->pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    if (d->vkAllocateCommandBuffers(dev->device, &alloc, &rb->cmd) != VK_SUCCESS)
        return false;
    /* A dispatchable object the layer made: the loader must be able to find
     * its dispatch table through it. */
    return !dev->set_loader_data || dev->set_loader_data(dev->device, rb->cmd) == VK_SUCCESS;
}

static void image_barrier(const struct rt_vk_device_dispatch *d, VkCommandBuffer cmd, VkImage image,
                          VkImageLayout from, VkImageLayout to, VkAccessFlags src_access, VkAccessFlags dst_access)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
                              .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                              .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    d->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0,
                            NULL, 0, NULL, 1, &b);
}

static void record_copy(const struct rt_vk_device_dispatch *d, const struct readback *rb, VkImage image,
                        VkImageLayout layout, VkExtent2D extent)
{
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    d->vkBeginCommandBuffer(rb->cmd, &begin);
    image_barrier(d, rb->cmd, image, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_MEMORY_WRITE_BIT,
                  VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {extent.width, extent.height, 1}};
    d->vkCmdCopyImageToBuffer(rb->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb->buffer, 1, &region);
    image_barrier(d, rb->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout, VK_ACCESS_TRANSFER_READ_BIT, 0);
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    d->vkCmdPipelineBarrier(rb->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host,
                            0, NULL, 0, NULL);
    d->vkEndCommandBuffer(rb->cmd);
}

/* Submits the copy after the present's semaphores and waits for it. */
static bool submit_and_wait(const struct rt_vk_device_dispatch *d, VkDevice device, VkQueue queue,
                            const struct readback *rb, uint32_t waits, const VkSemaphore *semaphores)
{
    VkPipelineStageFlags stages[16];
    if (waits > 16)
        return false;
    for (uint32_t i = 0; i < waits; i++)
        stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = waits,
                           .pWaitSemaphores = semaphores, .pWaitDstStageMask = stages,
                           .commandBufferCount = 1, .pCommandBuffers = &rb->cmd};
    return d->vkQueueSubmit(queue, 1, &submit, rb->fence) == VK_SUCCESS &&
           d->vkWaitForFences(device, 1, &rb->fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS;
}

/* PATH ends in .png; a format with no PNG form is written next to it as .bin + .json. */
/* The bits of 1.0 in an alpha component of C's kind. */
static uint64_t alpha_one(const struct rt_format_component *c)
{
    if (c->numeric == RT_NUMERIC_SFLOAT)
        return c->bits == 16 ? 0x3c00 : c->bits == 32 ? 0x3f800000 : 0;
    if (c->numeric == RT_NUMERIC_SNORM || c->numeric == RT_NUMERIC_SINT || c->numeric == RT_NUMERIC_SSCALED)
        return (1ull << (c->bits - 1)) - 1;
    return c->bits >= 64 ? UINT64_MAX : (1ull << c->bits) - 1;
}

/* Sets every texel's alpha to 1.0 in place (uncompressed single-plane
 * formats with an alpha component; others are left as they are). */
static void make_opaque(VkFormat format, uint8_t *bytes, size_t size)
{
    const struct rt_format_info *f = rt_format_find(format);
    if (!f || f->compression != RT_COMPRESSION_NONE || f->plane_count > 1 || !f->block_size)
        return;
    for (uint8_t i = 0; i < f->component_count; i++) {
        const struct rt_format_component *c = &f->components[i];
        if (c->channel != 'A' || !c->bits || c->bits > 64)
            continue;
        uint64_t one = alpha_one(c);
        for (size_t block = 0; block + f->block_size <= size; block += f->block_size)
            for (uint8_t b = 0; b < c->bits; b++) {
                unsigned bit = c->offset + b;
                uint8_t mask = (uint8_t)(1u << (bit % 8));
                uint8_t *byte = bytes + block + bit / 8;
                *byte = (one >> b) & 1 ? (uint8_t)(*byte | mask) : (uint8_t)(*byte & ~mask);
            }
    }
}

static rt_status save(const struct rt_vk_device_dispatch *d, VkDevice device, const struct readback *rb,
                      VkFormat format, VkExtent2D extent, VkDeviceSize size, bool opaque, const char *path)
{
    void *pixels = NULL;
    if (d->vkMapMemory(device, rb->memory, 0, VK_WHOLE_SIZE, 0, &pixels) != VK_SUCCESS)
        return rt_errorf(RT_ERR_INTERNAL, "cannot map the screenshot buffer");
    if (opaque)
        make_opaque(format, pixels, (size_t)size);
    char stem[4096];
    size_t n = strlen(path);
    snprintf(stem, sizeof stem, "%.*s", (int)(n > 4 && !strcmp(path + n - 4, ".png") ? n - 4 : n), path);
    rt_status s = rt_readback_save(format, VK_IMAGE_ASPECT_COLOR_BIT, pixels, (size_t)size, extent.width,
                                   extent.height, 0, stem, NULL, 0);
    d->vkUnmapMemory(device, rb->memory);
    return s;
}

static void destroy_readback(const struct rt_vk_device_dispatch *d, VkDevice device, struct readback *rb)
{
    if (rb->pool)
        d->vkDestroyCommandPool(device, rb->pool, NULL);
    if (rb->fence)
        d->vkDestroyFence(device, rb->fence, NULL);
    if (rb->buffer)
        d->vkDestroyBuffer(device, rb->buffer, NULL);
    if (rb->memory)
        d->vkFreeMemory(device, rb->memory, NULL);
}

bool rt_readback_supported(VkFormat format)
{
    return rt_format_find(format) != NULL;
}

rt_status rt_readback_png(const struct rt_readback_device *dev, VkQueue queue, uint32_t family, VkImage image,
                          VkImageLayout layout, VkFormat format, VkExtent2D extent, uint32_t wait_count,
                          const VkSemaphore *waits, bool opaque, const char *path, bool *waited_out)
{
    *waited_out = false;
    VkDeviceSize size = rt_readback_copy_size(format, VK_IMAGE_ASPECT_COLOR_BIT, extent.width, extent.height, 0);
    if (!size)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "%s: cannot read images of format %d", path, (int)format);
    const struct rt_vk_device_dispatch *d = dev->dispatch;
    struct readback rb = {0};
    bool copied = false;
    if (make_buffer(dev, size, &rb) && make_commands(dev, family, &rb)) {
        record_copy(d, &rb, image, layout, extent);
        copied = submit_and_wait(d, dev->device, queue, &rb, wait_count, waits);
        *waited_out = copied;
    }
    rt_status s = copied ? save(d, dev->device, &rb, format, extent, size, opaque, path)
                         : rt_errorf(RT_ERR_INTERNAL, "%s: the copy of the presented image failed", path);
    destroy_readback(d, dev->device, &rb);
    return s;
}
