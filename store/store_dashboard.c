/*
 * store/store_dashboard.c — the dashboard's read queries (see store.h,
 * "the dashboard's reads and writes"): one result, goldens, expectations.
 * Rows become JSON in store_dash_rows.c. The runs list, a run and a trace's
 * history are store_dash_pages.c's.
 * Every value is a bound parameter.
 */
#include "store_dash.h"

#include <string.h>

static const char sql_run_one[] = RUN_COLUMNS " FROM runs u WHERE u.id = ?1";

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

static const char sql_goldens_of[] =
    GOLDEN_COLUMNS " WHERE (?1 IS NULL OR t.name = ?1) ORDER BY t.name, g.frame, g.device_key, g.id";

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

rt_status rt_store_dash_result(struct rt_store *store, int64_t result_id, cJSON **json_out)
{
    IN_SNAPSHOT(store, dash_result_now(store, result_id, json_out));
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
