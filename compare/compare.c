/* compare/compare.c — one comparison: metrics, verdict, diff image, text and JSON. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "compare.h"

void rt_compare_options_init(struct rt_compare_options *options)
{
    *options = (struct rt_compare_options){
        .channels = RT_SSIM_LUMA,
        .threshold = RT_COMPARE_DEFAULT_THRESHOLD,
        .tile_threshold = RT_COMPARE_DEFAULT_TILE_THRESHOLD,
        .delta_e_threshold = RT_COMPARE_DEFAULT_DELTA_E,
    };
}

static bool unit_interval(double v) { return v >= 0.0 && v <= 1.0; } /* false for NaN */

static rt_status check_inputs(const struct rt_image *golden, const struct rt_image *actual,
                              const struct rt_compare_options *o)
{
    if (!unit_interval(o->threshold) || !unit_interval(o->tile_threshold))
        return rt_errorf(RT_ERR_USAGE, "thresholds must lie in 0..1 (got %g and %g)",
                         o->threshold, o->tile_threshold);
    if (!(o->delta_e_threshold >= 0) || isinf(o->delta_e_threshold))
        return rt_errorf(RT_ERR_USAGE, "the delta E threshold must be a number >= 0 (got %g)",
                         o->delta_e_threshold);
    if (!golden->rgba || !actual->rgba || !golden->width || !golden->height ||
        !actual->width || !actual->height)
        return rt_errorf(RT_ERR_USAGE, "cannot compare an empty image");
    return rt_ok_status();
}

/* Equal bytes need no arithmetic: every metric is known. */
static void set_identical(struct rt_compare_result *r)
{
    r->identical = true;
    r->ssim.mean = 1.0;
    r->ssim.min_tile = 1.0;
    r->pixels = (struct rt_pixel_metrics){.mse = 0, .psnr = INFINITY};
}

/* The pixel metrics and the colour gate: one pass each over both images. */
struct side_job {
    const struct rt_image *a, *b;
    struct rt_compare_result *out;
    rt_status status;
};

static void *side_job_run(void *arg)
{
    struct side_job *job = arg;
    job->status = rt_pixel_metrics_compute(job->a, job->b, &job->out->pixels);
    if (rt_ok(&job->status))
        job->status = rt_colour_compute(job->a, job->b, &job->out->colour);
    return NULL;
}

/* Below this many pixels a thread costs more than the work it would overlap. */
#define SIDE_THREAD_MIN_PIXELS (256u * 1024)

/*
 * SSIM on this thread (and its own), the metrics and colour gate on another
 * meanwhile, when the image is large and more than one thread is allowed.
 */
static rt_status measure(const struct rt_image *golden, const struct rt_image *actual,
                         const struct rt_compare_options *options,
                         struct rt_compare_result *out)
{
    struct side_job side = {.a = golden, .b = actual, .out = out};
    pthread_t tid;
    bool threaded = options->threads != 1 &&
                    (uint64_t)golden->width * golden->height >= SIDE_THREAD_MIN_PIXELS &&
                    pthread_create(&tid, NULL, side_job_run, &side) == 0;
    struct rt_ssim_options so = {.channels = options->channels,
                                 .threads = options->threads,
                                 .want_map = options->want_diff};
    rt_status st = rt_ssim_compute(golden, actual, &so, &out->ssim);
    if (threaded)
        pthread_join(tid, NULL);
    else if (rt_ok(&st))
        side_job_run(&side);
    if (rt_ok(&st))
        st = side.status;
    else
        rt_status_free(&side.status); /* the SSIM's error is the one said */
    if (!rt_ok(&st))
        rt_ssim_result_finish(&out->ssim);
    return st;
}

