/*
 * compare/ssim.c — the SSIM map, its cropped mean and its worst tile.
 *
 * Matches scikit-image's structural_similarity(gaussian_weights=True,
 * sigma=1.5, use_sample_covariance=False, data_range=255): a separable
 * 11-tap Gaussian (truncate 3.5 -> radius 5), scipy.ndimage 'reflect' edges
 * (half-sample symmetric, periodic for images narrower than the window), a
 * mean over the map less a `crop` border. README.md has the details.
 *
 * Layout of the work: each thread owns whole tile rows of the map. It keeps
 * a ring of the last 11 source rows as x and y only (float: exact, since
 * the values are integers below 2^24), filters each output row vertically
 * from the ring into the five planes x, y, x², y², xy (products formed per
 * tap, exact in double), then filters those horizontally and evaluates SSIM
 * in the same loop. Vertical first is scipy's order too, and it keeps the
 * working set small: the ring is 11 x 2 x w floats (330 KB at 4K) where 11
 * rows of five double planes (1.7 MB) fell out of the L2 cache. Arithmetic
 * is double: single precision loses ~1e-4 to cancellation in E[x²] - E[x]²
 * over 8-bit data.
 * Luma is kept scaled by 1000 (299 R + 587 G + 114 B, an exact integer) with
 * C1 and C2 scaled to match, which leaves SSIM unchanged.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "vector.h"

/* gcc vectorises these loops only at -O3; clang already does at -O2. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("O3")
#endif

#define RADIUS 5
#define TAPS (2 * RADIUS + 1)
#define MAX_THREADS 8
#define MIN_PIXELS_PER_THREAD (64 * 1024)

enum { P_X, P_Y, P_XX, P_YY, P_XY, P_COUNT };

struct ssim_ctx {
    const struct rt_image *a, *b;
    uint32_t w, h, crop, inner_w, inner_h, tiles_x, tiles_y;
    double g[RADIUS + 1]; /* g[k]: weight at offset ±k */
    double c1, c2;
    int channels[3];      /* -1: luma, else an RGBA byte index */
    unsigned nchannels;
    double weight;        /* 1 / nchannels */
    double *tile_sums;    /* tiles_y x tiles_x, weighted SSIM sums */
    float *map;
};

struct ssim_job {
    const struct ssim_ctx *ctx;
    uint32_t row_begin, row_end; /* map rows */
    bool failed;
};

/* Per-thread buffers. */
struct ssim_scratch {
    float *ring;            /* TAPS slots x 2 planes (x, y) x w: source rows */
    int64_t ring_row[TAPS]; /* source row held by each slot; -1: none */
    double *vert;           /* P_COUNT x (w + 2 RADIUS): one row filtered vertically */
    double *row;            /* w: one row of the SSIM map */
};

/* scipy.ndimage mode 'reflect' (d c b a | a b c d | d c b a), any distance. */
static uint32_t reflect_index(int64_t i, uint32_t n)
{
    int64_t period = 2 * (int64_t)n;
    i %= period;
    if (i < 0)
        i += period;
    return (uint32_t)(i < n ? i : period - 1 - i);
}

/* scipy's _gaussian_kernel1d(1.5, 0, 5): exp(-x²/2σ²) normalised to sum 1. */
static void gaussian_weights(double g[RADIUS + 1])
{
    double sum = 0, raw[TAPS];
    for (int k = -RADIUS; k <= RADIUS; k++) {
        raw[k + RADIUS] = exp(-0.5 / (1.5 * 1.5) * k * k);
        sum += raw[k + RADIUS];
    }
    for (int k = 0; k <= RADIUS; k++)
        g[k] = raw[k + RADIUS] / sum;
}

/* Source row Y of both images as x and y: luma x1000 or one channel, exact in float. */
RT_VECTOR_CLONES static void load_row(const struct ssim_ctx *c, int ch, uint32_t y,
                                      float *restrict x, float *restrict yv)
{
    const uint8_t *pa = c->a->rgba + (size_t)y * c->w * 4;
    const uint8_t *pb = c->b->rgba + (size_t)y * c->w * 4;
    /* Whole pixels as 32-bit words: the loop vectorises. */
    int mr = ch < 0 ? 299 : ch == 0, mg = ch < 0 ? 587 : ch == 1, mb = ch < 0 ? 114 : ch == 2;
    for (uint32_t j = 0; j < c->w; j++) {
        uint32_t u, v;
        memcpy(&u, pa + 4 * (size_t)j, 4);
        memcpy(&v, pb + 4 * (size_t)j, 4);
        x[j] = (float)(mr * RT_PIXEL_BYTE(u, 0) + mg * RT_PIXEL_BYTE(u, 1) +
                       mb * RT_PIXEL_BYTE(u, 2));
        yv[j] = (float)(mr * RT_PIXEL_BYTE(v, 0) + mg * RT_PIXEL_BYTE(v, 1) +
                        mb * RT_PIXEL_BYTE(v, 2));
    }
}

