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
#include <unistd.h>

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
    cr_assert_eq(rt_status_drop(rt_ssim_compute(&a, &b, &o, &res)), RT_ERR_USAGE);
    struct rt_pixel_metrics m;
    cr_assert_eq(rt_status_drop(rt_pixel_metrics_compute(&a, &b, &m)), RT_ERR_USAGE);
    rt_image_finish(&a);
    rt_image_finish(&b);
}

/* ---- rt_compare_images: verdicts, short cut, diff image, formats ---- */

static void compare_pair(const char *name, const struct rt_compare_options *o,
                         struct rt_compare_result *r)
{
    char pa[128], pb[128];
    snprintf(pa, sizeof pa, "ssim/%s_a.png", name);
    snprintf(pb, sizeof pb, "ssim/%s_b.png", name);
    struct rt_image a, b;
    read_image(pa, &a);
    read_image(pb, &b);
    rt_status st = rt_compare_images(&a, &b, o, r);
    cr_assert(rt_ok(&st), "%s", st.msg);
    rt_image_finish(&a);
    rt_image_finish(&b);
}

Test(compare, a_missing_object_fails_on_the_worst_tile_only)
{
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    struct rt_compare_result r;
    compare_pair("missing_object", &o, &r);
    /* the frame-wide mean passes 0.99; the tile with the object does not */
    cr_assert_geq(r.ssim.mean, 0.99);
    cr_assert_lt(r.ssim.min_tile, 0.95);
    cr_assert_eq(r.verdict, RT_COMPARE_FAIL);
    /* the object sits at x 40..51, y 70..81: the worst tile must contain it */
    cr_assert_leq(r.ssim.tile_x, 40);
    cr_assert_geq(r.ssim.tile_x + r.ssim.tile_w, 52);
    cr_assert_leq(r.ssim.tile_y, 70);
    cr_assert_geq(r.ssim.tile_y + r.ssim.tile_h, 82);
    rt_compare_result_finish(&r);
    o.tile_threshold = 0.7;
    o.delta_e_threshold = 10; /* the object's tile also changed colour (7.8) */
    compare_pair("missing_object", &o, &r);
    cr_assert_eq(r.verdict, RT_COMPARE_PASS);
    o.threshold = 0.9905;
    compare_pair("missing_object", &o, &r);
    cr_assert_eq(r.verdict, RT_COMPARE_FAIL);
}

Test(compare, identical_images_short_cut_and_pass)
{
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.want_diff = true;
    struct rt_compare_result r;
    compare_pair("identical", &o, &r);
    cr_assert(r.identical);
    cr_assert_eq(r.ssim.mean, 1.0);
    cr_assert_eq(r.ssim.min_tile, 1.0);
    cr_assert(isinf(r.pixels.psnr));
    cr_assert_eq(r.verdict, RT_COMPARE_PASS);
    cr_assert_not_null(r.diff.rgba, "the diff image is made even on a pass");
    for (size_t i = 0; i < (size_t)r.diff.width * r.diff.height; i++) {
        const uint8_t *p = r.diff.rgba + 4 * i;
        cr_assert(p[0] == p[1] && p[1] == p[2] && p[0] <= 64, "pixel %zu is not dim gray", i);
    }
    rt_compare_result_finish(&r);
    cr_assert_null(r.diff.rgba);
    compare_pair("alpha_only", &o, &r); /* alpha differs: not identical, still SSIM 1 */
    cr_assert(!r.identical);
    cr_assert_float_eq(r.ssim.mean, 1.0, 1e-12);
    cr_assert_eq(r.pixels.diff_pixels, 0);
    cr_assert_eq(r.verdict, RT_COMPARE_PASS);
    rt_compare_result_finish(&r);
}

