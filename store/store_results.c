/*
 * store/store_results.c — runs and their per-frame results (see store.h).
 */
#include "store_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const result_names[] = {"pass",  "fail",    "new",  "error",
                                           "crash", "timeout", "flaky"};
#define RESULT_COUNT (sizeof result_names / sizeof result_names[0])

const char *rt_result_status_name(enum rt_result_status status)
{
    return (unsigned)status < RESULT_COUNT ? result_names[status] : "unknown";
}

bool rt_result_status_parse(const char *name, enum rt_result_status *status_out)
{
    for (unsigned i = 0; i < RESULT_COUNT; i++)
        if (name && !strcmp(name, result_names[i])) {
            *status_out = (enum rt_result_status)i;
            return true;
        }
    return false;
}

static const char sql_run_insert[] =
    "INSERT INTO runs (host, device, driver, device_key, workarounds, delays, version,"
    " label, shard, uuid, configurations, started_at, pid, pid_start, pipeline, golden_set)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
    " coalesce(?12, strftime('%Y-%m-%dT%H:%M:%SZ','now')), nullif(?13, 0), ?14, ?15, ?16)";
static const char sql_run_by_uuid[] = "SELECT id FROM runs WHERE uuid = ?1";
static const char sql_run_finish[] =
    "UPDATE runs SET finished_at = coalesce(?3, strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
    " outcome = ?2 WHERE id = ?1";
static const char sql_result_insert[] =
    "INSERT INTO results (run_id, trace_id, frame, status, ssim, ssim_worst_tile, psnr,"
    " threshold, diff_pixels, max_diff, golden_id, actual_image, diff_image, replay_ms,"
    " attempts, message, configuration, tile_threshold, golden_hash, report, delta_e,"
    " colour_threshold, expected, regression, actual_hash, worst_tiles, series_id, run_start)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, nullif(?11, 0), ?12, ?13, ?14, ?15,"
    " ?16, coalesce(?17, 'default'), ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)";
static const char sql_run_series_key[] =
    "SELECT coalesce(unixepoch(started_at), 0), coalesce(device_key, '') FROM runs WHERE id = ?1";
static const char sql_series_find[] =
    "SELECT id FROM series WHERE trace_id = ?1 AND frame = ?2 AND configuration = ?3"
    " AND device_key = ?4";
static const char sql_series_insert[] =
    "INSERT INTO series (trace_id, frame, configuration, device_key) VALUES (?1, ?2, ?3, ?4)";
static const char sql_image_find[] = "SELECT id FROM images WHERE hash = ?1";
static const char sql_image_insert[] = "INSERT INTO images (hash, size, png) VALUES (?1, ?2, ?3)";
static const char sql_result_count[] =
    "SELECT count(*) FROM results r JOIN traces t ON t.id = r.trace_id"
    " WHERE r.run_id = ?1 AND (?2 IS NULL OR t.name = ?2)";
static const char sql_result_actual[] =
    "SELECT t.name, r.frame, i.png FROM results r JOIN traces t ON t.id = r.trace_id"
    " LEFT JOIN images i ON i.id = r.actual_image WHERE r.id = ?1";

static rt_status insert_run(struct rt_store *store, const struct rt_run_info *info,
                            int64_t *run_id_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_insert, &stmt));
    const char *fields[] = {info->host,    info->device,  info->driver,
                            info->device_key, info->workarounds, info->delays,
                            info->version, info->label,   info->shard,
                            info->uuid,    info->configurations, info->started_at};
    for (int i = 0; i < (int)(sizeof fields / sizeof fields[0]); i++)
        sqlite3_bind_text(stmt, i + 1, fields[i], -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 13, info->pid);
    sqlite3_bind_text(stmt, 14, info->pid_start, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 15, info->pipeline, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 16, info->golden_set, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    rt_store_stmt_done(stmt);
    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return rt_errorf(RT_ERR_BAD_INPUT, "a run with id %s is already recorded", info->uuid);
    if (rc != SQLITE_DONE)
        return rt_store_sql_error(store, rc, "recording a run");
    *run_id_out = sqlite3_last_insert_rowid(store->db);
    return rt_ok_status();
}

rt_status rt_store_run_begin(struct rt_store *store, const struct rt_run_info *info,
                             int64_t *run_id_out)
{
    struct rt_run_info none = {0};
    RT_TRY(rt_store_tx_begin(store));
    rt_status s = insert_run(store, info ? info : &none, run_id_out);
    return rt_store_tx_end(store, s);
}

