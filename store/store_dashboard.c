/*
 * store/store_dashboard.c — the dashboard's read queries (see store.h,
 * "the dashboard's reads and writes"): runs, one run, one result, a trace's
 * history, goldens, expectations. Rows become JSON in store_dash_rows.c.
 * Every value is a bound parameter.
 */
#include "store_dash.h"

#include <string.h>

/* ---- runs ---------------------------------------------------------------- */

#define RUNS_MATCHING                                                                   \
    " FROM runs u WHERE (?1 IS NULL OR u.label = ?1)"                                   \
    " AND (?2 IS NULL OR u.device = ?2 OR u.device_key = ?2)"                           \
    " AND (?3 IS NULL OR u.outcome = ?3"                                                \
    "  OR EXISTS (SELECT 1 FROM run_counts c WHERE c.run_id = u.id AND c.status = ?3"  \
    "   AND c.n > 0))"

static const char sql_runs_page[] =
    RUN_COLUMNS RUNS_MATCHING " ORDER BY u.started_at DESC, u.id DESC LIMIT ?4 OFFSET ?5";
static const char sql_runs_total[] = "SELECT count(*)" RUNS_MATCHING;
static const char sql_run_one[] = RUN_COLUMNS " FROM runs u WHERE u.id = ?1";

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
    cJSON *runs = cJSON_AddArrayToObject(json, "runs");
    if (!runs || !cJSON_AddNumberToObject(json, "total", (double)total) ||
        !cJSON_AddNumberToObject(json, "limit", q->limit) ||
        !cJSON_AddNumberToObject(json, "offset", q->offset))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory listing runs");
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_runs_page, &stmt));
    bind_runs_query(stmt, q);
    sqlite3_bind_int64(stmt, 4, q->limit);
    sqlite3_bind_int64(stmt, 5, q->offset);
    RT_TRY(rt_dash_rows_into(store, stmt, runs, "listing runs"));
    RT_TRY(rt_dash_add_counts(store, runs));
    cJSON *run;
    cJSON_ArrayForEach(run, runs)
        RT_TRY(rt_dash_add_history(store, run));
    return rt_ok_status();
}

static rt_status dash_runs_now(struct rt_store *store, const struct rt_dash_runs_query *query,
                             cJSON **json_out)
{
    *json_out = cJSON_CreateObject();
    if (!*json_out)
        return rt_dash_out_of_memory(NULL);
    rt_status s = fill_runs(store, query, *json_out);
    if (!rt_ok(&s)) {
        cJSON_Delete(*json_out);
        *json_out = NULL;
    }
    return s;
}

/* ---- one run ------------------------------------------------------------- */

static const char sql_run_results[] =
    RESULT_COLUMNS RESULT_FROM " WHERE r.run_id = ?1" RESULTS_FAILURES_FIRST " LIMIT ?2 OFFSET ?3";

struct run_page {
    int64_t run_id;
    uint32_t limit, offset;
};

/* "results_total": every result of the run, from its counts. */
static rt_status add_total(cJSON *run, const struct run_page *page)
{
    double total = 0;
    cJSON *count;
    cJSON_ArrayForEach(count, cJSON_GetObjectItemCaseSensitive(run, "counts"))
        total += count->valuedouble;
    if (!cJSON_AddNumberToObject(run, "results_total", total) ||
        !cJSON_AddNumberToObject(run, "results_limit", page->limit) ||
        !cJSON_AddNumberToObject(run, "results_offset", page->offset))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a run");
    return rt_ok_status();
}

static rt_status fill_run(struct rt_store *store, const struct run_page *page, cJSON *run)
{
    /* add_counts works on a list: lend RUN to a one-item list, then take it back. */
    cJSON *runs = cJSON_CreateArray();
    if (!runs || !cJSON_AddItemToArray(runs, run)) {
        cJSON_Delete(runs);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a run");
    }
    rt_status s = rt_dash_add_counts(store, runs);
    cJSON_DetachItemFromArray(runs, 0);
    cJSON_Delete(runs);
    RT_TRY(s);
    RT_TRY(add_total(run, page));
    RT_TRY(rt_dash_add_history(store, run));
    cJSON *results = cJSON_AddArrayToObject(run, "results");
    if (!results)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a run");
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_results, &stmt));
    sqlite3_bind_int64(stmt, 1, page->run_id);
    sqlite3_bind_int64(stmt, 2, page->limit);
    sqlite3_bind_int64(stmt, 3, page->offset);
    RT_TRY(rt_dash_rows_into(store, stmt, results, "reading a run's results"));
    return rt_dash_add_triage(store, run, results, rt_dash_text_field(run, "device_key"));
}

