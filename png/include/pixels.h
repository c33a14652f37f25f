/*
 * png/include/pixels.h — raw pixel rows (as a GPU copies them out) to 8-bit RGBA.
 *
 * Owns: the conversions screenshots need: 8-bit RGBA/BGRA (UNORM or sRGB:
 * the stored values are kept, as PNG stores sRGB values), 10-bit packed
 * (A2B10G10R10, A2R10G10B10), 16-bit float and 16-bit UNORM RGBA. Alpha is
 * kept. Part of png/, which capture and replay may link, so it must
 * not know Vulkan: capture/ and replay/ map VkFormat to a layout.
 */
#ifndef RT_PIXELS_H
#define RT_PIXELS_H

#include <stddef.h>
#include <stdint.h>

#include "png_io.h"
#include "status.h"

enum rt_pixel_layout {
    RT_PIXELS_RGBA8,
    RT_PIXELS_BGRA8,
    RT_PIXELS_A2B10G10R10, /* 32-bit words: R in bits 0-9, G 10-19, B 20-29, A 30-31 */
    RT_PIXELS_A2R10G10B10, /* 32-bit words: B in bits 0-9, G 10-19, R 20-29, A 30-31 */
    RT_PIXELS_RGBA16F,
    RT_PIXELS_RGBA16,
};

/** Bytes per pixel of a layout. */
size_t rt_pixel_size(enum rt_pixel_layout layout);

/**
 * Converts WIDTH x HEIGHT pixels, rows ROW_PITCH bytes apart, into a new
 * image *out (rt_image_finish frees it). Floats are clamped to [0, 1].
 */
rt_status rt_image_from_pixels(struct rt_image *out, enum rt_pixel_layout layout, const void *pixels,
                               uint32_t width, uint32_t height, size_t row_pitch) RT_MUST_CHECK;

#endif