rt_status rt_store_run_find_uuid(struct rt_store *store, const char *uuid, int64_t *run_id_out)
{
    *run_id_out = 0;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_by_uuid, &stmt));
    sqlite3_bind_text(stmt, 1, uuid, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        *run_id_out = sqlite3_column_int64(stmt, 0);
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return rt_store_sql_error(store, rc, "looking up a run by id");
    return rt_ok_status();
}

rt_status rt_store_run_finish(struct rt_store *store, int64_t run_id, const char *outcome)
{
    return rt_store_run_finish_at(store, run_id, NULL, outcome);
}

rt_status rt_store_run_finish_at(struct rt_store *store, int64_t run_id,
                                 const char *finished_at, const char *outcome)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_tx_begin(store));
    rt_status s = rt_store_stmt(store, sql_run_finish, &stmt);
    if (rt_ok(&s)) {
        sqlite3_bind_int64(stmt, 1, run_id);
        sqlite3_bind_text(stmt, 2, outcome, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 3, finished_at, -1, SQLITE_STATIC);
        s = rt_store_exec_stmt(store, stmt, "finishing a run");
    }
    if (rt_ok(&s) && sqlite3_changes(store->db) == 0)
        s = rt_errorf(RT_ERR_BAD_INPUT, "no run with id %lld", (long long)run_id);
    return rt_store_tx_end(store, s);
}

static const char sql_runs_unfinished[] =
    "SELECT id, pid, coalesce(pid_start, '') FROM runs"
    " WHERE host = ?1 AND finished_at IS NULL AND pid IS NOT NULL ORDER BY id";

/* The unfinished runs of HOST whose process ALIVE says is gone, into *IDS_OUT. */
static rt_status runs_gone(struct rt_store *store, const char *host, rt_store_alive_fn alive,
                           void *ctx, int64_t **ids_out, size_t *count_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_runs_unfinished, &stmt));
    sqlite3_bind_text(stmt, 1, host, -1, SQLITE_STATIC);
    size_t capacity = 0;
    rt_status s = rt_ok_status();
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (alive(sqlite3_column_int64(stmt, 1), (const char *)sqlite3_column_text(stmt, 2), ctx))
            continue;
        if (*count_out == capacity) {
            int64_t *grown = realloc(*ids_out, (capacity = capacity * 2 + 8) * sizeof **ids_out);
            if (!grown) {
                s = rt_errorf(RT_ERR_INTERNAL, "out of memory");
                break;
            }
            *ids_out = grown;
        }
        (*ids_out)[(*count_out)++] = sqlite3_column_int64(stmt, 0);
    }
    if (rt_ok(&s) && rc != SQLITE_DONE && rc != SQLITE_ROW)
        s = rt_store_sql_error(store, rc, "listing unfinished runs");
    rt_store_stmt_done(stmt);
    return s;
}

rt_status rt_store_runs_abort_gone(struct rt_store *store, const char *host,
                                   rt_store_alive_fn alive, void *ctx, size_t *count_out)
{
    int64_t *ids = NULL;
    size_t count = 0;
    rt_status s = runs_gone(store, host, alive, ctx, &ids, &count);
    for (size_t i = 0; rt_ok(&s) && i < count; i++)
        s = rt_store_run_finish(store, ids[i], "aborted");
    free(ids);
    if (count_out)
        *count_out = rt_ok(&s) ? count : 0;
    return s;
}

/* Unmeasured metrics are NAN or negative in the struct and NULL in the table. */
static void bind_real(sqlite3_stmt *stmt, int index, double value)
{
    if (isnan(value))
        sqlite3_bind_null(stmt, index);
    else
        sqlite3_bind_double(stmt, index, value);
}

static void bind_count(sqlite3_stmt *stmt, int index, int64_t value)
{
    if (value < 0)
        sqlite3_bind_null(stmt, index);
    else
        sqlite3_bind_int64(stmt, index, value);
}

/* What every result of one trace in one run shares: ids, and the run's start
 * and device key that name its series. */
struct result_batch {
    int64_t run_id, trace_id, run_start;
    char *device_key;
};

/* The id of the row SQL_FIND (bound ?1..) finds, 0 when there is none. */
static rt_status find_id(struct rt_store *store, sqlite3_stmt *stmt, int64_t *id_out,
                         const char *what)
{
    int rc = sqlite3_step(stmt);
    *id_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? rt_ok_status()
                                                 : rt_store_sql_error(store, rc, what);
}

