/*
 * store/store_dashboard.c — the dashboard's read queries (see store.h,
 * "the dashboard's reads and writes"). Each answer is built straight from
 * the rows: a column becomes a JSON key of the same name, so a query and the
 * JSON it answers are read in one place. Conventions of the column names:
 * "..._json" holds JSON text (parsed, the key loses the suffix), "has_..."
 * is a boolean. Every value is a bound parameter.
 */
#include "store_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#define HISTORY_LENGTH 10

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
static rt_status rows_into(struct rt_store *store, sqlite3_stmt *stmt, cJSON *array,
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
static rt_status row_into(struct rt_store *store, sqlite3_stmt *stmt, cJSON **obj_out,
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

/* A new array added to OBJ under KEY; NULL when out of memory. */
static cJSON *add_array(cJSON *obj, const char *key)
{
    return cJSON_AddArrayToObject(obj, key);
}

static rt_status out_of_memory(cJSON *json)
{
    cJSON_Delete(json);
    return rt_errorf(RT_ERR_INTERNAL, "out of memory building the dashboard's answer");
}

/* ---- one snapshot per answer ------------------------------------------- */

/* Every query of one answer reads the same snapshot (a deferred read
 * transaction: in WAL mode it never waits for a writer), and the database's
 * locks are taken once per answer rather than once per statement. */
static rt_status snapshot_begin(struct rt_store *store, bool *began)
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

static rt_status snapshot_end(struct rt_store *store, bool began, rt_status result)
{
    if (!began)
        return result;
    sqlite3_stmt *stmt = NULL;
    rt_status s = rt_store_stmt(store, "COMMIT", &stmt);
    if (rt_ok(&s))
        s = rt_store_exec_stmt(store, stmt, "ending a read");
    return rt_ok(&result) ? s : result;
}

#define IN_SNAPSHOT(store, call)                          \
    do {                                                  \
        bool began_ = false;                              \
        RT_TRY(snapshot_begin((store), &began_));         \
        return snapshot_end((store), began_, (call));     \
    } while (0)

rt_status rt_store_data_version(struct rt_store *store, int64_t *version_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, "PRAGMA data_version", &stmt));
    int rc = sqlite3_step(stmt);
    *version_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW ? rt_ok_status() : rt_store_sql_error(store, rc, "reading the data version");
}

/* ---- runs ---------------------------------------------------------------- */

#define RUN_COLUMNS                                                                    \
    "SELECT u.id, u.started_at, u.finished_at, u.outcome, u.host, u.device, u.driver," \
    " u.device_key, u.workarounds, u.delays, u.version AS retrace_version, u.label, u.shard," \
    " u.uuid, u.configurations AS configurations_json"
#define RUNS_MATCHING                                                                   \
    " FROM runs u WHERE (?1 IS NULL OR u.label = ?1)"                                   \
    " AND (?2 IS NULL OR u.device = ?2 OR u.device_key = ?2)"                           \
    " AND (?3 IS NULL OR u.outcome = ?3"                                                \
    "  OR EXISTS (SELECT 1 FROM results r WHERE r.run_id = u.id AND r.status = ?3))"

static const char sql_runs_page[] =
    RUN_COLUMNS RUNS_MATCHING " ORDER BY u.id DESC LIMIT ?4 OFFSET ?5";
static const char sql_runs_total[] = "SELECT count(*)" RUNS_MATCHING;
static const char sql_run_one[] = RUN_COLUMNS " FROM runs u WHERE u.id = ?1";

/* The newest golden made from each result through the dashboard. */
#define REVIEWS                                                                        \
    "(SELECT from_result, status, max(id) FROM goldens WHERE from_result IS NOT NULL"  \
    " GROUP BY from_result)"

/* Result counts by status for runs ?1..?2; a failure or new result whose image
 * was approved counts as "approved". */
static const char sql_run_counts[] =
    "SELECT r.run_id, CASE WHEN r.status <> 'pass' AND g.status = 'accepted'"
    " THEN 'approved' ELSE r.status END AS bucket, count(*)"
    " FROM results r LEFT JOIN " REVIEWS " g ON g.from_result = r.id"
    " WHERE r.run_id BETWEEN ?1 AND ?2 GROUP BY r.run_id, bucket";

static const char sql_run_history[] =
    "SELECT id, outcome, started_at FROM runs WHERE id <= ?1 AND label IS ?2"
    " AND device_key IS ?3 ORDER BY id DESC LIMIT 10"; /* HISTORY_LENGTH */

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

