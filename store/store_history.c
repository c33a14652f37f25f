/*
 * store/store_history.c — every change of a golden or an expectation as an
 * event (schema 5, docs/FORMATS.md section 5.4): who, when, the state before
 * and after. An event is undone by putting the state before back, as a new
 * event; an undo that would overwrite a later change is refused.
 */
#include "store_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sql_golden_state[] =
    "SELECT status, reverted_at IS NOT NULL FROM goldens WHERE id = ?1";
static const char sql_golden_set_state[] =
    "UPDATE goldens SET status = ?2, reverted_at = CASE WHEN ?3 THEN coalesce(reverted_at,"
    " strftime('%Y-%m-%dT%H:%M:%SZ','now')) ELSE NULL END WHERE id = ?1";
static const char sql_golden_event[] =
    "INSERT INTO golden_events (golden_id, action, existed_before, status_before,"
    " reverted_before, status_after, reverted_after, by, result_id, undoes)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, nullif(?9, 0), nullif(?10, 0))";

rt_status rt_store_golden_state(struct rt_store *store, int64_t id, struct rt_golden_state *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_state, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        out->exists = true;
        const char *status = (const char *)sqlite3_column_text(stmt, 0);
        if (!rt_golden_status_parse(status, &out->status))
            out->status = RT_GOLDEN_KNOWN_BAD;
        out->reverted = sqlite3_column_int(stmt, 1) != 0;
    }
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? rt_ok_status()
                                                 : rt_store_sql_error(store, rc, "reading a golden");
}

bool rt_golden_state_same(const struct rt_golden_state *a, const struct rt_golden_state *b)
{
    return a->exists == b->exists && (!a->exists || (a->status == b->status && a->reverted == b->reverted));
}

rt_status rt_store_golden_event(struct rt_store *store, const struct rt_golden_change *c,
                                int64_t *event_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_set_state, &stmt));
    sqlite3_bind_int64(stmt, 1, c->golden_id);
    sqlite3_bind_text(stmt, 2, rt_golden_status_name(c->after.status), -1, SQLITE_STATIC);
    sqlite3_bind_int(stmt, 3, c->after.reverted);
    RT_TRY(rt_store_exec_stmt(store, stmt, "changing a golden"));
    RT_TRY(rt_store_stmt(store, sql_golden_event, &stmt));
    sqlite3_bind_int64(stmt, 1, c->golden_id);
    sqlite3_bind_text(stmt, 2, c->action, -1, SQLITE_STATIC);
    sqlite3_bind_int(stmt, 3, c->before.exists);
    if (c->before.exists)
        sqlite3_bind_text(stmt, 4, rt_golden_status_name(c->before.status), -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(stmt, 4);
    sqlite3_bind_int(stmt, 5, c->before.reverted);
    sqlite3_bind_text(stmt, 6, rt_golden_status_name(c->after.status), -1, SQLITE_STATIC);
    sqlite3_bind_int(stmt, 7, c->after.reverted);
    sqlite3_bind_text(stmt, 8, c->by ? c->by : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 9, c->result_id);
    sqlite3_bind_int64(stmt, 10, c->undoes);
    RT_TRY(rt_store_exec_stmt(store, stmt, "recording a golden's history"));
    if (event_out)
        *event_out = sqlite3_last_insert_rowid(store->db);
    return rt_ok_status();
}

/* Moves golden ID to AFTER (when that is a change) as one event. */
static rt_status change_to(struct rt_store *store, int64_t id, const char *action,
                           struct rt_golden_state after, const char *by, int64_t *event_out)
{
    struct rt_golden_change c = {.golden_id = id, .action = action, .after = after, .by = by};
    RT_TRY(rt_store_golden_state(store, id, &c.before));
    if (!c.before.exists)
        return rt_errorf(RT_ERR_BAD_INPUT, "no golden with id %lld", (long long)id);
    if (rt_golden_state_same(&c.before, &after)) {
        *event_out = 0;
        return rt_ok_status();
    }
    return rt_store_golden_event(store, &c, event_out);
}

rt_status rt_store_golden_mark_by(struct rt_store *store, int64_t id, enum rt_golden_status status,
                                  const char *by, int64_t *event_out)
{
    int64_t event = 0;
    RT_TRY(rt_store_tx_begin(store));
    struct rt_golden_state after = {.exists = true, .status = status};
    rt_status s = change_to(store, id, status == RT_GOLDEN_ACCEPTED ? "approved" : "known-bad",
                            after, by, &event);
    if (event_out)
        *event_out = event;
    return rt_store_tx_end(store, s);
}

