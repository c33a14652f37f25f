/* diagnose/verdict.c — does one draw's output differ between the sides?
 * Every PNG the test side saved for it is compared with the reference's of
 * the same role by compare/'s frame verdict (SSIM mean, worst tile, delta E),
 * under thresholds that start at compare/'s defaults and widen with the noise
 * of the draws before it that agreed (cross-device rasterisation differences
 * grow as a frame fills; a real divergence stands out of them). Judged
 * exactly (against another configuration on one device), any pixel that
 * differs diverges. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "compare.h"
#include "file.h"
#include "diagnose_internal.h"
#include "png_io.h"

void diag_thresholds_init(struct diag_thresholds *t, bool exact)
{
    struct rt_compare_options d;
    rt_compare_options_init(&d);
    *t = (struct diag_thresholds){d.threshold, d.tile_threshold, d.delta_e_threshold, 1.0, 1.0, 0.0, 0, exact};
}

/* The noise of an agreeing draw widens the thresholds for the draws after it. */
static void widen(struct diag_thresholds *t, const struct diag_verdict *v)
{
    struct diag_thresholds d;
    diag_thresholds_init(&d, t->exact);
    t->worst_ssim = fmin(t->worst_ssim, v->ssim);
    t->worst_tile = fmin(t->worst_tile, v->tile);
    t->worst_delta_e = fmax(t->worst_delta_e, v->delta_e);
    t->agreed++;
    t->ssim = fmin(d.ssim, t->worst_ssim - 0.01);
    t->tile = fmin(d.tile, t->worst_tile - 0.05);
    t->delta_e = fmax(d.delta_e, 1.5 * t->worst_delta_e);
}

static rt_status compare_role(const char *ref_png, const char *test_png, const struct diag_thresholds *t,
                              struct rt_compare_result *out)
{
    struct rt_image a, b;
    RT_TRY(rt_compare_read_pair(ref_png, test_png, &a, &b));
    struct rt_compare_options opt;
    rt_compare_options_init(&opt);
    opt.threshold = t->ssim > 0 ? t->ssim : 0;
    opt.tile_threshold = t->tile > 0 ? t->tile : 0;
    opt.delta_e_threshold = t->delta_e;
    rt_status s = rt_compare_images(&a, &b, &opt, out);
    rt_image_finish(&a);
    rt_image_finish(&b);
    return s;
}

/* A buffer's bytes (--dump-buffers), judged exactly only: *diverges, *bytes that differ. */
static rt_status compare_raw(const char *ref_bin, const char *test_bin, bool *diverges, uint64_t *bytes)
{
    uint8_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    rt_status s = rt_file_read(ref_bin, &a, &na);
    if (rt_ok(&s))
        s = rt_file_read(test_bin, &b, &nb);
    *bytes = na > nb ? na - nb : nb - na;
    for (size_t i = 0; rt_ok(&s) && i < na && i < nb; i++)
        *bytes += a[i] != b[i];
    *diverges = *bytes != 0;
    free(a);
    free(b);
    return s;
}

/* A buffer role of draw N (both sides' .bin), when judged exactly. */
static rt_status judge_raw(const struct diag_dump *test, const struct diag_dump *ref, uint32_t n, const char *role,
                           struct diag_verdict *v)
{
    char tp[PATH_MAX], rp[PATH_MAX];
    bool diverges = !diag_file_of(ref, n, role, ".bin", rp, sizeof rp);
    uint64_t bytes = 0;
    if (!diag_file_of(test, n, role, ".bin", tp, sizeof tp))
        return rt_ok_status();
    if (!diverges)
        RT_TRY(compare_raw(rp, tp, &diverges, &bytes));
    if (!v->compared || (diverges && !v->diverges)) {
        v->ssim = v->tile = v->delta_e = NAN; /* no image metrics for bytes */
        v->diff_pixels = bytes;
        snprintf(v->role, sizeof v->role, "%s", role);
    }
    v->compared = true;
    v->diverges = v->diverges || diverges;
    return rt_ok_status();
}

/* One role of draw N: compared where both sides saved it, divergent where only the test side did. */
static rt_status judge_role(const struct diag_dump *test, const struct diag_dump *ref, uint32_t n, const char *role,
                            const struct diag_thresholds *t, struct diag_verdict *v)
{
    char tp[PATH_MAX], rp[PATH_MAX];
    if (!diag_file(test, n, role, tp, sizeof tp))
        return t->exact ? judge_raw(test, ref, n, role, v) : rt_ok_status(); /* bytes only compare exactly */
    bool diverges = !diag_file(ref, n, role, rp, sizeof rp);
    double ssim = 0, tile = 0, de = INFINITY;
    uint64_t pixels = 0;
    if (!diverges) {
        struct rt_compare_result c;
        RT_TRY(compare_role(rp, tp, t, &c));
        /* exact: the frame verdict's tolerance would pass a draw that changed a few pixels */
        diverges = t->exact ? c.verdict == RT_COMPARE_SIZE_MISMATCH || !c.identical : c.verdict != RT_COMPARE_PASS;
        pixels = c.verdict == RT_COMPARE_SIZE_MISMATCH ? 0 : c.pixels.diff_pixels;
        ssim = c.verdict == RT_COMPARE_SIZE_MISMATCH ? 0 : c.ssim.mean;
        tile = c.verdict == RT_COMPARE_SIZE_MISMATCH ? 0 : c.ssim.min_tile;
        de = c.verdict == RT_COMPARE_SIZE_MISMATCH ? INFINITY : c.colour.max_delta_e;
        rt_compare_result_finish(&c);
    }
    bool worse = !v->compared || (diverges && !v->diverges) || (diverges == v->diverges && ssim < v->ssim);
    if (worse) {
        v->ssim = ssim;
        v->tile = tile;
        v->delta_e = de;
        v->diff_pixels = pixels;
        snprintf(v->role, sizeof v->role, "%s", role);
    }
    v->compared = true;
    v->diverges = v->diverges || diverges;
    return rt_ok_status();
}

rt_status diag_judge(const struct diag_dump *test, const struct diag_dump *ref, uint32_t n,
                     struct diag_thresholds *t, struct diag_verdict *v)
{
    *v = (struct diag_verdict){0};
    const cJSON *f, *entry = diag_entry(test, n);
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(entry, "files")) {
        const char *role = cJSON_GetStringValue(cJSON_GetObjectItem(f, "role"));
        if (role)
            RT_TRY(judge_role(test, ref, n, role, t, v));
    }
    if (v->compared && !v->diverges)
        widen(t, v);
    return rt_ok_status();
}

rt_status diag_diff(const char *reference_png, const char *test_png, const char *path)
{
    struct rt_image a, b;
    RT_TRY(rt_compare_read_pair(reference_png, test_png, &a, &b));
    struct rt_compare_options opt;
    rt_compare_options_init(&opt);
    opt.want_diff = true;
    struct rt_compare_result c;
    rt_status s = rt_compare_images(&a, &b, &opt, &c);
    if (rt_ok(&s) && c.diff.rgba)
        s = rt_png_write_file(path, &c.diff);
    if (rt_ok(&s))
        rt_compare_result_finish(&c);
    rt_image_finish(&a);
    rt_image_finish(&b);
    return s;
}
