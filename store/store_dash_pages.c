/*
 * store/store_dash_pages.c — the pages a farm's dashboard asks for most
 * (the runs list, a run page, a trace's history) written as JSON text
 * straight from the rows (store_json.h), one read snapshot each. The same
 * rules as rows_into's (store_dash_rows.c): a column is a key of the same
 * name, "has_..." a boolean, "..._json" JSON text (checked, then copied); a
 * column whose name ends in '_' is a sort or lookup key and is not written.
 * Issue 18: built as cJSON trees, then printed, these took 4.8 (run page)
 * and 8.3 (history) ms of CPU at 10 million results, most of it cJSON.
 */
#include "store_dash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rows --------------------------------------------------------------- */

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && !memcmp(s + n - m, suffix, m);
}

/* A "..._json" column: copied when it parses, else null (never invalid JSON). */
static void write_json_column(struct rt_jw *w, sqlite3_stmt *stmt, int i)
{
    const char *text = (const char *)sqlite3_column_text(stmt, i);
    cJSON *parsed = text ? cJSON_Parse(text) : NULL;
    if (parsed)
        rt_jw_raw(w, text, (size_t)sqlite3_column_bytes(stmt, i));
    else
        rt_jw_null(w);
    cJSON_Delete(parsed);
}

/* How a statement's columns are written, worked out once per statement
 * rather than once per row. */
enum column_kind { COLUMN_PLAIN, COLUMN_BOOL, COLUMN_JSON, COLUMN_HIDDEN };
#define MAX_COLUMNS 48
struct columns {
    int count;
    struct {
        enum column_kind kind;
        size_t key_len;
        char key[64];
    } c[MAX_COLUMNS];
};

static void columns_of(sqlite3_stmt *stmt, struct columns *cols)
{
    int count = sqlite3_column_count(stmt);
    cols->count = count < MAX_COLUMNS ? count : MAX_COLUMNS; /* ours have about 30 */
    for (int i = 0; i < cols->count; i++) {
        const char *name = sqlite3_column_name(stmt, i);
        size_t n = strlen(name);
        enum column_kind kind = !n || name[n - 1] == '_' ? COLUMN_HIDDEN
                                : ends_with(name, n, "_json") ? COLUMN_JSON
                                : !strncmp(name, "has_", 4)   ? COLUMN_BOOL
                                                              : COLUMN_PLAIN;
        if (kind == COLUMN_JSON)
            n -= 5;
        n = n < sizeof cols->c[i].key ? n : sizeof cols->c[i].key - 1;
        memcpy(cols->c[i].key, name, n); /* column names are ours: short, no format */
        cols->c[i].key[n] = '\0';
        cols->c[i].key_len = n;
        cols->c[i].kind = kind;
    }
}

static void write_column(struct rt_jw *w, sqlite3_stmt *stmt, int i, const struct columns *cols)
{
    enum column_kind kind = cols->c[i].kind;
    int type = sqlite3_column_type(stmt, i);
    if (kind == COLUMN_HIDDEN || type == SQLITE_BLOB)
        return; /* sort keys, and blobs, are never JSON */
    rt_jw_key_n(w, cols->c[i].key, cols->c[i].key_len);
    switch (type) {
    case SQLITE_INTEGER:
        if (kind == COLUMN_BOOL)
            rt_jw_bool(w, sqlite3_column_int64(stmt, i) != 0);
        else
            rt_jw_int(w, sqlite3_column_int64(stmt, i));
        break;
    case SQLITE_FLOAT:
        rt_jw_double(w, sqlite3_column_double(stmt, i));
        break;
    case SQLITE_TEXT:
        if (kind == COLUMN_JSON)
            write_json_column(w, stmt, i);
        else
            rt_jw_string_n(w, (const char *)sqlite3_column_text(stmt, i),
                           (size_t)sqlite3_column_bytes(stmt, i));
        break;
    default:
        rt_jw_null(w);
    }
}

