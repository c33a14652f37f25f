/*
 * store/store_golden.c — golden images and expectations (see store.h).
 */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_io.h"

#define GOLDEN_COLUMNS                                                                    \
    "SELECT g.id, t.name, g.frame, g.device_key, g.status, g.hash, g.size, g.width,"     \
    " g.height, g.approved_by, coalesce(g.from_result, 0), g.created_at,"                 \
    " coalesce(g.approved_at, g.created_at), g.reverted_at IS NOT NULL"
#define GOLDEN_FROM " FROM goldens g JOIN traces t ON t.id = g.trace_id"
#define GOLDEN_ORDER " ORDER BY t.name, g.frame, g.device_key, g.id"

static const char sql_golden_list[] =
    GOLDEN_COLUMNS GOLDEN_FROM
    " WHERE (?1 IS NULL OR t.name = ?1) AND (?2 = 0 OR g.frame = ?2)"
    " AND (?3 IS NULL OR g.device_key = ?3) AND g.reverted_at IS NULL" GOLDEN_ORDER;
static const char sql_golden_get[] = GOLDEN_COLUMNS ", g.png" GOLDEN_FROM " WHERE g.id = ?1";
static const char sql_golden_for[] =
    GOLDEN_COLUMNS ", g.png" GOLDEN_FROM
    " WHERE t.name = ?1 AND g.frame = ?2 AND g.device_key = ?3 AND g.status = 'accepted'"
    " AND g.reverted_at IS NULL"
    GOLDEN_ORDER;
static const char sql_golden_insert[] =
    "INSERT INTO goldens (trace_id, frame, device_key, status, png, hash, size, width,"
    " height, approved_by, from_result, approved_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
    " ?9, ?10, nullif(?11, 0), coalesce(?12, strftime('%Y-%m-%dT%H:%M:%SZ','now')))"
    " ON CONFLICT (trace_id, frame, device_key, hash) DO NOTHING";
static const char sql_golden_approver[] =
    "UPDATE goldens SET approved_by = ?2, approved_at = coalesce(?3,"
    " strftime('%Y-%m-%dT%H:%M:%SZ','now')), from_result = coalesce(nullif(?4, 0), from_result)"
    " WHERE id = ?1";
static const char sql_golden_find[] =
    "SELECT id FROM goldens WHERE trace_id = ?1 AND frame = ?2 AND device_key = ?3"
    " AND hash = ?4";

static const char *const golden_status_names[] = {"accepted", "known-bad"};

const char *rt_golden_status_name(enum rt_golden_status status)
{
    return (unsigned)status < 2 ? golden_status_names[status] : "unknown";
}

bool rt_golden_status_parse(const char *name, enum rt_golden_status *status_out)
{
    for (unsigned i = 0; i < 2; i++)
        if (name && !strcmp(name, golden_status_names[i])) {
            *status_out = (enum rt_golden_status)i;
            return true;
        }
    return false;
}

void rt_golden_finish(struct rt_golden *golden)
{
    free(golden->trace);
    free(golden->device_key);
    free(golden->approved_by);
    free(golden->created_at);
    free(golden->approved_at);
    free(golden->png);
    memset(golden, 0, sizeof *golden);
}

