/* readback/formats.c — lookups in the generated format table (formats.h). */
#include <stdlib.h>

#include "formats.h"

static int by_format(const void *key, const void *entry)
{
    int64_t a = *(const VkFormat *)key, b = ((const struct rt_format_info *)entry)->format;
    return a < b ? -1 : a > b;
}

const struct rt_format_info *rt_format_find(VkFormat format)
{
    return bsearch(&format, rt_formats, rt_format_count, sizeof rt_formats[0], by_format);
}

static bool has_channel(const struct rt_format_info *f, char channel)
{
    for (uint8_t i = 0; i < f->component_count; i++)
        if (f->components[i].channel == channel)
            return true;
    return false;
}

/* Vulkan 1.3 §"Depth/Stencil formats in copies": depth of D16_UNORM_S8_UINT
 * is copied as D16_UNORM, of D24_UNORM_S8_UINT as X8_D24_UNORM_PACK32 (the
 * top byte undefined), of D32_SFLOAT_S8_UINT as D32_SFLOAT; stencil always as
 * S8_UINT. */
static VkFormat depth_part(VkFormat format)
{
    switch (format) {
    case VK_FORMAT_D16_UNORM_S8_UINT: return VK_FORMAT_D16_UNORM;
    case VK_FORMAT_D24_UNORM_S8_UINT: return VK_FORMAT_X8_D24_UNORM_PACK32;
    case VK_FORMAT_D32_SFLOAT_S8_UINT: return VK_FORMAT_D32_SFLOAT;
    default: return format;
    }
}

VkFormat rt_format_for_aspect(VkFormat format, VkImageAspectFlags aspect)
{
    const struct rt_format_info *f = rt_format_find(format);
    if (!f)
        return format;
    if ((aspect & VK_IMAGE_ASPECT_STENCIL_BIT) && has_channel(f, 'S'))
        return VK_FORMAT_S8_UINT;
    if (aspect & VK_IMAGE_ASPECT_DEPTH_BIT)
        return depth_part(format);
    static const VkImageAspectFlags planes[3] = {VK_IMAGE_ASPECT_PLANE_0_BIT, VK_IMAGE_ASPECT_PLANE_1_BIT,
                                                 VK_IMAGE_ASPECT_PLANE_2_BIT};
    for (uint8_t i = 0; i < f->plane_count; i++)
        if (aspect & planes[i])
            return f->planes[i];
    return format;
}