/* The current row's columns as members of the object W has open. */
static void write_members(struct rt_jw *w, sqlite3_stmt *stmt, const struct columns *cols)
{
    for (int i = 0; i < cols->count; i++)
        write_column(w, stmt, i, cols);
}

static int column_index(sqlite3_stmt *stmt, const char *name)
{
    int count = sqlite3_column_count(stmt);
    for (int i = 0; i < count; i++)
        if (!strcmp(sqlite3_column_name(stmt, i), name))
            return i;
    return -1;
}

static rt_status step_error(struct rt_store *store, int rc, const char *what)
{
    return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, what);
}

/* ---- counts and history strips ----------------------------------------- */

static const char sql_counts_of_run[] = "SELECT status, n FROM run_counts WHERE run_id = ?1";
static const char sql_approved_of_run[] =
    "SELECT r.status, count(*) FROM results r WHERE r.run_id = ?1"
    " AND r.status IN ('fail','new','error','crash','timeout','flaky')"
    " AND " REVIEW_OF("r.id") " = 'accepted' GROUP BY r.status";

static const char *const count_keys[] = {"pass",  "fail",    "flaky", "new",
                                         "crash", "timeout", "error", "approved"};
#define COUNT_KEYS (sizeof count_keys / sizeof *count_keys)

struct counts {
    int64_t n[COUNT_KEYS];
};

static void add_count(struct counts *c, const char *status, int64_t n)
{
    for (size_t i = 0; status && i < COUNT_KEYS; i++)
        if (!strcmp(count_keys[i], status))
            c->n[i] += n;
}

/* Run RUN_ID's results by status (from run_counts); failures whose image was
 * approved count as "approved" instead. */
static rt_status run_counts(struct rt_store *store, int64_t run_id, struct counts *c)
{
    memset(c, 0, sizeof *c);
    const char *const sql[2] = {sql_counts_of_run, sql_approved_of_run};
    for (int q = 0; q < 2; q++) {
        sqlite3_stmt *stmt = NULL;
        RT_TRY(rt_store_stmt(store, sql[q], &stmt));
        sqlite3_bind_int64(stmt, 1, run_id);
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            const char *status = (const char *)sqlite3_column_text(stmt, 0);
            int64_t n = sqlite3_column_int64(stmt, 1);
            add_count(c, status, q ? -n : n);
            if (q)
                add_count(c, "approved", n);
        }
        rt_store_stmt_done(stmt);
        RT_TRY(step_error(store, rc, "counting results"));
    }
    return rt_ok_status();
}

static int64_t counts_total(const struct counts *c)
{
    int64_t total = 0;
    for (size_t i = 0; i < COUNT_KEYS; i++)
        total += c->n[i];
    return total;
}

static void write_counts(struct rt_jw *w, const struct counts *c)
{
    rt_jw_key(w, "counts");
    rt_jw_object(w);
    for (size_t i = 0; i < COUNT_KEYS; i++) {
        rt_jw_key(w, count_keys[i]);
        rt_jw_int(w, c->n[i]);
    }
    rt_jw_end_object(w);
}

static const char sql_run_history[] =
    "SELECT id, outcome, started_at FROM runs WHERE label IS ?2 AND device_key IS ?3"
    " AND (started_at < (SELECT started_at FROM runs WHERE id = ?1) OR (started_at ="
    " (SELECT started_at FROM runs WHERE id = ?1) AND id <= ?1))"
    " ORDER BY started_at DESC, id DESC LIMIT 10";

struct strip_run {
    int64_t id;
    char outcome[32], started_at[40];
    bool no_outcome, no_start;
};

static void copy_text(char *out, size_t size, sqlite3_stmt *stmt, int i)
{
    const char *text = (const char *)sqlite3_column_text(stmt, i);
    snprintf(out, size, "%s", text ? text : "");
}

/* "history": run RUN_ID and up to 9 earlier runs of LABEL and DEVICE_KEY,
 * oldest first (the query reads them newest first). */
