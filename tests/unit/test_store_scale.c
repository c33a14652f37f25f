/* Unit tests for store/ at a farm's scale (issue 18 §3, schema 7): images
 * kept once per content hash and never for a pass, the per-run counts the
 * triggers keep, the series triage reads, migration 7 from an older store,
 * and removing old runs (rt_store_gc). The speed itself is bench/store_scale.sh's;
 * the query plans are tests/server/test_server_plans.c's. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "png_io.h"
#include "store_fixture.h"

TestSuite(scale, .init = make_tmp, .fini = remove_tmp);

static int64_t begin_run(struct rt_store *store, const char *device_key, const char *started_at)
{
    struct rt_run_info info = {.label = "nightly", .device_key = device_key,
                               .started_at = started_at};
    int64_t id = 0;
    ASSERT_OK(rt_store_run_begin(store, &info, &id));
    return id;
}

static struct rt_result failure(uint32_t frame, struct png_bytes actual, struct png_bytes diff)
{
    return (struct rt_result){.frame = frame, .status = RT_RESULT_FAIL, .ssim = 0.9,
                              .ssim_worst_tile = NAN, .psnr = NAN, .threshold = 0.99,
                              .diff_pixels = 5, .max_diff = 9, .replay_ms = NAN,
                              .actual_png = actual.data, .actual_png_size = actual.size,
                              .diff_png = diff.data, .diff_png_size = diff.size};
}

Test(scale, an_image_failing_every_night_is_stored_once_and_a_pass_keeps_none)
{
    struct rt_store *store = open_store(tmp_path("s.db"), RT_STORE_CREATE);
    struct png_bytes broken = make_png(8, 8, 1), diff = make_png(8, 8, 2);
    for (int night = 0; night < 3; night++) {
        char at[32];
        snprintf(at, sizeof at, "2026-11-0%dT02:00:00Z", night + 1);
        int64_t run = begin_run(store, "dev", at);
        struct rt_result r[2] = {failure(1, broken, diff), failure(2, broken, diff)};
        r[1].status = RT_RESULT_PASS; /* a pass that was sent images anyway */
        ASSERT_OK(rt_store_record_trace_results(store, run, "t", r, 2));
    }
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images"), 2, "one actual, one diff");
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results WHERE actual_image IS NOT NULL"),
                 3);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results WHERE status = 'pass' AND"
                                    " (actual_image IS NOT NULL OR diff_image IS NOT NULL)"),
                 0);
    /* Every failure still answers its own bytes. */
    int64_t last = raw_int(store->db, "SELECT max(id) FROM results WHERE status = 'fail'");
    uint8_t *png = NULL;
    size_t size = 0;
    ASSERT_OK(rt_store_result_image(store, last, RT_RESULT_IMAGE_DIFF, &png, &size));
    cr_assert(size == diff.size && !memcmp(png, diff.data, size));
    free(png);
    char etag[RT_STORE_HASH_HEX + 1], want[RT_STORE_HASH_HEX + 1];
    ASSERT_OK(rt_store_dash_image(store, RT_DASH_IMAGE_ACTUAL, last, &png, &size, etag));
    rt_store_hash_hex(broken.data, broken.size, want);
    cr_assert(size == broken.size && !memcmp(png, broken.data, size));
    cr_assert_str_eq(etag, want, "the image's ETag is its content hash");
    free(png);
    rt_store_close(store);
    free(broken.data);
    free(diff.data);
}