/* Adds "counts" to every run of RUNS (ids between LOW and HIGH). */
static rt_status add_counts(struct rt_store *store, cJSON *runs, int64_t low, int64_t high)
{
    cJSON *run;
    cJSON_ArrayForEach(run, runs) {
        cJSON *counts = zero_counts();
        if (!counts || !cJSON_AddItemToObject(run, "counts", counts)) {
            cJSON_Delete(counts);
            return rt_errorf(RT_ERR_INTERNAL, "out of memory counting results");
        }
    }
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_counts, &stmt));
    sqlite3_bind_int64(stmt, 1, low);
    sqlite3_bind_int64(stmt, 2, high);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        cJSON *target = run_with_id(runs, sqlite3_column_int64(stmt, 0));
        const char *bucket = (const char *)sqlite3_column_text(stmt, 1);
        cJSON *counts = target ? cJSON_GetObjectItemCaseSensitive(target, "counts") : NULL;
        cJSON *count = counts && bucket ? cJSON_GetObjectItemCaseSensitive(counts, bucket) : NULL;
        if (count)
            cJSON_SetNumberValue(count, (double)sqlite3_column_int64(stmt, 2));
    }
    rt_store_stmt_done(stmt);
    return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, "counting results");
}

static const char *text_field(cJSON *obj, const char *key)
{
    cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* Adds "history": this run and the earlier ones of its label and device, oldest first. */
static rt_status add_history(struct rt_store *store, cJSON *run)
{
    cJSON *history = cJSON_CreateArray();
    if (!history || !cJSON_AddItemToObject(run, "history", history)) {
        cJSON_Delete(history);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading run history");
    }
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_history, &stmt));
    sqlite3_bind_int64(stmt, 1, (int64_t)cJSON_GetObjectItemCaseSensitive(run, "id")->valuedouble);
    sqlite3_bind_text(stmt, 2, text_field(run, "label"), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 3, text_field(run, "device_key"), -1, SQLITE_TRANSIENT);
    cJSON *newest_first = cJSON_CreateArray();
    if (!newest_first)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading run history");
    rt_status s = rows_into(store, stmt, newest_first, "reading run history");
    while (rt_ok(&s) && cJSON_GetArraySize(newest_first) > 0)
        cJSON_AddItemToArray(history, cJSON_DetachItemFromArray(
                                          newest_first, cJSON_GetArraySize(newest_first) - 1));
    cJSON_Delete(newest_first);
    return s;
}

static void bind_runs_query(sqlite3_stmt *stmt, const struct rt_dash_runs_query *q)
{
    sqlite3_bind_text(stmt, 1, q->label, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, q->device, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, q->status, -1, SQLITE_STATIC);
}

static rt_status runs_total(struct rt_store *store, const struct rt_dash_runs_query *q,
                            int64_t *total_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_runs_total, &stmt));
    bind_runs_query(stmt, q);
    int rc = sqlite3_step(stmt);
    *total_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW ? rt_ok_status() : rt_store_sql_error(store, rc, "counting runs");
}

static rt_status fill_runs(struct rt_store *store, const struct rt_dash_runs_query *q,
                           cJSON *json)
{
    int64_t total = 0;
    RT_TRY(runs_total(store, q, &total));
    cJSON *runs = add_array(json, "runs");
    if (!runs || !cJSON_AddNumberToObject(json, "total", (double)total) ||
        !cJSON_AddNumberToObject(json, "limit", q->limit) ||
        !cJSON_AddNumberToObject(json, "offset", q->offset))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory listing runs");
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_runs_page, &stmt));
    bind_runs_query(stmt, q);
    sqlite3_bind_int64(stmt, 4, q->limit);
    sqlite3_bind_int64(stmt, 5, q->offset);
    RT_TRY(rows_into(store, stmt, runs, "listing runs"));
    int n = cJSON_GetArraySize(runs);
    if (n == 0)
        return rt_ok_status();
    /* Newest first: the last run has the lowest id. */
    int64_t high = (int64_t)cJSON_GetArrayItem(runs, 0)->child->valuedouble;
    int64_t low = (int64_t)cJSON_GetArrayItem(runs, n - 1)->child->valuedouble;
    RT_TRY(add_counts(store, runs, low, high));
    cJSON *run;
    cJSON_ArrayForEach(run, runs)
        RT_TRY(add_history(store, run));
    return rt_ok_status();
}

static rt_status dash_runs_now(struct rt_store *store, const struct rt_dash_runs_query *query,
                             cJSON **json_out)
{
    *json_out = cJSON_CreateObject();
    if (!*json_out)
        return out_of_memory(NULL);
    rt_status s = fill_runs(store, query, *json_out);
    if (!rt_ok(&s)) {
        cJSON_Delete(*json_out);
        *json_out = NULL;
    }
    return s;
}

/* ---- one run ------------------------------------------------------------- */

