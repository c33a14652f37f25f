/*
 * png/include/png_io.h — PNG files in and out, as 8-bit RGBA, through libpng.
 *
 * Owns: decoding any PNG libpng reads (1/2/4/8/16-bit; gray, gray+alpha, RGB,
 * RGBA, palette with or without tRNS; interlaced or not) into one layout,
 * struct rt_image, and encoding that layout back to PNG, or samples of any
 * channel count at 8 or 16 bits (struct rt_png_samples: readback's images):
 * the one PNG encoder of retrace. Safe on untrusted input: a broken,
 * truncated or oversized file is an RT_ERR_BAD_INPUT status with a one-line
 * reason, never a crash.
 * Must not touch: Vulkan, the store, the CLI. It knows nothing of SSIM.
 *
 * Conversions on read (documented in compare/README.md): 16-bit samples are
 * scaled to 8 bits with rounding (v * 255 / 65535), gray is replicated into
 * R, G and B, palette indices are expanded, tRNS becomes alpha, a missing
 * alpha channel reads as 255. No gamma or colour-space correction is applied:
 * the stored sample values are what compare sees.
 */
#ifndef RT_PNG_IO_H
#define RT_PNG_IO_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/** Largest image accepted on read, in pixels (RGBA bytes = 4 times this). */
#define RT_IMAGE_MAX_PIXELS ((uint64_t)1 << 27)
/** Largest width or height accepted on read. */
#define RT_IMAGE_MAX_SIDE 65535u

/** An 8-bit RGBA image, rows top to bottom, tightly packed (stride 4*width). */
struct rt_image {
    uint32_t width, height;
    uint8_t *rgba; /* malloc'd; owned by the image; freed by rt_image_finish */
};

/**
 * Allocates a zeroed WIDTH x HEIGHT image into *out. Both must be >= 1 and
 * within the limits above. RT_ERR_USAGE on a bad size, RT_ERR_INTERNAL when out
 * of memory.
 */
rt_status rt_image_init(struct rt_image *out, uint32_t width, uint32_t height) RT_MUST_CHECK;

/** Frees the pixels and zeroes *image; safe on a zeroed or finished image. */
void rt_image_finish(struct rt_image *image);

/**
 * Decodes the PNG file at PATH into *out (which is zeroed first, and left
 * zeroed on error). Errors: RT_ERR_BAD_INPUT (missing, unreadable, not a PNG,
 * corrupt, truncated, too large) with a message that names the file.
 */
rt_status rt_png_read_file(const char *path, struct rt_image *out) RT_MUST_CHECK;

/** As rt_png_read_file, from SIZE bytes at DATA (e.g. a blob from the store). */
rt_status rt_png_read_memory(const void *data, size_t size, struct rt_image *out) RT_MUST_CHECK;

/**
 * Encodes IMAGE as an 8-bit RGBA, non-interlaced PNG at PATH (truncating any
 * existing file). The bytes written depend only on the pixels (no time stamp).
 * RT_ERR_INTERNAL when the file cannot be written; RT_ERR_USAGE on a bad image.
 */
rt_status rt_png_write_file(const char *path, const struct rt_image *image) RT_MUST_CHECK;

/**
 * As rt_png_write_file, trading size for time (zlib level 1, Sub filter): about
 * five times faster and a quarter larger. For diff images, not goldens.
 */
rt_status rt_png_write_file_fast(const char *path, const struct rt_image *image) RT_MUST_CHECK;

/**
 * Samples to encode as they are, for images that are not 8-bit RGBA (what
 * readback makes of a VkFormat): CHANNELS 1 (grey), 2 (grey+alpha), 3 (RGB)
 * or 4 (RGBA) samples of DEPTH 8 or 16 bits per pixel, one uint16_t per
 * sample (each below 2^DEPTH), rows top to bottom, tightly packed.
 */
struct rt_png_samples {
    uint32_t width, height;
    uint8_t channels, depth;
    const uint16_t *samples;
};

/**
 * As rt_png_write_file, for SAMPLES: a PNG of their colour type and depth.
 * Four 8-bit channels give the same bytes as rt_png_write_file of that image.
 * RT_ERR_USAGE on no pixels, a channel count or a depth not above.
 */
rt_status rt_png_write_samples_file(const char *path,
                                    const struct rt_png_samples *samples) RT_MUST_CHECK;

/**
 * As rt_png_write_file, into a malloc'd buffer: *out receives it (the caller
 * frees it with free()) and *size_out its length. Same bytes as the file.
 */
rt_status rt_png_write_memory(const struct rt_image *image, uint8_t **out,
                              size_t *size_out) RT_MUST_CHECK;

#endif
