/*
 * store/store_sync.c — both ends of the golden sync (docs/FORMATS.md section
 * 5.1): the server lists the goldens and expectations of a device key; the
 * runner makes its cache exactly that set in one transaction, and keeps the
 * answer's ETag so that an unchanged set costs one small request.
 */
#include "store_dash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scope: the device key and "any device"; TRACES a JSON array of names, or NULL for all. */
#define SCOPE                                                                      \
    " g.device_key IN (?1, '') AND (?2 IS NULL OR t.name IN (SELECT value FROM json_each(?2)))"

static const char sql_sync_goldens[] =
    "SELECT g.id, t.name, g.frame, g.device_key, g.status, g.hash, g.size, g.width, g.height,"
    " g.approved_by, coalesce(g.approved_at, g.created_at) FROM goldens g"
    " JOIN traces t ON t.id = g.trace_id WHERE g.reverted_at IS NULL AND" SCOPE
    " ORDER BY t.name, g.frame, g.device_key, g.id";
static const char sql_sync_expectations[] =
    "SELECT t.name, g.device_key, g.kind, g.note, g.set_by, g.updated_at FROM expectations g"
    " JOIN traces t ON t.id = g.trace_id WHERE" SCOPE " ORDER BY t.name, g.device_key";
static const char sql_sync_seq[] =
    "SELECT max(coalesce((SELECT max(e.id) FROM golden_events e JOIN goldens g ON g.id ="
    " e.golden_id JOIN traces t ON t.id = g.trace_id WHERE" SCOPE "), 0),"
    " coalesce((SELECT max(e.id) FROM expectation_events e JOIN traces t ON t.id = e.trace_id"
    " JOIN (SELECT ?1 AS k UNION SELECT '') g ON e.device_key = g.k WHERE"
    " (?2 IS NULL OR t.name IN (SELECT value FROM json_each(?2)))), 0))";

void rt_expectation_rows_finish(struct rt_expectation_rows *rows)
{
    for (size_t i = 0; i < rows->count; i++) {
        struct rt_expectation_row *e = &rows->items[i];
        free(e->trace), free(e->device_key), free(e->note), free(e->set_by), free(e->updated_at);
    }
    free(rows->items);
    memset(rows, 0, sizeof *rows);
}

static void bind_scope(sqlite3_stmt *stmt, const char *device_key, const char *traces_json)
{
    sqlite3_bind_text(stmt, 1, device_key ? device_key : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, traces_json, -1, SQLITE_STATIC);
}

static rt_status read_golden(sqlite3_stmt *stmt, struct rt_golden *g)
{
    memset(g, 0, sizeof *g);
    g->id = sqlite3_column_int64(stmt, 0);
    g->trace = rt_store_column_strdup(stmt, 1);
    g->frame = (uint32_t)sqlite3_column_int64(stmt, 2);
    g->device_key = rt_store_column_strdup(stmt, 3);
    if (!rt_golden_status_parse((const char *)sqlite3_column_text(stmt, 4), &g->status))
        g->status = RT_GOLDEN_KNOWN_BAD;
    snprintf(g->hash, sizeof g->hash, "%s", (const char *)sqlite3_column_text(stmt, 5));
    g->size = (uint64_t)sqlite3_column_int64(stmt, 6);
    g->width = (uint32_t)sqlite3_column_int64(stmt, 7);
    g->height = (uint32_t)sqlite3_column_int64(stmt, 8);
    g->approved_by = rt_store_column_strdup(stmt, 9);
    g->approved_at = rt_store_column_strdup(stmt, 10);
    g->created_at = strdup("");
    bool ok = g->trace && g->device_key && g->approved_by && g->approved_at && g->created_at;
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory listing goldens");
}

static rt_status read_golden_row(sqlite3_stmt *stmt, void *row) { return read_golden(stmt, row); }

static rt_status list_goldens(struct rt_store *store, const char *key, const char *traces,
                              struct rt_golden_list *out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_sync_goldens, &stmt));
    bind_scope(stmt, key, traces);
    rt_status s = rt_store_read_rows(store, stmt, (void **)&out->items, &out->count, sizeof *out->items,
                                     read_golden_row, "listing goldens to sync");
    rt_store_stmt_done(stmt);
    return s;
}

