/* Unit tests for png/pixels: GPU pixel layouts to 8-bit RGBA. */
#include <criterion/criterion.h>
#include <string.h>

#include "pixels.h"

static void convert_one(enum rt_pixel_layout layout, const void *pixel, uint8_t rgba_out[4])
{
    struct rt_image img = {0};
    rt_status s = rt_image_from_pixels(&img, layout, pixel, 1, 1, rt_pixel_size(layout));
    cr_assert(rt_ok(&s), "%s", s.msg);
    memcpy(rgba_out, img.rgba, 4);
    rt_image_finish(&img);
}

Test(pixels, bgra_swaps_red_and_blue)
{
    const uint8_t bgra[4] = {10, 20, 30, 40};
    uint8_t out[4];
    convert_one(RT_PIXELS_BGRA8, bgra, out);
    cr_assert_arr_eq(out, ((uint8_t[]){30, 20, 10, 40}), 4);
}

Test(pixels, ten_bit_packed_both_orders)
{
    uint32_t w = 1023u | (512u << 10) | (0u << 20) | (3u << 30); /* R=max G=half B=0 A=max */
    uint8_t out[4];
    convert_one(RT_PIXELS_A2B10G10R10, &w, out);
    cr_assert_arr_eq(out, ((uint8_t[]){255, 128, 0, 255}), 4);
    convert_one(RT_PIXELS_A2R10G10B10, &w, out);
    cr_assert_arr_eq(out, ((uint8_t[]){0, 128, 255, 255}), 4);
}

Test(pixels, half_floats_clamp_and_round)
{
    /* 1.0, 0.5, -2.0, 65504 (max half) */
    const uint16_t h[4] = {0x3c00, 0x3800, 0xc000, 0x7bff};
    uint8_t out[4];
    convert_one(RT_PIXELS_RGBA16F, h, out);
    cr_assert_arr_eq(out, ((uint8_t[]){255, 128, 0, 255}), 4);
}

Test(pixels, row_pitch_is_respected)
{
    uint8_t rows[2][12] = {{1, 2, 3, 4, 5, 6, 7, 8, 0xEE, 0xEE, 0xEE, 0xEE},
                           {9, 10, 11, 12, 13, 14, 15, 16, 0xEE, 0xEE, 0xEE, 0xEE}};
    struct rt_image img = {0};
    cr_assert_eq(rt_status_drop(rt_image_from_pixels(&img, RT_PIXELS_RGBA8, rows, 2, 2, 12)), RT_OK);
    cr_assert_eq(img.rgba[8], 9, "second row starts after the padding");
    rt_image_finish(&img);
    cr_assert_eq(rt_status_drop(rt_image_from_pixels(&img, RT_PIXELS_RGBA8, rows, 4, 2, 12)), RT_ERR_USAGE);
}
