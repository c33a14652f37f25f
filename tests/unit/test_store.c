/* Unit tests for store/store: schema and migrations, goldens, expectations,
 * results, export/import, and the errors a broken, newer, read-only or locked
 * database must give — plus concurrent writers in separate processes. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "png_io.h"
#include "store_fixture.h"

TestSuite(schema, .init = make_tmp, .fini = remove_tmp);
TestSuite(errors, .init = make_tmp, .fini = remove_tmp);
TestSuite(golden, .init = make_tmp, .fini = remove_tmp);
TestSuite(expect, .init = make_tmp, .fini = remove_tmp);
TestSuite(results, .init = make_tmp, .fini = remove_tmp);
TestSuite(io, .init = make_tmp, .fini = remove_tmp);
TestSuite(concurrency, .init = make_tmp, .fini = remove_tmp);
TestSuite(cli, .init = make_tmp, .fini = remove_tmp);

/* ---- helpers (the shared ones are store_fixture.h's) ------------------ */

static int64_t put(struct rt_store *store, const char *trace, uint32_t frame,
                   const char *device, struct png_bytes png, bool *created)
{
    struct rt_golden_new g = {.trace = trace, .frame = frame, .device_key = device,
                              .png = png.data, .png_size = png.size,
                              .approved_by = "tester", .status = RT_GOLDEN_ACCEPTED};
    int64_t id = 0;
    ASSERT_OK(rt_store_golden_put(store, &g, &id, created));
    cr_assert_gt(id, 0);
    return id;
}

static size_t golden_count(struct rt_store *store)
{
    struct rt_golden_list list;
    ASSERT_OK(rt_store_golden_list(store, NULL, &list));
    size_t n = list.count;
    rt_golden_list_finish(&list);
    return n;
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, size, f), size);
    cr_assert_eq(fclose(f), 0);
}

/* ---- schema ------------------------------------------------------------- */

Test(schema, create_makes_every_table_in_wal_mode_with_foreign_keys)
{
    struct rt_store *store = open_store(tmp_path("new.db"), RT_STORE_CREATE);
    cr_assert_eq(raw_int(store->db, "PRAGMA user_version"), rt_store_schema_version());
    cr_assert_eq(raw_int(store->db, "PRAGMA foreign_keys"), 1);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                                    " AND name IN ('traces','goldens','expectations','runs',"
                                    "'results')"),
                 5);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq(sqlite3_prepare_v2(store->db, "PRAGMA journal_mode", -1, &stmt, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(stmt), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(stmt, 0), "wal");
    sqlite3_finalize(stmt);
    rt_store_close(store);
    /* Reopening a current store changes nothing. */
    store = open_store(tmp_path("new.db"), RT_STORE_READ_ONLY);
    cr_assert_eq(raw_int(store->db, "PRAGMA user_version"), rt_store_schema_version());
    rt_store_close(store);
}

/* Builds a version-1 database holding one golden, the way an older retrace left it. */
static void make_v1_db(const char *path, struct png_bytes png)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    ASSERT_OK(rt_store_schema_migrate(db, 1));
    cr_assert_eq(raw_int(db, "PRAGMA user_version"), 1);
    cr_assert_eq(sqlite3_exec(db, "INSERT INTO traces (id, name) VALUES (1, 'old')", NULL,
                              NULL, NULL),
                 SQLITE_OK);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "INSERT INTO goldens (trace_id, frame, status, png, hash,"
                                    " size, width, height) VALUES (1, 3, 'accepted', ?1, ?2,"
                                    " ?3, 4, 4)",
                                    -1, &stmt, NULL),
                 SQLITE_OK);
    char hash[RT_STORE_HASH_HEX + 1];
    rt_store_hash_hex(png.data, png.size, hash);
    sqlite3_bind_blob(stmt, 1, png.data, (int)png.size, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)png.size);
    cr_assert_eq(sqlite3_step(stmt), SQLITE_DONE);
    sqlite3_finalize(stmt);
    /* Version 1 has no runs.shard column; version 2 adds it. */
    cr_assert_neq(sqlite3_exec(db, "SELECT shard FROM runs", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

Test(schema, old_version_is_migrated_forward_keeping_its_data)
{
    struct png_bytes png = make_png(4, 4, 1);
    make_v1_db(tmp_path("v1.db"), png);
    /* Read-only cannot migrate, and says so rather than failing later. */
    struct rt_store *store = NULL;
    ASSERT_CODE(rt_store_open(tmp_path("v1.db"), RT_STORE_READ_ONLY, &store), RT_ERR_BAD_INPUT,
                "older than this retrace");
    cr_assert_null(store);

    store = open_store(tmp_path("v1.db"), RT_STORE_READ_WRITE);
    cr_assert_eq(raw_int(store->db, "PRAGMA user_version"), rt_store_schema_version());
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                                    " AND name = 'results_by_run'"),
                 1);
    struct rt_golden_list list;
    ASSERT_OK(rt_store_goldens_for(store, "old", 3, NULL, &list));
    cr_assert_eq(list.count, 1);
    cr_assert_eq(list.items[0].png_size, png.size);
    cr_assert_eq(memcmp(list.items[0].png, png.data, png.size), 0);
    rt_golden_list_finish(&list);
    struct rt_run_info info = {.label = "nightly", .shard = "2/8"};
    int64_t run = 0;
    ASSERT_OK(rt_store_run_begin(store, &info, &run));
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM runs WHERE shard = '2/8'"), 1);
    rt_store_close(store);
    free(png.data);
}

/* ---- errors ------------------------------------------------------------- */

Test(errors, newer_schema_is_bad_input_in_every_mode)
{
    struct rt_store *store = open_store(tmp_path("db"), RT_STORE_CREATE);
    int newer = rt_store_schema_version() + 1;
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", newer);
    cr_assert_eq(sqlite3_exec(store->db, pragma, NULL, NULL, NULL), SQLITE_OK);
    rt_store_close(store);
    char want[96];
    snprintf(want, sizeof want, "database schema version %d is newer than this retrace (%d)",
             newer, rt_store_schema_version());
    enum rt_store_mode modes[] = {RT_STORE_READ_ONLY, RT_STORE_READ_WRITE, RT_STORE_CREATE};
    for (int i = 0; i < 3; i++) {
        store = NULL;
        ASSERT_CODE(rt_store_open(tmp_path("db"), modes[i], &store), RT_ERR_BAD_INPUT, want);
        cr_assert_null(store);
    }
}

Test(errors, garbage_file_is_bad_input)
{
    char junk[8192];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)(i * 131 + 7);
    write_bytes(tmp_path("junk.db"), junk, sizeof junk);
    enum rt_store_mode modes[] = {RT_STORE_READ_ONLY, RT_STORE_READ_WRITE, RT_STORE_CREATE};
    for (int i = 0; i < 3; i++) {
        struct rt_store *store = NULL;
        ASSERT_CODE(rt_store_open(tmp_path("junk.db"), modes[i], &store), RT_ERR_BAD_INPUT,
                    "corrupt or not a database");
        cr_assert_null(store);
    }
}

