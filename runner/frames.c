/*
 * runner/frames.c — one replayed frame against the accepted goldens of its
 * trace and frame for this device (compare/ for the numbers, store/ for the
 * goldens). Several goldens may be accepted for one frame (drivers that
 * legitimately differ); the best match decides.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "internal.h"

static rt_status read_file(const char *path, uint8_t **data_out, size_t *size_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", path, strerror(errno));
    uint8_t *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            uint8_t *grown = realloc(data, cap = cap ? cap * 2 : 1 << 16);
            if (!grown) {
                free(data);
                fclose(f);
                return rt_errorf(RT_ERR_INTERNAL, "out of memory reading %s", path);
            }
            data = grown;
        }
        size_t n = fread(data + size, 1, cap - size, f);
        size += n;
        if (n == 0)
            break;
    }
    fclose(f);
    *data_out = data;
    *size_out = size;
    return rt_ok_status();
}

static void set_message(struct rt_run_frame *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_message(struct rt_run_frame *out, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(out->message);
    out->message = strdup(buf);
    out->r.message = out->message;
}

/* Better: a pass beats a fail, then the higher SSIM; a size mismatch is worst. */
static bool better(const struct rt_compare_result *a, const struct rt_compare_result *b)
{
    if (!b)
        return true;
    bool pa = a->verdict == RT_COMPARE_PASS, pb = b->verdict == RT_COMPARE_PASS;
    if (pa != pb)
        return pa;
    double sa = a->verdict == RT_COMPARE_SIZE_MISMATCH ? -2 : a->ssim.mean;
    double sb = b->verdict == RT_COMPARE_SIZE_MISMATCH ? -2 : b->ssim.mean;
    return sa > sb;
}

static void fill_metrics(struct rt_run_frame *out, const struct rt_frame_check *check,
                         const struct rt_compare_result *cr, const struct rt_golden *g)
{
    out->r.golden_id = g->id;
    memcpy(out->golden_hash, g->hash, sizeof out->golden_hash);
    out->r.status = cr->verdict == RT_COMPARE_PASS ? RT_RESULT_PASS : RT_RESULT_FAIL;
    if (cr->verdict == RT_COMPARE_SIZE_MISMATCH) {
        set_message(out, "size %ux%u, the golden is %ux%u", cr->actual_width, cr->actual_height, cr->width,
                    cr->height);
        return;
    }
    out->r.ssim = cr->ssim.mean;
    out->r.ssim_worst_tile = cr->ssim.min_tile;
    out->r.psnr = cr->pixels.psnr;
    out->r.diff_pixels = (int64_t)cr->pixels.diff_pixels;
    out->r.max_diff = (int32_t)cr->pixels.max_delta;
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.threshold = check->threshold;
    o.tile_threshold = check->tile_threshold;
    /* The colour gate is compare's default one: recorded so a colour failure
     * shows its number next to SSIMs that look fine. */
    out->r.delta_e = cr->colour.max_delta_e;
    out->r.colour_threshold = o.delta_e_threshold;
    snprintf(out->worst_tiles, sizeof out->worst_tiles,
             "{\"ssim\":[%u,%u,%u,%u],\"colour\":[%u,%u,%u,%u]}", cr->ssim.tile_x, cr->ssim.tile_y,
             cr->ssim.tile_w, cr->ssim.tile_h, cr->colour.tile_x, cr->colour.tile_y, cr->colour.tile_w,
             cr->colour.tile_h);
    if (out->r.status == RT_RESULT_PASS)
        return;
    /* compare words it: which of ssim, worst tile and colour failed */
    char why[512];
    rt_compare_explain(cr, &o, why, sizeof why);
    set_message(out, "%s", why);
}

static rt_status compare_one(const struct rt_frame_check *check, const struct rt_golden *g,
                             const struct rt_image *actual, bool want_diff, struct rt_compare_result *out)
{
    struct rt_image golden;
    rt_status s = rt_png_read_memory(g->png, g->png_size, &golden);
    if (!rt_ok(&s))
        return rt_status_wrap(s, "golden %lld", (long long)g->id);
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.threshold = check->threshold;
    o.tile_threshold = check->tile_threshold;
    o.want_diff = want_diff;
    s = rt_compare_images(&golden, actual, &o, out);
    rt_image_finish(&golden);
    return s;
}

/* The failing best match again, with its diff image, as PNG bytes. */
static rt_status make_diff(const struct rt_frame_check *check, const struct rt_golden *g,
                           const struct rt_image *actual, struct rt_run_frame *out)
{
    struct rt_compare_result cr;
    RT_TRY(compare_one(check, g, actual, true, &cr));
    rt_status s = rt_ok_status();
    if (cr.diff.rgba)
        s = rt_png_write_memory(&cr.diff, &out->diff_png, &out->r.diff_png_size);
    out->r.diff_png = out->diff_png;
    rt_compare_result_finish(&cr);
    return s;
}

static rt_status against_goldens(const struct rt_frame_check *check, const struct rt_golden_list *goldens,
                                 const struct rt_image *actual, struct rt_run_frame *out)
{
    struct rt_compare_result best = {0}, cr;
    size_t best_i = 0;
    bool have = false;
    for (size_t i = 0; i < goldens->count; i++) {
        RT_TRY(compare_one(check, &goldens->items[i], actual, false, &cr));
        if (better(&cr, have ? &best : NULL)) {
            if (have)
                rt_compare_result_finish(&best);
            best = cr, best_i = i, have = true;
        } else {
            rt_compare_result_finish(&cr);
        }
    }
    fill_metrics(out, check, &best, &goldens->items[best_i]);
    rt_compare_result_finish(&best);
    if (out->r.status == RT_RESULT_FAIL)
        return make_diff(check, &goldens->items[best_i], actual, out);
    return rt_ok_status();
}