static rt_status write_history_strip(struct rt_store *store, struct rt_jw *w, int64_t run_id,
                                     const char *label, const char *device_key)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_history, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    sqlite3_bind_text(stmt, 2, label, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 3, device_key, -1, SQLITE_TRANSIENT);
    struct strip_run runs[10];
    int n = 0, rc = SQLITE_DONE;
    while (n < 10 && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        runs[n].id = sqlite3_column_int64(stmt, 0);
        runs[n].no_outcome = sqlite3_column_type(stmt, 1) == SQLITE_NULL;
        runs[n].no_start = sqlite3_column_type(stmt, 2) == SQLITE_NULL;
        copy_text(runs[n].outcome, sizeof runs[n].outcome, stmt, 1);
        copy_text(runs[n].started_at, sizeof runs[n].started_at, stmt, 2);
        n++;
    }
    if (n == 10)
        rc = SQLITE_DONE;
    rt_store_stmt_done(stmt);
    RT_TRY(step_error(store, rc, "reading run history"));
    rt_jw_key(w, "history");
    rt_jw_array(w);
    for (int i = n - 1; i >= 0; i--) {
        rt_jw_object(w);
        rt_jw_key(w, "id");
        rt_jw_int(w, runs[i].id);
        rt_jw_key(w, "outcome");
        rt_jw_string(w, runs[i].no_outcome ? NULL : runs[i].outcome);
        rt_jw_key(w, "started_at");
        rt_jw_string(w, runs[i].no_start ? NULL : runs[i].started_at);
        rt_jw_end_object(w);
    }
    rt_jw_end_array(w);
    return rt_ok_status();
}

/* The run row of STMT (RUN_COLUMNS) and its counts (also *COUNTS_OUT), in an
 * object left open for the rest. */
static rt_status write_run(struct rt_store *store, struct rt_jw *w, sqlite3_stmt *stmt,
                           const struct columns *cols, struct counts *counts_out)
{
    int64_t id = sqlite3_column_int64(stmt, 0); /* RUN_COLUMNS starts with u.id */
    rt_jw_object(w);
    write_members(w, stmt, cols);
    RT_TRY(run_counts(store, id, counts_out));
    write_counts(w, counts_out);
    return rt_ok_status();
}

static rt_status write_run_strip(struct rt_store *store, struct rt_jw *w, sqlite3_stmt *stmt)
{
    int label = column_index(stmt, "label"), key = column_index(stmt, "device_key");
    return write_history_strip(store, w, sqlite3_column_int64(stmt, 0),
                               (const char *)sqlite3_column_text(stmt, label),
                               (const char *)sqlite3_column_text(stmt, key));
}

/* ---- the runs list ------------------------------------------------------- */

#define RUNS_MATCHING                                                                   \
    " FROM runs u WHERE (?1 IS NULL OR u.label = ?1)"                                   \
    " AND (?2 IS NULL OR u.device = ?2 OR u.device_key = ?2)"                           \
    " AND (?3 IS NULL OR u.outcome = ?3"                                                \
    "  OR EXISTS (SELECT 1 FROM run_counts c WHERE c.run_id = u.id AND c.status = ?3"  \
    "   AND c.n > 0))"

static const char sql_runs_page[] =
    RUN_COLUMNS RUNS_MATCHING " ORDER BY u.started_at DESC, u.id DESC LIMIT ?4 OFFSET ?5";
static const char sql_runs_total[] = "SELECT count(*)" RUNS_MATCHING;
const char rt_dash_sql_run_one[] = RUN_COLUMNS " FROM runs u WHERE u.id = ?1";

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

