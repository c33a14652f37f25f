/* Unit tests for store/store_diagnosis.c and schema migration 8 (docs/FORMATS.md
 * 7.4): a schema-7 store is brought to 8 keeping its results, a diagnosis is
 * recorded once per result (a repeat does not replace it unless asked), its
 * images are kept once per content hash beside results' images, and removing
 * runs keeps the images another run's diagnosis names and drops the rest. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_diagnosis.h"
#include "store_internal.h"

#define ASSERT_OK(expr)                                              \
    do {                                                             \
        rt_status s_ = (expr);                                       \
        cr_assert(rt_ok(&s_), "%s: %s", #expr, s_.msg);              \
    } while (0)

static char tmp_root[64], db_path[128];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void make_tmp(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/rt_diag_XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_root));
    snprintf(db_path, sizeof db_path, "%s/store.db", tmp_root);
}

static void remove_tmp(void) { nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

TestSuite(diagnosis, .init = make_tmp, .fini = remove_tmp);

static int64_t raw_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(stmt), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return v;
}

/* A schema-7 store with two runs, each with a failing result of 'gears' frame 3
 * ("broken" configuration) whose actual image is the bytes "A7". */
static void make_schema_7(void)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ASSERT_OK(rt_store_schema_migrate(db, 7));
    char hash[RT_STORE_HASH_HEX + 1], sql[256];
    rt_store_hash_hex("A7", 2, hash);
    snprintf(sql, sizeof sql, "INSERT INTO images (id, hash, size, png) VALUES (1, '%s', 2, x'4137')", hash);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db,
                              "INSERT INTO traces (id, name) VALUES (1, 'gears');"
                              "INSERT INTO runs (id, host, started_at) VALUES (1, 'farm', '2020-01-01T00:00:00Z');"
                              "INSERT INTO runs (id, host) VALUES (2, 'farm');"
                              "INSERT INTO results (id, run_id, trace_id, frame, status, configuration, actual_image)"
                              " VALUES (1, 1, 1, 3, 'fail', 'broken', 1), (2, 2, 1, 3, 'fail', 'broken', NULL);"
                              /* as schema 7 keeps every result: its run's start */
                              "UPDATE results SET run_start ="
                              " (SELECT coalesce(unixepoch(started_at), 0) FROM runs WHERE id = results.run_id)",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_neq(sqlite3_exec(db, "SELECT 1 FROM diagnoses", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static struct rt_diagnosis diverged(const char *before, const char *after)
{
    struct rt_diagnosis d = {.reference = "device:llvmpipe", .outcome = RT_DIAGNOSIS_DIVERGED, .draws = 64,
                             .replays = 5, .draw = 17, .call = 812, .command = "vkCmdDrawIndexed",
                             .pipeline = "0x31", .target = "color0",
                             .shaders = "[{\"stage\":\"VK_SHADER_STAGE_FRAGMENT_BIT\",\"xxh128\":\"00ff\"}]",
                             .ssim = 0.5, .delta_e = 40.0};
    d.png[RT_DIAG_BEFORE_TEST] = (const uint8_t *)before, d.png_size[RT_DIAG_BEFORE_TEST] = strlen(before);
    d.png[RT_DIAG_AFTER_TEST] = (const uint8_t *)after, d.png_size[RT_DIAG_AFTER_TEST] = strlen(after);
    return d;
}

Test(diagnosis, schema_7_store_is_migrated_to_8_and_keeps_one_diagnosis_per_result)
{
    make_schema_7();
    struct rt_store *store = NULL;
    ASSERT_OK(rt_store_open(db_path, RT_STORE_READ_WRITE, &store));
    cr_assert_geq(rt_store_schema_version(), 8);
    cr_assert_eq(raw_int(store->db, "PRAGMA user_version"), rt_store_schema_version());
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM results"), 2);

    struct rt_diagnosis d = diverged("A7", "B8"); /* "A7" is result 1's actual image too */
    int64_t id = 0;
    ASSERT_OK(rt_store_diagnosis_put(store, 1, "gears", "broken", 3, &d, false, &id));
    cr_assert_eq(id, 1);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images"), 2, "A7 is kept once");
    /* No such result: nothing stored, no error. */
    ASSERT_OK(rt_store_diagnosis_put(store, 1, "gears", "default", 3, &d, false, &id));
    cr_assert_eq(id, 0);
    /* A repeat (an upload sent twice) keeps the first unless asked to replace. */
    struct rt_diagnosis other = d;
    other.draw = 18;
    ASSERT_OK(rt_store_diagnosis_put(store, 1, "gears", "broken", 3, &other, false, &id));
    cr_assert_eq(raw_int(store->db, "SELECT draw FROM diagnoses WHERE result_id = 1"), 17);

    cJSON *json = NULL;
    ASSERT_OK(rt_store_diagnosis_json(store, 1, &json));
    cr_assert_not_null(json);
    cr_assert_str_eq(cJSON_GetObjectItem(json, "outcome")->valuestring, "diverged");
    cr_assert_eq(cJSON_GetObjectItem(json, "draw")->valuedouble, 17);
    cr_assert_eq(cJSON_GetObjectItem(json, "draws")->valuedouble, 64);
    cr_assert_str_eq(cJSON_GetObjectItem(json, "command")->valuestring, "vkCmdDrawIndexed");
    cJSON *shader = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "shaders"), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(shader, "xxh128")->valuestring, "00ff");
    cJSON *images = cJSON_GetObjectItem(json, "images");
    cr_assert_str_eq(cJSON_GetObjectItem(images, "after_test")->valuestring, "/api/results/1/diagnosis/after_test");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(images, "diff")));
    cJSON_Delete(json);
    ASSERT_OK(rt_store_diagnosis_json(store, 2, &json));
    cr_assert_null(json);

    uint8_t *png = NULL;
    size_t size = 0;
    char hash[RT_STORE_HASH_HEX + 1];
    ASSERT_OK(rt_store_diagnosis_image(store, 1, RT_DIAG_AFTER_TEST, &png, &size, hash));
    cr_assert(png && size == 2 && !memcmp(png, "B8", 2));
    cr_assert_eq(strlen(hash), RT_STORE_HASH_HEX);
    free(png);
    ASSERT_OK(rt_store_diagnosis_image(store, 1, RT_DIAG_DIFF, &png, &size, hash));
    cr_assert_null(png);

    ASSERT_OK(rt_store_run_diagnoses(store, 1, 200, 0, &json));
    cr_assert_eq(cJSON_GetArraySize(json), 1);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(json, 0), "draw")->valuedouble, 17);
    cJSON_Delete(json);
    rt_store_close(store);
}