typedef rt_status (*fill_fn)(struct rt_store *store, int64_t id, cJSON *row);

/* The row SQL (bound: ?1 = ID) finds, completed by FILL; NULL when there is
 * none; nothing half-filled on failure. */
static rt_status row_by_id(struct rt_store *store, const char *sql, int64_t id, fill_fn fill,
                           const char *what, cJSON **json_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    RT_TRY(rt_dash_row_into(store, stmt, json_out, what));
    if (!*json_out)
        return rt_ok_status();
    rt_status s = fill(store, id, *json_out);
    if (!rt_ok(&s)) {
        cJSON_Delete(*json_out);
        *json_out = NULL;
    }
    return s;
}

static rt_status dash_run_now(struct rt_store *store, const struct run_page *page,
                             cJSON **json_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_one, &stmt));
    sqlite3_bind_int64(stmt, 1, page->run_id);
    RT_TRY(rt_dash_row_into(store, stmt, json_out, "reading a run"));
    if (!*json_out)
        return rt_ok_status();
    rt_status s = fill_run(store, page, *json_out);
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
    " g.width, g.height, g.approved_by, g.from_result, g.created_at,"                  \
    " coalesce(g.approved_at, g.created_at) AS approved_at, g.reverted_at"              \
    " FROM goldens g JOIN traces t ON t.id = g.trace_id"
static const char sql_goldens_of_frame[] =
    GOLDEN_COLUMNS " WHERE t.name = ?1 AND g.frame = ?2 ORDER BY g.device_key, g.id";
static const char sql_golden_compared[] = GOLDEN_COLUMNS " WHERE g.id = ?1";
#define EXPECTATION_COLUMNS                                                              \
    "SELECT t.name AS trace, e.device_key, e.kind, e.note, e.updated_at, e.set_by"     \
    " FROM expectations e JOIN traces t ON t.id = e.trace_id"
static const char sql_expectations_of[] =
    EXPECTATION_COLUMNS " WHERE (?1 IS NULL OR t.name = ?1) ORDER BY t.name, e.device_key";

/* Adds the result of STMT (bound: ?1 = TEXT_KEY's value, ?2 = FRAME) under KEY. */
static rt_status add_rows(struct rt_store *store, cJSON *obj, const char *key,
                          const char *sql, const char *text, int64_t number,
                          const char *what)
{
    cJSON *array = cJSON_AddArrayToObject(obj, key);
    if (!array)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory %s", what);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql, &stmt));
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_TRANSIENT);
    if (sqlite3_bind_parameter_count(stmt) >= 2)
        sqlite3_bind_int64(stmt, 2, number);
    return rt_dash_rows_into(store, stmt, array, what);
}

static rt_status fill_result(struct rt_store *store, int64_t result_id, cJSON *result)
{
    (void)result_id; /* the row holds what the rest needs: run, trace, frame */
    int64_t run_id = (int64_t)cJSON_GetObjectItemCaseSensitive(result, "run_id")->valuedouble;
    const char *trace = rt_dash_text_field(result, "trace");
    int64_t frame = (int64_t)cJSON_GetObjectItemCaseSensitive(result, "frame")->valuedouble;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_one, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    cJSON *run = NULL;
    RT_TRY(rt_dash_row_into(store, stmt, &run, "reading a result's run"));
    if (run && !cJSON_AddItemToObject(result, "run", run)) {
        cJSON_Delete(run);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a result");
    }
    /* The golden this result was compared with, and no other (issue 17). */
    const cJSON *golden_id = cJSON_GetObjectItemCaseSensitive(result, "golden_id");
    cJSON *compared = NULL;
    if (cJSON_IsNumber(golden_id)) {
        RT_TRY(rt_store_stmt(store, sql_golden_compared, &stmt));
        sqlite3_bind_int64(stmt, 1, (int64_t)golden_id->valuedouble);
        RT_TRY(rt_dash_row_into(store, stmt, &compared, "reading the golden compared"));
    }
    if (!cJSON_AddItemToObject(result, "golden", compared ? compared : cJSON_CreateNull()))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a result");
    RT_TRY(add_rows(store, result, "goldens", sql_goldens_of_frame, trace, frame,
                    "reading a result's goldens"));
    return add_rows(store, result, "expectations", sql_expectations_of, trace, 0,
                    "reading a result's expectations");
}