Test(errors, damaged_pages_are_found_on_open)
{
    const char *path = tmp_path("damaged.db");
    struct rt_store *store = open_store(path, RT_STORE_CREATE);
    for (unsigned i = 0; i < 40; i++) {
        struct png_bytes png = make_png(64, 64, i);
        put(store, "t", i + 1, NULL, png, NULL);
        free(png.data);
    }
    rt_store_close(store); /* the last close checkpoints the WAL into the file */
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_gt(st.st_size, 32 * 4096);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    char junk[4096];
    memset(junk, 0xA5, sizeof junk);
    for (long page = 1; page < 8; page++) { /* keep page 0: the header and schema */
        fseek(f, page * 4096, SEEK_SET);
        fwrite(junk, 1, sizeof junk, f);
    }
    fclose(f);
    store = NULL;
    rt_status s = rt_store_open(path, RT_STORE_READ_WRITE, &store);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "code %d: %s", s.code, s.msg);
    cr_assert(strstr(s.msg, "corrupt"), "%s", s.msg);
    cr_assert_null(store);
    rt_status_free(&s);
}

Test(errors, missing_file_and_foreign_database)
{
    struct rt_store *store = NULL;
    ASSERT_CODE(rt_store_open(tmp_path("none.db"), RT_STORE_READ_WRITE, &store),
                RT_ERR_BAD_INPUT, "does not exist");
    ASSERT_CODE(rt_store_open(tmp_path("none.db"), RT_STORE_READ_ONLY, &store),
                RT_ERR_BAD_INPUT, "does not exist");
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(tmp_path("other.db"), &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE notes (x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    ASSERT_CODE(rt_store_open(tmp_path("other.db"), RT_STORE_CREATE, &store), RT_ERR_BAD_INPUT,
                "not a retrace store");
    ASSERT_CODE(rt_store_open("", RT_STORE_CREATE, &store), RT_ERR_USAGE, "no database");
}

Test(errors, read_only_store_refuses_writes)
{
    struct rt_store *store = open_store(tmp_path("ro.db"), RT_STORE_CREATE);
    rt_store_close(store);
    store = open_store(tmp_path("ro.db"), RT_STORE_READ_ONLY);
    struct png_bytes png = make_png(4, 4, 2);
    struct rt_golden_new g = {.trace = "t", .frame = 1, .png = png.data, .png_size = png.size};
    int64_t id = 0;
    ASSERT_CODE(rt_store_golden_put(store, &g, &id, NULL), RT_ERR_BAD_INPUT, "read-only");
    ASSERT_CODE(rt_store_expectation_set(store, "t", NULL, RT_EXPECT_SKIP, NULL),
                RT_ERR_BAD_INPUT, "read-only");
    cr_assert_eq(golden_count(store), 0);
    rt_store_close(store);
    free(png.data);
}

Test(errors, read_only_file_in_write_mode)
{
    /* Root ignores file modes, so this can only be observed as another user. */
    if (geteuid() == 0)
        cr_skip_test("running as root: file permissions do not apply");
    struct rt_store *store = open_store(tmp_path("perm.db"), RT_STORE_CREATE);
    rt_store_close(store);
    cr_assert_eq(chmod(tmp_path("perm.db"), 0444), 0);
    ASSERT_CODE(rt_store_open(tmp_path("perm.db"), RT_STORE_READ_WRITE, &store),
                RT_ERR_BAD_INPUT, "read-only");
}

Test(errors, locked_database_is_bad_input_after_the_busy_timeout)
{
    const char *path = tmp_path("locked.db");
    struct rt_store *store = open_store(path, RT_STORE_CREATE);
    rt_store_set_busy_timeout(store, 50);
    /* Another connection holds the write lock, as another process would. */
    sqlite3 *other = NULL;
    cr_assert_eq(sqlite3_open(path, &other), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO traces (name) VALUES ('x')",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    struct png_bytes png = make_png(4, 4, 3);
    struct rt_golden_new g = {.trace = "t", .frame = 1, .png = png.data, .png_size = png.size};
    int64_t id = 0;
    ASSERT_CODE(rt_store_golden_put(store, &g, &id, NULL), RT_ERR_BAD_INPUT,
                "database is locked by another process");
    struct rt_result r = {.frame = 1, .status = RT_RESULT_PASS, .ssim = 1.0};
    ASSERT_CODE(rt_store_record_trace_results(store, 1, "t", &r, 1), RT_ERR_BAD_INPUT,
                "locked");
    /* Once the other writer is done, the same calls succeed. */
    cr_assert_eq(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(other);
    put(store, "t", 1, NULL, png, NULL);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM traces"), 2);
    rt_store_close(store);
    free(png.data);
}

/* ---- goldens ------------------------------------------------------------ */

Test(golden, put_get_list_remove_round_trip)
{
    struct rt_store *store = open_store(tmp_path("g.db"), RT_STORE_CREATE);
    struct png_bytes a = make_png(8, 6, 1), b = make_png(5, 5, 2), c = make_png(3, 9, 3);
    bool created = false;
    int64_t ia = put(store, "scene", 1, NULL, a, &created);
    cr_assert(created);
    int64_t ib = put(store, "scene", 2, "10de/535", b, &created);
    cr_assert(created);
    int64_t ic = put(store, "other", 1, "", c, &created);
    cr_assert(created);
    cr_assert(ia != ib && ib != ic && ia != ic);
    /* Same bytes, same key: the same row, not a duplicate. */
    cr_assert_eq(put(store, "scene", 1, NULL, a, &created), ia);
    cr_assert_not(created);
    /* Same bytes under another key is another golden. */
    cr_assert_neq(put(store, "scene", 3, NULL, a, &created), ia);
    cr_assert(created);

    struct rt_golden g;
    ASSERT_OK(rt_store_golden_get(store, ib, true, &g));
    cr_assert_str_eq(g.trace, "scene");
    cr_assert_eq(g.frame, 2);
    cr_assert_str_eq(g.device_key, "10de/535");
    cr_assert_eq(g.status, RT_GOLDEN_ACCEPTED);
    cr_assert_eq(g.width, 5);
    cr_assert_eq(g.height, 5);
    cr_assert_eq(g.size, b.size);
    cr_assert_eq(g.png_size, b.size);
    cr_assert_eq(memcmp(g.png, b.data, b.size), 0);
    char hash[RT_STORE_HASH_HEX + 1];
    rt_store_hash_hex(b.data, b.size, hash);
    cr_assert_str_eq(g.hash, hash);
    cr_assert_str_eq(g.approved_by, "tester");
    rt_golden_finish(&g);

    struct rt_golden_list list;
    struct rt_golden_filter by_trace = {.trace = "scene"};
    ASSERT_OK(rt_store_golden_list(store, &by_trace, &list));
    cr_assert_eq(list.count, 3);
    cr_assert_eq(list.items[0].frame, 1); /* ordered by trace, frame */
    cr_assert_null(list.items[0].png);    /* lists carry no image bytes */
    rt_golden_list_finish(&list);
    struct rt_golden_filter generic = {.device_key = ""};
    ASSERT_OK(rt_store_golden_list(store, &generic, &list));
    cr_assert_eq(list.count, 3);
    rt_golden_list_finish(&list);
    struct rt_golden_filter frame2 = {.trace = "scene", .frame = 2};
    ASSERT_OK(rt_store_golden_list(store, &frame2, &list));
    cr_assert_eq(list.count, 1);
    cr_assert_eq(list.items[0].id, ib);
    rt_golden_list_finish(&list);

    /* Removing reverts: the row stays for its history, is never matched or
     * listed again, and its id is never given to another golden. */
    ASSERT_OK(rt_store_golden_remove(store, ib));
    ASSERT_OK(rt_store_golden_get(store, ib, false, &g));
    cr_assert(g.reverted);
    rt_golden_finish(&g);
    ASSERT_OK(rt_store_golden_remove(store, ib)); /* already reverted: nothing changes */
    ASSERT_CODE(rt_store_golden_remove(store, 999), RT_ERR_BAD_INPUT, "no golden");
    ASSERT_CODE(rt_store_golden_mark(store, 999, RT_GOLDEN_KNOWN_BAD), RT_ERR_BAD_INPUT,
                "no golden");
    cr_assert_eq(golden_count(store), 3);
    rt_store_close(store);
    free(a.data);
    free(b.data);
    free(c.data);
}

Test(golden, rejects_what_is_not_a_png_and_bad_keys)
{
    struct rt_store *store = open_store(tmp_path("g.db"), RT_STORE_CREATE);
    static const char not_png[] = "\x89PNG\r\n\x1a\n but then nothing sensible";
    struct rt_golden_new g = {.trace = "t", .frame = 1, .png = not_png,
                              .png_size = sizeof not_png};
    int64_t id = 0;
    ASSERT_CODE(rt_store_golden_put(store, &g, &id, NULL), RT_ERR_BAD_INPUT, "golden for t");
    g.png_size = 0;
    ASSERT_CODE(rt_store_golden_put(store, &g, &id, NULL), RT_ERR_BAD_INPUT, "empty");
    struct png_bytes png = make_png(2, 2, 1);
    g.png = png.data;
    g.png_size = png.size;
    g.frame = 0;
    ASSERT_CODE(rt_store_golden_put(store, &g, &id, NULL), RT_ERR_USAGE, "from 1");
    g.frame = 1;
    g.trace = "";
    ASSERT_CODE(rt_store_golden_put(store, &g, &id, NULL), RT_ERR_USAGE, "trace");
    cr_assert_eq(golden_count(store), 0);
    rt_store_close(store);
    free(png.data);
}

Test(golden, goldens_for_prefers_the_device_and_skips_known_bad)
{
    struct rt_store *store = open_store(tmp_path("g.db"), RT_STORE_CREATE);
    struct png_bytes p[4];
    for (unsigned i = 0; i < 4; i++)
        p[i] = make_png(6, 6, 10 + i);
    int64_t g1 = put(store, "t", 1, NULL, p[0], NULL);
    int64_t g2 = put(store, "t", 1, NULL, p[1], NULL);
    int64_t bad = put(store, "t", 1, NULL, p[2], NULL);
    ASSERT_OK(rt_store_golden_mark(store, bad, RT_GOLDEN_KNOWN_BAD));
    int64_t dev = put(store, "t", 1, "vendorA", p[3], NULL);

    struct rt_golden_list list;
    ASSERT_OK(rt_store_goldens_for(store, "t", 1, "vendorA", &list));
    cr_assert_eq(list.count, 1);
    cr_assert_eq(list.items[0].id, dev);
    cr_assert_eq(memcmp(list.items[0].png, p[3].data, p[3].size), 0);
    rt_golden_list_finish(&list);
    const char *generic_keys[] = {"vendorB", "", NULL};
    for (int k = 0; k < 3; k++) {
        ASSERT_OK(rt_store_goldens_for(store, "t", 1, generic_keys[k], &list));
        cr_assert_eq(list.count, 2, "key %d", k);
        cr_assert_eq(list.items[0].id, g1);
        cr_assert_eq(list.items[1].id, g2);
        cr_assert_not_null(list.items[1].png);
        rt_golden_list_finish(&list);
    }
    /* A device golden marked bad no longer hides the generic ones. */
    ASSERT_OK(rt_store_golden_mark(store, dev, RT_GOLDEN_KNOWN_BAD));
    ASSERT_OK(rt_store_goldens_for(store, "t", 1, "vendorA", &list));
    cr_assert_eq(list.count, 2);
    rt_golden_list_finish(&list);
    ASSERT_OK(rt_store_goldens_for(store, "t", 2, "vendorA", &list));
    cr_assert_eq(list.count, 0);
    ASSERT_OK(rt_store_goldens_for(store, "unknown", 1, NULL, &list));
    cr_assert_eq(list.count, 0);
    rt_store_close(store);
    for (unsigned i = 0; i < 4; i++)
        free(p[i].data);
}

/* ---- expectations ------------------------------------------------------- */

static void check_expect(struct rt_store *store, const char *device, enum rt_expect_kind kind,
                         const char *key, const char *note)
{
    struct rt_expectation e;
    ASSERT_OK(rt_store_expectation_get(store, "t", device, &e));
    cr_assert_eq(e.kind, kind, "device %s: %s", device, rt_expect_kind_name(e.kind));
    cr_assert_str_eq(e.device_key, key);
    cr_assert_str_eq(e.note, note);
    rt_expectation_finish(&e);
}

Test(expect, set_get_fall_back_and_remove)
{
    struct rt_store *store = open_store(tmp_path("e.db"), RT_STORE_CREATE);
    check_expect(store, "A", RT_EXPECT_NONE, "", "");
    ASSERT_OK(rt_store_expectation_set(store, "t", NULL, RT_EXPECT_FLAKY, "timing"));
    ASSERT_OK(rt_store_expectation_set(store, "t", "A", RT_EXPECT_CRASH, "driver bug 123"));
    check_expect(store, "A", RT_EXPECT_CRASH, "A", "driver bug 123");
    check_expect(store, "B", RT_EXPECT_FLAKY, "", "timing");
    check_expect(store, NULL, RT_EXPECT_FLAKY, "", "timing");
    ASSERT_OK(rt_store_expectation_set(store, "t", "A", RT_EXPECT_HANG, "now it hangs"));
    check_expect(store, "A", RT_EXPECT_HANG, "A", "now it hangs");
    ASSERT_OK(rt_store_expectation_set(store, "t", "", RT_EXPECT_NONE, NULL));
    check_expect(store, "B", RT_EXPECT_NONE, "", "");
    check_expect(store, "A", RT_EXPECT_HANG, "A", "now it hangs");
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM expectations"), 1);
    enum rt_expect_kind kind;
    cr_assert(rt_expect_kind_parse("skip", &kind) && kind == RT_EXPECT_SKIP);
    cr_assert_not(rt_expect_kind_parse("sometimes", &kind));
    rt_store_close(store);
}

/* ---- results ------------------------------------------------------------ */

Test(results, a_trace_is_committed_whole_or_not_at_all)
{
    struct rt_store *store = open_store(tmp_path("r.db"), RT_STORE_CREATE);
    struct rt_run_info info = {.host = "farm-3", .device = "llvmpipe", .label = "nightly"};
    int64_t run = 0;
    ASSERT_OK(rt_store_run_begin(store, &info, &run));
    struct rt_result r[3] = {
        {.frame = 1, .status = RT_RESULT_PASS, .ssim = 0.999, .ssim_worst_tile = 0.98,
         .psnr = 48.0, .threshold = 0.99, .diff_pixels = 12, .max_diff = 3, .replay_ms = 5,
         .attempts = 1},
        {.frame = 2, .status = RT_RESULT_NEW, .ssim = NAN, .ssim_worst_tile = NAN, .psnr = NAN,
         .threshold = NAN, .diff_pixels = -1, .max_diff = -1, .replay_ms = NAN},
        {.frame = 3, .status = (enum rt_result_status)42},
    };
    ASSERT_CODE(rt_store_record_trace_results(store, run, "t", r, 3), RT_ERR_USAGE,
                "t frame 3");
    int64_t count = -1;
    ASSERT_OK(rt_store_result_count(store, run, NULL, &count));
    cr_assert_eq(count, 0, "a failed trace left %lld rows", (long long)count);
    r[2].status = RT_RESULT_CRASH;
    r[2].message = "SIGSEGV in vkQueueSubmit";
    ASSERT_OK(rt_store_record_trace_results(store, run, "t", r, 3));
    ASSERT_OK(rt_store_result_count(store, run, "t", &count));
    cr_assert_eq(count, 3);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results WHERE frame = 2 AND ssim IS"
                                    " NULL AND psnr IS NULL AND diff_pixels IS NULL"
                                    " AND status = 'new'"),
                 1);
    cr_assert_eq(raw_int(store->db, "SELECT diff_pixels FROM results WHERE frame = 1"), 12);
    ASSERT_OK(rt_store_run_finish(store, run, "failed"));
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM runs WHERE outcome = 'failed' AND"
                                    " finished_at IS NOT NULL AND host = 'farm-3'"),
                 1);
    ASSERT_CODE(rt_store_run_finish(store, run + 100, "passed"), RT_ERR_BAD_INPUT, "no run");
    /* Results must belong to a run that exists (foreign keys are on). */
    ASSERT_CODE(rt_store_record_trace_results(store, run + 100, "t", r, 1), RT_ERR_BAD_INPUT,
                "FOREIGN KEY");
    rt_store_close(store);
}