void rt_golden_list_finish(struct rt_golden_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        rt_golden_finish(&list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

static rt_status read_png_column(sqlite3_stmt *stmt, int column, struct rt_golden *g)
{
    const void *blob = sqlite3_column_blob(stmt, column);
    int bytes = sqlite3_column_bytes(stmt, column);
    if (bytes <= 0)
        return rt_ok_status();
    g->png = malloc((size_t)bytes);
    if (!g->png)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading golden %lld", (long long)g->id);
    memcpy(g->png, blob, (size_t)bytes);
    g->png_size = (size_t)bytes;
    return rt_ok_status();
}

/* Fills G from a row of GOLDEN_COLUMNS (plus the PNG in column 14 when WITH_PNG). */
static rt_status read_golden_row(sqlite3_stmt *stmt, bool with_png, struct rt_golden *g)
{
    memset(g, 0, sizeof *g);
    g->id = sqlite3_column_int64(stmt, 0);
    g->trace = rt_store_column_strdup(stmt, 1);
    g->frame = (uint32_t)sqlite3_column_int64(stmt, 2);
    g->device_key = rt_store_column_strdup(stmt, 3);
    const unsigned char *status = sqlite3_column_text(stmt, 4);
    if (!rt_golden_status_parse((const char *)status, &g->status))
        g->status = RT_GOLDEN_KNOWN_BAD; /* CHECK forbids this; never match it */
    const unsigned char *hash = sqlite3_column_text(stmt, 5);
    snprintf(g->hash, sizeof g->hash, "%s", hash ? (const char *)hash : "");
    g->size = (uint64_t)sqlite3_column_int64(stmt, 6);
    g->width = (uint32_t)sqlite3_column_int64(stmt, 7);
    g->height = (uint32_t)sqlite3_column_int64(stmt, 8);
    g->approved_by = rt_store_column_strdup(stmt, 9);
    g->from_result = sqlite3_column_int64(stmt, 10);
    g->created_at = rt_store_column_strdup(stmt, 11);
    g->approved_at = rt_store_column_strdup(stmt, 12);
    g->reverted = sqlite3_column_int(stmt, 13) != 0;
    if (!g->trace || !g->device_key || !g->approved_by || !g->created_at || !g->approved_at)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading golden %lld", (long long)g->id);
    return with_png ? read_png_column(stmt, 14, g) : rt_ok_status();
}

/* Steps STMT to the end, appending each row to LIST. Resets STMT. */
static rt_status collect_goldens(struct rt_store *store, sqlite3_stmt *stmt, bool with_png,
                                 struct rt_golden_list *list)
{
    rt_status s = rt_ok_status();
    size_t capacity = list->count;
    int rc;
    while (rt_ok(&s) && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (list->count == capacity) {
            capacity = capacity ? capacity * 2 : 8;
            struct rt_golden *grown = realloc(list->items, capacity * sizeof *grown);
            if (!grown) {
                s = rt_errorf(RT_ERR_INTERNAL, "out of memory listing goldens");
                break;
            }
            list->items = grown;
        }
        s = read_golden_row(stmt, with_png, &list->items[list->count++]);
    }
    if (rt_ok(&s) && rc != SQLITE_DONE)
        s = rt_store_sql_error(store, rc, "reading goldens");
    rt_store_stmt_done(stmt);
    if (!rt_ok(&s))
        rt_golden_list_finish(list);
    return s;
}

rt_status rt_store_golden_list(struct rt_store *store, const struct rt_golden_filter *filter,
                               struct rt_golden_list *list_out)
{
    memset(list_out, 0, sizeof *list_out);
    struct rt_golden_filter all = {0};
    if (!filter)
        filter = &all;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_list, &stmt));
    sqlite3_bind_text(stmt, 1, filter->trace, -1, SQLITE_STATIC); /* NULL binds NULL */
    sqlite3_bind_int64(stmt, 2, filter->frame);
    sqlite3_bind_text(stmt, 3, filter->device_key, -1, SQLITE_STATIC);
    return collect_goldens(store, stmt, false, list_out);
}

rt_status rt_store_golden_get(struct rt_store *store, int64_t id, bool with_png,
                              struct rt_golden *golden_out)
{
    memset(golden_out, 0, sizeof *golden_out);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_get, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    int rc = sqlite3_step(stmt);
    rt_status s = rt_ok_status();
    if (rc == SQLITE_ROW)
        s = read_golden_row(stmt, with_png, golden_out);
    else if (rc == SQLITE_DONE)
        s = rt_errorf(RT_ERR_BAD_INPUT, "no golden with id %lld", (long long)id);
    else
        s = rt_store_sql_error(store, rc, "reading a golden");
    rt_store_stmt_done(stmt);
    if (!rt_ok(&s))
        rt_golden_finish(golden_out);
    return s;
}

