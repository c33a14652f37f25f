/*
 * Unit tests for compare/: SSIM against scikit-image (tests/ref/ssim_ref.txt,
 * made by tests/ref/make_refs.py), against a brute-force 2-D reference here,
 * pixel metrics, verdicts, diff images, output formats, and the `retrace
 * compare` binary's lines and exit codes.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "compare.h"

#define SKIMAGE_TOLERANCE 1e-4

struct ref_pair {
    char name[64], a[128], b[128], skimage_default[16];
    unsigned width, height, crop, max_delta;
    double ssim_luma, min_tile_luma, ssim_rgb, min_tile_rgb, psnr;
    unsigned long long diff_pixels;
};

static const char *env_or_fail(const char *name)
{
    const char *v = getenv(name);
    cr_assert_not_null(v, "%s is not set (run through meson test)", name);
    return v;
}

/* Parses one "key=value ..." line of ssim_ref.txt; false for comments. */
static bool parse_ref_line(char *line, struct ref_pair *r)
{
    if (line[0] == '#' || line[0] == '\n')
        return false;
    memset(r, 0, sizeof *r);
    int fields = 0;
    for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
        char *eq = strchr(tok, '=');
        cr_assert_not_null(eq, "bad token %s", tok);
        *eq = '\0';
        const char *k = tok, *v = eq + 1;
        fields++;
#define STR(KEY) if (!strcmp(k, #KEY)) snprintf(r->KEY, sizeof r->KEY, "%s", v); else
#define NUM(KEY) if (!strcmp(k, #KEY)) r->KEY = strtod(v, NULL); else
#define INT(KEY) if (!strcmp(k, #KEY)) r->KEY = (unsigned)strtoul(v, NULL, 10); else
        STR(name) STR(a) STR(b) STR(skimage_default) INT(width) INT(height) INT(crop)
        INT(max_delta) NUM(ssim_luma) NUM(min_tile_luma) NUM(ssim_rgb) NUM(min_tile_rgb)
        NUM(psnr) if (!strcmp(k, "diff_pixels")) r->diff_pixels = strtoull(v, NULL, 10);
        else if (!strcmp(k, "pair")) snprintf(r->name, sizeof r->name, "%s", v);
        else fields--;
#undef STR
#undef NUM
#undef INT
    }
    cr_assert_eq(fields, 14, "reference line for %s has %d known fields", r->name, fields);
    return true;
}

static size_t load_refs(struct ref_pair *out, size_t max)
{
    char path[1024], line[2048];
    snprintf(path, sizeof path, "%s/tests/ref/ssim_ref.txt", env_or_fail("RT_SOURCE_ROOT"));
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t n = 0;
    while (fgets(line, sizeof line, f) && n < max)
        if (parse_ref_line(line, &out[n]))
            n++;
    fclose(f);
    return n;
}

static void read_image(const char *rel, struct rt_image *im)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/images/%s", env_or_fail("RT_TEST_DATA"), rel);
    rt_status st = rt_png_read_file(path, im);
    cr_assert(rt_ok(&st), "%s", st.msg);
}

static void check_ssim(const struct ref_pair *r, const struct rt_image *a,
                       const struct rt_image *b, enum rt_ssim_channels ch, unsigned threads)
{
    struct rt_ssim_options o = {.channels = ch, .threads = threads};
    struct rt_ssim_result res;
    rt_status st = rt_ssim_compute(a, b, &o, &res);
    cr_assert(rt_ok(&st), "%s", st.msg);
    double want = ch == RT_SSIM_LUMA ? r->ssim_luma : r->ssim_rgb;
    double want_tile = ch == RT_SSIM_LUMA ? r->min_tile_luma : r->min_tile_rgb;
    const char *mode = ch == RT_SSIM_LUMA ? "luma" : "rgb";
    cr_assert_leq(fabs(res.mean - want), SKIMAGE_TOLERANCE, "%s %s: ssim %.9f, skimage %.9f",
                  r->name, mode, res.mean, want);
    cr_assert_leq(fabs(res.min_tile - want_tile), SKIMAGE_TOLERANCE,
                  "%s %s: min tile %.9f, reference %.9f", r->name, mode, res.min_tile, want_tile);
    cr_assert_eq(res.crop, r->crop, "%s: crop %u, reference %u", r->name, res.crop, r->crop);
    cr_assert_null(res.map);
}

