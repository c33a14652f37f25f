/*
 * tests/server/make_store.c — builds a small but realistic golden store for
 * the dashboard's tests, the bench and anyone trying the pages: four traces,
 * goldens, expectations, and RUNS nightly runs alternating between two
 * devices, the newest with a real regression (an object missing from a
 * frame, measured by compare/), a crash, a new frame and a flaky result.
 * Deterministic. Usage: make_store DB [RUNS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "png_io.h"
#include "store.h"

#define W 160
#define H 120

struct frame_spec {
    const char *trace;
    uint32_t frame;
};

static const struct frame_spec frames[] = {
    {"vkcube", 1}, {"vkcube", 10}, {"triangle", 1}, {"particles", 5}, {"textured", 1},
};
#define FRAME_COUNT (sizeof frames / sizeof frames[0])

static const char *const devices[2][3] = {
    {"llvmpipe (LLVM 15.0.6, 256 bits)", "Mesa 22.3.6", "10005:0000/22.3.6"},
    {"NVIDIA H200", "NVIDIA 580.95.05", "10de:2335/580.95.05"},
};

static void fail_on(rt_status s)
{
    if (!rt_ok(&s)) {
        fprintf(stderr, "make_store: %s\n", s.msg);
        exit(1);
    }
}

/* A frame of TRACE: a gradient, then objects that move with the frame; with
 * MISSING, the last object is not drawn (the regression). */
static void draw(struct rt_image *img, const struct frame_spec *f, bool missing)
{
    unsigned seed = (unsigned)strlen(f->trace) * 40u;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint8_t *p = img->rgba + 4 * (y * W + x);
            p[0] = (uint8_t)(seed + x / 2), p[1] = (uint8_t)(y * 2), p[2] = (uint8_t)(200 - x / 3);
            p[3] = 255;
        }
    for (int k = 0; k < 3 - missing; k++) {
        int cx = 30 + k * 45 + (int)f->frame * 2, cy = 40 + k * 20, r = 14;
        for (int y = cy - r; y <= cy + r; y++)
            for (int x = cx - r; x <= cx + r; x++)
                if (x >= 0 && y >= 0 && x < W && y < H && (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) {
                    uint8_t *p = img->rgba + 4 * (y * W + x);
                    p[0] = (uint8_t)(255 - k * 60), p[1] = (uint8_t)(k * 90), p[2] = 40;
                }
    }
}

static void png_of(const struct frame_spec *f, bool missing, uint8_t **png, size_t *size)
{
    struct rt_image img = {0};
    fail_on(rt_image_init(&img, W, H));
    draw(&img, f, missing);
    fail_on(rt_png_write_memory(&img, png, size));
    rt_image_finish(&img);
}

/* A failing result: the real metrics and images of a frame missing an object. */
static void measure_failure(const struct frame_spec *f, struct rt_result *r, uint8_t **actual,
                            uint8_t **diff)
{
    struct rt_image golden = {0}, broken = {0};
    fail_on(rt_image_init(&golden, W, H));
    fail_on(rt_image_init(&broken, W, H));
    draw(&golden, f, false);
    draw(&broken, f, true);
    struct rt_compare_options o;
    rt_compare_options_init(&o);
    o.want_diff = true;
    struct rt_compare_result c = {0};
    fail_on(rt_compare_images(&golden, &broken, &o, &c));
    r->ssim = c.ssim.mean, r->ssim_worst_tile = c.ssim.min_tile, r->psnr = c.pixels.psnr;
    r->diff_pixels = (int64_t)c.pixels.diff_pixels, r->max_diff = (int32_t)c.pixels.max_delta;
    r->delta_e = c.colour.max_delta_e, r->colour_threshold = o.delta_e_threshold;
    static char tiles[160]; /* recorded before the next failure is measured */
    snprintf(tiles, sizeof tiles, "{\"ssim\":[%u,%u,%u,%u],\"colour\":[%u,%u,%u,%u]}", c.ssim.tile_x,
             c.ssim.tile_y, c.ssim.tile_w, c.ssim.tile_h, c.colour.tile_x, c.colour.tile_y,
             c.colour.tile_w, c.colour.tile_h);
    r->worst_tiles = tiles;
    fail_on(rt_png_write_memory(&broken, actual, &r->actual_png_size));
    fail_on(rt_png_write_memory(&c.diff, diff, &r->diff_png_size));
    r->actual_png = *actual, r->diff_png = *diff;
    rt_compare_result_finish(&c);
    rt_image_finish(&golden);
    rt_image_finish(&broken);
}

static void add_goldens(struct rt_store *store)
{
    for (size_t i = 0; i < FRAME_COUNT; i++) {
        if (!strcmp(frames[i].trace, "textured"))
            continue; /* textured has no golden yet: its results are "new" */
        uint8_t *png = NULL;
        size_t size = 0;
        png_of(&frames[i], false, &png, &size);
        struct rt_golden_new g = {.trace = frames[i].trace, .frame = frames[i].frame,
                                  .png = png, .png_size = size, .approved_by = "make_store"};
        int64_t id = 0;
        fail_on(rt_store_golden_put(store, &g, &id, NULL));
        free(png);
    }
    fail_on(rt_store_expectation_set(store, "particles", devices[1][2], RT_EXPECT_FLAKY,
                                     "particle sort order differs run to run on this driver"));
}