Test(compare, diff_image_heats_the_changed_pixels)
{
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.want_diff = true;
    struct rt_compare_result r;
    compare_pair("missing_object", &o, &r);
    cr_assert_eq(r.diff.width, 256);
    const uint8_t *inside = r.diff.rgba + ((size_t)75 * 256 + 45) * 4;
    const uint8_t *far = r.diff.rgba + ((size_t)150 * 256 + 250) * 4;
    cr_assert_gt(inside[0], 200, "changed pixel not hot: %u %u %u", inside[0], inside[1], inside[2]);
    cr_assert_lt(inside[1], 100);
    cr_assert(far[0] == far[1] && far[1] == far[2], "unchanged pixel is not gray");
    /* the worst tile is outlined in cyan */
    const uint8_t *corner = r.diff.rgba + ((size_t)r.ssim.tile_y * 256 + r.ssim.tile_x) * 4;
    cr_assert(corner[0] == 0 && corner[1] == 255 && corner[2] == 255);
    rt_compare_result_finish(&r);
}

Test(compare, size_mismatch_is_a_verdict_and_thresholds_are_checked)
{
    struct rt_image a, b;
    random_image(&a, 16, 8, 1);
    random_image(&b, 8, 16, 1);
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.want_diff = true;
    struct rt_compare_result r;
    rt_status st = rt_compare_images(&a, &b, &o, &r);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_eq(r.verdict, RT_COMPARE_SIZE_MISMATCH);
    cr_assert_null(r.diff.rgba);
    char line[256];
    rt_compare_format_line(&r, line, sizeof line);
    cr_assert_str_eq(line, "width=16 height=8 actual_width=8 actual_height=16 result=size-mismatch");
    rt_compare_format_json(&r, line, sizeof line);
    cr_assert_str_eq(line, "{\"width\":16,\"height\":8,\"actual_width\":8,\"actual_height\":16,"
                           "\"result\":\"size-mismatch\"}");
    o.threshold = 1.5;
    cr_assert_eq(rt_status_drop(rt_compare_images(&a, &a, &o, &r)), RT_ERR_USAGE);
    o.threshold = NAN;
    cr_assert_eq(rt_status_drop(rt_compare_images(&a, &a, &o, &r)), RT_ERR_USAGE);
    rt_image_finish(&a);
    rt_image_finish(&b);
}

Test(compare, line_and_json_carry_the_same_values)
{
    struct rt_compare_result r = {
        .verdict = RT_COMPARE_PASS, .width = 1280, .height = 720,
        .ssim = {.mean = 0.9987654, .min_tile = 0.9812341},
        .colour = {.max_delta_e = 0.4234},
        .pixels = {.psnr = 45.671, .diff_pixels = 123, .max_delta = 17},
    };
    char buf[512];
    rt_compare_format_line(&r, buf, sizeof buf);
    cr_assert_str_eq(buf, "ssim=0.998765 min_tile_ssim=0.981234 delta_e=0.42 psnr=45.67 "
                          "diff_pixels=123 max_delta=17 width=1280 height=720 result=pass");
    rt_compare_format_json(&r, buf, sizeof buf);
    cr_assert_str_eq(buf, "{\"ssim\":0.998765,\"min_tile_ssim\":0.981234,\"delta_e\":0.4234,"
                          "\"psnr\":45.67,"
                          "\"diff_pixels\":123,\"max_delta\":17,\"width\":1280,\"height\":720,"
                          "\"result\":\"pass\"}");
    r.pixels.psnr = INFINITY;
    r.verdict = RT_COMPARE_FAIL;
    rt_compare_format_line(&r, buf, sizeof buf);
    cr_assert_not_null(strstr(buf, "psnr=inf "), "%s", buf);
    cr_assert_not_null(strstr(buf, "result=fail"), "%s", buf);
    rt_compare_format_json(&r, buf, sizeof buf);
    cr_assert_not_null(strstr(buf, "\"psnr\":null"), "%s", buf);
}

/* ---- the retrace binary: lines and exit codes ---- */

/* Runs `retrace compare ARGS` (paths relative to the test data); returns the exit code. */
static int run_compare(const char *args, char *out, size_t size)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s/images' && '%s/cli/retrace' compare %s 2>&1",
             env_or_fail("RT_TEST_DATA"), env_or_fail("RT_BUILD_ROOT"), args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    cr_assert(WIFEXITED(status), "retrace did not exit normally: %s", out);
    return WEXITSTATUS(status);
}