Test(results, approving_a_result_makes_it_a_golden)
{
    struct rt_store *store = open_store(tmp_path("r.db"), RT_STORE_CREATE);
    int64_t run = 0;
    ASSERT_OK(rt_store_run_begin(store, NULL, &run));
    struct png_bytes actual = make_png(7, 7, 5);
    struct rt_result r[2] = {
        {.frame = 4, .status = RT_RESULT_FAIL, .actual_png = actual.data,
         .actual_png_size = actual.size, .ssim = 0.5},
        {.frame = 5, .status = RT_RESULT_TIMEOUT, .ssim = NAN},
    };
    ASSERT_OK(rt_store_record_trace_results(store, run, "t", r, 2));
    int64_t with_image = raw_int(store->db, "SELECT id FROM results WHERE frame = 4");
    int64_t without = raw_int(store->db, "SELECT id FROM results WHERE frame = 5");
    int64_t golden = 0;
    ASSERT_OK(rt_store_golden_approve_result(store, with_image, NULL, "ana", &golden));
    struct rt_golden_list list;
    ASSERT_OK(rt_store_goldens_for(store, "t", 4, NULL, &list));
    cr_assert_eq(list.count, 1);
    cr_assert_eq(list.items[0].id, golden);
    cr_assert_eq(list.items[0].from_result, with_image);
    cr_assert_str_eq(list.items[0].approved_by, "ana");
    cr_assert_eq(memcmp(list.items[0].png, actual.data, actual.size), 0);
    rt_golden_list_finish(&list);
    ASSERT_CODE(rt_store_golden_approve_result(store, without, NULL, "ana", &golden),
                RT_ERR_BAD_INPUT, "no actual image");
    ASSERT_CODE(rt_store_golden_approve_result(store, 9999, NULL, "ana", &golden),
                RT_ERR_BAD_INPUT, "no result");
    cr_assert_eq(golden_count(store), 1);
    rt_store_close(store);
    free(actual.data);
}