Test(ssim, agrees_with_scikit_image_on_every_reference_pair)
{
    struct ref_pair refs[64];
    size_t n = load_refs(refs, 64);
    cr_assert_geq(n, 17, "only %zu reference pairs", n);
    int raises = 0;
    for (size_t i = 0; i < n; i++) {
        struct rt_image a, b;
        read_image(refs[i].a, &a);
        read_image(refs[i].b, &b);
        cr_assert_eq(a.width, refs[i].width);
        cr_assert_eq(a.height, refs[i].height);
        for (unsigned threads = 1; threads <= 3; threads += 2) {
            check_ssim(&refs[i], &a, &b, RT_SSIM_LUMA, threads);
            check_ssim(&refs[i], &a, &b, RT_SSIM_RGB, threads);
        }
        raises += !strcmp(refs[i].skimage_default, "raises");
        rt_image_finish(&a);
        rt_image_finish(&b);
    }
    /* 1x1 (twice), 7x7 and 40x3 are below skimage's 11-pixel window. */
    cr_assert_eq(raises, 4);
}

Test(ssim, pixel_metrics_match_the_references)
{
    struct ref_pair refs[64];
    size_t n = load_refs(refs, 64);
    for (size_t i = 0; i < n; i++) {
        struct rt_image a, b;
        read_image(refs[i].a, &a);
        read_image(refs[i].b, &b);
        struct rt_pixel_metrics m;
        rt_status st = rt_pixel_metrics_compute(&a, &b, &m);
        cr_assert(rt_ok(&st), "%s", st.msg);
        cr_assert_eq(m.diff_pixels, refs[i].diff_pixels, "%s: %llu differing pixels",
                     refs[i].name, (unsigned long long)m.diff_pixels);
        cr_assert_eq(m.max_delta, refs[i].max_delta, "%s", refs[i].name);
        if (isinf(refs[i].psnr))
            cr_assert(isinf(m.psnr), "%s: psnr %f", refs[i].name, m.psnr);
        else
            cr_assert_leq(fabs(m.psnr - refs[i].psnr), 1e-6, "%s: psnr %f", refs[i].name, m.psnr);
        rt_image_finish(&a);
        rt_image_finish(&b);
    }
}

/* ---- an independent reference: direct 11x11 2-D Gaussian, reflect edges ---- */

static int reflect(int i, int n)
{
    int period = 2 * n;
    i %= period;
    if (i < 0)
        i += period;
    return i < n ? i : period - 1 - i;
}

static double luma_at(const struct rt_image *im, int x, int y)
{
    const uint8_t *p = im->rgba + ((size_t)y * im->width + (size_t)x) * 4;
    return 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
}

/* SSIM at (x, y) computed the slow, obvious way (Wang et al. eq. 13). */
static double brute_ssim_at(const struct rt_image *a, const struct rt_image *b, int x, int y)
{
    double w1[11], sum = 0;
    for (int k = -5; k <= 5; k++)
        sum += w1[k + 5] = exp(-(k * k) / (2 * 1.5 * 1.5));
    double mx = 0, my = 0, mxx = 0, myy = 0, mxy = 0;
    for (int dy = -5; dy <= 5; dy++)
        for (int dx = -5; dx <= 5; dx++) {
            double w = w1[dy + 5] * w1[dx + 5] / (sum * sum);
            int sx = reflect(x + dx, (int)a->width), sy = reflect(y + dy, (int)a->height);
            double va = luma_at(a, sx, sy), vb = luma_at(b, sx, sy);
            mx += w * va, my += w * vb, mxx += w * va * va, myy += w * vb * vb, mxy += w * va * vb;
        }
    double c1 = 2.55 * 2.55, c2 = 7.65 * 7.65;
    return (2 * mx * my + c1) * (2 * (mxy - mx * my) + c2) /
           ((mx * mx + my * my + c1) * (mxx - mx * mx + myy - my * my + c2));
}