rt_status rt_compare_images(const struct rt_image *golden, const struct rt_image *actual,
                            const struct rt_compare_options *options,
                            struct rt_compare_result *out)
{
    memset(out, 0, sizeof *out);
    RT_TRY(check_inputs(golden, actual, options));
    *out = (struct rt_compare_result){.width = golden->width, .height = golden->height,
                                      .actual_width = actual->width,
                                      .actual_height = actual->height};
    if (golden->width != actual->width || golden->height != actual->height) {
        out->verdict = RT_COMPARE_SIZE_MISMATCH;
        return rt_ok_status();
    }
    if (!memcmp(golden->rgba, actual->rgba, (size_t)golden->width * golden->height * 4)) {
        set_identical(out);
    } else {
        RT_TRY(measure(golden, actual, options, out));
    }
    bool fail = out->ssim.mean < options->threshold ||
                out->ssim.min_tile < options->tile_threshold ||
                out->colour.max_delta_e > options->delta_e_threshold;
    out->verdict = fail ? RT_COMPARE_FAIL : RT_COMPARE_PASS;
    rt_status st = rt_ok_status();
    if (options->want_diff)
        st = rt_diff_image_make(golden, actual, out->ssim.map, &out->ssim, &out->diff);
    static const uint8_t magenta[3] = {255, 0, 255};
    const struct rt_colour_result *c = &out->colour;
    if (rt_ok(&st) && options->want_diff && c->max_delta_e > options->delta_e_threshold)
        rt_diff_image_outline(&out->diff, c->tile_x, c->tile_y, c->tile_w, c->tile_h, magenta);
    rt_ssim_result_finish(&out->ssim);
    return st;
}

void rt_compare_result_finish(struct rt_compare_result *result)
{
    rt_ssim_result_finish(&result->ssim);
    rt_image_finish(&result->diff);
}

int rt_compare_explain(const struct rt_compare_result *r, const struct rt_compare_options *o,
                       char *buf, size_t size)
{
    const struct rt_ssim_result *s = &r->ssim;
    const struct rt_colour_result *c = &r->colour;
    if (r->verdict == RT_COMPARE_SIZE_MISMATCH)
        return snprintf(buf, size, "size %ux%u, the golden is %ux%u", r->actual_width,
                        r->actual_height, r->width, r->height);
    if (r->verdict == RT_COMPARE_PASS)
        return snprintf(buf, size, "%s", "");
    if (s->mean < o->threshold)
        return snprintf(buf, size, "ssim %.6f below %.4g (worst tile %.6f, %llu pixels differ)",
                        s->mean, o->threshold, s->min_tile,
                        (unsigned long long)r->pixels.diff_pixels);
    if (s->min_tile < o->tile_threshold)
        return snprintf(buf, size, "worst tile ssim %.6f below %.4g at %u,%u (ssim %.6f)",
                        s->min_tile, o->tile_threshold, s->tile_x, s->tile_y, s->mean);
    return snprintf(buf, size, "colour: delta E %.2f above %.4g in the tile at %u,%u (ssim %.6f)",
                    c->max_delta_e, o->delta_e_threshold, c->tile_x, c->tile_y, s->mean);
}

const char *rt_compare_verdict_name(enum rt_compare_verdict verdict)
{
    switch (verdict) {
    case RT_COMPARE_PASS: return "pass";
    case RT_COMPARE_FAIL: return "fail";
    case RT_COMPARE_SIZE_MISMATCH: return "size-mismatch";
    }
    return "unknown";
}

/* One field of the result line and its JSON twin: the value as the line
 * prints it and as JSON's number (or string) text. */
struct result_field {
    const char *name;
    char line[32], json[40];
};

/*
 * The fields both formats print, in order, into OUT (room for 9); their
 * count. One list, so the line and --json cannot drift apart: a size mismatch
 * has only the sizes; delta_e has 2 decimals in the line and 4 in JSON; an
 * infinite PSNR (identical images) is "inf" in the line and null in JSON.
 */