Test(results, read_back_failures_first_with_images_and_run_counts)
{
    struct rt_store *store = open_store(tmp_path("r.db"), RT_STORE_CREATE);
    int64_t nightly = 0, manual = 0;
    struct rt_run_info a = {.label = "nightly", .workarounds = "robust-buffer-access"};
    struct rt_run_info b = {.label = "manual"};
    ASSERT_OK(rt_store_run_begin(store, &a, &nightly));
    ASSERT_OK(rt_store_run_begin(store, &b, &manual));
    struct png_bytes actual = make_png(4, 4, 8), diff = make_png(4, 4, 9);
    struct rt_result r[3] = {
        {.frame = 1, .status = RT_RESULT_PASS, .ssim = 1.0, .psnr = INFINITY,
         .ssim_worst_tile = 1.0, .threshold = 0.99, .replay_ms = 3.5, .golden_id = 0},
        {.frame = 2, .status = RT_RESULT_FAIL, .ssim = 0.7, .ssim_worst_tile = 0.2, .psnr = 20,
         .threshold = 0.99, .diff_pixels = 400, .max_diff = 255, .replay_ms = NAN,
         .actual_png = actual.data, .actual_png_size = actual.size, .diff_png = diff.data,
         .diff_png_size = diff.size, .message = "worst tile below 0.95", .attempts = 3},
        {.frame = 0, .status = RT_RESULT_CRASH, .ssim = NAN, .ssim_worst_tile = NAN,
         .psnr = NAN, .threshold = NAN, .diff_pixels = -1, .max_diff = -1, .replay_ms = NAN},
    };
    ASSERT_OK(rt_store_record_trace_results(store, nightly, "b-trace", r, 2));
    ASSERT_OK(rt_store_record_trace_results(store, nightly, "a-trace", &r[2], 1));
    struct rt_result_rows rows;
    ASSERT_OK(rt_store_results_list(store, nightly, &rows));
    cr_assert_eq(rows.count, 3);
    cr_assert_eq(rows.items[0].status, RT_RESULT_FAIL);
    cr_assert_eq(rows.items[1].status, RT_RESULT_CRASH);
    cr_assert_str_eq(rows.items[1].trace, "a-trace");
    cr_assert(isnan(rows.items[1].ssim));
    cr_assert_eq(rows.items[1].diff_pixels, -1);
    cr_assert_eq(rows.items[2].status, RT_RESULT_PASS);
    cr_assert(isinf(rows.items[2].psnr));
    cr_assert_float_eq(rows.items[2].replay_ms, 3.5, 1e-12);
    const struct rt_result_row *fail = &rows.items[0];
    cr_assert_float_eq(fail->ssim_worst_tile, 0.2, 1e-12);
    cr_assert_eq(fail->diff_pixels, 400);
    cr_assert_eq(fail->max_diff, 255);
    cr_assert_eq(fail->attempts, 3);
    cr_assert(fail->has_actual && fail->has_diff);
    cr_assert_str_eq(fail->message, "worst tile below 0.95");
    uint8_t *png = NULL;
    size_t size = 0;
    ASSERT_OK(rt_store_result_image(store, fail->id, RT_RESULT_IMAGE_DIFF, &png, &size));
    cr_assert_eq(size, diff.size);
    cr_assert_eq(memcmp(png, diff.data, size), 0);
    free(png);
    ASSERT_CODE(rt_store_result_image(store, rows.items[2].id, RT_RESULT_IMAGE_ACTUAL, &png,
                                      &size),
                RT_ERR_BAD_INPUT, "no actual image");
    rt_result_rows_finish(&rows);

    struct rt_run_rows runs;
    ASSERT_OK(rt_store_runs_list(store, NULL, 0, &runs));
    cr_assert_eq(runs.count, 2);
    cr_assert_eq(runs.items[0].id, manual); /* newest first */
    cr_assert_eq(runs.items[1].results, 3);
    cr_assert_eq(runs.items[1].failures, 2);
    cr_assert_str_eq(runs.items[1].workarounds, "robust-buffer-access");
    cr_assert_str_eq(runs.items[1].finished_at, "");
    rt_run_rows_finish(&runs);
    ASSERT_OK(rt_store_runs_list(store, "nightly", 1, &runs));
    cr_assert_eq(runs.count, 1);
    cr_assert_eq(runs.items[0].id, nightly);
    rt_run_rows_finish(&runs);
    rt_store_close(store);
    free(actual.data);
    free(diff.data);
}

