/* readback/readback.c — presented image to PNG (see readback.h). */
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "formats.h"
#include "readback.h"
#include "staging.h"

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

/* Into the staging buffer, the image left in LAYOUT (rt_staging_submit
 * makes the copy visible to the host). */
static void record_copy(const struct rt_vk_device_dispatch *d, const struct rt_staging *rb, VkImage image,
                        VkImageLayout layout, VkExtent2D extent)
{
    image_barrier(d, rb->cmd, image, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_MEMORY_WRITE_BIT,
                  VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {extent.width, extent.height, 1}};
    d->vkCmdCopyImageToBuffer(rb->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb->buffer, 1, &region);
    image_barrier(d, rb->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout, VK_ACCESS_TRANSFER_READ_BIT, 0);
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

static rt_status save(const struct rt_staging *rb, VkFormat format, VkExtent2D extent, VkDeviceSize size,
                      bool opaque, const char *path)
{
    void *pixels = rb->map;
    if (opaque)
        make_opaque(format, pixels, (size_t)size);
    char stem[4096];
    size_t n = strlen(path);
    snprintf(stem, sizeof stem, "%.*s", (int)(n > 4 && !strcmp(path + n - 4, ".png") ? n - 4 : n), path);
    rt_status s = rt_readback_save(format, VK_IMAGE_ASPECT_COLOR_BIT, pixels, (size_t)size, extent.width,
                                   extent.height, 0, stem, NULL, 0);
    return s;
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
    struct rt_staging rb;
    rt_status s = rt_staging_begin(dev, family, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb);
    if (rt_ok(&s)) {
        record_copy(d, &rb, image, layout, extent);
        s = rt_staging_submit(&rb, queue, wait_count, waits, waited_out);
    }
    s = rt_ok(&s) ? save(&rb, format, extent, size, opaque, path)
                  : rt_status_wrap(s, "%s: the copy of the presented image failed", path);
    rt_staging_end(&rb);
    return s;
}