rt_status rt_store_image_id(struct rt_store *store, const void *data, size_t size, int64_t *id_out)
{
    *id_out = 0;
    if (!data || size == 0)
        return rt_ok_status();
    char hash[RT_STORE_HASH_HEX + 1];
    rt_store_hash_hex(data, size, hash);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_image_find, &stmt));
    sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
    RT_TRY(find_id(store, stmt, id_out, "finding an image"));
    if (*id_out)
        return rt_ok_status();
    RT_TRY(rt_store_stmt(store, sql_image_insert, &stmt));
    sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)size);
    sqlite3_bind_blob64(stmt, 3, data, size, SQLITE_STATIC);
    RT_TRY(rt_store_exec_stmt(store, stmt, "storing an image"));
    *id_out = sqlite3_last_insert_rowid(store->db);
    return rt_ok_status();
}

/* The series (trace, frame, configuration, device key) of R, made if new. */
static rt_status series_id(struct rt_store *store, const struct result_batch *b,
                           const struct rt_result *r, int64_t *id_out)
{
    const char *config = r->configuration ? r->configuration : "default";
    const char *sql[2] = {sql_series_find, sql_series_insert};
    for (int i = 0; i < 2; i++) {
        sqlite3_stmt *stmt = NULL;
        RT_TRY(rt_store_stmt(store, sql[i], &stmt));
        sqlite3_bind_int64(stmt, 1, b->trace_id);
        sqlite3_bind_int64(stmt, 2, r->frame);
        sqlite3_bind_text(stmt, 3, config, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 4, b->device_key, -1, SQLITE_STATIC);
        if (i == 0) {
            RT_TRY(find_id(store, stmt, id_out, "finding a series"));
            if (*id_out)
                return rt_ok_status();
        } else {
            RT_TRY(rt_store_exec_stmt(store, stmt, "adding a series"));
            *id_out = sqlite3_last_insert_rowid(store->db);
        }
    }
    return rt_ok_status();
}

static void bind_id(sqlite3_stmt *stmt, int index, int64_t id)
{
    if (id)
        sqlite3_bind_int64(stmt, index, id);
    else
        sqlite3_bind_null(stmt, index);
}

/* Binds R's images (none for a pass: a passing frame's picture is its golden's). */
static rt_status bind_images(struct rt_store *store, sqlite3_stmt *stmt, const struct rt_result *r)
{
    int64_t actual = 0, diff = 0;
    if (r->status != RT_RESULT_PASS) {
        RT_TRY(rt_store_image_id(store, r->actual_png, r->actual_png_size, &actual));
        RT_TRY(rt_store_image_id(store, r->diff_png, r->diff_png_size, &diff));
    }
    bind_id(stmt, 12, actual);
    bind_id(stmt, 13, diff);
    return rt_ok_status();
}

static rt_status insert_result(struct rt_store *store, const struct result_batch *b,
                               const struct rt_result *r)
{
    if ((unsigned)r->status >= RESULT_COUNT)
        return rt_errorf(RT_ERR_USAGE, "unknown result status %d", (int)r->status);
    int64_t series = 0;
    RT_TRY(series_id(store, b, r, &series));
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_result_insert, &stmt));
    rt_status s = bind_images(store, stmt, r);
    if (!rt_ok(&s)) {
        rt_store_stmt_done(stmt);
        return s;
    }
    sqlite3_bind_int64(stmt, 1, b->run_id);
    sqlite3_bind_int64(stmt, 2, b->trace_id);
    sqlite3_bind_int64(stmt, 3, r->frame);
    sqlite3_bind_text(stmt, 4, rt_result_status_name(r->status), -1, SQLITE_STATIC);
    bind_real(stmt, 5, r->ssim);
    bind_real(stmt, 6, r->ssim_worst_tile);
    bind_real(stmt, 7, r->psnr);
    bind_real(stmt, 8, r->threshold);
    bind_count(stmt, 9, r->diff_pixels);
    bind_count(stmt, 10, r->max_diff);
    sqlite3_bind_int64(stmt, 11, r->golden_id);
    bind_real(stmt, 14, r->replay_ms);
    sqlite3_bind_int64(stmt, 15, r->attempts ? r->attempts : 1);
    sqlite3_bind_text(stmt, 16, r->message, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 17, r->configuration, -1, SQLITE_STATIC);
    bind_real(stmt, 18, r->tile_threshold > 0 ? r->tile_threshold : NAN);
    sqlite3_bind_text(stmt, 19, r->golden_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 20, r->report, -1, SQLITE_STATIC);
    /* A zero-initialised rt_result has colour_threshold 0: nothing measured. */
    bool colour = r->colour_threshold > 0;
    bind_real(stmt, 21, colour ? r->delta_e : NAN);
    bind_real(stmt, 22, colour ? r->colour_threshold : NAN);
    sqlite3_bind_text(stmt, 23, r->expected, -1, SQLITE_STATIC);
    if (r->expected)
        sqlite3_bind_int(stmt, 24, r->regression);
    else
        sqlite3_bind_null(stmt, 24);
    sqlite3_bind_text(stmt, 25, r->actual_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 26, r->worst_tiles, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 27, series);
    sqlite3_bind_int64(stmt, 28, b->run_start);
    return rt_store_exec_stmt(store, stmt, "recording a result");
}