/* ---- export / import ---------------------------------------------------- */

/* A store with four goldens of every kind; returns how many. */
static size_t fill_store(struct rt_store *store)
{
    struct png_bytes p[4];
    for (unsigned i = 0; i < 4; i++)
        p[i] = make_png(5 + i, 4, 20 + i);
    put(store, "city/night run", 1, NULL, p[0], NULL);
    put(store, "city/night run", 2, "10de:2684/535", p[1], NULL);
    int64_t bad = put(store, "triangle", 1, NULL, p[2], NULL);
    ASSERT_OK(rt_store_golden_mark(store, bad, RT_GOLDEN_KNOWN_BAD));
    put(store, "triangle", 1, NULL, p[3], NULL);
    for (unsigned i = 0; i < 4; i++)
        free(p[i].data);
    return 4;
}

static void assert_same_goldens(struct rt_store *a, struct rt_store *b)
{
    struct rt_golden_list la, lb;
    ASSERT_OK(rt_store_golden_list(a, NULL, &la));
    ASSERT_OK(rt_store_golden_list(b, NULL, &lb));
    cr_assert_eq(la.count, lb.count);
    for (size_t i = 0; i < la.count; i++) {
        const struct rt_golden *x = &la.items[i], *y = &lb.items[i];
        cr_assert_str_eq(x->trace, y->trace);
        cr_assert_eq(x->frame, y->frame);
        cr_assert_str_eq(x->device_key, y->device_key);
        cr_assert_eq(x->status, y->status);
        cr_assert_str_eq(x->hash, y->hash);
        cr_assert_str_eq(x->approved_by, y->approved_by);
        cr_assert_eq(x->width, y->width);
    }
    rt_golden_list_finish(&la);
    rt_golden_list_finish(&lb);
}

Test(io, export_then_import_twice_adds_once)
{
    struct rt_store *src = open_store(tmp_path("src.db"), RT_STORE_CREATE);
    size_t n = fill_store(src);
    struct rt_store_io_counts counts;
    ASSERT_OK(rt_store_export_goldens(src, tmp_path("out"), &counts));
    cr_assert_eq(counts.written, n);
    struct stat st;
    cr_assert_eq(stat(tmp_path("out/index.json"), &st), 0);

    struct rt_store *dst = open_store(tmp_path("dst.db"), RT_STORE_CREATE);
    ASSERT_OK(rt_store_import_goldens(dst, tmp_path("out"), &counts));
    cr_assert_eq(counts.written, n);
    cr_assert_eq(counts.existing, 0);
    ASSERT_OK(rt_store_import_goldens(dst, tmp_path("out"), &counts));
    cr_assert_eq(counts.written, 0);
    cr_assert_eq(counts.existing, n);
    cr_assert_eq(golden_count(dst), n);
    assert_same_goldens(src, dst);
    /* Back into the store it came from: nothing new either. */
    ASSERT_OK(rt_store_import_goldens(src, tmp_path("out"), &counts));
    cr_assert_eq(counts.written, 0);
    cr_assert_eq(golden_count(src), n);
    rt_store_close(src);
    rt_store_close(dst);
}

static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

/* Exports a filled store to DIR and returns the index text (malloc'd). */
static char *export_fixture(const char *dir)
{
    struct rt_store *src = open_store(tmp_path("src.db"), RT_STORE_CREATE);
    fill_store(src);
    struct rt_store_io_counts counts;
    ASSERT_OK(rt_store_export_goldens(src, dir, &counts));
    rt_store_close(src);
    char path[512];
    snprintf(path, sizeof path, "%s/index.json", dir);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    char *text = calloc(1, 1 << 16);
    cr_assert_gt(fread(text, 1, (1 << 16) - 1, f), 0);
    fclose(f);
    return text;
}

static void expect_import_fails(const char *dir, const char *needle)
{
    struct rt_store *dst = open_store(tmp_path("dst.db"), RT_STORE_CREATE);
    struct rt_store_io_counts counts;
    ASSERT_CODE(rt_store_import_goldens(dst, dir, &counts), RT_ERR_BAD_INPUT, needle);
    cr_assert_eq(golden_count(dst), 0, "a failed import left goldens behind");
    cr_assert_eq(counts.written, 0);
    rt_store_close(dst);
}