static size_t result_fields(const struct rt_compare_result *r, struct result_field *out)
{
    size_t n = 0;
#define FIELD(NAME, LINE_FMT, JSON_FMT, VALUE)                                              \
    do {                                                                                  \
        out[n].name = NAME;                                                               \
        snprintf(out[n].line, sizeof out[n].line, LINE_FMT, VALUE);                      \
        snprintf(out[n].json, sizeof out[n].json, JSON_FMT, VALUE);                      \
        n++;                                                                              \
    } while (0)
    if (r->verdict == RT_COMPARE_SIZE_MISMATCH) {
        FIELD("width", "%u", "%u", r->width);
        FIELD("height", "%u", "%u", r->height);
        FIELD("actual_width", "%u", "%u", r->actual_width);
        FIELD("actual_height", "%u", "%u", r->actual_height);
    } else {
        FIELD("ssim", "%.6f", "%.6f", r->ssim.mean);
        FIELD("min_tile_ssim", "%.6f", "%.6f", r->ssim.min_tile);
        FIELD("delta_e", "%.2f", "%.4f", r->colour.max_delta_e);
        if (isinf(r->pixels.psnr)) {
            out[n] = (struct result_field){.name = "psnr", .line = "inf", .json = "null"};
            n++;
        } else {
            FIELD("psnr", "%.2f", "%.2f", r->pixels.psnr);
        }
        FIELD("diff_pixels", "%llu", "%llu", (unsigned long long)r->pixels.diff_pixels);
        FIELD("max_delta", "%u", "%u", r->pixels.max_delta);
        FIELD("width", "%u", "%u", r->width);
        FIELD("height", "%u", "%u", r->height);
    }
#undef FIELD
    return n;
}

int rt_compare_format_line(const struct rt_compare_result *r, char *buf, size_t size)
{
    struct result_field f[9];
    size_t n = result_fields(r, f), o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "%s=%s ", f[i].name, f[i].line);
    return o < size ? snprintf(buf + o, size - o, "result=%s", rt_compare_verdict_name(r->verdict)) + (int)o
                    : (int)o;
}

int rt_compare_format_json(const struct rt_compare_result *r, char *buf, size_t size)
{
    struct result_field f[9];
    size_t n = result_fields(r, f);
    /* cJSON builds the object (README: nothing builds JSON by hand); the
     * numbers go in as the text above, so their digits stay as documented. */
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = cJSON_AddRawToObject(o, f[i].name, f[i].json) != NULL;
    ok = ok && cJSON_AddStringToObject(o, "result", rt_compare_verdict_name(r->verdict)) != NULL;
    ok = ok && size <= INT_MAX && cJSON_PrintPreallocated(o, buf, (int)size, false);
    cJSON_Delete(o);
    if (!ok && size)
        buf[0] = 0;
    return ok ? (int)strlen(buf) : -1;
}

struct read_job {
    const char *path;
    struct rt_image image;
    rt_status status;
};

static void *read_job_run(void *arg)
{
    struct read_job *job = arg;
    job->status = rt_png_read_file(job->path, &job->image);
    return NULL;
}

rt_status rt_compare_read_pair(const char *golden_path, const char *actual_path,
                               struct rt_image *golden_out, struct rt_image *actual_out)
{
    struct read_job jobs[2] = {{.path = golden_path}, {.path = actual_path}};
    pthread_t tid;
    bool threaded = pthread_create(&tid, NULL, read_job_run, &jobs[0]) == 0;
    if (!threaded)
        read_job_run(&jobs[0]);
    read_job_run(&jobs[1]);
    if (threaded)
        pthread_join(tid, NULL);
    for (int i = 0; i < 2; i++)
        if (!rt_ok(&jobs[i].status)) {
            rt_image_finish(&jobs[0].image);
            rt_image_finish(&jobs[1].image);
            *golden_out = (struct rt_image){0};
            *actual_out = (struct rt_image){0};
            rt_status_free(&jobs[1 - i].status); /* the first error is the one said */
            return jobs[i].status;
        }
    *golden_out = jobs[0].image;
    *actual_out = jobs[1].image;
    return rt_ok_status();
}
