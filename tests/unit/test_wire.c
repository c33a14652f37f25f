/*
 * tests/unit/test_wire.c — the farm's JSON (wire/): an upload and a sync
 * answer survive encode then decode with every field; bad uploads are
 * refused naming the field; the regression rule and the server's
 * recomputation of the outcome.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

/* A 1x1 RGBA PNG (valid CRCs). */
static const unsigned char tiny_png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

#define ASSERT_OK(expr)                                                   \
    do {                                                                  \
        rt_status s_ = (expr);                                            \
        cr_assert(rt_ok(&s_), "%s: %s", #expr, s_.msg);                   \
    } while (0)

static void sample(struct rt_upload *u, struct rt_trace_result *res, struct rt_wire_extra *extra,
                   struct rt_golden_new *golden)
{
    memset(u, 0, sizeof *u);
    u->rec.run = (struct rt_run_info){
        .uuid = "8c2f6a40-6b1e-4c59-9a0e-2d8d4f1b7e11", .label = "nightly", .shard = "2/3",
        .host = "farm-07", .device = "NVIDIA H200", .driver = "NVIDIA 580", .device_key = "10de:2335/580",
        .version = "0.1.0", .started_at = "2026-11-30T02:00:00Z",
        .configurations = "[{\"name\":\"default\",\"workarounds\":[],\"delays\":[]}]",
        .pipeline = "48213", .golden_set = "https://r.example seq 812"};
    u->rec.finished_at = "2026-11-30T02:14:07Z";
    u->rec.outcome = "failed";
    res[0] = (struct rt_trace_result){
        .trace = "vkcube",
        .r = {.frame = 10, .status = RT_RESULT_FAIL, .ssim = 0.98, .ssim_worst_tile = 0.81, .psnr = 31.2,
              .threshold = 0.99, .diff_pixels = 2211, .max_diff = 143, .replay_ms = 812.5, .attempts = 2,
              .actual_png = tiny_png, .actual_png_size = sizeof tiny_png, .diff_png = tiny_png,
              .diff_png_size = sizeof tiny_png, .message = "ssim low", .configuration = "slow",
              .tile_threshold = 0.95, .golden_hash = "0123456789abcdef0123456789abcdef",
              .report = "{\"format\":\"retrace-replay-report\"}", .delta_e = 0.41, .colour_threshold = 3,
              .expected = "none", .regression = true, .actual_hash = "fedcba9876543210fedcba9876543210",
              .worst_tiles = "{\"ssim\":[64,32,32,32],\"colour\":[0,0,32,32]}"}};
    res[1] = (struct rt_trace_result){
        .trace = "particles",
        .r = {.frame = 0, .status = RT_RESULT_CRASH, .ssim = NAN, .ssim_worst_tile = NAN, .psnr = NAN,
              .threshold = NAN, .diff_pixels = -1, .max_diff = -1, .replay_ms = NAN, .attempts = 1,
              .message = "SIGSEGV", .expected = "crash", .regression = false}};
    extra[0] = (struct rt_wire_extra){.expected = RT_EXPECT_NONE, .expect_note = ""};
    extra[1] = (struct rt_wire_extra){.expected = RT_EXPECT_CRASH, .expect_note = "bug 7"};
    *golden = (struct rt_golden_new){.trace = "vkcube", .frame = 10, .device_key = "10de:2335/580",
                                     .png = tiny_png, .png_size = sizeof tiny_png, .approved_by = "alice",
                                     .status = RT_GOLDEN_ACCEPTED, .approved_at = "2026-11-29T09:00:00Z"};
    u->rec.results = res;
    u->rec.result_count = 2;
    u->extra = extra;
    u->rec.goldens = golden;
    u->rec.golden_count = 1;
}

static void same_text(const char *a, const char *b)
{
    cr_assert((!a && !b) || (a && b && !strcmp(a, b)), "'%s' != '%s'", a ? a : "(null)", b ? b : "(null)");
}

static void same_number(double a, double b)
{
    cr_assert((isnan(a) && isnan(b)) || fabs(a - b) < 1e-12, "%g != %g", a, b);
}

static void same_result(const struct rt_trace_result *a, const struct rt_trace_result *b)
{
    same_text(a->trace, b->trace);
    cr_assert_eq(a->r.frame, b->r.frame);
    cr_assert_eq(a->r.status, b->r.status);
    same_number(a->r.ssim, b->r.ssim);
    same_number(a->r.ssim_worst_tile, b->r.ssim_worst_tile);
    same_number(a->r.psnr, b->r.psnr);
    same_number(a->r.threshold, b->r.threshold);
    same_number(a->r.replay_ms, b->r.replay_ms);
    cr_assert_eq(a->r.diff_pixels, b->r.diff_pixels);
    cr_assert_eq(a->r.max_diff, b->r.max_diff);
    cr_assert_eq(a->r.attempts, b->r.attempts);
    cr_assert_eq(a->r.actual_png_size, b->r.actual_png_size);
    cr_assert_eq(a->r.diff_png_size, b->r.diff_png_size);
    cr_assert(!a->r.actual_png_size || !memcmp(a->r.actual_png, b->r.actual_png, a->r.actual_png_size));
    same_text(a->r.message, b->r.message);
    same_text(a->r.golden_hash, b->r.golden_hash);
    same_text(a->r.actual_hash, b->r.actual_hash);
    same_text(a->r.worst_tiles, b->r.worst_tiles);
    same_text(a->r.report, b->r.report);
    same_text(a->r.expected, b->r.expected);
    cr_assert_eq(a->r.regression, b->r.regression);
    if (a->r.colour_threshold > 0) {
        same_number(a->r.delta_e, b->r.delta_e);
        same_number(a->r.colour_threshold, b->r.colour_threshold);
    }
}

Test(upload, round_trips_every_field)
{
    struct rt_upload u, back;
    struct rt_trace_result res[2];
    struct rt_wire_extra extra[2];
    struct rt_golden_new golden;
    sample(&u, res, extra, &golden);
    char *json = NULL;
    ASSERT_OK(rt_upload_encode(&u, &json));
    ASSERT_OK(rt_upload_decode(json, strlen(json), &back));
    const struct rt_run_info *a = &u.rec.run, *b = &back.rec.run;
    same_text(a->uuid, b->uuid), same_text(a->label, b->label), same_text(a->shard, b->shard);
    same_text(a->host, b->host), same_text(a->device, b->device), same_text(a->driver, b->driver);
    same_text(a->device_key, b->device_key), same_text(a->version, b->version);
    same_text(a->started_at, b->started_at), same_text(a->configurations, b->configurations);
    same_text(a->pipeline, b->pipeline), same_text(a->golden_set, b->golden_set);
    same_text(u.rec.finished_at, back.rec.finished_at), same_text(u.rec.outcome, back.rec.outcome);
    cr_assert_eq(back.rec.result_count, 2);
    for (size_t i = 0; i < 2; i++) {
        same_result(&u.rec.results[i], &back.rec.results[i]);
        cr_assert_eq(back.extra[i].expected, extra[i].expected);
        same_text(back.extra[i].expect_note, extra[i].expect_note);
    }
    cr_assert_eq(back.rec.golden_count, 1);
    const struct rt_golden_new *g = &back.rec.goldens[0];
    same_text(g->trace, golden.trace), same_text(g->device_key, golden.device_key);
    same_text(g->approved_by, golden.approved_by), same_text(g->approved_at, golden.approved_at);
    cr_assert_eq(g->frame, golden.frame);
    cr_assert_eq(g->status, golden.status);
    cr_assert(g->png_size == sizeof tiny_png && !memcmp(g->png, tiny_png, sizeof tiny_png));
    /* and again: what was decoded encodes to the same text */
    char *again = NULL;
    ASSERT_OK(rt_upload_encode(&back, &again));
    cr_assert_str_eq(again, json);
    free(again);
    free(json);
    rt_upload_finish(&back);
}

/* Encodes the sample after CHANGE, then expects the decoder to refuse it naming FIELD. */
static void refused(const char *from, const char *to, const char *field)
{
    struct rt_upload u, back;
    struct rt_trace_result res[2];
    struct rt_wire_extra extra[2];
    struct rt_golden_new golden;
    sample(&u, res, extra, &golden);
    char *json = NULL;
    ASSERT_OK(rt_upload_encode(&u, &json));
    char *at = strstr(json, from);
    cr_assert_not_null(at, "%s not in the upload", from);
    size_t n = strlen(json) - strlen(from) + strlen(to) + 1;
    char *bad = malloc(n);
    snprintf(bad, n, "%.*s%s%s", (int)(at - json), json, to, at + strlen(from));
    rt_status s = rt_upload_decode(bad, strlen(bad), &back);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "%s was taken", to);
    cr_assert(strstr(s.msg, field), "'%s' does not name %s", s.msg, field);
    free(bad);
    free(json);
    rt_status_free(&s);
}

