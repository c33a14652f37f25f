/*
 * tests/server/test_server_api.c — the dashboard's JSON API against a server
 * on a free port over a test store: reads, filters, paging, images and their
 * caching, the run upload (idempotent), approve and known-bad, tokens.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "process.h"
#include "store.h"

static struct fixture f;

static void setup(void)
{
    fixture_make(&f);
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.threads = 2;
    o.token_file = f.token_file;
    fixture_start(&f, &o);
}

static void teardown(void) { fixture_finish(&f); }

TestSuite(api, .init = setup, .fini = teardown, .timeout = 60);

/* GET PATH, expecting STATUS; returns the parsed body (caller deletes). */
static cJSON *get_json(const char *path, int status)
{
    struct http_response r;
    http_request(&f, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, status, "GET %s: %d, expected %d: %s", path, r.status, status, r.body);
    cr_assert(http_header(&r, "Content-Type") &&
              strstr(http_header(&r, "Content-Type"), "application/json"));
    cJSON *json = cJSON_Parse(r.body);
    cr_assert(json, "GET %s: not JSON: %s", path, r.body);
    http_response_finish(&r);
    return json;
}

static double num(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_assert(cJSON_IsNumber(item), "no number %s", key);
    return item->valuedouble;
}

static const char *str(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_assert(cJSON_IsString(item), "no string %s", key);
    return item->valuestring;
}

static const cJSON *at(const cJSON *obj, const char *key, int index)
{
    const cJSON *item = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(obj, key), index);
    cr_assert(item, "no %s[%d]", key, index);
    return item;
}

static int post(const char *path, const char *token, const char *body, cJSON **json_out)
{
    char header[256] = "";
    if (token)
        snprintf(header, sizeof header, "Authorization: Bearer %s\r\n", token);
    struct http_response r;
    http_request(&f, "POST", path, header, body, &r);
    if (json_out)
        *json_out = cJSON_Parse(r.body);
    int status = r.status;
    http_response_finish(&r);
    return status;
}

Test(api, runs_newest_first_with_counts_and_history)
{
    cJSON *json = get_json("/api/runs", 200);
    cr_assert_eq(num(json, "total"), 3);
    const cJSON *newest_nightly = at(json, "runs", 1);
    cr_assert_eq(num(newest_nightly, "id"), f.newest_run);
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(newest_nightly, "counts");
    cr_assert_eq(num(counts, "fail"), 1);
    cr_assert_eq(num(counts, "pass"), 1);
    cr_assert_eq(num(counts, "approved"), 0);
    /* history: runs of the same label and device key only (here: itself) */
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(newest_nightly, "history")), 1);
    cJSON_Delete(json);
}

Test(api, runs_filtered_and_paged)
{
    cJSON *json = get_json("/api/runs?label=nightly", 200);
    cr_assert_eq(num(json, "total"), 2);
    cJSON_Delete(json);
    json = get_json("/api/runs?device=10de:2335/580", 200);
    cr_assert_eq(num(json, "total"), 1);
    cJSON_Delete(json);
    json = get_json("/api/runs?device=llvmpipe&label=ci", 200);
    cr_assert_eq(num(json, "total"), 1);
    cJSON_Delete(json);
    json = get_json("/api/runs?status=fail", 200); /* a result status */
    cr_assert_eq(num(json, "total"), 1);
    cJSON_Delete(json);
    json = get_json("/api/runs?status=passed", 200); /* a run outcome */
    cr_assert_eq(num(json, "total"), 2);
    cJSON_Delete(json);
    json = get_json("/api/runs?limit=1&offset=2", 200);
    cr_assert_eq(num(json, "total"), 3);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "runs")), 1);
    cr_assert_eq(num(at(json, "runs", 0), "id"), f.older_run);
    cJSON_Delete(json);
    cJSON_Delete(get_json("/api/runs?limit=0", 400));
    cJSON_Delete(get_json("/api/runs?limit=-1", 400));
    cJSON_Delete(get_json("/api/runs?offset=x", 400));
    /* a quote in a filter is a value, never SQL */
    json = get_json("/api/runs?label=x%27%20OR%20%271%27=%271", 200);
    cr_assert_eq(num(json, "total"), 0);
    cJSON_Delete(json);
}