#define RESULT_COLUMNS                                                                   \
    "SELECT r.id, r.run_id, t.name AS trace, r.frame, r.status, r.ssim, r.ssim_worst_tile," \
    " r.psnr, r.threshold, r.diff_pixels, r.max_diff, r.replay_ms, r.attempts,"          \
    " r.golden_id, r.actual_png IS NOT NULL AS has_actual,"                              \
    " r.diff_png IS NOT NULL AS has_diff, coalesce(r.message, '') AS message,"           \
    " g.status AS review, r.configuration, r.tile_threshold, r.golden_hash"
#define RESULT_FROM                                                                      \
    " FROM results r JOIN traces t ON t.id = r.trace_id"                                 \
    " LEFT JOIN " REVIEWS " g ON g.from_result = r.id"

static const char sql_run_results[] =
    RESULT_COLUMNS RESULT_FROM " WHERE r.run_id = ?1"
    " ORDER BY CASE r.status WHEN 'fail' THEN 0 WHEN 'crash' THEN 1 WHEN 'timeout' THEN 2"
    " WHEN 'error' THEN 3 WHEN 'new' THEN 4 WHEN 'flaky' THEN 5 ELSE 6 END,"
    " t.name, r.frame, r.id";

static rt_status fill_run(struct rt_store *store, int64_t run_id, cJSON *run)
{
    /* add_counts works on a list: lend RUN to a one-item list, then take it back. */
    cJSON *runs = cJSON_CreateArray();
    if (!runs || !cJSON_AddItemToArray(runs, run)) {
        cJSON_Delete(runs);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a run");
    }
    rt_status s = add_counts(store, runs, run_id, run_id);
    cJSON_DetachItemFromArray(runs, 0);
    cJSON_Delete(runs);
    RT_TRY(s);
    RT_TRY(add_history(store, run));
    cJSON *results = add_array(run, "results");
    if (!results)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a run");
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_results, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    return rows_into(store, stmt, results, "reading a run's results");
}

static rt_status dash_run_now(struct rt_store *store, int64_t run_id, cJSON **json_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_one, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    RT_TRY(row_into(store, stmt, json_out, "reading a run"));
    if (!*json_out)
        return rt_ok_status();
    rt_status s = fill_run(store, run_id, *json_out);
    if (!rt_ok(&s)) {
        cJSON_Delete(*json_out);
        *json_out = NULL;
    }
    return s;
}

/* ---- one result ----------------------------------------------------------- */

static const char sql_result_one[] =
    RESULT_COLUMNS ", r.report AS report_json" RESULT_FROM " WHERE r.id = ?1";
#define GOLDEN_COLUMNS                                                                  \
    "SELECT g.id, t.name AS trace, g.frame, g.device_key, g.status, g.hash, g.size,"   \
    " g.width, g.height, g.approved_by, g.from_result, g.created_at"                   \
    " FROM goldens g JOIN traces t ON t.id = g.trace_id"
static const char sql_goldens_of_frame[] =
    GOLDEN_COLUMNS " WHERE t.name = ?1 AND g.frame = ?2 ORDER BY g.device_key, g.id";
#define EXPECTATION_COLUMNS                                                              \
    "SELECT t.name AS trace, e.device_key, e.kind, e.note, e.updated_at"               \
    " FROM expectations e JOIN traces t ON t.id = e.trace_id"
static const char sql_expectations_of[] =
    EXPECTATION_COLUMNS " WHERE (?1 IS NULL OR t.name = ?1) ORDER BY t.name, e.device_key";

/* Adds the result of STMT (bound: ?1 = TEXT_KEY's value, ?2 = FRAME) under KEY. */
static rt_status add_rows(struct rt_store *store, cJSON *obj, const char *key,
                          const char *sql, const char *text, int64_t number,
                          const char *what)
{
    cJSON *array = add_array(obj, key);
    if (!array)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory %s", what);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql, &stmt));
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_TRANSIENT);
    if (sqlite3_bind_parameter_count(stmt) >= 2)
        sqlite3_bind_int64(stmt, 2, number);
    return rows_into(store, stmt, array, what);
}

static rt_status fill_result(struct rt_store *store, cJSON *result)
{
    int64_t run_id = (int64_t)cJSON_GetObjectItemCaseSensitive(result, "run_id")->valuedouble;
    const char *trace = text_field(result, "trace");
    int64_t frame = (int64_t)cJSON_GetObjectItemCaseSensitive(result, "frame")->valuedouble;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_one, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    cJSON *run = NULL;
    RT_TRY(row_into(store, stmt, &run, "reading a result's run"));
    if (run && !cJSON_AddItemToObject(result, "run", run)) {
        cJSON_Delete(run);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a result");
    }
    RT_TRY(add_rows(store, result, "goldens", sql_goldens_of_frame, trace, frame,
                    "reading a result's goldens"));
    return add_rows(store, result, "expectations", sql_expectations_of, trace, 0,
                    "reading a result's expectations");
}

