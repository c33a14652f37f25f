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
/* The same when the caller read the result's series ?1, run start ?2 and run
 * ?3 with it (bound straight into the range: a CTE of parameters made SQLite
 * sort the whole series instead of walking the index backwards). */
#define EARLIER_AT                                                                       \
    " FROM results r WHERE r.series_id = ?1"                                             \
    " AND (r.run_start < ?2 OR (r.run_start = ?2 AND r.run_id < ?3))"

/* A failure: the last pass before it, the first failure after that pass. */
#define TRIAGE(with, earlier)                                                            \
    with " lp AS (SELECT r.run_start AS s, r.run_id AS rid" earlier                      \
    " AND r.status IN ('pass','flaky') ORDER BY r.run_start DESC, r.run_id DESC LIMIT 1)" \
    " SELECT (SELECT rid FROM lp),"                                                      \
    "  (SELECT r.run_id" earlier " AND r.status IN " FAILING                             \
    "   AND (NOT EXISTS (SELECT 1 FROM lp)"                                              \
    "   OR r.run_start > (SELECT s FROM lp) OR (r.run_start = (SELECT s FROM lp)"        \
    "   AND r.run_id > (SELECT rid FROM lp)))"                                           \
    "   ORDER BY r.run_start, r.run_id LIMIT 1)"
static const char sql_triage[] = TRIAGE(ME ",", EARLIER);
static const char sql_triage_at[] = TRIAGE("WITH", EARLIER_AT);
/* Anything else: only whether the result before it failed ("fixed"). */
#define PREVIOUS(earlier) " SELECT r.status" earlier " ORDER BY r.run_start DESC, r.run_id DESC LIMIT 1"
static const char sql_previous[] = ME PREVIOUS(EARLIER);
static const char sql_previous_at[] = PREVIOUS(EARLIER_AT);

static bool failing(const char *status)
{
    return status && (!strcmp(status, "fail") || !strcmp(status, "error") ||
                      !strcmp(status, "crash") || !strcmp(status, "timeout"));
}

static void read_run(sqlite3_stmt *stmt, int column, int64_t *run, bool *has)
{
    *has = sqlite3_column_type(stmt, column) != SQLITE_NULL;
    *run = *has ? sqlite3_column_int64(stmt, column) : 0;
}

/* STMT (bound) answers the triage of a result (FAILS: of a failing status). */
static rt_status triage_step(struct rt_store *store, sqlite3_stmt *stmt, bool fails,
                             struct rt_dash_triage *out)
{
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW && fails) {
        read_run(stmt, 1, &out->since_run, &out->has_since);
        read_run(stmt, 0, &out->last_pass_run, &out->has_last_pass);
        out->state = out->has_since ? RT_TRIAGE_STILL_FAILING : RT_TRIAGE_NEW;
    } else if (rc == SQLITE_ROW && failing((const char *)sqlite3_column_text(stmt, 0))) {
        out->state = RT_TRIAGE_FIXED; /* passes now, failed last time */
    }
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return rt_store_sql_error(store, rc, "reading a result's history");
    return rt_ok_status();
}

rt_status rt_dash_triage_of(struct rt_store *store, int64_t id, const char *status,
                            struct rt_dash_triage *out)
{
    memset(out, 0, sizeof *out);
    bool fails = failing(status);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, fails ? sql_triage : sql_previous, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    return triage_step(store, stmt, fails, out);
}

rt_status rt_dash_triage_at(struct rt_store *store, const struct rt_dash_series_point *me,
                            const char *status, struct rt_dash_triage *out)
{
    memset(out, 0, sizeof *out);
    bool fails = failing(status);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, fails ? sql_triage_at : sql_previous_at, &stmt));
    sqlite3_bind_int64(stmt, 1, me->series_id);
    sqlite3_bind_int64(stmt, 2, me->run_start);
    sqlite3_bind_int64(stmt, 3, me->run_id);
    return triage_step(store, stmt, fails, out);
}

static const char *const state_names[] = {NULL, "new", "still-failing", "fixed"};

void rt_dash_triage_write(struct rt_jw *w, const struct rt_dash_triage *t)
{
    if (t->state == RT_TRIAGE_NONE) {
        rt_jw_null(w);
        return;
    }
    rt_jw_object(w);
    rt_jw_key(w, "state");
    rt_jw_string(w, state_names[t->state]);
    if (t->state != RT_TRIAGE_FIXED) {
        rt_jw_key(w, "since_run");
        if (t->has_since)
            rt_jw_int(w, t->since_run);
        else
            rt_jw_null(w);
        rt_jw_key(w, "last_pass_run");
        if (t->has_last_pass)
            rt_jw_int(w, t->last_pass_run);
        else
            rt_jw_null(w);
    }
    rt_jw_end_object(w);
}

static cJSON *run_or_null(int64_t run, bool has)
{
    return has ? cJSON_CreateNumber((double)run) : cJSON_CreateNull();
}

/* {"state": "new" | "still-failing" | "fixed", "since_run", "last_pass_run"} or null. */
static rt_status triage_one(struct rt_store *store, cJSON *result)
{
    struct rt_dash_triage tr;
    cJSON *id = cJSON_GetObjectItemCaseSensitive(result, "id");
    RT_TRY(rt_dash_triage_of(store, (int64_t)id->valuedouble, rt_dash_text_field(result, "status"),
                             &tr));
    cJSON *t = NULL;
    if (tr.state != RT_TRIAGE_NONE) {
        t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "state", state_names[tr.state]);
        if (tr.state != RT_TRIAGE_FIXED) {
            cJSON_AddItemToObject(t, "since_run", run_or_null(tr.since_run, tr.has_since));
            cJSON_AddItemToObject(t, "last_pass_run", run_or_null(tr.last_pass_run, tr.has_last_pass));
        }
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

void rt_dash_group_add(cJSON *groups, const char *hash, int64_t id, const char *status,
                       const char *configuration, const char *device_key)
{
    if (!hash || !*hash || !failing(status))
        return;
    cJSON *g = group_of(groups, hash);
    cJSON *count = cJSON_GetObjectItemCaseSensitive(g, "count");
    cJSON_SetNumberValue(count, count->valuedouble + 1);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(g, "result_ids"), cJSON_CreateNumber((double)id));
    add_unique(cJSON_GetObjectItemCaseSensitive(g, "configurations"), configuration ? configuration : "default");
    add_unique(cJSON_GetObjectItemCaseSensitive(g, "device_keys"), device_key ? device_key : "");
}

/* "groups": failing results by actual_hash, the largest first. */
static rt_status add_groups(cJSON *json, cJSON *results, const char *device_key)
{
    cJSON *groups = cJSON_AddArrayToObject(json, "groups"), *r;
    if (!groups)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    cJSON_ArrayForEach(r, results) {
        const char *key = rt_dash_text_field(r, "device_key");
        rt_dash_group_add(groups, rt_dash_text_field(r, "actual_hash"),
                          (int64_t)cJSON_GetObjectItemCaseSensitive(r, "id")->valuedouble,
                          rt_dash_text_field(r, "status"), rt_dash_text_field(r, "configuration"),
                          key ? key : device_key);
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