rt_status rt_store_goldens_for(struct rt_store *store, const char *trace, uint32_t frame,
                               const char *device_key, struct rt_golden_list *list_out)
{
    memset(list_out, 0, sizeof *list_out);
    if (!trace)
        return rt_errorf(RT_ERR_USAGE, "a trace name is required");
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_for, &stmt));
    const char *keys[2] = {device_key ? device_key : "", ""};
    /* The device's own goldens replace the generic ones rather than adding
     * to them: a vendor-specific golden exists because the generic one is
     * wrong for that vendor. */
    for (int i = 0; i < 2 && list_out->count == 0; i++) {
        if (i == 1 && !keys[0][0])
            break;
        sqlite3_bind_text(stmt, 1, trace, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 2, frame);
        sqlite3_bind_text(stmt, 3, keys[i], -1, SQLITE_STATIC);
        RT_TRY(collect_goldens(store, stmt, true, list_out));
    }
    return rt_ok_status();
}

static rt_status check_png(const struct rt_golden_new *in, uint32_t *width, uint32_t *height)
{
    if (!in->png || in->png_size == 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "the image is empty");
    struct rt_image image = {0};
    RT_TRY(rt_png_read_memory(in->png, in->png_size, &image));
    *width = image.width;
    *height = image.height;
    rt_image_finish(&image);
    return rt_ok_status();
}

/* Inserts (or finds) the row; runs inside the caller's transaction. */
static rt_status insert_golden(struct rt_store *store, const struct rt_golden_new *in,
                               uint32_t width, uint32_t height, int64_t *id_out,
                               bool *created_out)
{
    int64_t trace_id = 0;
    RT_TRY(rt_store_trace_id(store, in->trace, &trace_id));
    char hash[RT_STORE_HASH_HEX + 1];
    rt_store_hash_hex(in->png, in->png_size, hash);
    const char *device = in->device_key ? in->device_key : "";
    sqlite3_stmt *ins = NULL, *find = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_insert, &ins));
    sqlite3_bind_int64(ins, 1, trace_id);
    sqlite3_bind_int64(ins, 2, in->frame);
    sqlite3_bind_text(ins, 3, device, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 4, rt_golden_status_name(in->status), -1, SQLITE_STATIC);
    sqlite3_bind_blob64(ins, 5, in->png, in->png_size, SQLITE_STATIC);
    sqlite3_bind_text(ins, 6, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 7, (sqlite3_int64)in->png_size);
    sqlite3_bind_int64(ins, 8, width);
    sqlite3_bind_int64(ins, 9, height);
    sqlite3_bind_text(ins, 10, in->approved_by ? in->approved_by : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 11, in->from_result);
    sqlite3_bind_text(ins, 12, in->approved_at, -1, SQLITE_STATIC);
    RT_TRY(rt_store_exec_stmt(store, ins, "storing a golden"));
    *created_out = sqlite3_changes(store->db) > 0;
    RT_TRY(rt_store_stmt(store, sql_golden_find, &find));
    sqlite3_bind_int64(find, 1, trace_id);
    sqlite3_bind_int64(find, 2, in->frame);
    sqlite3_bind_text(find, 3, device, -1, SQLITE_STATIC);
    sqlite3_bind_text(find, 4, hash, -1, SQLITE_STATIC);
    int rc = sqlite3_step(find);
    if (rc == SQLITE_ROW)
        *id_out = sqlite3_column_int64(find, 0);
    rt_store_stmt_done(find);
    return rc == SQLITE_ROW ? rt_ok_status() : rt_store_sql_error(store, rc, "finding a golden");
}

rt_status rt_store_golden_set_approver(struct rt_store *store, int64_t id, const char *by,
                                       const char *at, int64_t from_result)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_approver, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    sqlite3_bind_text(stmt, 2, by ? by : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, at, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, from_result);
    return rt_store_exec_stmt(store, stmt, "recording who approved a golden");
}