Test(api, run_failures_first_and_unknown_ids)
{
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld", (long long)f.newest_run);
    cJSON *json = get_json(path, 200);
    cr_assert_str_eq(str(at(json, "results", 0), "status"), "fail");
    cr_assert_str_eq(str(at(json, "results", 1), "status"), "pass");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(at(json, "results", 0), "has_diff")));
    cJSON_Delete(json);
    cJSON_Delete(get_json("/api/runs/999999", 404));
    cJSON_Delete(get_json("/api/runs/abc", 404));
    cJSON_Delete(get_json("/api/runs/-1", 404));
    cJSON_Delete(get_json("/api/results/999999", 404));
    cJSON_Delete(get_json("/api/nothing", 404));
}

Test(api, result_with_its_run_goldens_and_expectations)
{
    char path[64];
    snprintf(path, sizeof path, "/api/results/%lld", (long long)f.failing_result);
    cJSON *json = get_json(path, 200);
    cr_assert_str_eq(str(json, "trace"), "cube");
    cr_assert_eq(num(json, "ssim_worst_tile"), 0.1);
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(json, "run"), "id"), f.newest_run);
    cr_assert_eq(num(at(json, "goldens", 0), "id"), f.golden);
    cr_assert_str_eq(str(at(json, "expectations", 0), "kind"), "flaky");
    cJSON_Delete(json);
}

Test(api, history_goldens_expectations)
{
    cJSON *json = get_json("/api/history?trace=cube", 200);
    cJSON *points = cJSON_GetObjectItemCaseSensitive(json, "points");
    cr_assert_eq(cJSON_GetArraySize(points), 3);
    cr_assert_str_eq(str(cJSON_GetArrayItem(points, 0), "device_key"), "10005:0000/1");
    cJSON_Delete(json);
    json = get_json("/api/history?trace=cube&device=10de:2335/580", 200);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "points")), 2);
    cJSON_Delete(json);
    cJSON_Delete(get_json("/api/history?trace=nope", 404));
    cJSON_Delete(get_json("/api/history", 400));
    json = get_json("/api/goldens?trace=cube", 200);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "goldens")), 1);
    cJSON_Delete(json);
    json = get_json("/api/expectations", 200);
    cr_assert_str_eq(str(at(json, "expectations", 0), "note"), "sometimes");
    cJSON_Delete(json);
}