Test(scale, run_counts_follow_inserts_and_deletes)
{
    struct rt_store *store = open_store(tmp_path("c.db"), RT_STORE_CREATE);
    int64_t run = begin_run(store, "dev", NULL);
    struct png_bytes none = {0};
    struct rt_result r[3] = {failure(1, none, none), failure(2, none, none), failure(3, none, none)};
    r[2].status = RT_RESULT_PASS;
    ASSERT_OK(rt_store_record_trace_results(store, run, "t", r, 3));
    struct rt_run_rows rows;
    ASSERT_OK(rt_store_runs_list(store, NULL, 0, &rows));
    cr_assert_eq(rows.count, 1);
    cr_assert_eq(rows.items[0].results, 3);
    cr_assert_eq(rows.items[0].failures, 2);
    rt_run_rows_finish(&rows);
    cr_assert_eq(sqlite3_exec(store->db, "DELETE FROM results WHERE frame = 1", NULL, NULL, NULL),
                 SQLITE_OK);
    cr_assert_eq(raw_int(store->db, "SELECT n FROM run_counts WHERE status = 'fail'"), 1);
    cr_assert_eq(sqlite3_exec(store->db, "DELETE FROM runs", NULL, NULL, NULL), SQLITE_OK);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM run_counts"), 0);
    rt_store_close(store);
}

/* A store as schema 6 left it: two runs of one device, the same broken image
 * on both nights, and a pass that kept an image. */
static void make_v6_db(const char *path, struct png_bytes png)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    ASSERT_OK(rt_store_schema_migrate(db, 6));
    cr_assert_eq(sqlite3_exec(db,
                              "INSERT INTO traces (id, name) VALUES (1, 'old');"
                              "INSERT INTO runs (id, device_key, started_at, label) VALUES"
                              " (1, 'dev', '2026-10-02T01:00:00Z', 'nightly'),"
                              " (2, 'dev', '2026-10-01T01:00:00Z', 'nightly')",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "INSERT INTO results (run_id, trace_id, frame, status,"
                                    " actual_png) VALUES (?1, 1, ?2, ?3, ?4)",
                                    -1, &stmt, NULL),
                 SQLITE_OK);
    const struct {
        int run, frame;
        const char *status;
    } rows[] = {{1, 1, "fail"}, {2, 1, "fail"}, {1, 2, "pass"}};
    for (size_t i = 0; i < 3; i++) {
        sqlite3_bind_int(stmt, 1, rows[i].run);
        sqlite3_bind_int(stmt, 2, rows[i].frame);
        sqlite3_bind_text(stmt, 3, rows[i].status, -1, SQLITE_STATIC);
        sqlite3_bind_blob(stmt, 4, png.data, (int)png.size, SQLITE_STATIC);
        cr_assert_eq(sqlite3_step(stmt), SQLITE_DONE);
        sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

Test(scale, version_6_store_is_migrated_to_7_with_its_images_once)
{
    struct png_bytes png = make_png(8, 8, 3);
    make_v6_db(tmp_path("v6.db"), png);
    struct rt_store *store = open_store(tmp_path("v6.db"), RT_STORE_READ_WRITE);
    cr_assert_eq(raw_int(store->db, "PRAGMA user_version"), rt_store_schema_version());
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images"), 1);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results WHERE actual_png IS NOT NULL"),
                 0, "the old columns are emptied");
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results WHERE actual_image IS NOT NULL"),
                 2, "the pass's image is dropped");
    cr_assert_eq(raw_int(store->db, "SELECT count(DISTINCT series_id) FROM results"), 2);
    cr_assert_eq(raw_int(store->db, "SELECT run_start FROM results WHERE run_id = 2 LIMIT 1"),
                 1790816400);
    cr_assert_eq(raw_int(store->db, "SELECT n FROM run_counts WHERE run_id = 1 AND status = 'fail'"),
                 1);
    uint8_t *bytes = NULL;
    size_t size = 0;
    ASSERT_OK(rt_store_result_image(store, 2, RT_RESULT_IMAGE_ACTUAL, &bytes, &size));
    cr_assert(size == png.size && !memcmp(bytes, png.data, size));
    free(bytes);
    /* Triage reads the series: run 1 started after run 2, so its failure is
     * "still failing since run 2", whatever order they arrived in. */
    char *text = NULL;
    ASSERT_OK(rt_store_dash_run(store, 1, 200, 0, &text));
    cr_assert_not_null(strstr(text, "\"state\":\"still-failing\",\"since_run\":2"), "%s", text);
    free(text);
    rt_store_close(store);
    free(png.data);
}

