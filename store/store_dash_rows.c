/*
 * store/store_dash_rows.c — the dashboard's rows as JSON: a column becomes a
 * JSON key of the same name, so a query and the JSON it answers are read in
 * one place ("..._json" columns hold JSON text, parsed, the key losing the
 * suffix; "has_..." columns are booleans); result counts for the joined
 * page's runs; one read snapshot per answer.
 */
#include "store_dash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- rows to JSON ------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !memcmp(s + n - m, suffix, m);
}

/* One column as a JSON value; NULL for blobs (never sent as JSON). */
static cJSON *column_value(sqlite3_stmt *stmt, int i, const char *name)
{
    switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER:
        if (!strncmp(name, "has_", 4))
            return cJSON_CreateBool(sqlite3_column_int64(stmt, i) != 0);
        return cJSON_CreateNumber((double)sqlite3_column_int64(stmt, i));
    case SQLITE_FLOAT:
        return cJSON_CreateNumber(sqlite3_column_double(stmt, i));
    case SQLITE_TEXT: {
        const char *text = (const char *)sqlite3_column_text(stmt, i);
        if (ends_with(name, "_json")) {
            cJSON *parsed = cJSON_Parse(text);
            return parsed ? parsed : cJSON_CreateNull();
        }
        return cJSON_CreateString(text);
    }
    case SQLITE_NULL:
        return cJSON_CreateNull();
    default:
        return NULL;
    }
}

/* The current row as an object keyed by column names; NULL when out of memory. */
static cJSON *row_object(sqlite3_stmt *stmt)
{
    cJSON *obj = cJSON_CreateObject();
    int n = sqlite3_column_count(stmt);
    for (int i = 0; obj && i < n; i++) {
        const char *name = sqlite3_column_name(stmt, i);
        cJSON *value = column_value(stmt, i, name);
        if (!value)
            continue;
        char key[64];
        size_t len = strlen(name);
        if (ends_with(name, "_json"))
            len -= 5;
        len = len < sizeof key ? len : sizeof key - 1;
        memcpy(key, name, len); /* column names are ours: short, no format */
        key[len] = '\0';
        if (!cJSON_AddItemToObject(obj, key, value)) {
            cJSON_Delete(value);
            cJSON_Delete(obj);
            obj = NULL;
        }
    }
    return obj;
}

/* Steps STMT (already bound) to the end, appending each row to ARRAY. */
rt_status rt_dash_rows_into(struct rt_store *store, sqlite3_stmt *stmt, cJSON *array,
                           const char *what)
{
    rt_status s = rt_ok_status();
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        cJSON *row = row_object(stmt);
        if (!row || !cJSON_AddItemToArray(array, row)) {
            cJSON_Delete(row);
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory %s", what);
            break;
        }
    }
    if (rt_ok(&s) && rc != SQLITE_DONE)
        s = rt_store_sql_error(store, rc, what);
    rt_store_stmt_done(stmt);
    return s;
}

/* The single row of STMT as an object, or *obj_out NULL when there is none. */
rt_status rt_dash_row_into(struct rt_store *store, sqlite3_stmt *stmt, cJSON **obj_out,
                          const char *what)
{
    *obj_out = NULL;
    int rc = sqlite3_step(stmt);
    rt_status s = rt_ok_status();
    if (rc == SQLITE_ROW && !(*obj_out = row_object(stmt)))
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory %s", what);
    else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        s = rt_store_sql_error(store, rc, what);
    rt_store_stmt_done(stmt);
    return s;
}

rt_status rt_dash_out_of_memory(cJSON *json)
{
    cJSON_Delete(json);
    return rt_errorf(RT_ERR_INTERNAL, "out of memory building the dashboard's answer");
}

/* ---- one snapshot per answer ------------------------------------------- */

/* Every query of one answer reads the same snapshot (a deferred read
 * transaction: in WAL mode it never waits for a writer), and the database's
 * locks are taken once per answer rather than once per statement. */
rt_status rt_dash_snapshot_begin(struct rt_store *store, bool *began)
{
    *began = false;
    if (!sqlite3_get_autocommit(store->db))
        return rt_ok_status(); /* already inside a transaction */
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, "BEGIN", &stmt));
    RT_TRY(rt_store_exec_stmt(store, stmt, "starting a read"));
    *began = true;
    return rt_ok_status();
}

rt_status rt_dash_snapshot_end(struct rt_store *store, bool began, rt_status result)
{
    if (!began)
        return result;
    sqlite3_stmt *stmt = NULL;
    rt_status s = rt_store_stmt(store, "COMMIT", &stmt);
    if (rt_ok(&s))
        s = rt_store_exec_stmt(store, stmt, "ending a read");
    return rt_ok(&result) ? s : result;
}