Test(api, images_carry_etags_and_revalidate)
{
    char path[80], header[128];
    snprintf(path, sizeof path, "/api/images/result/%lld/diff", (long long)f.failing_result);
    struct http_response r;
    http_request(&f, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/png");
    cr_assert(!memcmp(r.body, "\x89PNG", 4));
    cr_assert(strstr(http_header(&r, "Cache-Control"), "max-age"));
    snprintf(header, sizeof header, "If-None-Match: %s\r\n", http_header(&r, "ETag"));
    http_response_finish(&r);
    http_request(&f, "GET", path, header, NULL, &r);
    cr_assert_eq(r.status, 304);
    cr_assert_eq(r.body_size, 0);
    http_response_finish(&r);
    snprintf(path, sizeof path, "/api/images/golden/%lld", (long long)f.golden);
    http_request(&f, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    http_response_finish(&r);
    snprintf(path, sizeof path, "/api/images/result/%lld/actual", (long long)f.passing_result);
    cJSON_Delete(get_json(path, 404)); /* passes keep no image */
    cJSON_Delete(get_json("/api/images/golden/424242", 404));
    cJSON_Delete(get_json("/api/images/result/1/other", 404));
}

static const char upload[] =
    "{\"format\":\"retrace-run\",\"version\":1,\"run\":{\"id\":"
    "\"8c2f6a40-6b1e-4c59-9a0e-2d8d4f1b7e11\",\"label\":\"nightly\",\"shard\":\"1/2\","
    "\"host\":\"farm-07\",\"device\":\"NVIDIA H200\",\"device_key\":\"10de:2335/580\","
    "\"started_at\":\"2026-11-30T02:00:00Z\",\"finished_at\":\"2026-11-30T02:14:07Z\","
    "\"outcome\":\"failed\",\"configurations\":[{\"name\":\"slow\",\"workarounds\":[],"
    "\"delays\":[\"create-pipeline=25ms\"]}]},\"results\":["
    "{\"trace\":\"cube\",\"configuration\":\"slow\",\"frame\":1,\"status\":\"fail\","
    "\"ssim\":0.9,\"ssim_worst_tile\":0.5,\"psnr\":20,\"threshold\":0.99,"
    "\"tile_threshold\":0.95,\"delta_e\":17.39,\"colour_threshold\":3,\"diff_pixels\":10,\"max_diff\":99,\"replay_ms\":3.5,"
    "\"attempts\":2,\"golden_hash\":null,\"message\":\"m\",\"report\":{\"format\":"
    "\"retrace-replay-report\"},\"actual_png\":\"%s\",\"diff_png\":null},"
    "{\"trace\":\"other\",\"frame\":0,\"status\":\"crash\",\"message\":\"SIGSEGV\"}]}";

/* A 1x1 PNG, base64 (with correct CRCs: the server decodes uploaded images). */
#define TINY_PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="

Test(api, upload_is_recorded_once)
{
    char body[4096];
    snprintf(body, sizeof body, upload, TINY_PNG);
    cJSON *json = NULL;
    cr_assert_eq(post("/api/runs", TEST_TOKEN, body, &json), 201);
    cr_assert_str_eq(str(json, "id"), "8c2f6a40-6b1e-4c59-9a0e-2d8d4f1b7e11");
    int64_t run = (int64_t)num(json, "run");
    cJSON_Delete(json);
    cr_assert_eq(post("/api/runs", TEST_TOKEN, body, &json), 200);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "duplicate")));
    cr_assert_eq(num(json, "run"), run);
    cJSON_Delete(json);
    json = get_json("/api/runs", 200);
    cr_assert_eq(num(json, "total"), 4);
    cJSON_Delete(json);
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld", (long long)run);
    json = get_json(path, 200);
    cr_assert_str_eq(str(json, "shard"), "1/2");
    cr_assert_str_eq(str(json, "finished_at"), "2026-11-30T02:14:07Z");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "results")), 2);
    const cJSON *failing = at(json, "results", 0);
    cr_assert_str_eq(str(failing, "configuration"), "slow");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(failing, "has_actual")));
    /* The colour gate travels with the upload and is served; a result sent
     * without it (as from an older runner) has null there. */
    cr_assert_float_eq(num(failing, "delta_e"), 17.39, 1e-9);
    cr_assert_float_eq(num(failing, "colour_threshold"), 3, 1e-9);
    const cJSON *crash = at(json, "results", 1);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(crash, "delta_e")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(crash, "colour_threshold")));
    cr_assert_str_eq(str(at(json, "configurations", 0), "name"), "slow");
    int64_t failing_id = (int64_t)num(failing, "id");
    cJSON_Delete(json);
    snprintf(path, sizeof path, "/api/results/%lld", (long long)failing_id);
    json = get_json(path, 200);
    cr_assert_float_eq(num(json, "delta_e"), 17.39, 1e-9);
    cJSON_Delete(json);
}