static rt_status read_expectation(sqlite3_stmt *stmt, void *row)
{
    struct rt_expectation_row *e = row;
    memset(e, 0, sizeof *e);
    e->trace = rt_store_column_strdup(stmt, 0);
    e->device_key = rt_store_column_strdup(stmt, 1);
    if (!rt_expect_kind_parse((const char *)sqlite3_column_text(stmt, 2), &e->kind))
        e->kind = RT_EXPECT_NONE;
    e->note = rt_store_column_strdup(stmt, 3);
    e->set_by = rt_store_column_strdup(stmt, 4);
    e->updated_at = rt_store_column_strdup(stmt, 5);
    if (!e->trace || !e->device_key || !e->note || !e->set_by || !e->updated_at)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory listing expectations");
    return rt_ok_status();
}

static rt_status list_expectations(struct rt_store *store, const char *key, const char *traces,
                                   struct rt_expectation_rows *out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_sync_expectations, &stmt));
    bind_scope(stmt, key, traces);
    rt_status s = rt_store_read_rows(store, stmt, (void **)&out->items, &out->count, sizeof *out->items,
                                     read_expectation, "listing expectations to sync");
    rt_store_stmt_done(stmt);
    return s;
}

rt_status rt_store_sync_seq(struct rt_store *store, const char *device_key, const char *traces_json,
                            int64_t *seq_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_sync_seq, &stmt));
    bind_scope(stmt, device_key, traces_json);
    int rc = sqlite3_step(stmt);
    *seq_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW ? rt_ok_status() : rt_store_sql_error(store, rc, "reading the sync sequence");
}

rt_status rt_store_sync_list(struct rt_store *store, const char *device_key, const char *traces_json,
                             struct rt_store_sync_list *out)
{
    memset(out, 0, sizeof *out);
    /* One read transaction: the set and its seq are one snapshot. */
    bool began = false;
    RT_TRY(rt_dash_snapshot_begin(store, &began));
    rt_status s = rt_store_sync_seq(store, device_key, traces_json, &out->seq);
    if (rt_ok(&s))
        s = list_goldens(store, device_key, traces_json, &out->goldens);
    if (rt_ok(&s))
        s = list_expectations(store, device_key, traces_json, &out->expectations);
    s = rt_dash_snapshot_end(store, began, s);
    if (!rt_ok(&s))
        rt_store_sync_list_finish(out);
    return s;
}

void rt_store_sync_list_finish(struct rt_store_sync_list *list)
{
    rt_golden_list_finish(&list->goldens);
    rt_expectation_rows_finish(&list->expectations);
    memset(list, 0, sizeof *list);
}

/* ---- the runner's side: apply a set --------------------------------------------- */

static const char sql_find_exact[] =
    "SELECT g.id FROM goldens g JOIN traces t ON t.id = g.trace_id WHERE t.name = ?1"
    " AND g.frame = ?2 AND g.device_key = ?3 AND g.hash = ?4";
static const char sql_png_by_hash[] = "SELECT png FROM goldens WHERE hash = ?1 LIMIT 1";
static const char sql_mark_seen[] = "INSERT INTO temp.sync_seen (id) VALUES (?1)";
static const char sql_unseen_goldens[] =
    "SELECT g.id FROM goldens g JOIN traces t ON t.id = g.trace_id WHERE g.reverted_at IS NULL"
    " AND" SCOPE " AND g.id NOT IN (SELECT id FROM temp.sync_seen)";
static const char sql_unseen_expectations[] =
    "SELECT t.name, g.device_key FROM expectations g JOIN traces t ON t.id = g.trace_id"
    " WHERE" SCOPE " AND NOT EXISTS (SELECT 1 FROM temp.sync_seen_expect s WHERE"
    " s.trace = t.name AND s.device_key = g.device_key)";
static const char sql_mark_seen_expect[] =
    "INSERT OR IGNORE INTO temp.sync_seen_expect (trace, device_key) VALUES (?1, ?2)";
static const char sql_state_put[] =
    "INSERT INTO sync_state (server, device_key, traces, etag, seq, synced_at) VALUES"
    " (?1, ?2, ?3, ?4, ?5, strftime('%Y-%m-%dT%H:%M:%SZ','now')) ON CONFLICT (server,"
    " device_key, traces) DO UPDATE SET etag = excluded.etag, seq = excluded.seq,"
    " synced_at = excluded.synced_at";
static const char sql_state_get[] =
    "SELECT coalesce(etag, ''), coalesce(seq, 0), coalesce(synced_at, '') FROM sync_state"
    " WHERE server = ?1 AND device_key = ?2 AND traces = ?3";