Test(cli, compare_prints_one_line_and_exits_by_verdict)
{
    char out[4096];
    cr_assert_eq(run_compare("ssim/identical_a.png ssim/identical_b.png", out, sizeof out), 0,
                 "%s", out);
    cr_assert_str_eq(out, "ssim=1.000000 min_tile_ssim=1.000000 delta_e=0.00 psnr=inf "
                          "diff_pixels=0 max_delta=0 width=96 height=64 result=pass\n");
    cr_assert_eq(run_compare("ssim/noise_a.png ssim/noise_b.png", out, sizeof out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "ssim=0.696455 "), "%s", out);
    cr_assert_not_null(strstr(out, " result=fail\n"), "%s", out);
    cr_assert_eq(run_compare("--threshold 0.6 --tile-threshold=0.6 ssim/noise_a.png "
                             "ssim/noise_b.png", out, sizeof out), 0, "%s", out);
    cr_assert_eq(run_compare("--json --channels rgb ssim/noise_a.png ssim/noise_b.png", out,
                             sizeof out), 1, "%s", out);
    cr_assert_eq(strncmp(out, "{\"ssim\":0.654595,", 17), 0, "%s", out);
}

Test(cli, compare_size_mismatch_bad_files_and_usage)
{
    char out[4096];
    cr_assert_eq(run_compare("ssim/noise_a.png ssim/odd_7x7_a.png", out, sizeof out), 1);
    cr_assert_str_eq(out, "width=96 height=64 actual_width=7 actual_height=7 "
                          "result=size-mismatch\n");
    cr_assert_eq(run_compare("ssim/noise_a.png no/such.png", out, sizeof out), 3, "%s", out);
    cr_assert_not_null(strstr(out, "no/such.png"), "%s", out);
    cr_assert_eq(run_compare("bad/truncated.png ssim/noise_a.png", out, sizeof out), 3, "%s", out);
    cr_assert_not_null(strstr(out, "bad/truncated.png"), "%s", out);
    cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
    cr_assert_eq(run_compare("bad/text.png ssim/noise_a.png", out, sizeof out), 3, "%s", out);
    cr_assert_not_null(strstr(out, "not a PNG"), "%s", out);
    cr_assert_eq(run_compare("--threshold 2 a.png b.png", out, sizeof out), 2, "%s", out);
    cr_assert_eq(run_compare("--tile-threshold x a.png b.png", out, sizeof out), 2, "%s", out);
    cr_assert_eq(run_compare("only_one.png", out, sizeof out), 2, "%s", out);
    cr_assert_eq(run_compare("--bogus a.png b.png", out, sizeof out), 2, "%s", out);
    cr_assert_eq(run_compare("--colour-threshold -1 a.png b.png", out, sizeof out), 2, "%s", out);
    cr_assert_eq(run_compare("--threads 99999999999999999999 a.png b.png", out, sizeof out), 2,
                 "%s", out);
}

Test(cli, compare_fails_a_colour_change_by_default_and_its_threshold_moves)
{
    char out[4096];
    /* colour_shift: luma SSIM 0.99987, but every pixel's colour moved */
    cr_assert_eq(run_compare("ssim/colour_shift_a.png ssim/colour_shift_b.png", out, sizeof out),
                 1, "%s", out);
    cr_assert_not_null(strstr(out, " delta_e=8.70 "), "%s", out);
    cr_assert_eq(run_compare("--colour-threshold 9 ssim/colour_shift_a.png "
                             "ssim/colour_shift_b.png", out, sizeof out), 0, "%s", out);
    cr_assert_eq(run_compare("--json ssim/colour_shift_a.png ssim/colour_shift_b.png", out,
                             sizeof out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "\"delta_e\":8.70"), "%s", out);
}