Test(api, bad_uploads_record_nothing)
{
    char body[4096];
    const char *bad[] = {
        "{not json",
        "[1,2]",
        "{\"format\":\"retrace-run\",\"version\":1,\"results\":[]}",
        ("{\"format\":\"retrace-run\",\"version\":2,\"run\":{\"id\":"
         "\"8c2f6a40-6b1e-4c59-9a0e-2d8d4f1b7e11\"},\"results\":[]}"),
        "{\"format\":\"retrace-run\",\"version\":1,\"run\":{\"id\":\"not-a-uuid\"},\"results\":[]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *json = NULL;
        cr_assert_eq(post("/api/runs", TEST_TOKEN, bad[i], &json), 400, "upload %zu", i);
        cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(json, "error")));
        cJSON_Delete(json);
    }
    /* the second result is broken: the first must not be recorded either */
    snprintf(body, sizeof body, upload, "bm90IGEgcG5n"); /* base64 of "not a png" */
    cr_assert_eq(post("/api/runs", TEST_TOKEN, body, NULL), 400);
    snprintf(body, sizeof body, upload, "%%%%%%%%");
    cr_assert_eq(post("/api/runs", TEST_TOKEN, body, NULL), 400);
    /* values out of range, a bad time, an unknown outcome: 400 naming the field */
    static const struct { const char *from, *to, *field; } bad_values[] = {
        {"\"ssim\":0.9,", "\"ssim\":9,", "results[0].ssim"},
        {"\"started_at\":\"2026-11-30T02:00:00Z\"", "\"started_at\":\"last night\"", "run.started_at"},
        {"\"outcome\":\"failed\"", "\"outcome\":\"fine\"", "run.outcome"},
        {"\"max_diff\":99", "\"max_diff\":70000", "results[0].max_diff"},
    };
    for (size_t i = 0; i < sizeof bad_values / sizeof *bad_values; i++) {
        char text[4096], edited[4096];
        snprintf(text, sizeof text, upload, TINY_PNG);
        char *at = strstr(text, bad_values[i].from);
        cr_assert_not_null(at);
        snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - text), text, bad_values[i].to,
                 at + strlen(bad_values[i].from));
        cJSON *answer = NULL;
        cr_assert_eq(post("/api/runs", TEST_TOKEN, edited, &answer), 400, "%s", bad_values[i].field);
        cr_assert(strstr(str(answer, "error"), bad_values[i].field), "%s", str(answer, "error"));
        cJSON_Delete(answer);
    }
    cJSON *json = get_json("/api/runs", 200);
    cr_assert_eq(num(json, "total"), 3);
    cJSON_Delete(json);
}

Test(api, the_server_recomputes_the_outcome)
{
    char body[4096];
    snprintf(body, sizeof body, upload, TINY_PNG);
    /* a runner that says "passed" over a failing result is not believed */
    char *outcome = strstr(body, "\"outcome\":\"failed\"");
    cr_assert_not_null(outcome);
    memcpy(outcome, "\"outcome\":\"passed\"", strlen("\"outcome\":\"passed\""));
    cJSON *json = NULL;
    cr_assert_eq(post("/api/runs", TEST_TOKEN, body, &json), 201);
    cr_assert_str_eq(str(json, "outcome"), "failed");
    cJSON_Delete(json);
}

Test(api, writes_need_the_token)
{
    char path[64];
    snprintf(path, sizeof path, "/api/results/%lld/approve", (long long)f.failing_result);
    struct http_response r;
    http_request(&f, "POST", path, NULL, "{}", &r);
    cr_assert_eq(r.status, 401);
    cr_assert(http_header(&r, "WWW-Authenticate"));
    http_response_finish(&r);
    cr_assert_eq(post(path, "wrong", "{}", NULL), 401);
    cr_assert_eq(post(path, "test-token-0123456780", "{}", NULL), 401); /* same length */
    cr_assert_eq(post(path, TEST_TOKEN "x", "{}", NULL), 401);
    cr_assert_eq(post(path, "", "{}", NULL), 401);
    cr_assert_eq(post("/api/runs", NULL, "{}", NULL), 401);
}