/* Whether ACTUAL matches the known-bad golden ID: the bytes are fetched only for these. */
static rt_status matches_golden(struct rt_store *store, const struct rt_frame_check *check, int64_t id,
                                const struct rt_image *actual, struct rt_golden *golden_out,
                                struct rt_compare_result *cr_out, bool *match_out)
{
    *match_out = false;
    RT_TRY(rt_store_golden_get(store, id, true, golden_out));
    rt_status s = compare_one(check, golden_out, actual, false, cr_out);
    if (rt_ok(&s))
        *match_out = cr_out->verdict == RT_COMPARE_PASS;
    return s;
}

/*
 * A frame that did not pass may be a wrong rendering somebody has already
 * seen and marked known-bad (for this device or any): say so, and make it a
 * failure even where no accepted golden exists yet, so it never becomes one.
 */
static rt_status recognise_known_bad(struct rt_store *store, const struct rt_frame_check *check, uint32_t frame,
                                     const struct rt_image *actual, struct rt_run_frame *out)
{
    struct rt_golden_filter filter = {.trace = check->trace, .frame = frame, .device_key = NULL};
    struct rt_golden_list list = {0};
    RT_TRY(rt_store_golden_list(store, &filter, &list));
    rt_status s = rt_ok_status();
    bool match = false;
    for (size_t i = 0; rt_ok(&s) && !match && i < list.count; i++) {
        const struct rt_golden *g = &list.items[i];
        if (g->status != RT_GOLDEN_KNOWN_BAD || (g->device_key[0] && strcmp(g->device_key, check->device_key)))
            continue;
        struct rt_golden bad = {0};
        struct rt_compare_result cr = {0};
        s = matches_golden(store, check, g->id, actual, &bad, &cr, &match);
        if (match) {
            char before[400];
            snprintf(before, sizeof before, "%s", out->message ? out->message : "");
            if (out->r.status == RT_RESULT_NEW)
                fill_metrics(out, check, &cr, &bad);
            out->r.status = RT_RESULT_FAIL;
            set_message(out, "matches known-bad golden %lld (ssim %.6f), a wrong rendering seen before%s%s",
                        (long long)bad.id, cr.ssim.mean, before[0] ? "; " : "", before);
        }
        rt_compare_result_finish(&cr);
        rt_golden_finish(&bad);
    }
    rt_golden_list_finish(&list);
    return s;
}

/* A new frame's image, as the golden for this device (--update-goldens). */
static rt_status approve_new(struct rt_store *store, const struct rt_frame_check *check, uint32_t frame,
                             struct rt_run_frame *out)
{
    struct rt_golden_new g = {.trace = check->trace, .frame = frame, .device_key = check->device_key,
                              .png = out->actual_png, .png_size = out->r.actual_png_size,
                              .approved_by = "retrace run --update-goldens", .status = RT_GOLDEN_ACCEPTED};
    int64_t id;
    RT_TRY(rt_store_golden_put(store, &g, &id, NULL));
    out->added_golden = id;
    set_message(out, "no golden yet; this image is now golden %lld%s%s", (long long)id,
                check->device_key[0] ? " for " : " for any device", check->device_key);
    return rt_ok_status();
}

rt_status rt_frame_compare(struct rt_store *store, const struct rt_frame_check *check, uint32_t frame,
                           const char *png_path, struct rt_run_frame *out)
{
    out->r.frame = frame;
    out->r.threshold = check->threshold;
    uint8_t *bytes = NULL;
    size_t size = 0;
    rt_status s = read_file(png_path, &bytes, &size);
    if (!rt_ok(&s)) {
        rt_status_free(&s); /* a frame not written: the message below says it */
        out->r.status = RT_RESULT_ERROR;
        set_message(out, "frame %u was not replayed (the trace may have fewer frames)", frame);
        return rt_ok_status();
    }
    struct rt_image actual;
    s = rt_png_read_memory(bytes, size, &actual);
    if (!rt_ok(&s)) {
        free(bytes);
        out->r.status = RT_RESULT_ERROR;
        set_message(out, "frame %u: %s", frame, s.msg);
        rt_status_free(&s);
        return rt_ok_status();
    }
    /* The pixel hash groups identical failures across configurations and devices. */
    rt_store_hash(actual.rgba, (size_t)actual.width * actual.height * 4, out->actual_hash);
    out->r.actual_hash = NULL; /* set where the row is made (the struct moves) */
    struct rt_golden_list goldens = {0};
    s = rt_store_goldens_for(store, check->trace, frame, check->device_key, &goldens);
    if (rt_ok(&s) && goldens.count == 0) {
        out->r.status = RT_RESULT_NEW;
        set_message(out, "no golden for frame %u", frame);
    } else if (rt_ok(&s)) {
        s = against_goldens(check, &goldens, &actual, out);
    }
    if (rt_ok(&s) && out->r.status != RT_RESULT_PASS)
        s = recognise_known_bad(store, check, frame, &actual, out);
    rt_golden_list_finish(&goldens);
    rt_image_finish(&actual);
    if (rt_ok(&s) && out->r.status != RT_RESULT_PASS) { /* keep the image of a failure or a new frame */
        out->actual_png = bytes, out->r.actual_png = bytes, out->r.actual_png_size = size;
        bytes = NULL;
    }
    free(bytes);
    if (rt_ok(&s) && out->r.status == RT_RESULT_NEW && check->update_goldens)
        s = approve_new(store, check, frame, out);
    return s;
}