Test(scale, a_run_page_holds_limit_results_failures_first_and_says_how_many)
{
    struct rt_store *store = open_store(tmp_path("p.db"), RT_STORE_CREATE);
    int64_t run = begin_run(store, "dev", NULL);
    struct png_bytes none = {0};
    struct rt_result r[3] = {failure(1, none, none), failure(2, none, none), failure(3, none, none)};
    r[0].status = r[2].status = RT_RESULT_PASS;
    ASSERT_OK(rt_store_record_trace_results(store, run, "t", r, 3));
    char *text = NULL;
    ASSERT_OK(rt_store_dash_run(store, run, 1, 0, &text));
    cJSON *json = cJSON_Parse(text);
    free(text);
    cJSON *results = cJSON_GetObjectItemCaseSensitive(json, "results");
    cr_assert_eq(cJSON_GetArraySize(results), 1);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 0), "status")
                         ->valuestring, "fail");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(json, "results_total")->valuedouble, 3);
    cJSON_Delete(json);
    ASSERT_OK(rt_store_dash_run(store, run, 5, 1, &text));
    json = cJSON_Parse(text);
    free(text);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "results")), 2);
    cJSON_Delete(json);
    rt_store_close(store);
}

/* The big pages are JSON text from SQLite's JSON functions, which write an
 * infinity as "Inf" (no JSON): an identical frame's PSNR is infinite. Each
 * page must still parse, with that PSNR null, and keep every number. */
Test(scale, the_big_pages_are_json_even_with_an_infinite_psnr)
{
    struct rt_store *store = open_store(tmp_path("inf.db"), RT_STORE_CREATE);
    int64_t run = begin_run(store, "dev", "2026-11-01T02:00:00Z");
    struct png_bytes none = {0};
    struct rt_result r[2] = {failure(1, none, none), failure(2, none, none)};
    r[0].status = RT_RESULT_PASS;
    r[0].psnr = INFINITY;
    r[0].ssim = 1;
    r[1].psnr = -INFINITY;
    r[1].ssim = 0.98410647585134781;
    ASSERT_OK(rt_store_record_trace_results(store, run, "t", r, 2));
    char *texts[3] = {NULL, NULL, NULL};
    struct rt_dash_runs_query q = {.limit = 50};
    ASSERT_OK(rt_store_dash_run(store, run, 200, 0, &texts[0]));
    ASSERT_OK(rt_store_dash_runs(store, &q, &texts[1]));
    ASSERT_OK(rt_store_dash_history(store, "t", NULL, 1000, &texts[2]));
    for (int i = 0; i < 3; i++) {
        cr_assert_not_null(texts[i]);
        cJSON *json = cJSON_Parse(texts[i]);
        cr_assert_not_null(json, "not JSON: %s", texts[i]);
        cJSON_Delete(json);
    }
    cJSON *page = cJSON_Parse(texts[0]);
    cJSON *results = cJSON_GetObjectItemCaseSensitive(page, "results");
    cr_assert_eq(cJSON_GetArraySize(results), 2);
    cJSON *fail = cJSON_GetArrayItem(results, 0), *pass = cJSON_GetArrayItem(results, 1);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(pass, "psnr")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(fail, "psnr")));
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(pass, "ssim")->valuedouble, 1.0);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(pass, "has_actual")));
    cJSON_Delete(page);
    for (int i = 0; i < 3; i++)
        free(texts[i]);
    rt_store_close(store);
}