/* B's run start and device key. */
static rt_status read_batch_run(struct rt_store *store, struct result_batch *b)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_series_key, &stmt));
    sqlite3_bind_int64(stmt, 1, b->run_id);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        b->run_start = sqlite3_column_int64(stmt, 0);
        b->device_key = rt_store_column_strdup(stmt, 1);
    } else if (rc == SQLITE_DONE) {
        b->device_key = strdup(""); /* no such run: the insert's foreign key says so */
    }
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return rt_store_sql_error(store, rc, "reading a run");
    return b->device_key ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

static rt_status insert_results(struct rt_store *store, int64_t run_id, const char *trace,
                                const struct rt_result *results, size_t count)
{
    struct result_batch b = {.run_id = run_id};
    RT_TRY(rt_store_trace_id(store, trace, &b.trace_id));
    rt_status s = read_batch_run(store, &b);
    for (size_t i = 0; rt_ok(&s) && i < count; i++)
        s = rt_status_wrap(insert_result(store, &b, &results[i]), "%s frame %u", trace,
                           results[i].frame);
    free(b.device_key);
    return s;
}

rt_status rt_store_record_trace_results(struct rt_store *store, int64_t run_id,
                                        const char *trace, const struct rt_result *results,
                                        size_t count)
{
    if (count > 0 && !results)
        return rt_errorf(RT_ERR_USAGE, "no results given");
    RT_TRY(rt_store_tx_begin(store));
    rt_status s = insert_results(store, run_id, trace, results, count);
    return rt_store_tx_end(store, s);
}

rt_status rt_store_result_count(struct rt_store *store, int64_t run_id, const char *trace,
                                int64_t *count_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_result_count, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    sqlite3_bind_text(stmt, 2, trace, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        *count_out = sqlite3_column_int64(stmt, 0);
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW ? rt_ok_status() : rt_store_sql_error(store, rc, "counting results");
}

/* Copies result RESULT_ID's trace, frame and actual image into *golden. */
static rt_status read_actual(struct rt_store *store, int64_t result_id,
                             struct rt_golden *golden)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_result_actual, &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    int rc = sqlite3_step(stmt);
    rt_status s = rt_ok_status();
    if (rc == SQLITE_ROW) {
        golden->trace = rt_store_column_strdup(stmt, 0);
        golden->frame = (uint32_t)sqlite3_column_int64(stmt, 1);
        int bytes = sqlite3_column_bytes(stmt, 2);
        if (bytes > 0 && (golden->png = malloc((size_t)bytes))) {
            memcpy(golden->png, sqlite3_column_blob(stmt, 2), (size_t)bytes);
            golden->png_size = (size_t)bytes;
        }
        if (!golden->trace || (bytes > 0 && !golden->png))
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory reading result %lld",
                          (long long)result_id);
        else if (bytes <= 0)
            s = rt_errorf(RT_ERR_BAD_INPUT, "result %lld has no actual image to approve",
                          (long long)result_id);
    } else {
        s = rc == SQLITE_DONE ? rt_errorf(RT_ERR_BAD_INPUT, "no result with id %lld",
                                          (long long)result_id)
                              : rt_store_sql_error(store, rc, "reading a result");
    }
    rt_store_stmt_done(stmt);
    return s;
}

rt_status rt_store_golden_approve_result(struct rt_store *store, int64_t result_id,
                                         const char *device_key, const char *approved_by,
                                         int64_t *golden_id_out)
{
    struct rt_golden actual = {0};
    RT_TRY(rt_store_tx_begin(store));
    rt_status s = read_actual(store, result_id, &actual);
    if (rt_ok(&s)) {
        struct rt_golden_new g = {
            .trace = actual.trace, .frame = actual.frame, .device_key = device_key,
            .png = actual.png, .png_size = actual.png_size, .approved_by = approved_by,
            .from_result = result_id, .status = RT_GOLDEN_ACCEPTED};
        s = rt_store_golden_put(store, &g, golden_id_out, NULL);
    }
    rt_golden_finish(&actual);
    return rt_store_tx_end(store, s);
}