rt_status rt_store_data_version(struct rt_store *store, int64_t *version_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, "PRAGMA data_version", &stmt));
    int rc = sqlite3_step(stmt);
    *version_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW ? rt_ok_status() : rt_store_sql_error(store, rc, "reading the data version");
}

/* ---- counts --------------------------------------------------------- */

/* Result counts by status for the runs whose ids are the JSON array ?1, kept
 * by triggers in run_counts; then, of those, the failures and new results
 * whose image was approved, which count as "approved" instead. */
static const char sql_run_counts[] =
    "SELECT c.run_id, c.status, c.n FROM run_counts c"
    " WHERE c.run_id IN (SELECT value FROM json_each(?1))";
static const char sql_run_approved[] =
    "SELECT r.run_id, r.status, count(*) FROM results r"
    " WHERE r.run_id IN (SELECT value FROM json_each(?1))"
    " AND r.status IN ('fail','new','error','crash','timeout','flaky')"
    " AND " REVIEW_OF("r.id") " = 'accepted' GROUP BY r.run_id, r.status";

static const char *const count_keys[] = {"pass",  "fail",    "flaky", "new",
                                         "crash", "timeout", "error", "approved"};

/* An object with every count key at zero (so pages need no missing-key checks). */
static cJSON *zero_counts(void)
{
    cJSON *counts = cJSON_CreateObject();
    for (size_t i = 0; counts && i < sizeof count_keys / sizeof *count_keys; i++)
        if (!cJSON_AddNumberToObject(counts, count_keys[i], 0)) {
            cJSON_Delete(counts);
            return NULL;
        }
    return counts;
}

static cJSON *run_with_id(cJSON *runs, int64_t id)
{
    cJSON *run;
    cJSON_ArrayForEach(run, runs) {
        cJSON *rid = cJSON_GetObjectItemCaseSensitive(run, "id");
        if (cJSON_IsNumber(rid) && (int64_t)rid->valuedouble == id)
            return run;
    }
    return NULL;
}

/* Adds N to count KEY of run RUN_ID in RUNS (when both are there). */
static void add_count(cJSON *runs, int64_t run_id, const char *key, int64_t n)
{
    cJSON *target = run_with_id(runs, run_id);
    cJSON *counts = target ? cJSON_GetObjectItemCaseSensitive(target, "counts") : NULL;
    cJSON *count = counts && key ? cJSON_GetObjectItemCaseSensitive(counts, key) : NULL;
    if (count)
        cJSON_SetNumberValue(count, count->valuedouble + (double)n);
}

/* Steps STMT (bound), adding its (run id, status, n) rows to the counts;
 * APPROVED moves them from their status to "approved". */
static rt_status add_count_rows(struct rt_store *store, sqlite3_stmt *stmt, cJSON *runs,
                                bool approved)
{
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int64_t run_id = sqlite3_column_int64(stmt, 0), n = sqlite3_column_int64(stmt, 2);
        const char *status = (const char *)sqlite3_column_text(stmt, 1);
        add_count(runs, run_id, status, approved ? -n : n);
        if (approved)
            add_count(runs, run_id, "approved", n);
    }
    rt_store_stmt_done(stmt);
    return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, "counting results");
}

/* Adds "counts" to every run of RUNS, whatever their order: two queries over
 * the list of their ids. */
rt_status rt_dash_add_counts(struct rt_store *store, cJSON *runs)
{
    cJSON *ids = cJSON_CreateArray();
    cJSON *run;
    cJSON_ArrayForEach(run, runs) {
        cJSON *id = cJSON_GetObjectItemCaseSensitive(run, "id");
        cJSON *counts = zero_counts();
        if (!ids || !counts || !cJSON_AddItemToObject(run, "counts", counts) ||
            (cJSON_IsNumber(id) && !cJSON_AddItemToArray(ids, cJSON_CreateNumber(id->valuedouble)))) {
            cJSON_Delete(ids);
            return rt_errorf(RT_ERR_INTERNAL, "out of memory counting results");
        }
    }
    char *list = cJSON_PrintUnformatted(ids);
    cJSON_Delete(ids);
    if (!list)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory counting results");
    const char *const sql[2] = {sql_run_counts, sql_run_approved};
    rt_status s = rt_ok_status();
    for (int i = 0; rt_ok(&s) && i < 2; i++) {
        sqlite3_stmt *stmt = NULL;
        s = rt_store_stmt(store, sql[i], &stmt);
        if (rt_ok(&s)) {
            sqlite3_bind_text(stmt, 1, list, -1, SQLITE_STATIC);
            s = add_count_rows(store, stmt, runs, i == 1);
        }
    }
    free(list);
    return s;
}

const char *rt_dash_text_field(cJSON *obj, const char *key)
{
    cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}