static rt_status write_runs(struct rt_store *store, const struct rt_dash_runs_query *q,
                            struct rt_jw *w)
{
    int64_t total = 0;
    RT_TRY(runs_total(store, q, &total));
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_runs_page, &stmt));
    bind_runs_query(stmt, q);
    sqlite3_bind_int64(stmt, 4, q->limit);
    sqlite3_bind_int64(stmt, 5, q->offset);
    rt_jw_object(w);
    rt_jw_key(w, "runs");
    rt_jw_array(w);
    rt_status s = rt_ok_status();
    int rc = SQLITE_DONE;
    struct columns cols;
    columns_of(stmt, &cols);
    while (rt_ok(&s) && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        struct counts counts;
        s = write_run(store, w, stmt, &cols, &counts);
        if (rt_ok(&s))
            s = write_run_strip(store, w, stmt);
        rt_jw_end_object(w);
    }
    if (rt_ok(&s))
        s = step_error(store, rc, "listing runs");
    rt_store_stmt_done(stmt);
    RT_TRY(s);
    rt_jw_end_array(w);
    rt_jw_key(w, "total");
    rt_jw_int(w, total);
    rt_jw_key(w, "limit");
    rt_jw_int(w, q->limit);
    rt_jw_key(w, "offset");
    rt_jw_int(w, q->offset);
    rt_jw_end_object(w);
    return rt_ok_status();
}

/* ---- one run ------------------------------------------------------------- */

/* The page's results, with the hidden keys their triage needs. */
static const char sql_run_results[] =
    RESULT_COLUMNS ", r.series_id AS series_, r.run_start AS start_" RESULT_FROM
    " WHERE r.run_id = ?1" RESULTS_FAILURES_FIRST " LIMIT ?2 OFFSET ?3";

struct result_columns {
    int id, status, hash, configuration, series, start;
};

/* Each result of STMT as an object with its "triage", counted into GROUPS. */
static rt_status write_results(struct rt_store *store, struct rt_jw *w, sqlite3_stmt *stmt,
                               cJSON *groups, const char *device_key)
{
    struct result_columns c = {column_index(stmt, "id"), column_index(stmt, "status"),
                               column_index(stmt, "actual_hash"),
                               column_index(stmt, "configuration"), column_index(stmt, "series_"),
                               column_index(stmt, "start_")};
    struct columns cols;
    columns_of(stmt, &cols);
    rt_jw_array(w);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(stmt, c.id);
        const char *status = (const char *)sqlite3_column_text(stmt, c.status);
        rt_jw_object(w);
        write_members(w, stmt, &cols);
        struct rt_dash_series_point me = {
            .series_id = sqlite3_column_int64(stmt, c.series),
            .run_start = sqlite3_column_int64(stmt, c.start),
            .run_id = sqlite3_column_int64(stmt, 1), /* RESULT_COLUMNS: r.id, r.run_id, ... */
        };
        struct rt_dash_triage triage;
        RT_TRY(rt_dash_triage_at(store, &me, status, &triage));
        rt_jw_key(w, "triage");
        rt_dash_triage_write(w, &triage);
        rt_jw_end_object(w);
        rt_dash_group_add(groups, (const char *)sqlite3_column_text(stmt, c.hash), id, status,
                          (const char *)sqlite3_column_text(stmt, c.configuration), device_key);
    }
    rt_jw_end_array(w);
    return step_error(store, rc, "reading a run's results");
}

static void write_groups(struct rt_jw *w, cJSON *groups)
{
    char *text = cJSON_PrintUnformatted(groups);
    rt_jw_key(w, "groups");
    if (text)
        rt_jw_raw(w, text, strlen(text));
    else
        w->failed = true;
    free(text);
}

struct run_page {
    int64_t run_id;
    uint32_t limit, offset;
};