rt_status rt_store_png_by_hash(struct rt_store *store, const char *hash, uint8_t **png_out,
                               size_t *size_out)
{
    *png_out = NULL;
    *size_out = 0;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_png_by_hash, &stmt));
    sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    rt_status s = rt_ok_status();
    int bytes = rc == SQLITE_ROW ? sqlite3_column_bytes(stmt, 0) : 0;
    if (bytes > 0 && (*png_out = malloc((size_t)bytes))) {
        memcpy(*png_out, sqlite3_column_blob(stmt, 0), (size_t)bytes);
        *size_out = (size_t)bytes;
    } else if (bytes > 0) {
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory reading a golden");
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        s = rt_store_sql_error(store, rc, "reading a golden by hash");
    }
    rt_store_stmt_done(stmt);
    return s;
}

static rt_status find_exact(struct rt_store *store, const struct rt_golden_new *g, const char *hash,
                            int64_t *id_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_find_exact, &stmt));
    sqlite3_bind_text(stmt, 1, g->trace, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, g->frame);
    sqlite3_bind_text(stmt, 3, g->device_key ? g->device_key : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 4, hash, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    *id_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? rt_ok_status()
                                                 : rt_store_sql_error(store, rc, "finding a golden");
}

static rt_status exec_id(struct rt_store *store, const char *sql, int64_t id)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    return rt_store_exec_stmt(store, stmt, "syncing goldens");
}

/* One golden of the set into the cache: an existing row takes the server's
 * status and approver; a missing one is stored with the bytes the caller
 * fetched, or that another golden of this store already holds. */
static rt_status apply_golden(struct rt_store *store, const struct rt_store_sync_golden *sg)
{
    struct rt_golden_new g = sg->golden;
    int64_t id = 0;
    RT_TRY(find_exact(store, &g, sg->hash, &id));
    if (id) {
        struct rt_golden_change c = {.golden_id = id, .action = "synced", .by = g.approved_by};
        RT_TRY(rt_store_golden_state(store, id, &c.before));
        c.after = (struct rt_golden_state){.exists = true, .status = g.status};
        if (!rt_golden_state_same(&c.before, &c.after))
            RT_TRY(rt_store_golden_event(store, &c, NULL));
        RT_TRY(rt_store_golden_set_approver(store, id, g.approved_by, g.approved_at, 0));
        return exec_id(store, sql_mark_seen, id);
    }
    uint8_t *local = NULL;
    if (!g.png) {
        size_t size = 0;
        RT_TRY(rt_store_png_by_hash(store, sg->hash, &local, &size));
        g.png = local, g.png_size = size;
    }
    rt_status s = rt_ok_status();
    char actual[RT_STORE_HASH_HEX + 1] = "";
    if (g.png)
        rt_store_hash_hex(g.png, g.png_size, actual);
    if (!g.png)
        s = rt_errorf(RT_ERR_BAD_INPUT, "golden %s of %s frame %u: no image for it", sg->hash,
                      g.trace, g.frame);
    else if (strcmp(actual, sg->hash))
        s = rt_errorf(RT_ERR_BAD_INPUT, "golden %s of %s frame %u: the image's hash is %s",
                      sg->hash, g.trace, g.frame, actual);
    struct rt_golden_put put = {.in = &g, .action = "synced", .force_status = true,
                                .set_approver = true};
    if (rt_ok(&s))
        s = rt_store_golden_put_tx(store, &put);
    if (rt_ok(&s))
        s = exec_id(store, sql_mark_seen, put.id);
    free(local);
    return s;
}

/* Reverts every golden in scope that the set did not name. */
static rt_status revert_unseen(struct rt_store *store, const struct rt_store_sync_apply *a,
                               size_t *count_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_unseen_goldens, &stmt));
    bind_scope(stmt, a->device_key, a->traces_json);
    int64_t ids[256];
    size_t n = 0;
    int rc;
    while (n < 256 && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        ids[n++] = sqlite3_column_int64(stmt, 0);
    rt_store_stmt_done(stmt);
    for (size_t i = 0; i < n; i++) {
        struct rt_golden_change c = {.golden_id = ids[i], .action = "synced", .by = a->server};
        RT_TRY(rt_store_golden_state(store, ids[i], &c.before));
        c.after = c.before;
        c.after.reverted = true;
        RT_TRY(rt_store_golden_event(store, &c, NULL));
    }
    *count_out += n;
    /* More than one batch: go again (each pass reverts what it saw). */
    return n == 256 ? revert_unseen(store, a, count_out) : rt_ok_status();
}