static rt_status dash_result_now(struct rt_store *store, int64_t result_id, cJSON **json_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_result_one, &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    RT_TRY(row_into(store, stmt, json_out, "reading a result"));
    if (!*json_out)
        return rt_ok_status();
    rt_status s = fill_result(store, *json_out);
    if (!rt_ok(&s)) {
        cJSON_Delete(*json_out);
        *json_out = NULL;
    }
    return s;
}

/* ---- a trace's history, goldens, expectations ------------------------------ */

static const char sql_trace_exists[] = "SELECT id FROM traces WHERE name = ?1";
static const char sql_history[] =
    "SELECT u.id AS run_id, u.started_at, u.label, u.device,"
    " coalesce(u.device_key, '') AS device_key, r.id AS result_id, r.frame, r.status,"
    " r.ssim, r.ssim_worst_tile, r.threshold, r.tile_threshold, r.configuration"
    " FROM results r JOIN runs u ON u.id = r.run_id"
    " WHERE r.trace_id = ?1 AND (?2 IS NULL OR u.device_key = ?2)"
    " ORDER BY u.id, r.frame LIMIT 10000";
static const char sql_goldens_of[] =
    GOLDEN_COLUMNS " WHERE (?1 IS NULL OR t.name = ?1) ORDER BY t.name, g.frame, g.device_key, g.id";

static rt_status trace_id(struct rt_store *store, const char *trace, int64_t *id_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_trace_exists, &stmt));
    sqlite3_bind_text(stmt, 1, trace, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    *id_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? rt_ok_status()
                                                 : rt_store_sql_error(store, rc, "finding a trace");
}

static rt_status dash_history_now(struct rt_store *store, const char *trace,
                                const char *device_key, cJSON **json_out)
{
    *json_out = NULL;
    int64_t id = 0;
    RT_TRY(trace_id(store, trace, &id));
    if (!id)
        return rt_ok_status();
    cJSON *json = cJSON_CreateObject();
    cJSON *points = json && cJSON_AddStringToObject(json, "trace", trace)
                        ? add_array(json, "points") : NULL;
    if (!points)
        return out_of_memory(json);
    sqlite3_stmt *stmt = NULL;
    rt_status s = rt_store_stmt(store, sql_history, &stmt);
    if (rt_ok(&s)) {
        sqlite3_bind_int64(stmt, 1, id);
        sqlite3_bind_text(stmt, 2, device_key, -1, SQLITE_STATIC);
        s = rows_into(store, stmt, points, "reading a trace's history");
    }
    if (rt_ok(&s))
        s = add_rows(store, json, "goldens", sql_goldens_of, trace, 0, "reading goldens");
    if (!rt_ok(&s)) {
        cJSON_Delete(json);
        return s;
    }
    *json_out = json;
    return s;
}

static rt_status list_json(struct rt_store *store, const char *key, const char *sql,
                           const char *trace, cJSON **json_out)
{
    *json_out = cJSON_CreateObject();
    if (!*json_out)
        return out_of_memory(NULL);
    rt_status s = add_rows(store, *json_out, key, sql, trace, 0, "listing");
    if (!rt_ok(&s)) {
        cJSON_Delete(*json_out);
        *json_out = NULL;
    }
    return s;
}

static rt_status dash_goldens_now(struct rt_store *store, const char *trace, cJSON **json_out)
{
    return list_json(store, "goldens", sql_goldens_of, trace, json_out);
}

static rt_status dash_expectations_now(struct rt_store *store, const char *trace,
                                     cJSON **json_out)
{
    return list_json(store, "expectations", sql_expectations_of, trace, json_out);
}

/* ---- the public entry points: each in one snapshot ------------------------ */

rt_status rt_store_dash_runs(struct rt_store *store, const struct rt_dash_runs_query *query,
                             cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_runs_now(store, query, json_out));
}

rt_status rt_store_dash_run(struct rt_store *store, int64_t run_id, cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_run_now(store, run_id, json_out));
}

rt_status rt_store_dash_result(struct rt_store *store, int64_t result_id, cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_result_now(store, result_id, json_out));
}

rt_status rt_store_dash_history(struct rt_store *store, const char *trace,
                                const char *device_key, cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_history_now(store, trace, device_key, json_out));
}

rt_status rt_store_dash_goldens(struct rt_store *store, const char *trace, cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_goldens_now(store, trace, json_out));
}

rt_status rt_store_dash_expectations(struct rt_store *store, const char *trace,
                                     cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_expectations_now(store, trace, json_out));
}
