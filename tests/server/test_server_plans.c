/*
 * tests/server/test_server_plans.c — no API query reads a whole table that
 * grows every night (issue 18 §3): every route of server/README.md is asked
 * once, reads and writes, and then every statement the server's connections
 * prepared meanwhile (each worker's reader and the writer) is explained:
 * a plan that SCANs results, images, series, run_counts or the diagnoses
 * tables, even through a covering index, fails, naming the statement. Not a timing: the plan is
 * what makes a year of runs as fast as a week (bench/store_scale.sh times it).
 * runs, goldens, traces and expectations may be scanned: they grow with the
 * farm (a run per device a night, a golden per approval), not per result.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "server_internal.h"
#include "store.h"

static struct fixture f;

static void setup(void)
{
    fixture_make(&f);
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.threads = 1; /* one reader: every read lands on one connection (and the writer) */
    o.token_file = f.token_file;
    fixture_start(&f, &o);
}

static void teardown(void) { fixture_finish(&f); }

TestSuite(plans, .init = setup, .fini = teardown, .timeout = 60);

static const char *const big_tables[] = {"results", "images", "series", "run_counts", "diagnoses",
                                         "diagnosis_images"};

/* The names a big table goes by in SQL: itself and each alias it is given
 * ("results r", "results AS r"). */
static size_t names_of(const char *sql, const char *table, char names[][32], size_t max)
{
    size_t n = 0;
    snprintf(names[n++], 32, "%s", table);
    size_t len = strlen(table);
    for (const char *p = strstr(sql, table); p && n < max; p = strstr(p + len, table)) {
        bool word = (p == sql || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z'))) &&
                    p[len] == ' ';
        if (!word)
            continue;
        const char *a = p + len + 1;
        if (!strncmp(a, "AS ", 3))
            a += 3;
        size_t k = strspn(a, "abcdefghijklmnopqrstuvwxyz_");
        if (k > 0 && k < 32 && !(a[k] >= 'A' && a[k] <= 'Z')) {
            snprintf(names[n], 32, "%.*s", (int)k, a);
            n++;
        }
    }
    return n;
}

/* True when a line of PLAN is "SCAN NAME" (alone or followed by " USING ..."). */
static bool scans(const char *plan, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = plan; *line; line = strchr(line, '\n') + 1) {
        const char *at = strstr(line, "SCAN ");
        const char *end = strchr(line, '\n');
        if (at && at < end && !strncmp(at + 5, name, len) &&
            (at[5 + len] == '\n' || at[5 + len] == ' '))
            return true;
    }
    return false;
}

struct seen {
    size_t statements;
    size_t results_read; /* statements that read the results table at all */
    char failures[8192];
};

static void check_plan(const char *sql, const char *plan, void *ctx)
{
    struct seen *seen = ctx;
    seen->statements++;
    if (getenv("RT_PLANS_DUMP"))
        fprintf(stderr, "== %s\n%s", sql, plan);
    if (strstr(sql, "results"))
        seen->results_read++;
    for (size_t t = 0; t < sizeof big_tables / sizeof *big_tables; t++) {
        char names[16][32];
        size_t n = names_of(sql, big_tables[t], names, 16);
        for (size_t i = 0; i < n; i++)
            if (scans(plan, names[i])) {
                size_t used = strlen(seen->failures);
                snprintf(seen->failures + used, sizeof seen->failures - used,
                         "SCAN of %s (as %s) in:\n  %s\nplan:\n%s\n", big_tables[t], names[i],
                         sql, plan);
            }
    }
}

static int request(const char *method, const char *path, const char *body, cJSON **json_out)
{
    struct http_response r;
    char headers[128] = "";
    if (strcmp(method, "GET"))
        snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\n"
                 "Content-Type: application/json\r\n", TEST_TOKEN);
    http_request(&f, method, path, headers, body, &r);
    int status = r.status;
    if (json_out)
        *json_out = cJSON_Parse(r.body);
    http_response_finish(&r);
    return status;
}

static void get_ok(const char *path)
{
    int status = request("GET", path, NULL, NULL);
    cr_assert(status == 200 || status == 304, "GET %s: %d", path, status);
}