/* The result of frame I in run N of RUNS (the newest runs carry the failures). */
static void one_result(size_t i, int n, int runs, struct rt_result *r, uint8_t **a, uint8_t **d)
{
    const struct frame_spec *f = &frames[i];
    bool newest = n == runs - 1;
    *r = (struct rt_result){.frame = f->frame, .status = RT_RESULT_PASS, .ssim = 1,
                            .ssim_worst_tile = 1, .psnr = NAN, .threshold = 0.99,
                            .tile_threshold = 0.95, .diff_pixels = 0, .max_diff = 0,
                            .replay_ms = 40 + 7 * (double)i + n % 5, .attempts = 1,
                            .configuration = n % 3 == 2 ? "slow-pipelines" : "default"};
    /* a slow drift on vkcube frame 1, so the history chart has a shape */
    if (!strcmp(f->trace, "vkcube") && f->frame == 1)
        r->ssim = 1 - 0.0004 * (n % 7), r->ssim_worst_tile = 1 - 0.003 * (n % 7);
    if (!strcmp(f->trace, "textured")) {
        r->status = RT_RESULT_NEW, r->ssim = r->ssim_worst_tile = NAN;
        png_of(f, false, a, &r->actual_png_size);
        r->actual_png = *a;
    } else if (newest && !strcmp(f->trace, "vkcube") && f->frame == 10) {
        r->status = RT_RESULT_FAIL;
        measure_failure(f, r, a, d);
        r->message = "below the SSIM thresholds (mean 0.99, worst tile 0.95)";
    } else if (newest && !strcmp(f->trace, "particles")) {
        *r = (struct rt_result){.frame = 0, .status = RT_RESULT_CRASH, .ssim = NAN,
                                .ssim_worst_tile = NAN, .psnr = NAN, .threshold = NAN,
                                .diff_pixels = -1, .max_diff = -1, .replay_ms = 12, .attempts = 1,
                                .message = "replay crashed: SIGSEGV in vkQueueSubmit (call 5312)"};
    } else if (n == runs - 2 && !strcmp(f->trace, "triangle")) {
        r->status = RT_RESULT_FLAKY, r->attempts = 2;
        r->message = "failed once (ssim 0.97), passed on retry 2";
    }
}

/* The id of the golden frame I is compared with (0 = none). */
static int64_t golden_of(struct rt_store *store, size_t i)
{
    struct rt_golden_list list = {0};
    fail_on(rt_store_goldens_for(store, frames[i].trace, frames[i].frame, NULL, &list));
    int64_t id = list.count ? list.items[0].id : 0;
    rt_golden_list_finish(&list);
    return id;
}

static void add_run(struct rt_store *store, int n, int runs)
{
    const char *const *dev = devices[n % 2];
    char started[32], finished[32], uuid[40];
    int day = 1 + n / 2;
    snprintf(started, sizeof started, "2026-%02d-%02dT02:00:00Z", 10 + day / 29, 1 + day % 29);
    snprintf(finished, sizeof finished, "2026-%02d-%02dT02:14:07Z", 10 + day / 29, 1 + day % 29);
    snprintf(uuid, sizeof uuid, "00000000-0000-4000-8000-%012d", n + 1);
    struct rt_run_info info = {
        .host = n % 2 ? "farm-07" : "farm-02", .device = dev[0], .driver = dev[1],
        .device_key = dev[2], .version = "0.1.0", .label = "nightly", .uuid = uuid,
        .started_at = started,
        .configurations = "[{\"name\":\"default\",\"workarounds\":[],\"delays\":[]},"
                          "{\"name\":\"slow-pipelines\",\"workarounds\":[\"serialize-submits\"],"
                          "\"delays\":[\"create-pipeline=25ms~5ms\"]}]"};
    int64_t run_id = 0;
    fail_on(rt_store_run_begin(store, &info, &run_id));
    bool failed = false;
    for (size_t i = 0; i < FRAME_COUNT; i++) {
        struct rt_result r;
        uint8_t *a = NULL, *d = NULL;
        one_result(i, n, runs, &r, &a, &d);
        if (r.frame)
            r.golden_id = golden_of(store, i);
        failed |= r.status == RT_RESULT_FAIL || r.status == RT_RESULT_CRASH;
        fail_on(rt_store_record_trace_results(store, run_id, frames[i].trace, &r, 1));
        free(a);
        free(d);
    }
    fail_on(rt_store_run_finish_at(store, run_id, finished, failed ? "failed" : "passed"));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: make_store DB [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 12;
    if (runs < 2 || runs > 100000) {
        fprintf(stderr, "make_store: RUNS must be 2..100000\n");
        return 2;
    }
    remove(argv[1]);
    struct rt_store *store = NULL;
    fail_on(rt_store_open(argv[1], RT_STORE_CREATE, &store));
    add_goldens(store);
    for (int n = 0; n < runs; n++)
        add_run(store, n, runs);
    rt_store_close(store);
    printf("%s: %d runs\n", argv[1], runs);
    return 0;
}