Test(diagnosis, removing_runs_keeps_images_another_diagnosis_names_and_drops_the_rest)
{
    make_schema_7();
    struct rt_store *store = NULL;
    ASSERT_OK(rt_store_open(db_path, RT_STORE_READ_WRITE, &store));
    int64_t id = 0;
    /* Run 2's diagnosis names run 1's actual image "A7"; run 1's names "C9" alone. */
    struct rt_diagnosis d2 = diverged("A7", "B8"), d1 = diverged("C9", "B8");
    ASSERT_OK(rt_store_diagnosis_put(store, 2, "gears", "broken", 3, &d2, false, &id));
    ASSERT_OK(rt_store_diagnosis_put(store, 1, "gears", "broken", 3, &d1, false, &id));
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images"), 3);
    struct rt_store_gc_counts counts;
    ASSERT_OK(rt_store_gc(store, 30, 0, &counts)); /* run 1 started in 2020 */
    cr_assert_eq(counts.runs, 1);
    cr_assert_eq(counts.images, 0, "run 1's image A7 is kept (run 2's diagnosis names it), so not counted as removed");
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM diagnoses"), 1);
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images WHERE png = x'4137'"), 1,
                 "A7 is still named by run 2's diagnosis");
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images WHERE png = x'4339'"), 0,
                 "C9 was named by run 1's diagnosis only");
    cr_assert_eq(raw_int(store->db, "SELECT count(*) FROM images WHERE png = x'4238'"), 1);
    uint8_t *png = NULL;
    size_t size = 0;
    char hash[RT_STORE_HASH_HEX + 1];
    ASSERT_OK(rt_store_diagnosis_image(store, 2, RT_DIAG_BEFORE_TEST, &png, &size, hash));
    cr_assert(png && size == 2 && !memcmp(png, "A7", 2));
    free(png);
    rt_store_close(store);
}