/* ---- reading results back ----------------------------------------------- */

static const char sql_results_list[] =
    "SELECT r.id, r.run_id, t.name, r.frame, r.status, r.ssim, r.ssim_worst_tile, r.psnr,"
    " r.threshold, r.replay_ms, coalesce(r.diff_pixels, -1), coalesce(r.max_diff, -1),"
    " coalesce(r.golden_id, 0), r.attempts, r.actual_image IS NOT NULL,"
    " r.diff_image IS NOT NULL, r.message, r.configuration, r.tile_threshold,"
    " r.golden_hash, r.report, r.delta_e, r.colour_threshold"
    " FROM results r JOIN traces t ON t.id = r.trace_id WHERE r.run_id = ?1"
    " ORDER BY CASE r.status WHEN 'fail' THEN 0 WHEN 'crash' THEN 1 WHEN 'timeout' THEN 2"
    " WHEN 'error' THEN 3 WHEN 'new' THEN 4 WHEN 'flaky' THEN 5 ELSE 6 END,"
    " t.name, r.frame, r.id";
static const char sql_result_actual_png[] =
    "SELECT i.png FROM results r LEFT JOIN images i ON i.id = r.actual_image WHERE r.id = ?1";
static const char sql_result_diff_png[] =
    "SELECT i.png FROM results r LEFT JOIN images i ON i.id = r.diff_image WHERE r.id = ?1";

void rt_result_rows_finish(struct rt_result_rows *rows)
{
    for (size_t i = 0; i < rows->count; i++) {
        free(rows->items[i].trace);
        free(rows->items[i].message);
        free(rows->items[i].configuration);
        free(rows->items[i].golden_hash);
        free(rows->items[i].report);
    }
    free(rows->items);
    rows->items = NULL;
    rows->count = 0;
}

static double column_real(sqlite3_stmt *stmt, int column)
{
    return sqlite3_column_type(stmt, column) == SQLITE_NULL ? NAN
                                                            : sqlite3_column_double(stmt, column);
}

/* A row_read_fn: ROW is a struct rt_result_row. */
static rt_status read_result_row(sqlite3_stmt *stmt, void *row)
{
    struct rt_result_row *r = row;
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(stmt, 0);
    r->run_id = sqlite3_column_int64(stmt, 1);
    r->trace = rt_store_column_strdup(stmt, 2);
    r->frame = (uint32_t)sqlite3_column_int64(stmt, 3);
    if (!rt_result_status_parse((const char *)sqlite3_column_text(stmt, 4), &r->status))
        r->status = RT_RESULT_ERROR; /* CHECK forbids this */
    r->ssim = column_real(stmt, 5);
    r->ssim_worst_tile = column_real(stmt, 6);
    r->psnr = column_real(stmt, 7);
    r->threshold = column_real(stmt, 8);
    r->replay_ms = column_real(stmt, 9);
    r->diff_pixels = sqlite3_column_int64(stmt, 10);
    r->max_diff = sqlite3_column_int(stmt, 11);
    r->golden_id = sqlite3_column_int64(stmt, 12);
    r->attempts = (uint32_t)sqlite3_column_int64(stmt, 13);
    r->has_actual = sqlite3_column_int(stmt, 14);
    r->has_diff = sqlite3_column_int(stmt, 15);
    r->message = rt_store_column_strdup(stmt, 16);
    r->configuration = rt_store_column_strdup(stmt, 17);
    r->tile_threshold = column_real(stmt, 18);
    r->golden_hash = rt_store_column_strdup(stmt, 19);
    r->report = rt_store_column_strdup(stmt, 20);
    r->delta_e = column_real(stmt, 21);
    r->colour_threshold = column_real(stmt, 22);
    if (!r->trace || !r->message || !r->configuration || !r->golden_hash || !r->report)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading results");
    return rt_ok_status();
}

rt_status rt_store_results_list(struct rt_store *store, int64_t run_id,
                                struct rt_result_rows *rows_out)
{
    memset(rows_out, 0, sizeof *rows_out);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_results_list, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    rt_status s = rt_store_read_rows(store, stmt, (void **)&rows_out->items, &rows_out->count,
                            sizeof *rows_out->items, read_result_row, "listing results");
    rt_store_stmt_done(stmt);
    if (!rt_ok(&s))
        rt_result_rows_finish(rows_out);
    return s;
}

