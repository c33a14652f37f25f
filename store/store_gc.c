/*
 * store/store_gc.c — removing old runs (issue 18 §3: `retrace golden gc`,
 * `retrace serve --keep-runs DAYS`): runs that started more than DAYS ago
 * go with their results (the schema's ON DELETE CASCADE; run_counts follow
 * by trigger), then the images no remaining result names. Goldens are
 * never touched: a golden made from a removed result keeps its bytes (it
 * holds its own) and only forgets the result (ON DELETE SET NULL). One run
 * per transaction, so a farm's uploads and the dashboard's writes wait for
 * one run's delete at most, never for the whole collection.
 */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sql_oldest_run[] =
    "SELECT id, (SELECT coalesce(sum(n), 0) FROM run_counts WHERE run_id = runs.id) FROM runs"
    " WHERE started_at < strftime('%Y-%m-%dT%H:%M:%SZ', 'now', ?1)"
    " ORDER BY started_at, id LIMIT 1";
static const char sql_run_images[] =
    "SELECT actual_image FROM results WHERE run_id = ?1 AND actual_image IS NOT NULL"
    " UNION SELECT diff_image FROM results WHERE run_id = ?1 AND diff_image IS NOT NULL";
static const char sql_delete_run[] = "DELETE FROM runs WHERE id = ?1";
/* The image ?1 when no result names it any more: its size, then it goes. */
static const char sql_image_unused[] =
    "SELECT size FROM images WHERE id = ?1"
    " AND NOT EXISTS (SELECT 1 FROM results WHERE actual_image = ?1)"
    " AND NOT EXISTS (SELECT 1 FROM results WHERE diff_image = ?1)"
    " AND NOT EXISTS (SELECT 1 FROM diagnosis_images WHERE image_id = ?1)"; /* schema 8 */
static const char sql_delete_image[] = "DELETE FROM images WHERE id = ?1";

/* The oldest run started before the cutoff (?1, "-N days"): *id_out 0 when none. */
static rt_status oldest_run(struct rt_store *store, const char *cutoff, int64_t *id_out,
                            int64_t *results_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_oldest_run, &stmt));
    sqlite3_bind_text(stmt, 1, cutoff, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    *id_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    *results_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 1) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? rt_ok_status()
                                                 : rt_store_sql_error(store, rc, "finding old runs");
}

/* The ids of the images RUN_ID's results name, into a malloc'd array. */
static rt_status run_images(struct rt_store *store, int64_t run_id, int64_t **ids, size_t *count)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_images, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    size_t capacity = 0;
    int rc;
    rt_status s = rt_ok_status();
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            int64_t *grown = realloc(*ids, capacity * sizeof *grown);
            if (!grown) {
                s = rt_errorf(RT_ERR_INTERNAL, "out of memory");
                break;
            }
            *ids = grown;
        }
        (*ids)[(*count)++] = sqlite3_column_int64(stmt, 0);
    }
    rt_store_stmt_done(stmt);
    if (rt_ok(&s) && rc != SQLITE_DONE)
        s = rt_store_sql_error(store, rc, "reading a run's images");
    return s;
}

/* Removes image ID when nothing names it any more, counting it in OUT. */
static rt_status drop_if_unused(struct rt_store *store, int64_t id, struct rt_store_gc_counts *out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_image_unused, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    int rc = sqlite3_step(stmt);
    int64_t size = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    if (rc == SQLITE_DONE)
        return rt_ok_status(); /* still in use (or gone already) */
    if (rc != SQLITE_ROW)
        return rt_store_sql_error(store, rc, "checking an image");
    RT_TRY(rt_store_stmt(store, sql_delete_image, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    RT_TRY(rt_store_exec_stmt(store, stmt, "removing an image"));
    out->images++;
    out->image_bytes += (uint64_t)size;
    return rt_ok_status();
}

/* One run, its results and the images only it named (inside a transaction). */
static rt_status remove_run(struct rt_store *store, int64_t run_id, int64_t results,
                            struct rt_store_gc_counts *out)
{
    int64_t *images = NULL;
    size_t count = 0;
    rt_status s = run_images(store, run_id, &images, &count);
    sqlite3_stmt *stmt = NULL;
    if (rt_ok(&s))
        s = rt_store_stmt(store, sql_delete_run, &stmt);
    if (rt_ok(&s)) {
        sqlite3_bind_int64(stmt, 1, run_id);
        s = rt_store_exec_stmt(store, stmt, "removing a run");
    }
    for (size_t i = 0; rt_ok(&s) && i < count; i++)
        s = drop_if_unused(store, images[i], out);
    free(images);
    if (rt_ok(&s)) {
        out->runs++;
        out->results += (uint64_t)results;
    }
    return s;
}

static rt_status free_bytes(struct rt_store *store, uint64_t *bytes_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, "SELECT (SELECT freelist_count FROM pragma_freelist_count) *"
                                " (SELECT page_size FROM pragma_page_size)", &stmt));
    int rc = sqlite3_step(stmt);
    *bytes_out = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(stmt, 0) : 0;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW ? rt_ok_status() : rt_store_sql_error(store, rc, "reading free pages");
}

rt_status rt_store_gc(struct rt_store *store, uint32_t keep_days, size_t max_runs,
                      struct rt_store_gc_counts *out)
{
    memset(out, 0, sizeof *out);
    if (keep_days == 0)
        return rt_errorf(RT_ERR_USAGE, "keep at least one day of runs");
    char cutoff[32];
    snprintf(cutoff, sizeof cutoff, "-%u days", keep_days);
    for (;;) {
        if (max_runs && out->runs >= max_runs) {
            out->more = true;
            break;
        }
        int64_t run_id = 0, results = 0;
        RT_TRY(rt_store_tx_begin(store));
        rt_status s = oldest_run(store, cutoff, &run_id, &results);
        if (rt_ok(&s) && run_id)
            s = remove_run(store, run_id, results, out);
        RT_TRY(rt_store_tx_end(store, s));
        if (!run_id)
            break;
    }
    return free_bytes(store, &out->free_bytes);
}