rt_status rt_store_golden_put_tx(struct rt_store *store, struct rt_golden_put *put)
{
    const struct rt_golden_new *in = put->in;
    uint32_t width = 0, height = 0;
    RT_TRY(rt_status_wrap(check_png(in, &width, &height), "golden for %s frame %u", in->trace,
                          in->frame));
    struct rt_golden_change c = {.action = put->action, .by = in->approved_by,
                                 .result_id = in->from_result};
    put->event_id = 0;
    RT_TRY(insert_golden(store, in, width, height, &put->id, &put->created));
    c.golden_id = put->id;
    RT_TRY(rt_store_golden_state(store, put->id, &c.after));
    if (put->created) {
        c.before = (struct rt_golden_state){0}; /* it did not exist */
    } else {
        c.before = c.after;
        if (put->never_restore && c.before.reverted)
            return rt_ok_status();
        if (c.before.reverted && !strcmp(c.action, "added"))
            c.action = "restored";
        c.after.reverted = false;
        if (put->force_status)
            c.after.status = in->status;
        if (rt_golden_state_same(&c.before, &c.after) && !put->set_approver)
            return rt_ok_status();
    }
    if (put->set_approver || put->created)
        RT_TRY(rt_store_golden_set_approver(store, put->id, in->approved_by, in->approved_at,
                                            in->from_result));
    if (rt_golden_state_same(&c.before, &c.after))
        return rt_ok_status();
    return rt_store_golden_event(store, &c, &put->event_id);
}

rt_status rt_store_golden_put(struct rt_store *store, const struct rt_golden_new *golden,
                              int64_t *id_out, bool *created_out)
{
    if (!golden->trace || !golden->trace[0])
        return rt_errorf(RT_ERR_USAGE, "a golden needs a trace name");
    if (golden->frame < 1)
        return rt_errorf(RT_ERR_USAGE, "frames are numbered from 1");
    struct rt_golden_put put = {.in = golden, .action = "added"};
    RT_TRY(rt_store_tx_begin(store));
    RT_TRY(rt_store_tx_end(store, rt_store_golden_put_tx(store, &put)));
    *id_out = put.id;
    if (created_out)
        *created_out = put.created;
    return rt_ok_status();
}

rt_status rt_store_golden_remove(struct rt_store *store, int64_t id)
{
    return rt_store_golden_revert(store, id, "", NULL);
}

rt_status rt_store_golden_mark(struct rt_store *store, int64_t id, enum rt_golden_status status)
{
    return rt_store_golden_mark_by(store, id, status, "", NULL);
}

/* ---- expectations ------------------------------------------------------ */

static const char *const expect_names[] = {"none", "skip", "flaky", "crash", "hang"};
#define EXPECT_COUNT (sizeof expect_names / sizeof expect_names[0])

const char *rt_expect_kind_name(enum rt_expect_kind kind)
{
    return (unsigned)kind < EXPECT_COUNT ? expect_names[kind] : "unknown";
}

bool rt_expect_kind_parse(const char *name, enum rt_expect_kind *kind_out)
{
    for (unsigned i = 0; i < EXPECT_COUNT; i++)
        if (name && !strcmp(name, expect_names[i])) {
            *kind_out = (enum rt_expect_kind)i;
            return true;
        }
    return false;
}

void rt_expectation_finish(struct rt_expectation *expectation)
{
    free(expectation->device_key);
    free(expectation->note);
    memset(expectation, 0, sizeof *expectation);
}

static const char sql_expect_upsert[] =
    "INSERT INTO expectations (trace_id, device_key, kind, note, set_by, updated_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5, coalesce(?6, strftime('%Y-%m-%dT%H:%M:%SZ','now')))"
    " ON CONFLICT (trace_id, device_key) DO UPDATE SET kind = excluded.kind,"
    " note = excluded.note, set_by = excluded.set_by, updated_at = excluded.updated_at";