/* The ring slot holding source row Y (x, then y), filled on demand. */
static const float *ring_row(const struct ssim_ctx *c, int ch, uint32_t y,
                             struct ssim_scratch *s)
{
    unsigned slot = y % TAPS; /* rows a window needs lie within 11 of each other */
    float *dst = s->ring + (size_t)slot * 2 * c->w;
    if (s->ring_row[slot] != y) {
        load_row(c, ch, y, dst, dst + c->w);
        s->ring_row[slot] = y;
    }
    return dst;
}

/* The filters are plain loops the compiler vectorises, cloned per vector width. */

/* Source rows r-5 .. r+5 (reflected) filtered vertically into s->vert's five planes. */
RT_VECTOR_CLONES static void filter_vertical(const struct ssim_ctx *c, int ch, uint32_t r,
                                             struct ssim_scratch *s)
{
    const float *x[TAPS], *y[TAPS];
    for (int k = 0; k < TAPS; k++) {
        x[k] = ring_row(c, ch, reflect_index((int64_t)r + k - RADIUS, c->h), s);
        y[k] = x[k] + c->w;
    }
    size_t w = c->w, pw = w + 2 * RADIUS;
    double *restrict vx = s->vert + RADIUS, *restrict vy = vx + pw, *restrict vxx = vy + pw;
    double *restrict vyy = vxx + pw, *restrict vxy = vyy + pw;
    const double g0 = c->g[0], g1 = c->g[1], g2 = c->g[2], g3 = c->g[3], g4 = c->g[4];
    const double g5 = c->g[5];
    for (size_t j = 0; j < w; j++) {
        double a[TAPS], b[TAPS];
        for (int k = 0; k < TAPS; k++) {
            a[k] = x[k][j];
            b[k] = y[k][j];
        }
#define RT_TAPS(F)                                                                          \
    (g0 * F(5) + g1 * (F(4) + F(6)) + g2 * (F(3) + F(7)) + g3 * (F(2) + F(8)) +             \
     g4 * (F(1) + F(9)) + g5 * (F(0) + F(10)))
#define RT_X(k) a[k]
#define RT_Y(k) b[k]
#define RT_XX(k) (a[k] * a[k])
#define RT_YY(k) (b[k] * b[k])
#define RT_XY(k) (a[k] * b[k])
        vx[j] = RT_TAPS(RT_X);
        vy[j] = RT_TAPS(RT_Y);
        vxx[j] = RT_TAPS(RT_XX);
        vyy[j] = RT_TAPS(RT_YY);
        vxy[j] = RT_TAPS(RT_XY);
    }
    for (int p = 0; p < P_COUNT; p++) { /* reflected ends for the horizontal pass */
        double *v = s->vert + p * pw + RADIUS;
        for (int k = 1; k <= RADIUS; k++) {
            v[-k] = v[reflect_index(-k, c->w)];
            v[w - 1 + k] = v[reflect_index((int64_t)w - 1 + k, c->w)];
        }
    }
}

/* Horizontal filter of s->vert's planes and SSIM per pixel into s->row. */
RT_VECTOR_CLONES static void filter_horizontal_ssim(const struct ssim_ctx *c,
                                                    struct ssim_scratch *s)
{
    size_t w = c->w, pw = w + 2 * RADIUS;
    const double *restrict vx = s->vert + RADIUS, *restrict vy = vx + pw;
    const double *restrict vxx = vy + pw, *restrict vyy = vxx + pw, *restrict vxy = vyy + pw;
    const double g0 = c->g[0], g1 = c->g[1], g2 = c->g[2], g3 = c->g[3], g4 = c->g[4];
    const double g5 = c->g[5], c1 = c->c1, c2 = c->c2;
    double *restrict out = s->row;
    for (size_t j = 0; j < w; j++) {
#define RT_H(v, k) v[(ptrdiff_t)j + (k) - RADIUS] /* signed: j + k < RADIUS reads left */
#define RT_HX(k) RT_H(vx, k)
#define RT_HY(k) RT_H(vy, k)
#define RT_HXX(k) RT_H(vxx, k)
#define RT_HYY(k) RT_H(vyy, k)
#define RT_HXY(k) RT_H(vxy, k)
        double ux = RT_TAPS(RT_HX), uy = RT_TAPS(RT_HY), uxx = RT_TAPS(RT_HXX);
        double uyy = RT_TAPS(RT_HYY), uxy = RT_TAPS(RT_HXY);
        /* skimage's expression, term for term: A1 A2 / (B1 B2). */
        double varx = uxx - ux * ux, vary = uyy - uy * uy, cov = uxy - ux * uy;
        double a1 = 2 * ux * uy + c1, a2 = 2 * cov + c2;
        double b1 = ux * ux + uy * uy + c1, b2 = varx + vary + c2;
        out[j] = (a1 * a2) / (b1 * b2);
    }
}

