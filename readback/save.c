/* readback/save.c — decoded texels to PNG (grey, grey+alpha, RGB, RGBA; 8 or
 * 16 bits) and raw texel blocks to STEM.bin with a STEM.json sidecar. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"
#include "convert.h"
#include "formats.h"
#include "png_io.h"

/* Texels as they are: png/ encodes every channel count and depth, and four
 * 8-bit channels exactly as rt_png_write_file, so screenshots and goldens
 * made before this module existed stay byte-identical. */
rt_status rt_texels_write_png(const struct rt_texels *t, const char *path)
{
    struct rt_png_samples samples = {.width = t->width, .height = t->height,
                                     .channels = t->channels, .depth = t->depth,
                                     .samples = t->samples};
    return rt_png_write_samples_file(path, &samples);
}

/* --- raw texel blocks + sidecar ------------------------------------------------- */

static const char *aspect_name(VkImageAspectFlags aspect)
{
    if (aspect & VK_IMAGE_ASPECT_DEPTH_BIT)
        return "depth";
    if (aspect & VK_IMAGE_ASPECT_STENCIL_BIT)
        return "stencil";
    if (aspect & VK_IMAGE_ASPECT_PLANE_0_BIT)
        return "plane0";
    if (aspect & VK_IMAGE_ASPECT_PLANE_1_BIT)
        return "plane1";
    if (aspect & VK_IMAGE_ASPECT_PLANE_2_BIT)
        return "plane2";
    return "color";
}

/* Rows of blocks, tightly packed (the sidecar gives the row size). */
static rt_status write_blocks(const char *path, const struct rt_format_info *f, const uint8_t *bytes,
                              uint32_t width, uint32_t height, size_t row_pitch)
{
    size_t row = (size_t)(width + f->block_width - 1) / f->block_width * f->block_size;
    uint32_t rows = (height + f->block_height - 1) / f->block_height;
    FILE *file = fopen(path, "wb");
    if (!file)
        return rt_errorf(RT_ERR_INTERNAL, "%s: cannot create: %s", path, strerror(errno));
    bool ok = true;
    for (uint32_t y = 0; y < rows && ok; y++)
        ok = fwrite(bytes + (size_t)y * row_pitch, 1, row, file) == row;
    if (fclose(file) != 0 || !ok) {
        remove(path);
        return rt_errorf(RT_ERR_INTERNAL, "%s: write error: %s", path, strerror(errno));
    }
    return rt_ok_status();
}

static rt_status write_sidecar(const char *path, const struct rt_format_info *f, VkImageAspectFlags aspect,
                               uint32_t width, uint32_t height, const char *why)
{
    FILE *file = fopen(path, "w");
    if (!file)
        return rt_errorf(RT_ERR_INTERNAL, "%s: cannot create: %s", path, strerror(errno));
    size_t row = (size_t)(width + f->block_width - 1) / f->block_width * f->block_size;
    /* Every string here is a format name or one of ours: nothing to escape. */
    fprintf(file,
            "{\n  \"format\": \"VK_FORMAT_%s\",\n  \"aspect\": \"%s\",\n  \"width\": %" PRIu32 ",\n  \"height\": %" PRIu32
            ",\n  \"block_width\": %u,\n  \"block_height\": %u,\n  \"block_bytes\": %u,\n  \"row_bytes\": %zu,\n"
            "  \"why\": \"%s\"\n}\n",
            f->name, aspect_name(aspect), width, height, f->block_width, f->block_height, f->block_size, row, why);
    if (fclose(file) != 0) {
        remove(path);
        return rt_errorf(RT_ERR_INTERNAL, "%s: write error: %s", path, strerror(errno));
    }
    return rt_ok_status();
}

/* --- entry points ---------------------------------------------------------------- */

static size_t pitch_of(const struct rt_format_info *f, uint32_t width, uint32_t row_length)
{
    uint32_t texels = row_length ? row_length : width;
    return (size_t)(texels + f->block_width - 1) / f->block_width * f->block_size;
}

size_t rt_readback_copy_size(VkFormat format, VkImageAspectFlags aspect, uint32_t width, uint32_t height,
                             uint32_t row_length)
{
    const struct rt_format_info *f = rt_format_find(rt_format_for_aspect(format, aspect));
    return f ? rt_convert_blocks_size(f, width, height, pitch_of(f, width, row_length)) : 0;
}

static void note_written(char *written, size_t size, const char *path)
{
    if (written && size)
        snprintf(written, size, "%s", path);
}

rt_status rt_readback_save(VkFormat format, VkImageAspectFlags aspect, const void *bytes, size_t size,
                           uint32_t width, uint32_t height, uint32_t row_length, const char *stem, char *written,
                           size_t written_size)
{
    VkFormat actual = rt_format_for_aspect(format, aspect);
    const struct rt_format_info *f = rt_format_find(actual);
    struct rt_convert_plan plan;
    if (!f || !rt_convert_plan_for(actual, &plan))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "%s: format %d is not one this build of retrace knows", stem,
                         (int)format);
    size_t pitch = pitch_of(f, width, row_length);
    if (!width || !height || rt_convert_blocks_size(f, width, height, pitch) > size)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %ux%u texels of %s do not fit the %zu bytes copied", stem, width,
                         height, f->name, size);
    char path[4096 + 8];
    if (plan.raw) {
        snprintf(path, sizeof path, "%s.json", stem);
        RT_TRY(write_sidecar(path, f, aspect, width, height, plan.why_raw));
        snprintf(path, sizeof path, "%s.bin", stem);
        RT_TRY(write_blocks(path, f, bytes, width, height, pitch));
        note_written(written, written_size, path);
        return rt_ok_status();
    }
    struct rt_texels texels;
    RT_TRY(rt_convert_texels(actual, bytes, size, width, height, pitch, &texels));
    snprintf(path, sizeof path, "%s.png", stem);
    rt_status s = rt_texels_write_png(&texels, path);
    rt_texels_finish(&texels);
    if (rt_ok(&s))
        note_written(written, written_size, path);
    return s;
}
