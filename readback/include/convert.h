/*
 * readback/include/convert.h — texels of any VkFormat, as a GPU copies them into a
 * buffer, to a PNG file, or to raw bytes with a JSON sidecar when no PNG
 * holds them. README.md ("Image formats") documents the mapping:
 *   - channels: 1 component -> grey, 2 -> grey+alpha (R, G), 3 -> RGB,
 *     4 -> RGBA (BGR orders are put in RGB order); depth and stencil -> grey;
 *   - bit depth: 8-bit samples where every component fits in 8 bits, else
 *     16-bit (10/12/16-bit UNORM, floats, 16-bit integers, 24-bit depth);
 *   - UNORM and sRGB: the stored value scaled to the sample range (no gamma
 *     conversion: PNG keeps sRGB values as they are); SNORM: offset by half
 *     the range (0.0 becomes mid-grey) then scaled; UINT/USCALED: the value
 *     itself; SINT/SSCALED: the value plus half the range, not scaled;
 *     floats: clamped to [0, 1] (NaN as 0) and scaled to 16 bits;
 *   - 4:2:2 formats (G8B8G8R8_422 ...): RGB with each pair's chroma repeated;
 *   - BC1-BC7 decoded (BC6H clamped like floats); ETC2, EAC, ASTC and PVRTC
 *     blocks, 32- and 64-bit integers, a multi-planar or combined
 *     depth/stencil copy made without naming one plane or aspect: raw.
 * Knows no device: callers hand it bytes.
 */
#ifndef RT_READBACK_CONVERT_H
#define RT_READBACK_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#include "status.h"

/** What FORMAT's texels become. */
struct rt_convert_plan {
    bool raw;            /* no PNG: STEM.bin + STEM.json */
    const char *why_raw; /* one phrase, for the sidecar and warnings */
    uint8_t channels;    /* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA */
    uint8_t depth;       /* 8 or 16 bits per sample */
};

/** false for a format this build's vk.xml does not define. */
bool rt_convert_plan_for(VkFormat format, struct rt_convert_plan *out);

/** Decoded texels: WIDTH x HEIGHT x CHANNELS samples, each below 2^DEPTH. */
struct rt_texels {
    uint32_t width, height;
    uint8_t channels, depth;
    uint16_t *samples; /* malloc'd; rt_texels_finish frees it */
};

/**
 * Decodes WIDTH x HEIGHT texels of FORMAT from BYTES (SIZE bytes; rows of
 * texel blocks ROW_PITCH bytes apart) per the plan. RT_ERR_BAD_INPUT when
 * SIZE is too small, RT_ERR_CANNOT_REPLAY for a raw-only format.
 */
rt_status rt_convert_texels(VkFormat format, const void *bytes, size_t size, uint32_t width, uint32_t height,
                            size_t row_pitch, struct rt_texels *out) RT_MUST_CHECK;
void rt_texels_finish(struct rt_texels *t);

/** Writes T as a PNG of its channels and depth (8-bit RGBA exactly as rt_png_write_file). */
rt_status rt_texels_write_png(const struct rt_texels *t, const char *path) RT_MUST_CHECK;

/**
 * Saves a copy of ASPECT of an image of FORMAT, as a buffer holds it (rows of
 * ROW_LENGTH texels, 0 = WIDTH, as VkBufferImageCopy says), to STEM.png, or
 * to STEM.bin and STEM.json. WRITTEN (may be NULL) receives the file written
 * (.png or .bin). An unknown format, too few bytes or a failed write is an
 * error for the caller to report; nothing is left half-written.
 */
rt_status rt_readback_save(VkFormat format, VkImageAspectFlags aspect, const void *bytes, size_t size,
                           uint32_t width, uint32_t height, uint32_t row_length, const char *stem, char *written,
                           size_t written_size) RT_MUST_CHECK;

/** Bytes a copy of WIDTH x HEIGHT texels with ROW_LENGTH occupies (0 for an unknown format). */
size_t rt_readback_copy_size(VkFormat format, VkImageAspectFlags aspect, uint32_t width, uint32_t height,
                             uint32_t row_length);

#endif