/* Adds map row R (weighted) to its tile sums and to the map. */
static void accumulate_row(const struct ssim_ctx *c, uint32_t r, const double *row)
{
    if (c->map) {
        float *m = c->map + (size_t)r * c->w;
        for (uint32_t j = 0; j < c->w; j++)
            m[j] += (float)(c->weight * row[j]);
    }
    if (r < c->crop || r >= c->crop + c->inner_h)
        return;
    uint32_t ty = (r - c->crop) / RT_SSIM_TILE;
    if (ty >= c->tiles_y)
        ty = c->tiles_y - 1;
    double *sums = c->tile_sums + (size_t)ty * c->tiles_x;
    const double *in = row + c->crop;
    for (uint32_t tx = 0; tx < c->tiles_x; tx++) {
        uint32_t x0 = tx * RT_SSIM_TILE;
        uint32_t x1 = tx + 1 == c->tiles_x ? c->inner_w : x0 + RT_SSIM_TILE;
        double sum = 0;
        for (uint32_t j = x0; j < x1; j++)
            sum += in[j];
        sums[tx] += c->weight * sum;
    }
}

static void *run_job(void *arg)
{
    struct ssim_job *job = arg;
    const struct ssim_ctx *c = job->ctx;
    struct ssim_scratch s = {0};
    size_t w = c->w;
    s.ring = malloc(sizeof(float) * TAPS * 2 * w);
    s.vert = malloc(sizeof(double) * P_COUNT * (w + 2 * RADIUS));
    s.row = malloc(sizeof(double) * w);
    job->failed = !s.ring || !s.vert || !s.row;
    for (unsigned i = 0; i < c->nchannels && !job->failed; i++) {
        for (int k = 0; k < TAPS; k++)
            s.ring_row[k] = -1;
        for (uint32_t r = job->row_begin; r < job->row_end; r++) {
            filter_vertical(c, c->channels[i], r, &s);
            filter_horizontal_ssim(c, &s);
            accumulate_row(c, r, s.row);
        }
    }
    free(s.ring);
    free(s.vert);
    free(s.row);
    return NULL;
}

static unsigned thread_count(const struct ssim_ctx *c, unsigned requested)
{
    unsigned n = requested;
    if (n == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (unsigned)cpus;
        uint64_t by_size = (uint64_t)c->w * c->h / MIN_PIXELS_PER_THREAD;
        if (by_size < n)
            n = by_size ? (unsigned)by_size : 1;
    }
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    return n > c->tiles_y ? c->tiles_y : n;
}

/*
 * Thread T gets tile rows [T*ty/n, (T+1)*ty/n) and so every map row they
 * cover; with a map wanted, the first and last threads also do the border rows.
 */
static bool run_jobs(const struct ssim_ctx *c, unsigned n, bool want_map)
{
    struct ssim_job jobs[MAX_THREADS] = {0};
    pthread_t tids[MAX_THREADS];
    bool started[MAX_THREADS] = {0}, failed = false;
    for (unsigned t = 0; t < n; t++) {
        uint32_t ty0 = (uint32_t)((uint64_t)t * c->tiles_y / n);
        uint32_t ty1 = (uint32_t)((uint64_t)(t + 1) * c->tiles_y / n);
        jobs[t].ctx = c;
        jobs[t].row_begin = c->crop + ty0 * RT_SSIM_TILE;
        jobs[t].row_end = c->crop + (ty1 == c->tiles_y ? c->inner_h : ty1 * RT_SSIM_TILE);
        if (want_map && t == 0)
            jobs[t].row_begin = 0;
        if (want_map && t + 1 == n)
            jobs[t].row_end = c->h;
    }
    for (unsigned t = 1; t < n; t++)
        started[t] = pthread_create(&tids[t], NULL, run_job, &jobs[t]) == 0;
    run_job(&jobs[0]);
    for (unsigned t = 1; t < n; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            run_job(&jobs[t]); /* no thread to be had: do its rows here */
    }
    for (unsigned t = 0; t < n; t++)
        failed |= jobs[t].failed;
    return !failed;
}