Test(upload, bad_values_are_refused_naming_the_field)
{
    refused("\"ssim\":0.98", "\"ssim\":7", "results[0].ssim");
    refused("\"ssim\":[64,32,32,32]", "\"ssim\":[64,32,-1,32]", "results[0].worst_tiles");
    refused("\"status\":\"fail\"", "\"status\":\"broken\"", "results[0].status");
    refused("\"started_at\":\"2026-11-30T02:00:00Z\"", "\"started_at\":\"yesterday\"", "run.started_at");
    refused("\"outcome\":\"failed\"", "\"outcome\":\"great\"", "run.outcome");
    refused("\"started_at\":\"2026-11-30T02:00:00Z\"", "\"started_at\":\"2026-12-30T02:00:00Z\"", "run.finished_at");
    refused("\"attempts\":2", "\"attempts\":0", "results[0].attempts");
    refused("\"frame\":0", "\"frame\":-1", "results[1].frame");
    refused("\"expected\":\"crash\"", "\"expected\":\"maybe\"", "results[1].expected");
    refused("\"id\":\"8c2f6a40", "\"id\":\"xc2f6a40", "run.id");
    refused("\"hash\":\"", "\"hash\":\"00", "goldens[0].hash");
    refused("\"png\":\"iVBOR", "\"png\":\"!VBOR", "goldens[0].png");
    refused("\"actual_png\":\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", "\"actual_png\":\"iVBORw0KGgoAAAANSUhEUgAAQAEAAAAB",
            "results[0].actual_png");
    /* a right header over data that does not decode (the decoder's error was leaked: fuzz_router) */
    refused("\"actual_png\":\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4",
            "\"actual_png\":\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVSH",
            "results[0].actual_png: the PNG does not decode");
}