static rt_status apply_expectations(struct rt_store *store, const struct rt_store_sync_apply *a)
{
    sqlite3_stmt *stmt = NULL;
    int64_t event = 0;
    for (size_t i = 0; i < a->expectation_count; i++) {
        const struct rt_expectation_row *e = &a->expectations[i];
        struct rt_expect_write w = {.trace = e->trace, .device_key = e->device_key, .kind = e->kind,
                                    .note = e->note, .by = e->set_by, .updated_at = e->updated_at};
        RT_TRY(rt_store_expectation_write(store, &w, &event));
        RT_TRY(rt_store_stmt(store, sql_mark_seen_expect, &stmt));
        sqlite3_bind_text(stmt, 1, e->trace, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, e->device_key, -1, SQLITE_STATIC);
        RT_TRY(rt_store_exec_stmt(store, stmt, "syncing expectations"));
    }
    for (;;) { /* the local ones the server no longer has */
        RT_TRY(rt_store_stmt(store, sql_unseen_expectations, &stmt));
        bind_scope(stmt, a->device_key, a->traces_json);
        int rc = sqlite3_step(stmt);
        char trace[1024] = "", key[512] = "";
        if (rc == SQLITE_ROW) {
            snprintf(trace, sizeof trace, "%s", (const char *)sqlite3_column_text(stmt, 0));
            snprintf(key, sizeof key, "%s", (const char *)sqlite3_column_text(stmt, 1));
        }
        rt_store_stmt_done(stmt);
        if (rc != SQLITE_ROW)
            return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, "syncing expectations");
        struct rt_expect_write w = {.trace = trace, .device_key = key, .kind = RT_EXPECT_NONE,
                                    .by = a->server};
        RT_TRY(rt_store_expectation_write(store, &w, &event));
    }
}

static rt_status put_state(struct rt_store *store, const struct rt_store_sync_apply *a)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_state_put, &stmt));
    sqlite3_bind_text(stmt, 1, a->server, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, a->device_key ? a->device_key : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, a->traces_json ? a->traces_json : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 4, a->etag, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 5, a->seq);
    return rt_store_exec_stmt(store, stmt, "recording the sync");
}

static rt_status apply(struct rt_store *store, const struct rt_store_sync_apply *a,
                       struct rt_store_sync_counts *counts)
{
    /* Fixed DDL without values: sqlite3_exec is fine here. */
    char *err = NULL;
    int rc = sqlite3_exec(store->db,
                          "CREATE TEMP TABLE IF NOT EXISTS sync_seen (id INTEGER PRIMARY KEY);"
                          "CREATE TEMP TABLE IF NOT EXISTS sync_seen_expect (trace TEXT,"
                          " device_key TEXT, PRIMARY KEY (trace, device_key));"
                          "DELETE FROM temp.sync_seen; DELETE FROM temp.sync_seen_expect;",
                          NULL, NULL, &err);
    rt_status s = rc == SQLITE_OK ? rt_ok_status()
                                  : rt_store_rc_status(rc, "preparing the sync", err ? err : "");
    sqlite3_free(err);
    RT_TRY(s);
    for (size_t i = 0; i < a->golden_count; i++)
        RT_TRY(apply_golden(store, &a->goldens[i]));
    RT_TRY(revert_unseen(store, a, &counts->reverted));
    RT_TRY(apply_expectations(store, a));
    counts->goldens = a->golden_count;
    counts->expectations = a->expectation_count;
    return put_state(store, a);
}

rt_status rt_store_sync_apply(struct rt_store *store, const struct rt_store_sync_apply *a,
                              struct rt_store_sync_counts *counts_out)
{
    struct rt_store_sync_counts counts = {0};
    RT_TRY(rt_store_tx_begin(store));
    RT_TRY(rt_store_tx_end(store, apply(store, a, &counts)));
    if (counts_out)
        *counts_out = counts;
    return rt_ok_status();
}

rt_status rt_store_sync_state(struct rt_store *store, const char *server, const char *device_key,
                              const char *traces_json, struct rt_store_sync_state *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_state_get, &stmt));
    sqlite3_bind_text(stmt, 1, server, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, device_key ? device_key : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, traces_json ? traces_json : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        out->found = true;
        snprintf(out->etag, sizeof out->etag, "%s", (const char *)sqlite3_column_text(stmt, 0));
        out->seq = sqlite3_column_int64(stmt, 1);
        snprintf(out->synced_at, sizeof out->synced_at, "%s", (const char *)sqlite3_column_text(stmt, 2));
    }
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? rt_ok_status()
                                                 : rt_store_sql_error(store, rc, "reading the sync state");
}