rt_status rt_store_golden_revert(struct rt_store *store, int64_t id, const char *by,
                                 int64_t *event_out)
{
    int64_t event = 0;
    RT_TRY(rt_store_tx_begin(store));
    struct rt_golden_state now = {0};
    rt_status s = rt_store_golden_state(store, id, &now);
    if (rt_ok(&s) && !now.exists)
        s = rt_errorf(RT_ERR_BAD_INPUT, "no golden with id %lld", (long long)id);
    now.reverted = true;
    if (rt_ok(&s))
        s = change_to(store, id, "reverted", now, by, &event);
    if (event_out)
        *event_out = event;
    return rt_store_tx_end(store, s);
}

/* ---- undo ------------------------------------------------------------------- */

static const char sql_golden_event_get[] =
    "SELECT golden_id, existed_before, status_before, reverted_before, status_after,"
    " reverted_after, (SELECT count(*) FROM golden_events l WHERE l.golden_id = e.golden_id"
    " AND l.id > e.id) FROM golden_events e WHERE id = ?1";

static rt_status undo_golden(struct rt_store *store, int64_t event_id, const char *by,
                             struct rt_store_undo *out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_event_get, &stmt));
    sqlite3_bind_int64(stmt, 1, event_id);
    int rc = sqlite3_step(stmt);
    struct rt_golden_change c = {.action = "undo", .by = by, .undoes = event_id};
    int64_t later = 0;
    if (rc == SQLITE_ROW) {
        c.golden_id = sqlite3_column_int64(stmt, 0);
        bool existed = sqlite3_column_int(stmt, 1) != 0;
        const char *before = (const char *)sqlite3_column_text(stmt, 2);
        c.after.exists = true;
        c.after.reverted = !existed || sqlite3_column_int(stmt, 3) != 0;
        if (!existed || !rt_golden_status_parse(before, &c.after.status))
            rt_golden_status_parse((const char *)sqlite3_column_text(stmt, 4), &c.after.status);
        later = sqlite3_column_int64(stmt, 6);
    }
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, "reading an event");
    out->found = true;
    if (later > 0) {
        out->conflict = true;
        return rt_ok_status();
    }
    RT_TRY(rt_store_golden_state(store, c.golden_id, &c.before));
    out->golden_id = c.golden_id;
    return rt_store_golden_event(store, &c, &out->event_id);
}

rt_status rt_store_event_undo(struct rt_store *store, enum rt_store_event_kind kind,
                              int64_t event_id, const char *by, struct rt_store_undo *out)
{
    memset(out, 0, sizeof *out);
    RT_TRY(rt_store_tx_begin(store));
    rt_status s = kind == RT_EVENT_GOLDEN ? undo_golden(store, event_id, by, out)
                                          : rt_store_expectation_undo(store, event_id, by, out);
    return rt_store_tx_end(store, s);
}

/* ---- history as JSON ---------------------------------------------------------- */

static const char sql_golden_history[] =
    "SELECT id, action, status_before, reverted_before, status_after, reverted_after, by, at,"
    " result_id, undoes FROM golden_events WHERE golden_id = ?1 ORDER BY id";

static cJSON *text_or_null(sqlite3_stmt *stmt, int column)
{
    const char *t = (const char *)sqlite3_column_text(stmt, column);
    return t ? cJSON_CreateString(t) : cJSON_CreateNull();
}

static cJSON *int_or_null(sqlite3_stmt *stmt, int column)
{
    return sqlite3_column_type(stmt, column) == SQLITE_NULL
               ? cJSON_CreateNull() : cJSON_CreateNumber((double)sqlite3_column_int64(stmt, column));
}

static cJSON *golden_event_json(sqlite3_stmt *stmt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(stmt, 0));
    cJSON_AddItemToObject(o, "action", text_or_null(stmt, 1));
    cJSON_AddItemToObject(o, "status_before", text_or_null(stmt, 2));
    cJSON_AddBoolToObject(o, "reverted_before", sqlite3_column_int(stmt, 3));
    cJSON_AddItemToObject(o, "status", text_or_null(stmt, 4));
    cJSON_AddBoolToObject(o, "reverted", sqlite3_column_int(stmt, 5));
    cJSON_AddItemToObject(o, "by", text_or_null(stmt, 6));
    cJSON_AddItemToObject(o, "at", text_or_null(stmt, 7));
    cJSON_AddItemToObject(o, "result_id", int_or_null(stmt, 8));
    cJSON_AddItemToObject(o, "undoes", int_or_null(stmt, 9));
    return o;
}