/* Everything after the run's counts: totals, history strip, results, groups. */
static rt_status write_run_rest(struct rt_store *store, struct rt_jw *w, sqlite3_stmt *run,
                                const struct run_page *page, const struct counts *counts)
{
    rt_jw_key(w, "results_total");
    rt_jw_int(w, counts_total(counts));
    rt_jw_key(w, "results_limit");
    rt_jw_int(w, page->limit);
    rt_jw_key(w, "results_offset");
    rt_jw_int(w, page->offset);
    RT_TRY(write_run_strip(store, w, run));
    const char *device_key =
        (const char *)sqlite3_column_text(run, column_index(run, "device_key"));
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_results, &stmt));
    sqlite3_bind_int64(stmt, 1, page->run_id);
    sqlite3_bind_int64(stmt, 2, page->limit);
    sqlite3_bind_int64(stmt, 3, page->offset);
    cJSON *groups = cJSON_CreateArray();
    rt_jw_key(w, "results");
    rt_status s = groups ? write_results(store, w, stmt, groups, device_key)
                         : rt_errorf(RT_ERR_INTERNAL, "out of memory reading a run");
    rt_store_stmt_done(stmt);
    if (rt_ok(&s))
        write_groups(w, groups);
    cJSON_Delete(groups);
    return s;
}

/* *FOUND false when there is no such run. */
static rt_status write_run_page(struct rt_store *store, const struct run_page *page,
                                struct rt_jw *w, bool *found)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, rt_dash_sql_run_one, &stmt));
    sqlite3_bind_int64(stmt, 1, page->run_id);
    int rc = sqlite3_step(stmt);
    *found = rc == SQLITE_ROW;
    rt_status s = rt_ok_status();
    if (*found) {
        struct counts counts;
        struct columns cols;
        columns_of(stmt, &cols);
        s = write_run(store, w, stmt, &cols, &counts);
        if (rt_ok(&s))
            s = write_run_rest(store, w, stmt, page, &counts);
        rt_jw_end_object(w);
    } else
        s = step_error(store, rc, "reading a run");
    rt_store_stmt_done(stmt);
    return s;
}

/* ---- a trace's history --------------------------------------------------- */

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
/* newest first: write_rows_reversed makes them oldest first */
static const char sql_history[] =
    HISTORY_COLUMNS " FROM results r JOIN runs u ON u.id = r.run_id"
    " WHERE r.trace_id = ?1" HISTORY_NEWEST;
static const char sql_history_device[] =
    HISTORY_COLUMNS " FROM results r JOIN runs u ON u.id = r.run_id"
    " WHERE r.series_id IN (SELECT id FROM series WHERE trace_id = ?1 AND device_key = ?2)"
    HISTORY_NEWEST;

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

/* Every row of STMT (bound) as an object of the array W has open. */
static rt_status write_rows(struct rt_store *store, struct rt_jw *w, sqlite3_stmt *stmt,
                            const char *what)
{
    struct columns cols;
    columns_of(stmt, &cols);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rt_jw_object(w);
        write_members(w, stmt, &cols);
        rt_jw_end_object(w);
    }
    rt_store_stmt_done(stmt);
    return step_error(store, rc, what);
}

/* The same, the rows in reverse order: each row is written into SCRATCH,
 * then the rows are copied out last first (the newest points are read with
 * an index walk backwards; reversing them here spares SQLite a second sort). */
static rt_status write_rows_reversed(struct rt_store *store, struct rt_jw *w,
                                     sqlite3_stmt *stmt, const char *what)
{
    struct columns cols;
    columns_of(stmt, &cols);
    struct rt_jw scratch;
    rt_jw_init(&scratch);
    size_t *ends = NULL, count = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (count == cap) {
            cap = cap ? cap * 2 : 256;
            size_t *grown = realloc(ends, cap * sizeof *ends);
            if (!grown) {
                scratch.failed = true;
                break;
            }
            ends = grown;
        }
        rt_jw_object(&scratch); /* at depth 0: no separators between rows */
        write_members(&scratch, stmt, &cols);
        rt_jw_end_object(&scratch);
        ends[count++] = scratch.len;
    }
    rt_store_stmt_done(stmt);
    rt_status s = step_error(store, rc, what);
    if (rt_ok(&s) && scratch.failed)
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory %s", what);
    for (size_t i = count; rt_ok(&s) && i-- > 0;) {
        size_t start = i ? ends[i - 1] : 0;
        rt_jw_raw_utf8(w, scratch.buf + start, ends[i] - start);
    }
    free(ends);
    rt_jw_free(&scratch);
    return s;
}

