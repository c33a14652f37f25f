/*
 * store/store_dash_triage.c — what is new and since when (issue 17 §2): each
 * result of a run set against the earlier results of the same trace x
 * configuration x frame x device key ("earlier" by the runs' start time,
 * then id, never by arrival): a failure is new, or still failing since run N
 * (last passed in run M); a pass after a failure is fixed. Failing results
 * with the same actual image (pixel hash) are grouped, so "the same image
 * fails on 3 configurations" is one row.
 */
#include "store_dash.h"

#include <string.h>

#define FAILING "('fail','error','crash','timeout')"

/* The earlier results of result ?1's series (its trace x frame x
 * configuration x device key), by its run's start then id: an index range
 * of results_by_series ending just before it. */
#define EARLIER                                                                          \
    " FROM results r, me WHERE r.series_id = me.sid"                                     \
    " AND (r.run_start < me.s OR (r.run_start = me.s AND r.run_id < me.rid))"
#define ME "WITH me AS (SELECT series_id AS sid, run_start AS s, run_id AS rid FROM results WHERE id = ?1)"

/* A failure: the last pass before it, the first failure after that pass. */
static const char sql_triage[] =
    ME ", lp AS (SELECT r.run_start AS s, r.run_id AS rid" EARLIER
    " AND r.status IN ('pass','flaky') ORDER BY r.run_start DESC, r.run_id DESC LIMIT 1)"
    " SELECT (SELECT rid FROM lp),"
    "  (SELECT r.run_id" EARLIER " AND r.status IN " FAILING " AND (NOT EXISTS (SELECT 1 FROM lp)"
    "   OR r.run_start > (SELECT s FROM lp) OR (r.run_start = (SELECT s FROM lp)"
    "   AND r.run_id > (SELECT rid FROM lp)))"
    "   ORDER BY r.run_start, r.run_id LIMIT 1)";
/* Anything else: only whether the result before it failed ("fixed"). */
static const char sql_previous[] =
    ME " SELECT r.status" EARLIER " ORDER BY r.run_start DESC, r.run_id DESC LIMIT 1";

static bool failing(const char *status)
{
    return status && (!strcmp(status, "fail") || !strcmp(status, "error") ||
                      !strcmp(status, "crash") || !strcmp(status, "timeout"));
}

static cJSON *run_or_null(sqlite3_stmt *stmt, int column)
{
    return sqlite3_column_type(stmt, column) == SQLITE_NULL
               ? cJSON_CreateNull() : cJSON_CreateNumber((double)sqlite3_column_int64(stmt, column));
}

/* {"state": "new" | "still-failing" | "fixed", "since_run", "last_pass_run"} or null. */
static rt_status triage_one(struct rt_store *store, cJSON *result)
{
    const char *status = rt_dash_text_field(result, "status");
    bool fails = failing(status);
    cJSON *id = cJSON_GetObjectItemCaseSensitive(result, "id");
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, fails ? sql_triage : sql_previous, &stmt));
    sqlite3_bind_int64(stmt, 1, (int64_t)id->valuedouble);
    int rc = sqlite3_step(stmt);
    cJSON *t = NULL;
    if (rc == SQLITE_ROW && fails) {
        bool since = sqlite3_column_type(stmt, 1) != SQLITE_NULL;
        t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "state", since ? "still-failing" : "new");
        cJSON_AddItemToObject(t, "since_run", since ? run_or_null(stmt, 1) : cJSON_CreateNull());
        cJSON_AddItemToObject(t, "last_pass_run", run_or_null(stmt, 0));
    } else if (rc == SQLITE_ROW && failing((const char *)sqlite3_column_text(stmt, 0))) {
        t = cJSON_CreateObject(); /* passes now, failed last time */
        cJSON_AddStringToObject(t, "state", "fixed");
    }
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        cJSON_Delete(t);
        return rt_store_sql_error(store, rc, "reading a result's history");
    }
    if (!cJSON_AddItemToObject(result, "triage", t ? t : cJSON_CreateNull()))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    return rt_ok_status();
}

/* The group of HASH in GROUPS, made when missing. */
static cJSON *group_of(cJSON *groups, const char *hash)
{
    cJSON *g;
    cJSON_ArrayForEach(g, groups)
        if (!strcmp(rt_dash_text_field(g, "actual_hash"), hash))
            return g;
    g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "actual_hash", hash);
    cJSON_AddNumberToObject(g, "count", 0);
    cJSON_AddArrayToObject(g, "result_ids");
    cJSON_AddArrayToObject(g, "configurations");
    cJSON_AddArrayToObject(g, "device_keys");
    cJSON_AddItemToArray(groups, g);
    return g;
}

static void add_unique(cJSON *array, const char *text)
{
    cJSON *item;
    cJSON_ArrayForEach(item, array)
        if (!strcmp(item->valuestring, text))
            return;
    cJSON_AddItemToArray(array, cJSON_CreateString(text));
}

/* "groups": failing results by actual_hash, the largest first. */
static rt_status add_groups(cJSON *json, cJSON *results, const char *device_key)
{
    cJSON *groups = cJSON_AddArrayToObject(json, "groups"), *r;
    if (!groups)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    cJSON_ArrayForEach(r, results) {
        const char *hash = rt_dash_text_field(r, "actual_hash");
        if (!hash || !*hash || !failing(rt_dash_text_field(r, "status")))
            continue;
        cJSON *g = group_of(groups, hash);
        cJSON *count = cJSON_GetObjectItemCaseSensitive(g, "count");
        cJSON_SetNumberValue(count, count->valuedouble + 1);
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(g, "result_ids"),
                             cJSON_CreateNumber(cJSON_GetObjectItemCaseSensitive(r, "id")->valuedouble));
        const char *config = rt_dash_text_field(r, "configuration");
        add_unique(cJSON_GetObjectItemCaseSensitive(g, "configurations"), config ? config : "default");
        const char *key = rt_dash_text_field(r, "device_key");
        add_unique(cJSON_GetObjectItemCaseSensitive(g, "device_keys"), key ? key : device_key ? device_key : "");
    }
    return rt_ok_status();
}

rt_status rt_dash_add_triage(struct rt_store *store, cJSON *json, cJSON *results, const char *device_key)
{
    cJSON *r;
    cJSON_ArrayForEach(r, results)
        RT_TRY(triage_one(store, r));
    return add_groups(json, results, device_key);
}