static const char sql_expect_delete[] =
    "DELETE FROM expectations WHERE trace_id = ?1 AND device_key = ?2";
static const char sql_expect_exact[] =
    "SELECT kind, note FROM expectations WHERE trace_id = ?1 AND device_key = ?2";
static const char sql_expect_event[] =
    "INSERT INTO expectation_events (trace_id, device_key, kind_before, note_before,"
    " kind_after, note_after, by, undoes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, nullif(?8, 0))";
/* The device's own row sorts first (false < true), then the generic one. */
static const char sql_expect_get[] =
    "SELECT e.kind, e.device_key, e.note FROM expectations e"
    " JOIN traces t ON t.id = e.trace_id WHERE t.name = ?1 AND e.device_key IN (?2, '')"
    " ORDER BY e.device_key = '' LIMIT 1";

/* The expectation stored for exactly (TRACE_ID, DEVICE): "none" when there is none. */
static rt_status read_exact(struct rt_store *store, int64_t trace_id, const char *device,
                            char kind[16], char note[RT_EXPECT_NOTE_MAX])
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_expect_exact, &stmt));
    sqlite3_bind_int64(stmt, 1, trace_id);
    sqlite3_bind_text(stmt, 2, device, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    snprintf(kind, 16, "none");
    note[0] = '\0';
    if (rc == SQLITE_ROW) {
        snprintf(kind, 16, "%s", (const char *)sqlite3_column_text(stmt, 0));
        snprintf(note, RT_EXPECT_NOTE_MAX, "%s", (const char *)sqlite3_column_text(stmt, 1));
    }
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE
               ? rt_ok_status() : rt_store_sql_error(store, rc, "reading an expectation");
}

rt_status rt_store_expectation_write(struct rt_store *store, const struct rt_expect_write *w,
                                     int64_t *event_out)
{
    int64_t trace_id = 0;
    char kind_before[16], note_before[RT_EXPECT_NOTE_MAX];
    const char *device = w->device_key ? w->device_key : "", *note = w->note ? w->note : "";
    *event_out = 0;
    RT_TRY(rt_store_trace_id(store, w->trace, &trace_id));
    RT_TRY(read_exact(store, trace_id, device, kind_before, note_before));
    const char *kind = rt_expect_kind_name(w->kind);
    if (!strcmp(kind_before, kind) && (w->kind == RT_EXPECT_NONE || !strcmp(note_before, note)))
        return rt_ok_status(); /* no change: no event */
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, w->kind == RT_EXPECT_NONE ? sql_expect_delete : sql_expect_upsert,
                         &stmt));
    sqlite3_bind_int64(stmt, 1, trace_id);
    sqlite3_bind_text(stmt, 2, device, -1, SQLITE_STATIC);
    if (w->kind != RT_EXPECT_NONE) {
        sqlite3_bind_text(stmt, 3, kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 4, note, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 5, w->by ? w->by : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 6, w->updated_at, -1, SQLITE_STATIC);
    }
    RT_TRY(rt_store_exec_stmt(store, stmt, "storing an expectation"));
    RT_TRY(rt_store_stmt(store, sql_expect_event, &stmt));
    const char *texts[] = {device, kind_before, note_before, kind,
                           w->kind == RT_EXPECT_NONE ? "" : note, w->by ? w->by : ""};
    sqlite3_bind_int64(stmt, 1, trace_id);
    for (int i = 0; i < 6; i++)
        sqlite3_bind_text(stmt, i + 2, texts[i], -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 8, w->undoes);
    RT_TRY(rt_store_exec_stmt(store, stmt, "recording an expectation's history"));
    *event_out = sqlite3_last_insert_rowid(store->db);
    return rt_ok_status();
}