Test(io, tampered_last_file_commits_nothing)
{
    const char *dir = tmp_path("out");
    free(export_fixture(dir));
    /* Files are named <id>-..., and id 4 is the index's last entry. */
    char path[512];
    snprintf(path, sizeof path, "%s/4-triangle-f1.png", dir);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 40, SEEK_SET);
    fputc(0x5a, f);
    fclose(f);
    expect_import_fails(dir, "hash mismatch");
    remove(path);
    expect_import_fails(dir, "cannot open");
}

Test(io, broken_indexes_are_bad_input)
{
    const char *dir = tmp_path("out");
    char *good = export_fixture(dir);
    char index[512];
    snprintf(index, sizeof index, "%s/index.json", dir);
    write_text(index, "{\"format\": \"retrace-goldens\", \"version\": 1, \"goldens\": [");
    expect_import_fails(dir, "not valid JSON");
    write_text(index, "{\"format\": \"something\", \"version\": 1, \"goldens\": []}");
    expect_import_fails(dir, "not a retrace golden index");
    write_text(index, "{\"format\": \"retrace-goldens\", \"version\": 9, \"goldens\": []}");
    expect_import_fails(dir, "unsupported index version");
    /* An entry naming a file outside the directory. */
    char *evil = strdup(good);
    char *file = strstr(evil, "\"1-");
    cr_assert_not_null(file);
    memcpy(file, "\"../", 4);
    write_text(index, evil);
    expect_import_fails(dir, "plain file name");
    /* A frame that is not a frame number. */
    char *frame = strstr(good, "\"frame\":\t1");
    cr_assert_not_null(frame, "%s", good);
    frame[9] = '0';
    write_text(index, good);
    expect_import_fails(dir, "\"frame\"");
    /* A file whose hash matches but that is not a PNG. */
    const char junk[] = "not a png at all";
    char hash[RT_STORE_HASH_HEX + 1], text[1024], path[512];
    rt_store_hash_hex(junk, sizeof junk, hash);
    snprintf(path, sizeof path, "%s/junk.png", dir);
    write_bytes(path, junk, sizeof junk);
    snprintf(text, sizeof text,
             "{\"format\": \"retrace-goldens\", \"version\": 1, \"goldens\": [{\"file\":"
             " \"junk.png\", \"trace\": \"t\", \"frame\": 1, \"hash\": \"%s\"}]}",
             hash);
    write_text(index, text);
    expect_import_fails(dir, "golden for t frame 1");
    free(evil);
    free(good);
    rmdir(tmp_path("nowhere"));
    expect_import_fails(tmp_path("nowhere"), "cannot open");
}

/* ---- concurrent writers ------------------------------------------------- */

#define WRITERS 4
#define TRACES 60
#define FRAMES 8

/* One writer process: its own run, every trace, one transaction per trace. */
static int writer_main(const char *path, int writer)
{
    struct rt_store *store = NULL;
    rt_status s = rt_store_open(path, RT_STORE_CREATE, &store);
    char label[32];
    snprintf(label, sizeof label, "writer-%d", writer);
    struct rt_run_info info = {.label = label};
    int64_t run = 0;
    if (rt_ok(&s))
        s = rt_store_run_begin(store, &info, &run);
    struct rt_result r[FRAMES];
    for (int t = 0; rt_ok(&s) && t < TRACES; t++) {
        char trace[32];
        snprintf(trace, sizeof trace, "trace-%02d", t);
        for (int f = 0; f < FRAMES; f++)
            r[f] = (struct rt_result){.frame = (uint32_t)f + 1, .status = RT_RESULT_PASS,
                                      .ssim = writer + t / 1000.0, .psnr = NAN,
                                      .threshold = 0.99, .diff_pixels = f, .max_diff = t,
                                      .replay_ms = 1.0};
        s = rt_store_record_trace_results(store, run, trace, r, FRAMES);
    }
    if (rt_ok(&s))
        s = rt_store_run_finish(store, run, "passed");
    rt_store_close(store);
    if (!rt_ok(&s)) { /* the parent reports it: a test's stderr may be swallowed */
        char why[PATH_MAX];
        snprintf(why, sizeof why, "%s.writer%d", path, writer);
        FILE *f = fopen(why, "w");
        if (f) {
            fprintf(f, "%s", s.msg);
            fclose(f);
        }
    }
    return rt_ok(&s) ? 0 : 1;
}

static void run_writers(const char *path)
{
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        cr_assert_neq(pids[w], -1);
        if (pids[w] == 0)
            _exit(writer_main(path, w));
    }
    for (int w = 0; w < WRITERS; w++) {
        int status = 0;
        cr_assert_eq(waitpid(pids[w], &status, 0), pids[w]);
        char why[PATH_MAX], msg[600] = "";
        snprintf(why, sizeof why, "%s.writer%d", path, w);
        FILE *f = fopen(why, "r");
        if (f) {
            size_t n = fread(msg, 1, sizeof msg - 1, f);
            msg[n] = '\0';
            fclose(f);
        }
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed: %s", w, msg);
    }
}

static void check_every_row(const char *path)
{
    struct rt_store *store = open_store(path, RT_STORE_READ_ONLY);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM runs WHERE outcome = 'passed'"),
                 WRITERS);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM traces"), TRACES);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results"),
                 WRITERS * TRACES * FRAMES);
    /* Every (run, trace, frame) exactly once, with the values its writer sent. */
    cr_assert_eq(raw_int(store->db,
                         "SELECT count(*) FROM (SELECT DISTINCT run_id, trace_id, frame"
                         " FROM results)"),
                 WRITERS * TRACES * FRAMES);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results r JOIN runs u ON"
                                    " u.id = r.run_id JOIN traces t ON t.id = r.trace_id"
                                    " WHERE r.diff_pixels = r.frame - 1 AND 'writer-' ||"
                                    " CAST(r.ssim AS INTEGER) = u.label AND r.max_diff ="
                                    " CAST(substr(t.name, 7) AS INTEGER)"),
                 WRITERS * TRACES * FRAMES);
    for (int64_t run = 1; run <= WRITERS; run++) {
        int64_t count = 0;
        ASSERT_OK(rt_store_result_count(store, run, "trace-07", &count));
        cr_assert_eq(count, FRAMES);
    }
    rt_store_close(store);
}

Test(concurrency, writers_into_one_store_lose_nothing)
{
    const char *path = tmp_path("shared.db");
    rt_store_close(open_store(path, RT_STORE_CREATE));
    run_writers(path);
    check_every_row(path);
}

Test(concurrency, writers_creating_the_store_at_once_lose_nothing)
{
    /* No store yet: every writer races to create and migrate it. */
    const char *path = tmp_path("fresh.db");
    run_writers(path);
    check_every_row(path);
}

/*
 * Why the test above failed now and then under load with "database is
 * locked": a new store is switched to WAL inside SQLite as a read transaction
 * upgraded to a write one (sqlite3BtreeSetVersion), and SQLite calls no busy
 * handler for an upgrade. A second process that holds the write lock at that
 * moment (one creating the same store) made rt_store_open fail at once
 * instead of waiting the busy timeout. Here a child holds it for a moment.
 */
