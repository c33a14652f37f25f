/*
 * Unit tests for compare/colour.c, the colour gate: CIEDE2000 against the
 * test pairs of Sharma, Wu and Dalal (2005), sRGB -> CIELAB against
 * scikit-image's rgb2lab, and the default verdict on the bundled goldens:
 * a red/blue swap and a grey frame fail (luma SSIM alone would pass them),
 * rendering-noise models stay far below the threshold.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

#define OK(call)                                    \
    do {                                            \
        rt_status ok_status_ = (call);              \
        cr_assert(rt_ok(&ok_status_), "%s", ok_status_.msg); \
    } while (0)

/* Sharma, Wu, Dalal (2005), table 1: L1 a1 b1, L2 a2 b2, delta E 2000. */
static const double sharma[][7] = {
    {50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425},
    {50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615},
    {50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412},
    {50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000},
    {50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000},
    {50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000},
    {50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669},
    {50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669},
    {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792},
    {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792},
    {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195},
    {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195},
    {50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045},
    {50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045},
    {50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461},
    {50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065},
    {50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492},
    {50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977},
    {50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030},
    {50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535},
    {50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000},
    {50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000},
    {50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000},
    {50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000},
    {60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644},
    {63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630},
    {61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731},
    {35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645},
    {22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373},
    {36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146},
    {90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441},
    {90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381},
    {6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377},
    {2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082},
};

Test(colour, ciede2000_matches_sharma_test_pairs_both_ways)
{
    for (size_t i = 0; i < sizeof sharma / sizeof sharma[0]; i++) {
        const double *p = sharma[i];
        double forward = rt_ciede2000(p, p + 3), backward = rt_ciede2000(p + 3, p);
        cr_assert_float_eq(forward, p[6], 1e-4, "pair %zu: %.6f, expected %.4f", i + 1,
                           forward, p[6]);
        cr_assert_float_eq(backward, p[6], 1e-4, "pair %zu reversed: %.6f", i + 1, backward);
        cr_assert_eq(rt_ciede2000(p, p), 0.0);
    }
}

/* scikit-image 0.19 rgb2lab(np.array([[c]]) / 255). */
static const double lab_refs[][6] = {
    {255, 0, 0, 53.2405879437449, 80.0923082256922, 67.2027510444287},
    {0, 255, 0, 87.73509948831895, -86.18302974439501, 83.17970317538452},
    {0, 0, 255, 32.29567256501351, 79.18559091176556, -107.85730020669489},
    {255, 255, 255, 100.0, -0.0024549378620508655, 0.004653421154054982},
    {128, 128, 128, 53.58501345216902, -0.0014726455530578164, 0.0027914514965754478},
    {10, 20, 30, 5.94847037984805, -0.6693107906908108, -8.136411786792259},
    {200, 150, 100.5, 65.7676168123449, 12.806099735281629, 33.30703389832337},
};

Test(colour, srgb_to_lab_matches_scikit_image)
{
    for (size_t i = 0; i < sizeof lab_refs / sizeof lab_refs[0]; i++) {
        const double *r = lab_refs[i];
        double lab[3];
        rt_srgb_to_lab(r[0], r[1], r[2], lab);
        for (int k = 0; k < 3; k++)
            cr_assert_float_eq(lab[k], r[3 + k], 1e-6, "colour %zu component %d: %.9f", i, k,
                               lab[k]);
    }
}

static const char *const goldens[] = {
    "1-vkcube-f1", "2-vkcube-f10", "3-textured-f1", "4-textured-f5",
    "5-particles-f1", "6-particles-f5", "7-modern-f1", "8-modern-f5",
};

static void read_golden(const char *name, struct rt_image *out)
{
    const char *root = getenv("RT_SOURCE_ROOT");
    cr_assert_not_null(root, "RT_SOURCE_ROOT is not set (run through meson test)");
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/golden/%s.png", root, name);
    rt_status st = rt_png_read_file(path, out);
    cr_assert(rt_ok(&st), "%s", st.msg);
}

static void copy_image(const struct rt_image *in, struct rt_image *out)
{
    size_t n = (size_t)in->width * in->height * 4;
    *out = *in;
    out->rgba = malloc(n);
    cr_assert_not_null(out->rgba);
    memcpy(out->rgba, in->rgba, n);
}

static void swap_red_blue(uint8_t *p)
{
    uint8_t r = p[0];
    p[0] = p[2];
    p[2] = r;
}

static void make_grey(uint8_t *p)
{
    double y = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
    p[0] = p[1] = p[2] = (uint8_t)lround(y);
}

static void each_pixel(struct rt_image *im, void (*fn)(uint8_t *))
{
    for (size_t i = 0; i < (size_t)im->width * im->height; i++)
        fn(im->rgba + 4 * i);
}

static void compare_default(const struct rt_image *g, const struct rt_image *a,
                            struct rt_compare_result *r)
{
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    rt_status st = rt_compare_images(g, a, &o, r);
    cr_assert(rt_ok(&st), "%s", st.msg);
}