/* A number member of the answer to GET PATH, by a chain of keys. */
static double answer_number(const char *path, const char *key)
{
    cJSON *json = NULL;
    cr_assert_eq(request("GET", path, NULL, &json), 200, "GET %s", path);
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, key);
    cr_assert(cJSON_IsNumber(item), "%s: no %s", path, key);
    double v = item->valuedouble;
    cJSON_Delete(json);
    return v;
}

#define TINY_PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="

static const char upload[] =
    "{\"format\":\"retrace-run\",\"version\":1,\"run\":{\"id\":"
    "\"0f2f6a40-6b1e-4c59-9a0e-2d8d4f1b7e99\",\"label\":\"nightly\",\"shard\":\"1/2\","
    "\"host\":\"farm-07\",\"device\":\"NVIDIA H200\",\"device_key\":\"10de:2335/580\","
    "\"pipeline\":\"ci-77\",\"started_at\":\"2026-11-30T02:00:00Z\","
    "\"finished_at\":\"2026-11-30T02:14:07Z\",\"outcome\":\"failed\"},\"results\":["
    "{\"trace\":\"cube\",\"frame\":1,\"status\":\"fail\",\"ssim\":0.9,\"threshold\":0.99,"
    "\"golden_hash\":null,\"message\":\"m\",\"actual_png\":\"" TINY_PNG "\",\"diff_png\":null},"
    "{\"trace\":\"cube\",\"frame\":2,\"status\":\"pass\",\"ssim\":1,\"threshold\":0.99}]}";

/* Every route of server/README.md's table, reads and writes. */
static void ask_every_route(void)
{
    char path[256];
    const char *reads[] = {
        "/api/runs", "/api/runs?label=nightly", "/api/runs?device=10de:2335/580",
        "/api/runs?status=fail", "/api/runs?status=failed&limit=5&offset=1",
        "/api/history?trace=cube", "/api/history?trace=cube&device=10de:2335/580&limit=5",
        "/api/goldens", "/api/goldens?trace=cube", "/api/expectations",
        "/api/expectations?trace=cube", "/api/health", "/api/sync?device_key=10de:2335/580",
        "/api/sync?device_key=10de:2335/580&traces=cube",
        "/api/sync?device_key=10de:2335/580&traces=cube&since=1",
        "/api/expectations/history?trace=cube", "/api/joined?pipeline=ci-77"};
    cr_assert_eq(request("POST", "/api/runs", upload, NULL), 201);
    for (size_t i = 0; i < sizeof reads / sizeof *reads; i++)
        get_ok(reads[i]);
    snprintf(path, sizeof path, "/api/runs/%lld", (long long)f.newest_run);
    get_ok(path);
    snprintf(path, sizeof path, "/api/results/%lld", (long long)f.failing_result);
    get_ok(path);
    snprintf(path, sizeof path, "/api/results/%lld", (long long)f.passing_result);
    get_ok(path);
    snprintf(path, sizeof path, "/api/results/%lld/diagnosis", (long long)f.failing_result);
    cr_assert_eq(request("GET", path, NULL, NULL), 204, "%s: the fixture's failure has no diagnosis", path);
    snprintf(path, sizeof path, "/api/runs/%lld/diagnoses", (long long)f.newest_run);
    get_ok(path);
    cJSON *json = NULL;
    cr_assert_eq(request("GET", "/api/runs?limit=1", NULL, &json), 200);
    const cJSON *started = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "runs"), 0), "started_at");
    snprintf(path, sizeof path, "/api/joined?label=nightly&date=%.10s", started->valuestring);
    cJSON_Delete(json);
    get_ok(path);
    snprintf(path, sizeof path, "/api/images/golden/%lld", (long long)f.golden);
    get_ok(path);
    snprintf(path, sizeof path, "/api/images/result/%lld/actual", (long long)f.failing_result);
    get_ok(path);
    snprintf(path, sizeof path, "/api/images/result/%lld/diff", (long long)f.failing_result);
    get_ok(path);
    cr_assert_eq(request("GET", "/api/goldens", NULL, &json), 200);
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "goldens"), 0), "hash");
    snprintf(path, sizeof path, "/api/images/hash/%s", hash->valuestring);
    cJSON_Delete(json);
    get_ok(path);
    snprintf(path, sizeof path, "/api/goldens/%lld/history", (long long)f.golden);
    get_ok(path);
    /* writes */
    snprintf(path, sizeof path, "/api/results/%lld/approve", (long long)f.failing_result);
    cr_assert_eq(request("POST", path, "{}", &json), 200);
    int64_t golden = (int64_t)cJSON_GetObjectItemCaseSensitive(json, "golden_id")->valuedouble;
    const cJSON *event = cJSON_GetObjectItemCaseSensitive(json, "event_id");
    int64_t event_id = cJSON_IsNumber(event) ? (int64_t)event->valuedouble : 1;
    cJSON_Delete(json);
    snprintf(path, sizeof path, "/api/runs?limit=2");
    (void)answer_number(path, "total"); /* the counts with an approval */
    snprintf(path, sizeof path, "/api/results/%lld/known-bad", (long long)f.failing_result);
    cr_assert_eq(request("POST", path, "{}", NULL), 200);
    snprintf(path, sizeof path, "/api/goldens/%lld/accepted", (long long)golden);
    cr_assert_eq(request("POST", path, "{}", NULL), 200);
    snprintf(path, sizeof path, "/api/goldens/%lld/revert", (long long)golden);
    cr_assert_eq(request("POST", path, "{}", NULL), 200);
    snprintf(path, sizeof path, "/api/golden-events/%lld/undo", (long long)event_id);
    int undo = request("POST", path, "{}", NULL);
    cr_assert(undo == 200 || undo == 409, "undo: %d", undo);
    cr_assert_eq(request("POST", "/api/expectations",
                         "{\"trace\":\"cube\",\"scope\":\"any\",\"kind\":\"skip\",\"note\":\"n\"}",
                         &json), 200);
    event = cJSON_GetObjectItemCaseSensitive(json, "event_id");
    snprintf(path, sizeof path, "/api/expectation-events/%lld/undo",
             cJSON_IsNumber(event) ? (long long)event->valuedouble : 1LL);
    cJSON_Delete(json);
    undo = request("POST", path, "{}", NULL);
    cr_assert(undo == 200 || undo == 409, "undo: %d", undo);
}