static rt_status dash_result_now(struct rt_store *store, int64_t result_id, cJSON **json_out)
{
    return row_by_id(store, sql_result_one, result_id, fill_result, "reading a result",
                     json_out);
}

/* ---- a trace's history, goldens, expectations ------------------------------ */

static const char sql_trace_exists[] = "SELECT id FROM traces WHERE name = ?1";
/* The newest ?3 results of trace ?1 (of device key ?2 through its series),
 * oldest first: an index walk backwards from the newest, never the whole
 * trace's results. */
#define HISTORY_COLUMNS                                                                   \
    "SELECT u.id AS run_id, u.started_at, u.label, u.device,"                             \
    " coalesce(u.device_key, '') AS device_key, r.id AS result_id, r.frame, r.status,"    \
    " r.ssim, r.ssim_worst_tile, r.threshold, r.tile_threshold, r.configuration,"         \
    " r.delta_e, r.colour_threshold, r.expected, r.run_start AS start_"
#define HISTORY_NEWEST " ORDER BY r.run_start DESC, r.run_id DESC, r.frame DESC LIMIT ?3"
#define HISTORY_OLDEST_FIRST ") ORDER BY start_, run_id, frame"
static const char sql_history[] =
    "SELECT * FROM (" HISTORY_COLUMNS " FROM results r JOIN runs u ON u.id = r.run_id"
    " WHERE r.trace_id = ?1" HISTORY_NEWEST HISTORY_OLDEST_FIRST;
static const char sql_history_device[] =
    "SELECT * FROM (" HISTORY_COLUMNS " FROM results r JOIN runs u ON u.id = r.run_id"
    " WHERE r.series_id IN (SELECT id FROM series WHERE trace_id = ?1 AND device_key = ?2)"
    HISTORY_NEWEST HISTORY_OLDEST_FIRST;
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
                                  const char *device_key, uint32_t limit, cJSON **json_out)
{
    *json_out = NULL;
    int64_t id = 0;
    RT_TRY(trace_id(store, trace, &id));
    if (!id)
        return rt_ok_status();
    cJSON *json = cJSON_CreateObject();
    cJSON *points = json && cJSON_AddStringToObject(json, "trace", trace)
                        ? cJSON_AddArrayToObject(json, "points") : NULL;
    if (!points)
        return rt_dash_out_of_memory(json);
    sqlite3_stmt *stmt = NULL;
    rt_status s = rt_store_stmt(store, device_key ? sql_history_device : sql_history, &stmt);
    if (rt_ok(&s)) {
        sqlite3_bind_int64(stmt, 1, id);
        sqlite3_bind_text(stmt, 2, device_key, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 3, limit);
        s = rt_dash_rows_into(store, stmt, points, "reading a trace's history");
    }
    cJSON *point;
    cJSON_ArrayForEach(point, points)
        cJSON_DeleteItemFromObjectCaseSensitive(point, "start_"); /* the sort key only */
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
        return rt_dash_out_of_memory(NULL);
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

rt_status rt_store_dash_run(struct rt_store *store, int64_t run_id, uint32_t limit,
                            uint32_t offset, cJSON **json_out)
{
    struct run_page page = {.run_id = run_id, .limit = limit, .offset = offset};
    IN_SNAPSHOT(store, dash_run_now(store, &page, json_out));
}

rt_status rt_store_dash_result(struct rt_store *store, int64_t result_id, cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_result_now(store, result_id, json_out));
}

rt_status rt_store_dash_history(struct rt_store *store, const char *trace,
                                const char *device_key, uint32_t limit, cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_history_now(store, trace, device_key, limit, json_out));
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