Test(colour, swizzled_and_grey_goldens_fail_by_default)
{
    void (*changes[])(uint8_t *) = {swap_red_blue, make_grey};
    for (size_t i = 0; i < sizeof goldens / sizeof goldens[0]; i++) {
        struct rt_image golden;
        read_golden(goldens[i], &golden);
        for (size_t c = 0; c < 2; c++) {
            struct rt_image actual;
            copy_image(&golden, &actual);
            each_pixel(&actual, changes[c]);
            struct rt_compare_result r;
            compare_default(&golden, &actual, &r);
            cr_assert_eq(r.verdict, RT_COMPARE_FAIL, "%s %s passed", goldens[i],
                         c ? "grey" : "swizzled");
            cr_assert_gt(r.colour.max_delta_e, 3 * RT_COMPARE_DEFAULT_DELTA_E,
                         "%s %s: delta E %.2f", goldens[i], c ? "grey" : "swizzled",
                         r.colour.max_delta_e);
            rt_compare_result_finish(&r);
            rt_image_finish(&actual);
        }
        rt_image_finish(&golden);
    }
}

Test(colour, luma_alone_passes_the_vkcube_swizzle_and_grey_frame)
{
    /* The case: what luma SSIM says, so the colour gate is what fails them. */
    struct rt_image golden, swizzled, grey;
    read_golden("1-vkcube-f1", &golden);
    copy_image(&golden, &swizzled);
    copy_image(&golden, &grey);
    each_pixel(&swizzled, swap_red_blue);
    each_pixel(&grey, make_grey);
    struct rt_ssim_options so = {.channels = RT_SSIM_LUMA};
    struct rt_ssim_result s;
    OK(rt_ssim_compute(&golden, &swizzled, &so, &s));
    cr_assert_float_eq(s.mean, 0.997185, 1e-6);
    cr_assert_geq(s.min_tile, RT_COMPARE_DEFAULT_TILE_THRESHOLD);
    OK(rt_ssim_compute(&golden, &grey, &so, &s));
    cr_assert_geq(s.mean, 0.9999);
    struct rt_colour_result c;
    OK(rt_colour_compute(&golden, &swizzled, &c));
    cr_assert_float_eq(c.max_delta_e, 32.06, 0.01);
    rt_image_finish(&golden);
    rt_image_finish(&swizzled);
    rt_image_finish(&grey);
}