Test(cli, compare_refuses_a_diff_path_that_is_an_input)
{
    char out[4096];
    cr_assert_eq(run_compare("--diff ssim/noise_b.png ssim/noise_a.png ssim/noise_b.png", out,
                             sizeof out), 2, "%s", out);
    cr_assert_not_null(strstr(out, "--diff"), "%s", out);
    cr_assert_eq(run_compare("--diff ./ssim/../ssim/noise_a.png ssim/noise_a.png "
                             "ssim/noise_b.png", out, sizeof out), 2, "%s", out);
    struct rt_image im;
    char path[1024];
    snprintf(path, sizeof path, "%s/images/ssim/noise_a.png", env_or_fail("RT_TEST_DATA"));
    rt_status st = rt_png_read_file(path, &im);
    cr_assert(rt_ok(&st), "the golden was overwritten: %s", st.msg);
    cr_assert_eq(im.width, 96);
    rt_image_finish(&im);
}

Test(cli, compare_writes_the_diff_image_even_on_pass)
{
    char out[4096], args[1024], path[] = "/tmp/rt_test_diff_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    snprintf(args, sizeof args, "--diff %s ssim/flat_same_a.png ssim/flat_same_b.png", path);
    cr_assert_eq(run_compare(args, out, sizeof out), 0, "%s", out);
    struct rt_image im;
    rt_status st = rt_png_read_file(path, &im);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_eq(im.width, 40);
    cr_assert_eq(im.height, 30);
    /* gray 128 has luma 128; the diff shows it at a quarter, with no heat */
    cr_assert_eq(im.rgba[0], 32, "dimmed golden expected, got %u", im.rgba[0]);
    cr_assert_eq(im.rgba[1], 32);
    cr_assert_eq(im.rgba[3], 255);
    rt_image_finish(&im);
    remove(path);
}

/* ---- pinned values: every speed change must leave these bits alone ---- */

struct pinned {
    const char *golden, *actual; /* under traces/golden, or NULL: the generated pair */
    enum rt_ssim_channels channels;
    double ssim, min_tile, delta_e, psnr;
    unsigned long long diff_pixels;
    unsigned max_delta, tile_x, tile_y;
};

/*
 * A 900x400 pair (360,000 pixels: the side thread and two SSIM threads run)
 * written through libpng's adaptive filters, so reading it back takes every
 * PNG row filter: a gradient with texture, and a copy with noise and a moved
 * square.
 */