Test(upload, the_server_recomputes_regressions_and_the_outcome)
{
    cr_assert(rt_wire_regression(RT_RESULT_FAIL, RT_EXPECT_NONE));
    cr_assert(!rt_wire_regression(RT_RESULT_FAIL, RT_EXPECT_FLAKY));
    cr_assert(!rt_wire_regression(RT_RESULT_CRASH, RT_EXPECT_CRASH));
    cr_assert(rt_wire_regression(RT_RESULT_TIMEOUT, RT_EXPECT_CRASH));
    cr_assert(!rt_wire_regression(RT_RESULT_TIMEOUT, RT_EXPECT_HANG));
    cr_assert(!rt_wire_regression(RT_RESULT_NEW, RT_EXPECT_NONE));
    struct rt_upload u;
    struct rt_trace_result res[2];
    struct rt_wire_extra extra[2];
    struct rt_golden_new golden;
    sample(&u, res, extra, &golden);
    res[0].r.regression = false; /* a runner that lies */
    u.rec.outcome = "passed";
    rt_upload_recompute(&u);
    cr_assert(res[0].r.regression);
    cr_assert(!res[1].r.regression);
    cr_assert_str_eq(u.rec.outcome, "failed");
    res[0].r.status = RT_RESULT_PASS;
    rt_upload_recompute(&u);
    cr_assert_str_eq(u.rec.outcome, "passed");
    u.rec.outcome = "aborted";
    rt_upload_recompute(&u);
    cr_assert_str_eq(u.rec.outcome, "aborted", "an aborted run stays aborted");
}

Test(sync, answer_round_trips)
{
    struct rt_wire_golden g = {.id = 41, .trace = "vkcube", .frame = 1, .device_key = "", .status = RT_GOLDEN_KNOWN_BAD,
                               .hash = "0f3a0f3a0f3a0f3a0f3a0f3a0f3a0f3a", .size = 18211, .width = 500,
                               .height = 500, .approved_by = "alice", .approved_at = "2026-11-30T09:12:44Z"};
    struct rt_wire_expectation e = {.trace = "particles", .device_key = "k", .kind = RT_EXPECT_HANG,
                                    .note = "bug", .set_by = "bob", .updated_at = "2026-11-30T09:13:02Z"};
    struct rt_sync_set set = {.device_key = "k", .seq = 812, .goldens = &g, .golden_count = 1,
                              .expectations = &e, .expectation_count = 1}, back;
    char *json = NULL;
    ASSERT_OK(rt_sync_encode(&set, &json));
    ASSERT_OK(rt_sync_decode(json, strlen(json), &back));
    cr_assert_eq(back.seq, 812);
    cr_assert_str_eq(back.device_key, "k");
    cr_assert_eq(back.golden_count, 1);
    cr_assert_eq(back.goldens[0].id, 41);
    cr_assert_eq(back.goldens[0].status, RT_GOLDEN_KNOWN_BAD);
    cr_assert_str_eq(back.goldens[0].hash, g.hash);
    cr_assert_eq(back.goldens[0].size, 18211);
    cr_assert_str_eq(back.goldens[0].approved_at, g.approved_at);
    cr_assert_eq(back.expectation_count, 1);
    cr_assert_eq(back.expectations[0].kind, RT_EXPECT_HANG);
    cr_assert_str_eq(back.expectations[0].set_by, "bob");
    char *again = NULL;
    ASSERT_OK(rt_sync_encode(&back, &again));
    cr_assert_str_eq(again, json);
    free(again);
    free(json);
    rt_sync_finish(&back);
    cr_assert_eq(rt_status_drop(rt_sync_decode("{\"format\":\"nope\"}", 17, &back)), RT_ERR_BAD_INPUT);
}

Test(base64, round_trips_every_length)
{
    unsigned char bytes[64];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 37 + 11);
    for (size_t n = 1; n < sizeof bytes; n++) {
        char *text = rt_wire_base64_encode(bytes, n);
        struct rt_arena arena;
        rt_arena_init(&arena, 0, 0);
        uint8_t *out = NULL;
        size_t size = 0;
        cr_assert(rt_wire_base64_decode(&arena, text, &out, &size));
        cr_assert(size == n && !memcmp(out, bytes, n), "length %zu", n);
        cr_assert(!rt_wire_base64_decode(&arena, "abc", &out, &size), "not a multiple of 4");
        rt_arena_finish(&arena);
        free(text);
    }
}