/* Deterministic noise in -k..k on every channel (a driver rounding differently). */
static void add_noise(struct rt_image *im, int k)
{
    uint32_t state = 12345;
    for (size_t i = 0; i < (size_t)im->width * im->height * 4; i++) {
        if (i % 4 == 3)
            continue;
        state = state * 1664525u + 1013904223u;
        int v = im->rgba[i] + (int)((state >> 16) % (uint32_t)(2 * k + 1)) - k;
        im->rgba[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

/* Coverage differences: on a strong edge (a channel differs from the right
 * neighbour by more than 32), every third pixel takes the neighbour's colour,
 * as a rasteriser with other edge rules would. */
static void flip_edges(struct rt_image *im)
{
    unsigned n = 0;
    for (uint32_t y = 0; y < im->height; y++) {
        for (uint32_t x = 0; x + 1 < im->width; x++) {
            uint8_t *p = im->rgba + ((size_t)y * im->width + x) * 4;
            bool edge = abs(p[0] - p[4]) > 32 || abs(p[1] - p[5]) > 32 || abs(p[2] - p[6]) > 32;
            if (edge && n++ % 3 == 0)
                memcpy(p, p + 4, 3);
        }
    }
}

Test(colour, rendering_noise_stays_far_below_the_threshold)
{
    for (size_t i = 0; i < sizeof goldens / sizeof goldens[0]; i++) {
        struct rt_image golden, noisy, edges;
        read_golden(goldens[i], &golden);
        copy_image(&golden, &noisy);
        copy_image(&golden, &edges);
        add_noise(&noisy, 2);
        flip_edges(&edges);
        struct rt_colour_result c;
        OK(rt_colour_compute(&golden, &noisy, &c));
        cr_assert_lt(c.max_delta_e, 0.5, "%s noise: %.3f", goldens[i], c.max_delta_e);
        OK(rt_colour_compute(&golden, &edges, &c));
        cr_assert_lt(c.max_delta_e, RT_COMPARE_DEFAULT_DELTA_E * 2 / 3, "%s edges: %.3f",
                     goldens[i], c.max_delta_e);
        if (getenv("RT_PRINT"))
            fprintf(stderr, "%s edges %.3f\n", goldens[i], c.max_delta_e);
        rt_image_finish(&golden);
        rt_image_finish(&noisy);
        rt_image_finish(&edges);
    }
}

Test(colour, a_one_level_difference_passes_the_whole_verdict)
{
    struct rt_image golden, actual;
    read_golden("3-textured-f1", &golden);
    copy_image(&golden, &actual);
    add_noise(&actual, 1);
    struct rt_compare_result r;
    compare_default(&golden, &actual, &r);
    cr_assert_eq(r.verdict, RT_COMPARE_PASS, "ssim %.6f tile %.6f delta E %.3f", r.ssim.mean,
                 r.ssim.min_tile, r.colour.max_delta_e);
    rt_compare_result_finish(&r);
    rt_image_finish(&golden);
    rt_image_finish(&actual);
}

Test(colour, the_worst_tile_is_where_the_colour_changed)
{
    struct rt_image golden, actual;
    read_golden("1-vkcube-f1", &golden);
    copy_image(&golden, &actual);
    /* turn a 24x24 patch of the logo on the cube's top grey, inside the tile at (224, 128) */
    for (uint32_t y = 132; y < 156; y++)
        for (uint32_t x = 228; x < 252; x++)
            make_grey(actual.rgba + ((size_t)y * actual.width + x) * 4);
    struct rt_colour_result c;
    OK(rt_colour_compute(&golden, &actual, &c));
    cr_assert_gt(c.max_delta_e, RT_COMPARE_DEFAULT_DELTA_E);
    cr_assert_eq(c.tile_x, 224);
    cr_assert_eq(c.tile_y, 128);
    cr_assert_eq(c.tile_w, 32);
    cr_assert_eq(c.tile_h, 32);
    rt_image_finish(&golden);
    rt_image_finish(&actual);
}

Test(colour, sizes_must_match_and_identical_images_measure_zero)
{
    struct rt_image a, b;
    read_golden("5-particles-f1", &a);
    read_golden("1-vkcube-f1", &b);
    struct rt_colour_result c;
    cr_assert_eq(rt_status_drop(rt_colour_compute(&a, &b, &c)), RT_ERR_USAGE);
    OK(rt_colour_compute(&a, &a, &c));
    cr_assert_eq(c.max_delta_e, 0.0);
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.delta_e_threshold = -1;
    struct rt_compare_result r;
    cr_assert_eq(rt_status_drop(rt_compare_images(&a, &a, &o, &r)), RT_ERR_USAGE);
    o.delta_e_threshold = NAN;
    cr_assert_eq(rt_status_drop(rt_compare_images(&a, &a, &o, &r)), RT_ERR_USAGE);
    rt_image_finish(&a);
    rt_image_finish(&b);
}

Test(colour, the_diff_image_outlines_a_failing_colour_tile_in_magenta)
{
    struct rt_image golden, actual;
    read_golden("1-vkcube-f1", &golden);
    copy_image(&golden, &actual);
    for (uint32_t y = 132; y < 156; y++)
        for (uint32_t x = 228; x < 252; x++)
            make_grey(actual.rgba + ((size_t)y * actual.width + x) * 4);
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.want_diff = true;
    struct rt_compare_result r;
    OK(rt_compare_images(&golden, &actual, &o, &r));
    cr_assert_eq(r.verdict, RT_COMPARE_FAIL);
    const uint8_t *corner = r.diff.rgba + ((size_t)128 * r.diff.width + 224) * 4;
    cr_assert(corner[0] == 255 && corner[1] == 0 && corner[2] == 255, "%u %u %u", corner[0],
              corner[1], corner[2]);
    rt_compare_result_finish(&r);
    o.delta_e_threshold = 100; /* a pass on colour: no magenta anywhere */
    OK(rt_compare_images(&golden, &actual, &o, &r));
    for (size_t i = 0; i < (size_t)r.diff.width * r.diff.height; i++) {
        const uint8_t *p = r.diff.rgba + 4 * i;
        cr_assert(!(p[0] == 255 && p[1] == 0 && p[2] == 255), "magenta at pixel %zu", i);
    }
    rt_compare_result_finish(&r);
    rt_image_finish(&golden);
    rt_image_finish(&actual);
}

Test(colour, explain_names_the_failing_gate)
{
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    struct rt_compare_result r = {
        .verdict = RT_COMPARE_FAIL, .width = 500, .height = 500,
        .ssim = {.mean = 0.999951, .min_tile = 0.999227, .tile_x = 32, .tile_y = 64},
        .colour = {.max_delta_e = 17.386, .tile_x = 224, .tile_y = 128},
        .pixels = {.diff_pixels = 21986},
    };
    char buf[256];
    rt_compare_explain(&r, &o, buf, sizeof buf);
    cr_assert_str_eq(buf, "colour: delta E 17.39 above 3 in the tile at 224,128 (ssim 0.999951)");
    r.ssim.min_tile = 0.9;
    rt_compare_explain(&r, &o, buf, sizeof buf);
    cr_assert_str_eq(buf, "worst tile ssim 0.900000 below 0.95 at 32,64 (ssim 0.999951)");
    r.ssim.mean = 0.98;
    rt_compare_explain(&r, &o, buf, sizeof buf);
    cr_assert_str_eq(buf, "ssim 0.980000 below 0.99 (worst tile 0.900000, 21986 pixels differ)");
    r.verdict = RT_COMPARE_PASS;
    rt_compare_explain(&r, &o, buf, sizeof buf);
    cr_assert_str_eq(buf, "");
    r.verdict = RT_COMPARE_SIZE_MISMATCH;
    r.actual_width = 640;
    r.actual_height = 480;
    rt_compare_explain(&r, &o, buf, sizeof buf);
    cr_assert_str_eq(buf, "size 640x480, the golden is 500x500");
}