static void random_image(struct rt_image *im, uint32_t w, uint32_t h, unsigned seed)
{
    rt_status st = rt_image_init(im, w, h);
    cr_assert(rt_ok(&st), "%s", st.msg);
    for (size_t i = 0; i < (size_t)w * h * 4; i++) {
        seed = seed * 1103515245u + 12345u;
        im->rgba[i] = (uint8_t)(((seed >> 16) & 0x7f) + (i / 4 % w) / 2);
    }
}

Test(ssim, map_matches_a_brute_force_2d_filter)
{
    struct rt_image a, b;
    random_image(&a, 70, 45, 1);
    random_image(&b, 70, 45, 2);
    struct rt_ssim_options o = {.channels = RT_SSIM_LUMA, .threads = 2, .want_map = true};
    struct rt_ssim_result res;
    rt_status st = rt_ssim_compute(&a, &b, &o, &res);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_not_null(res.map);
    double sum = 0;
    for (int y = 0; y < 45; y++)
        for (int x = 0; x < 70; x++) {
            double want = brute_ssim_at(&a, &b, x, y);
            cr_assert_leq(fabs(res.map[y * 70 + x] - want), 1e-6, "(%d,%d): %f vs %f", x, y,
                          res.map[y * 70 + x], want);
            if (x >= 5 && x < 65 && y >= 5 && y < 40)
                sum += want;
        }
    cr_assert_leq(fabs(res.mean - sum / (60 * 35)), 1e-9, "mean %.12f", res.mean);
    rt_ssim_result_finish(&res);
    cr_assert_null(res.map);
    rt_image_finish(&a);
    rt_image_finish(&b);
}

Test(ssim, same_answer_for_any_thread_count)
{
    struct rt_image a, b;
    random_image(&a, 301, 517, 3); /* 16 tile rows, odd sizes */
    random_image(&b, 301, 517, 4);
    struct rt_ssim_result first = {0};
    for (unsigned t = 1; t <= 8; t++) {
        struct rt_ssim_options o = {.channels = t % 2 ? RT_SSIM_LUMA : RT_SSIM_RGB, .threads = t};
        struct rt_ssim_result res;
        rt_status st = rt_ssim_compute(&a, &b, &o, &res);
        cr_assert(rt_ok(&st), "%s", st.msg);
        if (t <= 2) {
            if (t == 1)
                first = res;
            continue;
        }
        struct rt_ssim_options o1 = {.channels = o.channels, .threads = t % 2 ? 1 : 2};
        struct rt_ssim_result base;
        st = rt_ssim_compute(&a, &b, &o1, &base);
        cr_assert(rt_ok(&st), "%s", st.msg);
        cr_assert_eq(res.mean, base.mean, "%u threads: %.17g vs %.17g", t, res.mean, base.mean);
        cr_assert_eq(res.min_tile, base.min_tile);
        cr_assert_eq(res.tile_x, base.tile_x);
    }
    cr_assert_lt(first.mean, 0.9);
    rt_image_finish(&a);
    rt_image_finish(&b);
}

Test(ssim, different_sizes_are_an_error_not_a_crash)
{
    struct rt_image a, b;
    random_image(&a, 20, 20, 1);
    random_image(&b, 20, 21, 1);
    struct rt_ssim_options o = {0};
    struct rt_ssim_result res;
    cr_assert_eq(rt_ssim_compute(&a, &b, &o, &res).code, RT_ERR_USAGE);
    struct rt_pixel_metrics m;
    cr_assert_eq(rt_pixel_metrics_compute(&a, &b, &m).code, RT_ERR_USAGE);
    rt_image_finish(&a);
    rt_image_finish(&b);
}