/* An ISO time DAYS_AGO days before now. */
static const char *days_ago(int days, char out[32])
{
    time_t t = time(NULL) - (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return out;
}

Test(scale, gc_removes_old_runs_and_only_their_images_never_goldens)
{
    struct rt_store *store = open_store(tmp_path("gc.db"), RT_STORE_CREATE);
    struct png_bytes shared = make_png(8, 8, 10), only_old = make_png(8, 8, 11), diff = make_png(8, 8, 12);
    char at[32];
    int64_t old1 = begin_run(store, "dev", days_ago(40, at));
    int64_t old2 = begin_run(store, "dev", days_ago(35, at));
    int64_t kept = begin_run(store, "dev", days_ago(2, at));
    struct rt_result r = failure(1, shared, diff);
    ASSERT_OK(rt_store_record_trace_results(store, old1, "t", &r, 1));
    r = failure(1, only_old, diff);
    ASSERT_OK(rt_store_record_trace_results(store, old2, "t", &r, 1));
    struct png_bytes none = {0};
    struct rt_result pair[2] = {failure(1, shared, none), failure(2, none, none)};
    ASSERT_OK(rt_store_record_trace_results(store, kept, "t", pair, 2));
    /* a golden approved from the old run's result */
    int64_t old_result = raw_int(store->db, "SELECT min(id) FROM results");
    int64_t golden = 0;
    ASSERT_OK(rt_store_golden_approve_result(store, old_result, NULL, "reviewer", &golden));
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images"), 3);

    struct rt_store_gc_counts c;
    ASSERT_OK(rt_store_gc(store, 30, 1, &c));
    cr_assert(c.runs == 1 && c.more, "a batch of one run, more left");
    ASSERT_OK(rt_store_gc(store, 30, 0, &c));
    cr_assert_eq(c.runs, 1);
    cr_assert_eq(c.results, 1);
    cr_assert_eq(c.images, 2, "only_old and diff go once no result names them; shared stays");
    cr_assert_eq(c.image_bytes, only_old.size + diff.size);
    cr_assert(!c.more);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM runs"), 1);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results"), 2);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images"), 1);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM run_counts WHERE run_id <> 3"), 0);
    /* the golden stays, with its bytes, forgetting the removed result */
    struct rt_golden g;
    ASSERT_OK(rt_store_golden_get(store, golden, true, &g));
    cr_assert(g.png_size == shared.size && !memcmp(g.png, shared.data, g.png_size));
    cr_assert_eq(g.from_result, 0);
    rt_golden_finish(&g);
    /* the kept run still answers its image */
    uint8_t *png = NULL;
    size_t size = 0;
    int64_t kept_result = raw_int(store->db, "SELECT id FROM results WHERE frame = 1");
    ASSERT_OK(rt_store_result_image(store, kept_result, RT_RESULT_IMAGE_ACTUAL, &png, &size));
    cr_assert(size == shared.size);
    free(png);
    ASSERT_OK(rt_store_gc(store, 30, 0, &c));
    cr_assert_eq(c.runs, 0, "nothing older is left");
    rt_store_close(store);
    free(shared.data), free(only_old.data), free(diff.data);
}

/* Opening checks the small tables only (a whole quick_check of a farm's store
 * took minutes at every open); a damaged results page is found by the read
 * that meets it, and is still "corrupt" (BAD_INPUT), never a crash. */
Test(scale, a_damaged_results_page_is_found_by_the_read_not_at_open)
{
    const char *path = tmp_path("d.db");
    struct rt_store *store = open_store(path, RT_STORE_CREATE);
    int64_t run = begin_run(store, "dev", NULL);
    struct png_bytes none = {0};
    struct rt_result r = failure(1, none, none);
    ASSERT_OK(rt_store_record_trace_results(store, run, "t", &r, 1));
    int64_t page = raw_int(store->db, "SELECT rootpage FROM sqlite_master WHERE name = 'results'");
    int64_t size = raw_int(store->db, "PRAGMA page_size");
    rt_store_close(store);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    char junk[65536];
    memset(junk, 0xA5, sizeof junk);
    fseek(f, (long)((page - 1) * size), SEEK_SET);
    fwrite(junk, 1, (size_t)size, f);
    fclose(f);
    store = open_store(path, RT_STORE_READ_WRITE);
    struct rt_result_rows rows;
    rt_status s = rt_store_results_list(store, run, &rows);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "%s", s.msg ? s.msg : "");
    cr_assert(strstr(s.msg, "corrupt"), "%s", s.msg);
    rt_status_free(&s);
    rt_store_close(store);
}