Test(api, approve_changes_the_counts)
{
    char path[64], run_path[64];
    snprintf(path, sizeof path, "/api/results/%lld/approve", (long long)f.failing_result);
    snprintf(run_path, sizeof run_path, "/api/runs/%lld", (long long)f.newest_run);
    cJSON *json = NULL;
    cr_assert_eq(post(path, TEST_TOKEN, "{\"device_key\":\"10de:2335/580\"}", &json), 200);
    int64_t golden = (int64_t)num(json, "golden_id");
    cr_assert_str_eq(str(json, "status"), "accepted");
    cJSON_Delete(json);
    json = get_json(run_path, 200);
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(json, "counts");
    cr_assert_eq(num(counts, "fail"), 0);
    cr_assert_eq(num(counts, "approved"), 1);
    cr_assert_str_eq(str(at(json, "results", 0), "review"), "accepted");
    cJSON_Delete(json);
    json = get_json("/api/goldens?trace=cube", 200);
    const cJSON *made = at(json, "goldens", 1);
    cr_assert_eq(num(made, "id"), golden);
    cr_assert_str_eq(str(made, "device_key"), "10de:2335/580");
    cJSON_Delete(json);
    /* known-bad takes it back: the failure counts again */
    snprintf(path, sizeof path, "/api/results/%lld/known-bad", (long long)f.failing_result);
    cr_assert_eq(post(path, TEST_TOKEN, "{\"device_key\":\"10de:2335/580\"}", NULL), 200);
    json = get_json(run_path, 200);
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(json, "counts"), "fail"), 1);
    cr_assert_str_eq(str(at(json, "results", 0), "review"), "known-bad");
    cJSON_Delete(json);
}

Test(api, review_errors)
{
    char path[64];
    cr_assert_eq(post("/api/results/999999/approve", TEST_TOKEN, "{}", NULL), 404);
    snprintf(path, sizeof path, "/api/results/%lld/approve", (long long)f.passing_result);
    cr_assert_eq(post(path, TEST_TOKEN, "{}", NULL), 400); /* no actual image */
    snprintf(path, sizeof path, "/api/results/%lld/approve", (long long)f.failing_result);
    cr_assert_eq(post(path, TEST_TOKEN, "{\"device_key\":5}", NULL), 400);
    cr_assert_eq(post(path, TEST_TOKEN, "{\"device_key\":", NULL), 400);
    snprintf(path, sizeof path, "/api/goldens/%lld/known-bad", (long long)f.golden);
    cr_assert_eq(post(path, TEST_TOKEN, "", NULL), 200);
    cr_assert_eq(post("/api/goldens/999999/known-bad", TEST_TOKEN, "", NULL), 404);
    snprintf(path, sizeof path, "/api/goldens/%lld/shiny", (long long)f.golden);
    cr_assert_eq(post(path, TEST_TOKEN, "", NULL), 404);
}

Test(api, read_only_without_a_token_file)
{
    rt_server_stop(f.server);
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.token_file = NULL;
    fixture_start(&f, &o); /* restarted without --token-file */
    cr_assert_eq(post("/api/runs", TEST_TOKEN, "{}", NULL), 403);
}

Test(api, cached_answers_follow_other_writers)
{
    cJSON *json = get_json("/api/runs?label=nightly", 200);
    cr_assert_eq(num(json, "total"), 2);
    cJSON_Delete(json);
    json = get_json("/api/runs?label=nightly", 200); /* now from the worker's cache */
    cr_assert_eq(num(json, "total"), 2);
    cJSON_Delete(json);
    /* another process's connection records a run: no answer may be stale */
    struct rt_store *store = NULL;
    rt_status s = rt_store_open(f.db, RT_STORE_READ_WRITE, &store);
    cr_assert(rt_ok(&s), "%s", s.msg);
    struct rt_run_info info = {.label = "nightly", .device = "other"};
    int64_t id = 0;
    s = rt_store_run_begin(store, &info, &id);
    cr_assert(rt_ok(&s), "%s", s.msg);
    rt_store_close(store);
    for (int i = 0; i < 4; i++) { /* whichever worker answers */
        json = get_json("/api/runs?label=nightly", 200);
        cr_assert_eq(num(json, "total"), 3);
        cJSON_Delete(json);
    }
}

