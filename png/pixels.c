/* png/pixels.c — pixel layouts to 8-bit RGBA (see pixels.h). */
#include "pixels.h"

#include <math.h>
#include <string.h>

size_t rt_pixel_size(enum rt_pixel_layout layout)
{
    switch (layout) {
    case RT_PIXELS_RGBA16F:
    case RT_PIXELS_RGBA16:
        return 8;
    default:
        return 4;
    }
}

static uint8_t unorm_to_8(uint32_t v, uint32_t max)
{
    return (uint8_t)((v * 255u + max / 2) / max);
}

static float half_to_float(uint16_t h)
{
    int exponent = (h >> 10) & 0x1f;
    int mantissa = h & 0x3ff;
    float sign = (h & 0x8000) ? -1.0f : 1.0f;
    if (exponent == 0)
        return sign * ldexpf((float)mantissa, -24);
    if (exponent == 31)
        return mantissa ? NAN : sign * INFINITY;
    return sign * ldexpf((float)(mantissa | 0x400), exponent - 25);
}

static uint8_t float_to_8(float f)
{
    if (!(f > 0.0f)) /* also NaN */
        return 0;
    if (f >= 1.0f)
        return 255;
    return (uint8_t)lrintf(f * 255.0f);
}

static void convert_pixel(enum rt_pixel_layout layout, const uint8_t *src, uint8_t *dst)
{
    uint32_t w;
    uint16_t h[4];
    switch (layout) {
    case RT_PIXELS_RGBA8:
        memcpy(dst, src, 4);
        return;
    case RT_PIXELS_BGRA8:
        dst[0] = src[2], dst[1] = src[1], dst[2] = src[0], dst[3] = src[3];
        return;
    case RT_PIXELS_A2B10G10R10:
    case RT_PIXELS_A2R10G10B10:
        memcpy(&w, src, 4);
        dst[0] = unorm_to_8(layout == RT_PIXELS_A2B10G10R10 ? w & 0x3ff : (w >> 20) & 0x3ff, 1023);
        dst[1] = unorm_to_8((w >> 10) & 0x3ff, 1023);
        dst[2] = unorm_to_8(layout == RT_PIXELS_A2B10G10R10 ? (w >> 20) & 0x3ff : w & 0x3ff, 1023);
        dst[3] = unorm_to_8(w >> 30, 3);
        return;
    case RT_PIXELS_RGBA16F:
        memcpy(h, src, 8);
        for (int c = 0; c < 4; c++)
            dst[c] = float_to_8(half_to_float(h[c]));
        return;
    case RT_PIXELS_RGBA16:
        memcpy(h, src, 8);
        for (int c = 0; c < 4; c++)
            dst[c] = unorm_to_8(h[c], 65535);
        return;
    }
}

rt_status rt_image_from_pixels(struct rt_image *out, enum rt_pixel_layout layout, const void *pixels,
                               uint32_t width, uint32_t height, size_t row_pitch)
{
    if (row_pitch < (size_t)width * rt_pixel_size(layout))
        return rt_errorf(RT_ERR_USAGE, "row pitch %zu is smaller than a row of %u pixels", row_pitch, width);
    RT_TRY(rt_image_init(out, width, height));
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = (const uint8_t *)pixels + (size_t)y * row_pitch;
        uint8_t *dst = out->rgba + (size_t)y * width * 4;
        for (uint32_t x = 0; x < width; x++)
            convert_pixel(layout, row + (size_t)x * rt_pixel_size(layout), dst + (size_t)x * 4);
    }
    return rt_ok_status();
}