Test(concurrency, opening_a_new_store_waits_for_a_writer_that_holds_it)
{
    const char *path = tmp_path("held.db");
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    pid_t child = fork();
    cr_assert_neq(child, -1);
    if (child == 0) {
        sqlite3 *db = NULL;
        int rc = sqlite3_open(path, &db);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (write(ready[1], rc == SQLITE_OK ? "y" : "n", 1) != 1)
            _exit(2);
        usleep(300 * 1000); /* the parent is opening the store meanwhile */
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(db);
        _exit(0);
    }
    char held = 0;
    cr_assert_eq(read(ready[0], &held, 1), 1);
    cr_assert_eq(held, 'y', "the child could not take the write lock");
    struct rt_store *store = NULL;
    rt_status s = rt_store_open(path, RT_STORE_CREATE, &store);
    int status = 0;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(raw_int(store->db, "PRAGMA user_version"), rt_store_schema_version());
    rt_store_close(store);
    close(ready[0]);
    close(ready[1]);
}

/* ---- the retrace golden command ---------------------------------------- */

/* Runs `retrace golden ARGS` from the build tree; returns its exit code.
 * ENV is put before the command ("" for none); RETRACE_DB is never inherited. */
static int golden_cli_env(const char *env, const char *args)
{
    const char *build = getenv("RT_BUILD_ROOT");
    cr_assert_not_null(build, "RT_BUILD_ROOT is not set (run through meson test)");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && env -u RETRACE_DB %s %s/cli/retrace golden %s"
             " >out.txt 2>err.txt", tmp_dir(), env, build, args);
    int status = system(cmd);
    cr_assert(WIFEXITED(status), "%s", cmd);
    return WEXITSTATUS(status);
}

static int golden_cli(const char *args) { return golden_cli_env("", args); }