Test(api, shards_of_one_night_are_joined)
{
    struct rt_store *store = NULL;
    rt_status s = rt_store_open(f.db, RT_STORE_READ_WRITE, &store);
    cr_assert(rt_ok(&s), "%s", s.msg);
    const char *shards[] = {"1/2", "2/2"};
    for (int i = 0; i < 2; i++) {
        struct rt_run_info info = {.label = "sharded", .shard = shards[i], .device = "d",
                                   .started_at = i ? "2026-11-30T02:05:00Z" : "2026-11-30T02:00:00Z"};
        int64_t id = 0;
        s = rt_store_run_begin(store, &info, &id);
        cr_assert(rt_ok(&s), "%s", s.msg);
        struct rt_result r = {.frame = 1, .status = i ? RT_RESULT_FAIL : RT_RESULT_PASS, .ssim = 1,
                              .ssim_worst_tile = 1, .psnr = 1, .threshold = 0.99};
        s = rt_store_record_trace_results(store, id, i ? "b" : "a", &r, 1);
        cr_assert(rt_ok(&s), "%s", s.msg);
    }
    struct rt_run_info other_day = {.label = "sharded", .started_at = "2026-11-29T02:00:00Z"};
    int64_t id = 0;
    s = rt_store_run_begin(store, &other_day, &id);
    cr_assert(rt_ok(&s), "%s", s.msg);
    rt_store_close(store);
    cJSON *json = get_json("/api/joined?label=sharded&date=2026-11-30", 200);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "runs")), 2);
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(json, "counts");
    cr_assert_eq(num(counts, "pass"), 1);
    cr_assert_eq(num(counts, "fail"), 1);
    cr_assert_str_eq(str(at(json, "results", 0), "trace"), "b"); /* failures first */
    cJSON_Delete(json);
    cJSON_Delete(get_json("/api/joined?label=sharded&date=2026-12-01", 404));
    cJSON_Delete(get_json("/api/joined?label=sharded&date=30.11.2026", 400));
    cJSON_Delete(get_json("/api/joined?date=2026-11-30", 400));
}

/* A pid that no process has: a child that has exited and been reaped. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(0);
    cr_assert_eq(waitpid(pid, NULL, 0), pid);
    return pid;
}

Test(api, unfinished_runs_of_this_host_whose_runner_is_gone_show_aborted)
{
    char host[256] = "";
    cr_assert_eq(gethostname(host, sizeof host - 1), 0);
    char me[128];
    cr_assert(rt_process_identity(getpid(), me, sizeof me));
    struct rt_store *store = NULL;
    rt_status s = rt_store_open(f.db, RT_STORE_READ_WRITE, &store);
    cr_assert(rt_ok(&s), "%s", s.msg);
    struct rt_run_info infos[] = {
        {.label = "stale", .host = host, .pid = dead_pid(), .pid_start = "gone:1"}, /* killed */
        {.label = "stale", .host = host, .pid = getpid(), .pid_start = me},          /* running */
        {.label = "stale", .host = "elsewhere", .pid = dead_pid()},                  /* not ours to judge */
    };
    int64_t ids[3];
    for (int i = 0; i < 3; i++) {
        s = rt_store_run_begin(store, &infos[i], &ids[i]);
        cr_assert(rt_ok(&s), "%s", s.msg);
    }
    rt_store_close(store);
    /* The server marks at most once a second: ask (by state) until it has. */
    cJSON *json = NULL;
    for (int tries = 0; tries < 50; tries++) {
        cJSON_Delete(json);
        char path[64];
        snprintf(path, sizeof path, "/api/runs/%lld", (long long)ids[0]);
        json = get_json(path, 200);
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(json, "outcome")))
            break;
        struct timespec pause = {.tv_nsec = 100000000L};
        nanosleep(&pause, NULL);
    }
    cr_assert_str_eq(str(json, "outcome"), "aborted");
    cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(json, "finished_at")));
    cJSON_Delete(json);
    for (int i = 1; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "/api/runs/%lld", (long long)ids[i]);
        json = get_json(path, 200);
        cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(json, "outcome")), "run %d", i);
        cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(json, "finished_at")), "run %d", i);
        cJSON_Delete(json);
    }
}
