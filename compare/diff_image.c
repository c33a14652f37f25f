/*
 * compare/diff_image.c — the picture a person looks at when a frame fails.
 *
 * The golden, dimmed to a quarter-bright gray so colour cannot be mistaken for
 * a difference, under a yellow-to-red heat colour whose strength is the larger
 * of (1 - local SSIM) x 4 (so SSIM 0.75 is full strength; structure changes
 * show even where pixels differ little) and, for any pixel that differs at
 * all, 0.25 + 0.75 x delta/255 (so a one-level change is still visible). The
 * worst tile is outlined in cyan (compare.c outlines a failing colour tile in magenta).
 */
#include "compare.h"

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

static double heat_at(const struct rt_image *g, const struct rt_image *a, const float *map,
                      size_t i)
{
    const uint8_t *pg = g->rgba + 4 * i, *pa = a->rgba + 4 * i;
    int delta = 0;
    for (int c = 0; c < 3; c++) {
        int d = pg[c] > pa[c] ? pg[c] - pa[c] : pa[c] - pg[c];
        delta = d > delta ? d : delta;
    }
    double h = map ? clamp01((1.0 - map[i]) * 4.0) : 0;
    double hp = delta ? 0.25 + 0.75 * delta / 255.0 : 0;
    return h > hp ? h : hp;
}

static void shade_pixel(const uint8_t *golden, double heat, uint8_t *out)
{
    double gray = (0.299 * golden[0] + 0.587 * golden[1] + 0.114 * golden[2]) / 4.0;
    /* yellow (255, 255, 0) at low heat to red (255, 0, 0) at full heat */
    double hot[3] = {255.0, 255.0 * (1.0 - heat), 0.0};
    for (int c = 0; c < 3; c++)
        out[c] = (uint8_t)(gray * (1.0 - heat) + hot[c] * heat + 0.5);
    out[3] = 255;
}

void rt_diff_image_outline(struct rt_image *im, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                           const uint8_t rgb[3])
{
    if (w == 0 || h == 0)
        return;
    uint32_t x1 = x0 + w - 1, y1 = y0 + h - 1;
    for (uint32_t y = y0; y <= y1 && y < im->height; y++)
        for (uint32_t x = x0; x <= x1 && x < im->width; x++) {
            if (y != y0 && y != y1 && x != x0 && x != x1)
                continue;
            uint8_t *p = im->rgba + ((size_t)y * im->width + x) * 4;
            p[0] = rgb[0];
            p[1] = rgb[1];
            p[2] = rgb[2];
        }
}

rt_status rt_diff_image_make(const struct rt_image *golden, const struct rt_image *actual,
                             const float *map, const struct rt_ssim_result *worst,
                             struct rt_image *out)
{
    if (golden->width != actual->width || golden->height != actual->height) {
        *out = (struct rt_image){0};
        return rt_errorf(RT_ERR_USAGE, "diff image of images of different sizes");
    }
    RT_TRY(rt_image_init(out, golden->width, golden->height));
    size_t n = (size_t)golden->width * golden->height;
    for (size_t i = 0; i < n; i++)
        shade_pixel(golden->rgba + 4 * i, heat_at(golden, actual, map, i), out->rgba + 4 * i);
    static const uint8_t cyan[3] = {0, 255, 255};
    if (worst && worst->min_tile < 1.0)
        rt_diff_image_outline(out, worst->tile_x, worst->tile_y, worst->tile_w, worst->tile_h, cyan);
    return rt_ok_status();
}