rt_status rt_store_rows_json(struct rt_store *store, sqlite3_stmt *stmt,
                             cJSON *(*row)(sqlite3_stmt *), cJSON *array, const char *what)
{
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        cJSON_AddItemToArray(array, row(stmt));
    rt_store_stmt_done(stmt);
    return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, what);
}

/* One history's events: SQL with ?1 bound to TEXT, or to ID when TEXT is NULL. */
struct history_query {
    const char *sql;
    int64_t id;
    const char *text;
    cJSON *(*row)(sqlite3_stmt *);
    const char *what;
};

/* ROOT with its "events" as *json_out; on an error ROOT is freed and *json_out stays NULL. */
static rt_status with_events(struct rt_store *store, const struct history_query *q, cJSON *root,
                             cJSON **json_out)
{
    cJSON *events = root ? cJSON_AddArrayToObject(root, "events") : NULL;
    sqlite3_stmt *stmt = NULL;
    rt_status s = events ? rt_store_stmt(store, q->sql, &stmt) : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    if (rt_ok(&s)) {
        if (q->text)
            sqlite3_bind_text(stmt, 1, q->text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_int64(stmt, 1, q->id);
        s = rt_store_rows_json(store, stmt, q->row, events, q->what);
    }
    if (!rt_ok(&s)) {
        cJSON_Delete(root);
        return s;
    }
    *json_out = root;
    return rt_ok_status();
}

rt_status rt_store_dash_golden_history(struct rt_store *store, int64_t golden_id, cJSON **json_out)
{
    *json_out = NULL;
    struct rt_golden g = {0};
    rt_status s = rt_store_golden_get(store, golden_id, false, &g);
    if (!rt_ok(&s)) {
        rt_golden_finish(&g);
        return rt_store_status_busy(&s) ? s : rt_ok_status(); /* unknown id: NULL */
    }
    cJSON *root = cJSON_CreateObject();
    cJSON *golden = cJSON_AddObjectToObject(root, "golden");
    cJSON_AddNumberToObject(golden, "id", (double)g.id);
    cJSON_AddStringToObject(golden, "trace", g.trace);
    cJSON_AddNumberToObject(golden, "frame", g.frame);
    cJSON_AddStringToObject(golden, "device_key", g.device_key);
    cJSON_AddStringToObject(golden, "status", rt_golden_status_name(g.status));
    cJSON_AddBoolToObject(golden, "reverted", g.reverted);
    cJSON_AddStringToObject(golden, "hash", g.hash);
    cJSON_AddStringToObject(golden, "approved_by", g.approved_by);
    cJSON_AddStringToObject(golden, "approved_at", g.approved_at ? g.approved_at : "");
    rt_golden_finish(&g);
    struct history_query q = {.sql = sql_golden_history, .id = golden_id, .row = golden_event_json,
                              .what = "reading a golden's history"};
    return with_events(store, &q, root, json_out);
}

static const char sql_expect_history[] =
    "SELECT e.id, e.device_key, e.kind_before, e.note_before, e.kind_after, e.note_after,"
    " e.by, e.at, e.undoes FROM expectation_events e JOIN traces t ON t.id = e.trace_id"
    " WHERE t.name = ?1 ORDER BY e.id";
static const char sql_trace_known[] = "SELECT 1 FROM traces WHERE name = ?1";

static cJSON *expectation_event_json(sqlite3_stmt *stmt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(stmt, 0));
    cJSON_AddItemToObject(o, "device_key", text_or_null(stmt, 1));
    cJSON_AddItemToObject(o, "kind_before", text_or_null(stmt, 2));
    cJSON_AddItemToObject(o, "note_before", text_or_null(stmt, 3));
    cJSON_AddItemToObject(o, "kind", text_or_null(stmt, 4));
    cJSON_AddItemToObject(o, "note", text_or_null(stmt, 5));
    cJSON_AddItemToObject(o, "by", text_or_null(stmt, 6));
    cJSON_AddItemToObject(o, "at", text_or_null(stmt, 7));
    cJSON_AddItemToObject(o, "undoes", int_or_null(stmt, 8));
    return o;
}

rt_status rt_store_dash_expectation_history(struct rt_store *store, const char *trace,
                                            cJSON **json_out)
{
    *json_out = NULL;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_trace_known, &stmt));
    sqlite3_bind_text(stmt, 1, trace, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, "finding a trace");
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "trace", trace);
    struct history_query q = {.sql = sql_expect_history, .text = trace, .row = expectation_event_json,
                              .what = "reading an expectation's history"};
    return with_events(store, &q, root, json_out);
}