static void ctx_init(struct ssim_ctx *c, const struct rt_image *a, const struct rt_image *b,
                     enum rt_ssim_channels channels)
{
    *c = (struct ssim_ctx){.a = a, .b = b, .w = a->width, .h = a->height};
    uint32_t side = a->width < a->height ? a->width : a->height;
    c->crop = (side - 1) / 2 < RADIUS ? (side - 1) / 2 : RADIUS;
    c->inner_w = c->w - 2 * c->crop;
    c->inner_h = c->h - 2 * c->crop;
    c->tiles_x = c->inner_w < RT_SSIM_TILE ? 1 : c->inner_w / RT_SSIM_TILE;
    c->tiles_y = c->inner_h < RT_SSIM_TILE ? 1 : c->inner_h / RT_SSIM_TILE;
    gaussian_weights(c->g);
    double range = channels == RT_SSIM_LUMA ? 255.0 * 1000 : 255.0; /* luma x1000 */
    c->c1 = (0.01 * range) * (0.01 * range);
    c->c2 = (0.03 * range) * (0.03 * range);
    c->nchannels = channels == RT_SSIM_LUMA ? 1 : 3;
    for (unsigned i = 0; i < 3; i++)
        c->channels[i] = channels == RT_SSIM_LUMA ? -1 : (int)i;
    c->weight = 1.0 / c->nchannels;
}

static void tile_summary(const struct ssim_ctx *c, struct rt_ssim_result *out)
{
    double total = 0;
    out->min_tile = INFINITY;
    for (uint32_t ty = 0; ty < c->tiles_y; ty++)
        for (uint32_t tx = 0; tx < c->tiles_x; tx++) {
            uint32_t tw = tx + 1 == c->tiles_x ? c->inner_w - tx * RT_SSIM_TILE : RT_SSIM_TILE;
            uint32_t th = ty + 1 == c->tiles_y ? c->inner_h - ty * RT_SSIM_TILE : RT_SSIM_TILE;
            double sum = c->tile_sums[(size_t)ty * c->tiles_x + tx];
            total += sum;
            if (sum / ((double)tw * th) < out->min_tile) {
                out->min_tile = sum / ((double)tw * th);
                out->tile_x = c->crop + tx * RT_SSIM_TILE;
                out->tile_y = c->crop + ty * RT_SSIM_TILE;
                out->tile_w = tw;
                out->tile_h = th;
            }
        }
    out->mean = total / ((double)c->inner_w * c->inner_h);
}

rt_status rt_ssim_compute(const struct rt_image *a, const struct rt_image *b,
                          const struct rt_ssim_options *options, struct rt_ssim_result *out)
{
    memset(out, 0, sizeof *out);
    if (!a->rgba || !b->rgba || a->width == 0 || a->height == 0)
        return rt_errorf(RT_ERR_USAGE, "SSIM of an empty image");
    if (a->width != b->width || a->height != b->height)
        return rt_errorf(RT_ERR_USAGE, "SSIM of images of different sizes (%ux%u, %ux%u)",
                         a->width, a->height, b->width, b->height);
    struct ssim_ctx c;
    ctx_init(&c, a, b, options->channels);
    c.tile_sums = calloc((size_t)c.tiles_x * c.tiles_y, sizeof *c.tile_sums);
    if (options->want_map)
        c.map = calloc((size_t)c.w * c.h, sizeof *c.map);
    if (!c.tile_sums || (options->want_map && !c.map) ||
        !run_jobs(&c, thread_count(&c, options->threads), options->want_map)) {
        free(c.tile_sums);
        free(c.map);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory computing SSIM of %ux%u images",
                         c.w, c.h);
    }
    tile_summary(&c, out);
    out->crop = c.crop;
    out->map = c.map;
    free(c.tile_sums);
    return rt_ok_status();
}

void rt_ssim_result_finish(struct rt_ssim_result *result)
{
    free(result->map);
    result->map = NULL;
}