static char *slurp(const char *name)
{
    FILE *f = fopen(tmp_path(name), "rb");
    cr_assert_not_null(f);
    char *text = calloc(1, 1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

Test(cli, exit_codes_follow_the_design)
{
    struct png_bytes png = make_png(9, 9, 4);
    write_bytes(tmp_path("a.png"), png.data, png.size);
    write_text(tmp_path("bad.png"), "definitely not a png");
    cr_assert_eq(golden_cli("add --db g.db --trace t --frame 2 a.png"), 0);
    char *out = slurp("out.txt");
    cr_assert_str_eq(out, "1\n");
    free(out);
    cr_assert_eq(golden_cli("add --db g.db --trace t --frame 2 a.png"), 0);
    out = slurp("out.txt");
    cr_assert_str_eq(out, "1\n");
    free(out);
    cr_assert_eq(golden_cli("list --db g.db"), 0);
    out = slurp("out.txt");
    cr_assert(strstr(out, "1\tt\t2\t-\t"), "%s", out);
    free(out);
    cr_assert_eq(golden_cli("add --db g.db --trace t --frame 3 bad.png"), 3);
    char *err = slurp("err.txt");
    cr_assert(strstr(err, "bad.png"), "%s", err);
    free(err);
    cr_assert_eq(golden_cli("add --db g.db --trace t --frame 0 a.png"), 2);
    cr_assert_eq(golden_cli("add --db g.db --frame 1 a.png"), 2);
    cr_assert_eq(golden_cli("frobnicate --db g.db"), 2);
    cr_assert_eq(golden_cli("list"), 2); /* no --db and no RETRACE_DB */
    cr_assert_eq(golden_cli_env("RETRACE_DB=g.db", "list --json"), 0);
    out = slurp("out.txt");
    cr_assert(strstr(out, "\"trace\":\t\"t\""), "%s", out);
    free(out);
    cr_assert_eq(golden_cli("show --db g.db 1 -o copy.png"), 0);
    cr_assert_eq(golden_cli("rm --db g.db 7"), 3);
    cr_assert_eq(golden_cli("expect --db g.db --trace t hang --note 'lavapipe'"), 0);
    cr_assert_eq(golden_cli("expect --db g.db --trace t sometimes"), 2);
    write_text(tmp_path("junk.db"), "this is not a database, not even close............");
    cr_assert_eq(golden_cli("list --db junk.db"), 3);
    cr_assert_eq(golden_cli("export --db g.db dir"), 0);
    cr_assert_eq(golden_cli("import --db g2.db dir"), 0);
    cr_assert_eq(golden_cli("import --db g2.db dir"), 0);
    out = slurp("out.txt");
    cr_assert_str_eq(out, "imported 0 new goldens (1 already present)\n");
    free(out);
    free(png.data);
}

/* ---- schema 3: uploaded runs and per-configuration results -------------- */

Test(results, uploaded_run_keeps_its_uuid_configuration_and_report)
{
    struct rt_store *store = open_store(tmp_path("u.db"), RT_STORE_CREATE);
    struct rt_run_info info = {.label = "nightly",
                               .uuid = "8c2f6a40-6b1e-4c59-9a0e-2d8d4f1b7e11",
                               .configurations = "[{\"name\":\"slow\"}]",
                               .started_at = "2026-11-30T02:00:00Z"};
    int64_t run = 0, found = 0;
    ASSERT_OK(rt_store_run_find_uuid(store, info.uuid, &found));
    cr_assert_eq(found, 0);
    ASSERT_OK(rt_store_run_begin(store, &info, &run));
    ASSERT_OK(rt_store_run_find_uuid(store, info.uuid, &found));
    cr_assert_eq(found, run);
    /* The same id twice is refused, so an upload retried can never duplicate. */
    int64_t again = 0;
    ASSERT_CODE(rt_store_run_begin(store, &info, &again), RT_ERR_BAD_INPUT, "already recorded");
    ASSERT_OK(rt_store_run_finish_at(store, run, "2026-11-30T02:14:07Z", "failed"));

    struct rt_result r[2] = {
        {.frame = 10, .status = RT_RESULT_FAIL, .ssim = 0.9, .ssim_worst_tile = 0.5,
         .psnr = 30, .threshold = 0.99, .tile_threshold = 0.95, .configuration = "slow",
         .golden_hash = "0f3a", .report = "{\"format\":\"retrace-replay-report\"}",
         .replay_ms = NAN},
        {.frame = 11, .status = RT_RESULT_PASS, .ssim = 1, .ssim_worst_tile = 1, .psnr = 99,
         .threshold = 0.99, .replay_ms = NAN},
    };
    ASSERT_OK(rt_store_record_trace_results(store, run, "vkcube", r, 2));
    struct rt_result_rows rows;
    ASSERT_OK(rt_store_results_list(store, run, &rows));
    cr_assert_eq(rows.count, 2);
    cr_assert_str_eq(rows.items[0].configuration, "slow");
    cr_assert_float_eq(rows.items[0].tile_threshold, 0.95, 1e-12);
    cr_assert_str_eq(rows.items[0].golden_hash, "0f3a");
    cr_assert_str_eq(rows.items[0].report, "{\"format\":\"retrace-replay-report\"}");
    cr_assert_str_eq(rows.items[1].configuration, "default");
    cr_assert(isnan(rows.items[1].tile_threshold));
    cr_assert_str_eq(rows.items[1].report, "");
    rt_result_rows_finish(&rows);

    struct rt_run_rows runs;
    ASSERT_OK(rt_store_runs_list(store, "nightly", 0, &runs));
    cr_assert_eq(runs.count, 1);
    cr_assert_str_eq(runs.items[0].uuid, info.uuid);
    cr_assert_str_eq(runs.items[0].configurations, "[{\"name\":\"slow\"}]");
    cr_assert_str_eq(runs.items[0].started_at, "2026-11-30T02:00:00Z");
    cr_assert_str_eq(runs.items[0].finished_at, "2026-11-30T02:14:07Z");
    cr_assert_str_eq(runs.items[0].outcome, "failed");
    rt_run_rows_finish(&runs);
    rt_store_close(store);
}

/* ---- schema 4: the colour gate, and runs whose runner is gone ----------- */

Test(schema, version_3_store_is_migrated_to_4_keeping_its_results)
{
    const char *path = tmp_path("v3.db");
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    ASSERT_OK(rt_store_schema_migrate(db, 3));
    cr_assert_eq(sqlite3_exec(db,
                              "INSERT INTO traces (id, name) VALUES (1, 'old');"
                              "INSERT INTO runs (id, host) VALUES (1, 'farm-07');"
                              "INSERT INTO results (run_id, trace_id, frame, status, ssim)"
                              " VALUES (1, 1, 1, 'pass', 0.999)",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    /* Version 3 has no colour columns. */
    cr_assert_neq(sqlite3_exec(db, "SELECT delta_e FROM results", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    struct rt_store *store = open_store(path, RT_STORE_READ_WRITE);
    cr_assert_geq(rt_store_schema_version(), 5);
    cr_assert_eq(raw_int(store->db, "PRAGMA user_version"), rt_store_schema_version());
    struct rt_result_rows rows;
    ASSERT_OK(rt_store_results_list(store, 1, &rows));
    cr_assert_eq(rows.count, 1);
    cr_assert_float_eq(rows.items[0].ssim, 0.999, 1e-12);
    cr_assert(isnan(rows.items[0].delta_e) && isnan(rows.items[0].colour_threshold));
    rt_result_rows_finish(&rows);
    /* The run recorded before 4 has no pid: never taken for a dead runner. */
    size_t aborted = 99;
    ASSERT_OK(rt_store_runs_abort_gone(store, "farm-07", NULL, NULL, &aborted));
    cr_assert_eq(aborted, 0);
    rt_store_close(store);
}

Test(results, colour_gate_round_trips_and_is_null_when_not_measured)
{
    struct rt_store *store = open_store(tmp_path("c.db"), RT_STORE_CREATE);
    int64_t run = 0;
    ASSERT_OK(rt_store_run_begin(store, NULL, &run));
    struct rt_result r[3] = {
        {.frame = 1, .status = RT_RESULT_FAIL, .ssim = 0.997, .ssim_worst_tile = 0.99,
         .delta_e = 17.39, .colour_threshold = 3, .replay_ms = NAN},
        {.frame = 2, .status = RT_RESULT_PASS, .ssim = 1, .delta_e = 0, .colour_threshold = 3,
         .replay_ms = NAN},
        /* zero-initialised: colour_threshold 0 records neither number */
        {.frame = 3, .status = RT_RESULT_ERROR, .ssim = NAN, .replay_ms = NAN},
    };
    ASSERT_OK(rt_store_record_trace_results(store, run, "swap", r, 3));
    struct rt_result_rows rows;
    ASSERT_OK(rt_store_results_list(store, run, &rows));
    cr_assert_eq(rows.count, 3);
    cr_assert_eq(rows.items[0].frame, 1); /* failures first */
    cr_assert_float_eq(rows.items[0].delta_e, 17.39, 1e-12);
    cr_assert_float_eq(rows.items[0].colour_threshold, 3, 1e-12);
    const struct rt_result_row *pass = rows.items[1].frame == 2 ? &rows.items[1] : &rows.items[2];
    const struct rt_result_row *err = rows.items[1].frame == 3 ? &rows.items[1] : &rows.items[2];
    cr_assert_float_eq(pass->delta_e, 0, 1e-12);
    cr_assert(isnan(err->delta_e) && isnan(err->colour_threshold));
    rt_result_rows_finish(&rows);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results WHERE delta_e IS NULL"), 1);
    rt_store_close(store);
}

/* A fake process table for rt_store_runs_abort_gone: pid 100 alive, the rest gone. */
static bool only_pid_100(int64_t pid, const char *pid_start, void *ctx)
{
    (*(int *)ctx)++;
    return pid == 100 && !strcmp(pid_start, "boot:1");
}

Test(results, runs_whose_runner_is_gone_are_aborted_on_this_host_only)
{
    struct rt_store *store = open_store(tmp_path("g.db"), RT_STORE_CREATE);
    struct rt_run_info infos[] = {
        {.host = "here", .pid = 100, .pid_start = "boot:1"},  /* still running */
        {.host = "here", .pid = 100, .pid_start = "boot:0"},  /* pid reused since */
        {.host = "here", .pid = 200, .pid_start = "boot:2"},  /* gone */
        {.host = "there", .pid = 300, .pid_start = "boot:3"}, /* another host's */
        {.host = "here"},                                     /* no pid (uploaded) */
        {.host = "here", .pid = 400, .pid_start = "boot:4"},  /* gone, but finished */
    };
    int64_t ids[6];
    for (int i = 0; i < 6; i++)
        ASSERT_OK(rt_store_run_begin(store, &infos[i], &ids[i]));
    ASSERT_OK(rt_store_run_finish(store, ids[5], "passed"));
    int calls = 0;
    size_t aborted = 0;
    ASSERT_OK(rt_store_runs_abort_gone(store, "here", only_pid_100, &calls, &aborted));
    cr_assert_eq(aborted, 2);
    cr_assert_eq(calls, 3); /* only this host's unfinished runs with a pid are asked about */
    struct rt_run_rows runs;
    ASSERT_OK(rt_store_runs_list(store, NULL, 0, &runs));
    const char *want[] = {"", "aborted", "aborted", "", "", "passed"};
    for (size_t i = 0; i < runs.count; i++) {
        int k = (int)(runs.items[i].id - ids[0]);
        cr_assert_str_eq(runs.items[i].outcome, want[k], "run %d", k);
        cr_assert_eq(runs.items[i].finished_at[0] != 0, want[k][0] != 0, "run %d", k);
    }
    rt_run_rows_finish(&runs);
    cr_assert_eq(raw_int(store->db, "SELECT pid FROM runs WHERE id = 1"), 100);
    rt_store_close(store);
}