Test(plans, no_api_query_scans_a_table_that_grows_every_night)
{
    ask_every_route();
    struct rt_server *server = f.server;
    static struct seen seen;
    pthread_mutex_lock(&server->workers_lock);
    for (size_t i = 0; i < server->worker_count; i++) {
        rt_status s = rt_store_query_plans(server->workers[i]->reader, check_plan, &seen);
        cr_assert(rt_ok(&s), "%s", s.msg);
    }
    pthread_mutex_unlock(&server->workers_lock);
    pthread_mutex_lock(&server->write_lock);
    cr_assert_not_null(server->writer, "the writes above opened the writer");
    rt_status s = rt_store_query_plans(server->writer, check_plan, &seen);
    pthread_mutex_unlock(&server->write_lock);
    cr_assert(rt_ok(&s), "%s", s.msg);
    /* The check saw the queries (the reads of results among them), not nothing. */
    cr_assert_geq(seen.statements, 30, "only %zu statements", seen.statements);
    cr_assert_geq(seen.results_read, 8, "only %zu statements read results", seen.results_read);
    cr_assert_str_empty(seen.failures, "%s", seen.failures);
}

/* The checker itself: a full scan, through an alias or a covering index, is seen. */
Test(plans, the_checker_sees_a_scan)
{
    static struct seen seen;
    check_plan("SELECT count(*) FROM results r WHERE r.frame = 2", "SCAN r\n", &seen);
    cr_assert_not_null(strstr(seen.failures, "SCAN of results (as r)"));
    seen.failures[0] = '\0';
    check_plan("SELECT count(*) FROM results", "SCAN results USING COVERING INDEX results_by_run\n",
               &seen);
    cr_assert_not_null(strstr(seen.failures, "SCAN of results"));
    seen.failures[0] = '\0';
    check_plan("SELECT * FROM results r JOIN runs u ON u.id = r.run_id WHERE r.run_id = ?1",
               "SEARCH r USING INDEX results_by_run (run_id=?)\nSCAN u\n", &seen);
    cr_assert_str_empty(seen.failures, "a search of results and a scan of runs pass");
}
