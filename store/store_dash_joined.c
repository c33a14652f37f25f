/*
 * store/store_dash_joined.c — one nightly job run as shards on many machines
 * (`retrace run --shard I/N`) arrives as one upload per shard, each with its
 * own run id. The dashboard joins the runs of one CI pipeline (--pipeline,
 * docs/FORMATS.md section 5.5), or, for runs without one, those that share
 * a label and a start date: their counts summed, their results in one list,
 * failures first, with triage and groups across the shards' devices.
 */
#include "store_dash.h"

/* ?3 a pipeline: its runs; else ?1 label and ?2 date. */
#define JOINED_RUNS                                                                      \
    " WHERE CASE WHEN ?3 IS NOT NULL THEN pipeline = ?3"                                  \
    " ELSE label = ?1 AND substr(started_at, 1, 10) = ?2 END"
static const char sql_joined_runs[] =
    RUN_COLUMNS " FROM runs u" JOINED_RUNS " ORDER BY u.started_at, u.id";
static const char sql_joined_results[] =
    RESULT_COLUMNS ", coalesce((SELECT device_key FROM runs WHERE id = r.run_id), '') AS device_key"
    RESULT_FROM " WHERE r.run_id IN (SELECT id FROM runs" JOINED_RUNS ")" RESULTS_FAILURES_FIRST;

struct joined_key {
    const char *label, *date, *pipeline;
};

static void bind_key(sqlite3_stmt *stmt, const struct joined_key *k)
{
    sqlite3_bind_text(stmt, 1, k->label, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, k->date, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, k->pipeline, -1, SQLITE_STATIC);
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

static rt_status fill(struct rt_store *store, const struct joined_key *k, cJSON *json)
{
    cJSON *runs = cJSON_AddArrayToObject(json, "runs");
    if (!runs || !cJSON_AddStringToObject(json, k->pipeline ? "pipeline" : "label",
                                          k->pipeline ? k->pipeline : k->label) ||
        (!k->pipeline && !cJSON_AddStringToObject(json, "date", k->date)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory joining runs");
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_joined_runs, &stmt));
    bind_key(stmt, k);
    RT_TRY(rt_dash_rows_into(store, stmt, runs, "joining runs"));
    if (cJSON_GetArraySize(runs) == 0)
        return rt_ok_status();
    RT_TRY(rt_dash_add_counts(store, runs));
    RT_TRY(sum_counts(json, runs));
    cJSON *results = cJSON_AddArrayToObject(json, "results");
    if (!results)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory joining runs");
    RT_TRY(rt_store_stmt(store, sql_joined_results, &stmt));
    bind_key(stmt, k);
    RT_TRY(rt_dash_rows_into(store, stmt, results, "joining results"));
    return rt_dash_add_triage(store, json, results, NULL);
}

static rt_status joined_now(struct rt_store *store, const struct joined_key *k, cJSON **json_out)
{
    *json_out = cJSON_CreateObject();
    if (!*json_out)
        return rt_dash_out_of_memory(NULL);
    rt_status s = fill(store, k, *json_out);
    if (!rt_ok(&s) || cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(*json_out, "runs")) == 0) {
        cJSON_Delete(*json_out); /* an error, or no such runs: NULL */
        *json_out = NULL;
    }
    return s;
}

rt_status rt_store_dash_joined(struct rt_store *store, const char *label, const char *date,
                               cJSON **json_out)
{
    struct joined_key k = {.label = label, .date = date};
    IN_SNAPSHOT(store, joined_now(store, &k, json_out));
}

rt_status rt_store_dash_pipeline(struct rt_store *store, const char *pipeline, cJSON **json_out)
{
    struct joined_key k = {.pipeline = pipeline};
    IN_SNAPSHOT(store, joined_now(store, &k, json_out));
}