rt_status rt_store_expectation_set_by(struct rt_store *store, const char *trace,
                                      const char *device_key, enum rt_expect_kind kind,
                                      const char *note, const char *by, int64_t *event_out)
{
    if ((unsigned)kind >= EXPECT_COUNT)
        return rt_errorf(RT_ERR_USAGE, "unknown expectation kind %d", (int)kind);
    if (note && strlen(note) >= RT_EXPECT_NOTE_MAX)
        return rt_errorf(RT_ERR_USAGE, "an expectation's note is at most %d bytes",
                         RT_EXPECT_NOTE_MAX - 1);
    int64_t event = 0;
    struct rt_expect_write w = {.trace = trace, .device_key = device_key, .kind = kind,
                                .note = note, .by = by};
    RT_TRY(rt_store_tx_begin(store));
    rt_status s = rt_store_expectation_write(store, &w, &event);
    if (event_out)
        *event_out = event;
    return rt_store_tx_end(store, s);
}

rt_status rt_store_expectation_set(struct rt_store *store, const char *trace,
                                   const char *device_key, enum rt_expect_kind kind,
                                   const char *note)
{
    return rt_store_expectation_set_by(store, trace, device_key, kind, note, "", NULL);
}

static const char sql_expect_event_get[] =
    "SELECT e.device_key, e.kind_before, e.note_before, t.name, (SELECT count(*) FROM"
    " expectation_events l WHERE l.trace_id = e.trace_id AND l.device_key = e.device_key AND"
    " l.id > e.id) FROM expectation_events e JOIN traces t ON t.id = e.trace_id WHERE e.id = ?1";

rt_status rt_store_expectation_undo(struct rt_store *store, int64_t event_id, const char *by,
                                    struct rt_store_undo *out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_expect_event_get, &stmt));
    sqlite3_bind_int64(stmt, 1, event_id);
    int rc = sqlite3_step(stmt);
    char device[512] = "", kind[16] = "", note[RT_EXPECT_NOTE_MAX] = "", trace[1024] = "";
    int64_t later = 0;
    if (rc == SQLITE_ROW) {
        snprintf(device, sizeof device, "%s", (const char *)sqlite3_column_text(stmt, 0));
        snprintf(kind, sizeof kind, "%s", (const char *)sqlite3_column_text(stmt, 1));
        snprintf(note, sizeof note, "%s", (const char *)sqlite3_column_text(stmt, 2));
        snprintf(trace, sizeof trace, "%s", (const char *)sqlite3_column_text(stmt, 3));
        later = sqlite3_column_int64(stmt, 4);
    }
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, "reading an event");
    out->found = true;
    out->conflict = later > 0;
    struct rt_expect_write w = {.trace = trace, .device_key = device, .note = note, .by = by,
                                .undoes = event_id};
    if (out->conflict || !rt_expect_kind_parse(kind, &w.kind))
        return rt_ok_status();
    return rt_store_expectation_write(store, &w, &out->event_id);
}

rt_status rt_store_expectation_get(struct rt_store *store, const char *trace,
                                   const char *device_key, struct rt_expectation *expectation_out)
{
    memset(expectation_out, 0, sizeof *expectation_out);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_expect_get, &stmt));
    sqlite3_bind_text(stmt, 1, trace ? trace : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, device_key ? device_key : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    rt_status s = rt_ok_status();
    if (rc == SQLITE_ROW) {
        const unsigned char *kind = sqlite3_column_text(stmt, 0);
        if (!rt_expect_kind_parse((const char *)kind, &expectation_out->kind))
            s = rt_errorf(RT_ERR_BAD_INPUT, "unknown expectation kind in the database");
        expectation_out->device_key = rt_store_column_strdup(stmt, 1);
        expectation_out->note = rt_store_column_strdup(stmt, 2);
    } else if (rc == SQLITE_DONE) {
        expectation_out->device_key = strdup("");
        expectation_out->note = strdup("");
    } else {
        s = rt_store_sql_error(store, rc, "reading an expectation");
    }
    rt_store_stmt_done(stmt);
    if (rt_ok(&s) && (!expectation_out->device_key || !expectation_out->note))
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory reading an expectation");
    if (!rt_ok(&s))
        rt_expectation_finish(expectation_out);
    return s;
}