struct history_query {
    const char *trace, *device_key;
    uint32_t limit;
};

static rt_status write_history(struct rt_store *store, const struct history_query *q,
                               struct rt_jw *w, bool *found)
{
    int64_t id = 0;
    RT_TRY(trace_id(store, q->trace, &id));
    *found = id != 0;
    if (!id)
        return rt_ok_status();
    rt_jw_object(w);
    rt_jw_key(w, "trace");
    rt_jw_string(w, q->trace);
    rt_jw_key(w, "points");
    rt_jw_array(w);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, q->device_key ? sql_history_device : sql_history, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    sqlite3_bind_text(stmt, 2, q->device_key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, q->limit);
    RT_TRY(write_rows_reversed(store, w, stmt, "reading a trace's history"));
    rt_jw_end_array(w);
    rt_jw_key(w, "goldens");
    rt_jw_array(w);
    RT_TRY(rt_store_stmt(store, rt_dash_sql_goldens_of, &stmt));
    sqlite3_bind_text(stmt, 1, q->trace, -1, SQLITE_STATIC);
    RT_TRY(write_rows(store, w, stmt, "reading goldens"));
    rt_jw_end_array(w);
    rt_jw_end_object(w);
    return rt_ok_status();
}

/* ---- the entry points ---------------------------------------------------- */

/* The text W holds as *TEXT_OUT (NULL when !FOUND or on failure). */
static rt_status finish(struct rt_jw *w, rt_status s, bool found, char **text_out,
                        size_t *len_out)
{
    *text_out = NULL;
    *len_out = 0;
    if (rt_ok(&s) && found) {
        *text_out = rt_jw_take(w, len_out);
        if (!*text_out)
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory building the dashboard's answer");
    }
    rt_jw_free(w);
    return s;
}

static rt_status runs_now(struct rt_store *store, const struct rt_dash_runs_query *query,
                          char **text_out, size_t *len_out)
{
    struct rt_jw w;
    rt_jw_init(&w);
    return finish(&w, write_runs(store, query, &w), true, text_out, len_out);
}

static rt_status run_now(struct rt_store *store, const struct run_page *page, char **text_out,
                         size_t *len_out)
{
    struct rt_jw w;
    rt_jw_init(&w);
    bool found = false;
    rt_status s = write_run_page(store, page, &w, &found);
    return finish(&w, s, found, text_out, len_out);
}

static rt_status history_now(struct rt_store *store, const struct history_query *q,
                             char **text_out, size_t *len_out)
{
    struct rt_jw w;
    rt_jw_init(&w);
    bool found = false;
    rt_status s = write_history(store, q, &w, &found);
    return finish(&w, s, found, text_out, len_out);
}

rt_status rt_store_dash_runs_text(struct rt_store *store, const struct rt_dash_runs_query *query,
                                  char **text_out, size_t *len_out)
{
    IN_SNAPSHOT(store, runs_now(store, query, text_out, len_out));
}

rt_status rt_store_dash_run_text(struct rt_store *store, int64_t run_id, uint32_t limit,
                                 uint32_t offset, char **text_out, size_t *len_out)
{
    struct run_page page = {.run_id = run_id, .limit = limit, .offset = offset};
    IN_SNAPSHOT(store, run_now(store, &page, text_out, len_out));
}

rt_status rt_store_dash_history_text(struct rt_store *store, const char *trace,
                                     const char *device_key, uint32_t limit, char **text_out,
                                     size_t *len_out)
{
    struct history_query q = {.trace = trace, .device_key = device_key, .limit = limit};
    IN_SNAPSHOT(store, history_now(store, &q, text_out, len_out));
}