rt_status rt_store_result_image(struct rt_store *store, int64_t result_id,
                                enum rt_result_image which, uint8_t **png_out, size_t *size_out)
{
    *png_out = NULL;
    *size_out = 0;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store,
                         which == RT_RESULT_IMAGE_DIFF ? sql_result_diff_png
                                                       : sql_result_actual_png,
                         &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    int rc = sqlite3_step(stmt);
    int bytes = rc == SQLITE_ROW ? sqlite3_column_bytes(stmt, 0) : 0;
    rt_status s = rt_ok_status();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        s = rt_store_sql_error(store, rc, "reading a result image");
    else if (rc == SQLITE_DONE)
        s = rt_errorf(RT_ERR_BAD_INPUT, "no result with id %lld", (long long)result_id);
    else if (bytes <= 0)
        s = rt_errorf(RT_ERR_BAD_INPUT, "result %lld has no %s image", (long long)result_id,
                      which == RT_RESULT_IMAGE_DIFF ? "diff" : "actual");
    else if (!(*png_out = malloc((size_t)bytes)))
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory reading a result image");
    else {
        memcpy(*png_out, sqlite3_column_blob(stmt, 0), (size_t)bytes);
        *size_out = (size_t)bytes;
    }
    rt_store_stmt_done(stmt);
    return s;
}

/* ---- reading runs back -------------------------------------------------- */

static const char sql_runs_list[] =
    "SELECT u.id, u.started_at, u.finished_at, u.outcome, u.host, u.device, u.driver,"
    " u.device_key, u.workarounds, u.delays, u.version, u.label, u.shard, u.uuid,"
    " u.configurations,"
    " (SELECT coalesce(sum(n), 0) FROM run_counts c WHERE c.run_id = u.id),"
    " (SELECT coalesce(sum(n), 0) FROM run_counts c WHERE c.run_id = u.id"
    "  AND c.status IN ('fail','crash','timeout','error'))"
    " FROM runs u WHERE (?1 IS NULL OR u.label = ?1) ORDER BY u.id DESC"
    " LIMIT CASE WHEN ?2 = 0 THEN -1 ELSE ?2 END";

#define RUN_TEXT_COLUMNS 14

/* The row's text fields in column order (columns 1..14). */
static char **run_text_fields(struct rt_run_row *r, size_t i)
{
    char **fields[RUN_TEXT_COLUMNS] = {&r->started_at, &r->finished_at, &r->outcome,
                                       &r->host,       &r->device,      &r->driver,
                                       &r->device_key, &r->workarounds, &r->delays,
                                       &r->version,    &r->label,       &r->shard,
                                       &r->uuid,       &r->configurations};
    return fields[i];
}

void rt_run_rows_finish(struct rt_run_rows *rows)
{
    for (size_t i = 0; i < rows->count; i++)
        for (size_t f = 0; f < RUN_TEXT_COLUMNS; f++)
            free(*run_text_fields(&rows->items[i], f));
    free(rows->items);
    rows->items = NULL;
    rows->count = 0;
}

/* A row_read_fn: ROW is a struct rt_run_row. */
static rt_status read_run_row(sqlite3_stmt *stmt, void *row)
{
    struct rt_run_row *r = row;
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(stmt, 0);
    bool ok = true;
    for (size_t f = 0; f < RUN_TEXT_COLUMNS; f++) {
        char **field = run_text_fields(r, f);
        *field = rt_store_column_strdup(stmt, (int)f + 1);
        ok = ok && *field;
    }
    r->results = sqlite3_column_int64(stmt, RUN_TEXT_COLUMNS + 1);
    r->failures = sqlite3_column_int64(stmt, RUN_TEXT_COLUMNS + 2);
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory reading runs");
}

rt_status rt_store_runs_list(struct rt_store *store, const char *label, uint32_t limit,
                             struct rt_run_rows *rows_out)
{
    memset(rows_out, 0, sizeof *rows_out);
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_runs_list, &stmt));
    sqlite3_bind_text(stmt, 1, label, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, limit);
    rt_status s = rt_store_read_rows(store, stmt, (void **)&rows_out->items, &rows_out->count,
                            sizeof *rows_out->items, read_run_row, "listing runs");
    rt_store_stmt_done(stmt);
    if (!rt_ok(&s))
        rt_run_rows_finish(rows_out);
    return s;
}
