/*
 * store/store_dash_joined.c — one nightly job run as shards on many machines
 * (`retrace run --shard I/N`) arrives as one upload per shard, each with its
 * own run id. The dashboard joins the runs that share a label and a start
 * date (docs/FORMATS.md section 2): their counts summed, their results in
 * one list, failures first.
 */
#include "store_dash.h"

static const char sql_joined_runs[] =
    RUN_COLUMNS " FROM runs u WHERE u.label = ?1 AND substr(u.started_at, 1, 10) = ?2"
    " ORDER BY u.id";
static const char sql_joined_results[] =
    RESULT_COLUMNS RESULT_FROM " WHERE r.run_id IN (SELECT id FROM runs"
    " WHERE label = ?1 AND substr(started_at, 1, 10) = ?2)" RESULTS_FAILURES_FIRST;

static void bind_key(sqlite3_stmt *stmt, const char *label, const char *date)
{
    sqlite3_bind_text(stmt, 1, label, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, date, -1, SQLITE_STATIC);
}

/* "counts": every run's counts added up. */
static rt_status sum_counts(cJSON *json, cJSON *runs)
{
    cJSON *total = cJSON_Duplicate(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(runs, 0), "counts"), 1);
    if (!total || !cJSON_AddItemToObject(json, "counts", total)) {
        cJSON_Delete(total);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory joining runs");
    }
    cJSON *run;
    cJSON_ArrayForEach(run, runs) {
        if (run == cJSON_GetArrayItem(runs, 0))
            continue;
        cJSON *count;
        cJSON_ArrayForEach(count, cJSON_GetObjectItemCaseSensitive(run, "counts")) {
            cJSON *sum = cJSON_GetObjectItemCaseSensitive(total, count->string);
            if (sum)
                cJSON_SetNumberValue(sum, sum->valuedouble + count->valuedouble);
        }
    }
    return rt_ok_status();
}

static rt_status fill(struct rt_store *store, const char *label, const char *date, cJSON *json)
{
    cJSON *runs = cJSON_AddArrayToObject(json, "runs");
    if (!runs || !cJSON_AddStringToObject(json, "label", label) ||
        !cJSON_AddStringToObject(json, "date", date))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory joining runs");
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_joined_runs, &stmt));
    bind_key(stmt, label, date);
    RT_TRY(rt_dash_rows_into(store, stmt, runs, "joining runs"));
    if (cJSON_GetArraySize(runs) == 0)
        return rt_ok_status();
    RT_TRY(rt_dash_add_counts(store, runs));
    RT_TRY(sum_counts(json, runs));
    cJSON *results = cJSON_AddArrayToObject(json, "results");
    if (!results)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory joining runs");
    RT_TRY(rt_store_stmt(store, sql_joined_results, &stmt));
    bind_key(stmt, label, date);
    return rt_dash_rows_into(store, stmt, results, "joining results");
}

static rt_status joined_now(struct rt_store *store, const char *label, const char *date,
                            cJSON **json_out)
{
    *json_out = cJSON_CreateObject();
    if (!*json_out)
        return rt_dash_out_of_memory(NULL);
    rt_status s = fill(store, label, date, *json_out);
    if (!rt_ok(&s) || cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(*json_out, "runs")) == 0) {
        cJSON_Delete(*json_out); /* an error, or no such runs: NULL */
        *json_out = NULL;
    }
    return s;
}

rt_status rt_store_dash_joined(struct rt_store *store, const char *label, const char *date,
                               cJSON **json_out)
{
    IN_SNAPSHOT(store, joined_now(store, label, date, json_out));
}