static void write_generated_pair(const char *dir, char *golden, char *actual, size_t size)
{
    struct rt_image a = {.width = 900, .height = 400}, b = a;
    a.rgba = malloc((size_t)a.width * a.height * 4);
    b.rgba = malloc((size_t)b.width * b.height * 4);
    cr_assert(a.rgba && b.rgba);
    unsigned seed = 7;
    for (uint32_t y = 0; y < a.height; y++)
        for (uint32_t x = 0; x < a.width; x++) {
            uint8_t *p = a.rgba + ((size_t)y * a.width + x) * 4, *q = b.rgba + (p - a.rgba);
            p[0] = (uint8_t)(x * 255 / a.width);
            p[1] = (uint8_t)(y * 255 / a.height);
            p[2] = (uint8_t)((x ^ y) & 0x3f) + 96;
            p[3] = 255;
            bool square_a = x >= 300 && x < 340 && y >= 100 && y < 140;
            bool square_b = x >= 310 && x < 350 && y >= 104 && y < 144;
            if (square_a)
                p[0] = p[1] = p[2] = 20;
            memcpy(q, p, 4);
            if (square_a)
                q[0] = (uint8_t)(x * 255 / a.width), q[1] = (uint8_t)(y * 255 / a.height),
                q[2] = (uint8_t)((x ^ y) & 0x3f) + 96;
            if (square_b)
                q[0] = q[1] = q[2] = 20;
            seed = seed * 1103515245u + 12345u;
            int noise = (int)(seed >> 16) % 5 - 2;
            for (int c = 0; c < 3; c++) {
                int v = q[c] + noise;
                q[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    snprintf(golden, size, "%s/pinned_golden.png", dir);
    snprintf(actual, size, "%s/pinned_actual.png", dir);
    cr_assert_eq(rt_status_drop(rt_png_write_file(golden, &a)), RT_OK);
    cr_assert_eq(rt_status_drop(rt_png_write_file(actual, &b)), RT_OK);
    rt_image_finish(&a);
    rt_image_finish(&b);
}

static void check_pinned(const struct pinned *p, const char *golden, const char *actual)
{
    struct rt_image a, b;
    rt_status st = rt_compare_read_pair(golden, actual, &a, &b);
    cr_assert(rt_ok(&st), "%s", st.msg);
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.channels = p->channels;
    struct rt_compare_result r;
    st = rt_compare_images(&a, &b, &o, &r);
    cr_assert(rt_ok(&st), "%s", st.msg);
    const char *what = p->golden ? p->golden : "generated";
    cr_assert(r.ssim.mean == p->ssim && r.ssim.min_tile == p->min_tile &&
                  r.colour.max_delta_e == p->delta_e && r.pixels.psnr == p->psnr,
              "%s (%s): ssim %a min_tile %a delta_e %a psnr %a", what,
              p->channels == RT_SSIM_LUMA ? "luma" : "rgb", r.ssim.mean, r.ssim.min_tile,
              r.colour.max_delta_e, r.pixels.psnr);
    cr_assert(r.pixels.diff_pixels == p->diff_pixels && r.pixels.max_delta == p->max_delta &&
                  r.ssim.tile_x == p->tile_x && r.ssim.tile_y == p->tile_y,
              "%s: diff_pixels %llu max_delta %u worst tile at %u,%u", what,
              (unsigned long long)r.pixels.diff_pixels, r.pixels.max_delta, r.ssim.tile_x,
              r.ssim.tile_y);
    rt_compare_result_finish(&r);
    rt_image_finish(&a);
    rt_image_finish(&b);
}

/*
 * The exact doubles (SSIM, worst tile, delta E, PSNR) of three pairs, read
 * from PNG files as `retrace compare` reads them: decoding, SSIM, the colour
 * gate and the pixel metrics must give the same bits after any change made
 * for speed (the values were taken before the compare speed work of
 * 2026-12-01; scikit-image agreement is checked above, to 1e-4).
 */
Test(compare, values_on_known_pairs_are_pinned_to_the_bit)
{
    static const struct pinned pins[] = {
        {"1-vkcube-f1.png", "2-vkcube-f10.png", RT_SSIM_LUMA, 0x1.b342309319193p-1,
         0x1.0f1183fd9ab07p-3, 0x1.1a5fb3e78083fp+4, 0x1.4e94e01dcff35p+4, 71155, 230, 261, 293},
        {"5-particles-f1.png", "6-particles-f5.png", RT_SSIM_RGB, 0x1.31a75e738eee3p-1,
         -0x1.0775f9dbdd436p-6, 0x1.0e5da99482112p+3, 0x1.f0d6c915642ap+3, 18842, 246, 197, 133},
        {NULL, NULL, RT_SSIM_LUMA, 0x1.edbf7e561a079p-1, 0x1.da16c4d3f02abp-2,
         0x1.e450af3450afdp+2, 0x1.169bdee915a6cp+5, 288561, 141, 325, 101},
        {NULL, NULL, RT_SSIM_RGB, 0x1.f01a768667fb6p-1, 0x1.d165d3efcdb4cp-2,
         0x1.e450af3450afdp+2, 0x1.169bdee915a6cp+5, 288561, 141, 325, 101},
    };
    char dir[] = "/tmp/rt_pinned_XXXXXX", golden[1100], actual[1100];
    cr_assert_not_null(mkdtemp(dir));
    write_generated_pair(dir, golden, actual, sizeof golden);
    for (size_t i = 0; i < sizeof pins / sizeof *pins; i++) {
        char g[1100], a[1100];
        if (pins[i].golden) {
            const char *root = env_or_fail("RT_SOURCE_ROOT");
            snprintf(g, sizeof g, "%s/traces/golden/%s", root, pins[i].golden);
            snprintf(a, sizeof a, "%s/traces/golden/%s", root, pins[i].actual);
        }
        check_pinned(&pins[i], pins[i].golden ? g : golden, pins[i].golden ? a : actual);
    }
    remove(golden);
    remove(actual);
    rmdir(dir);
}
