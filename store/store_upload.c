/*
 * store/store_upload.c — recording a run upload (docs/FORMATS.md sections 2
 * and 5.2, decoded and checked by wire/) in ONE transaction: either the
 * goldens it brings, the run and every result are recorded, or nothing is.
 * Idempotent by the run's uuid.
 */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sql_golden_by_hash[] =
    "SELECT g.id FROM goldens g JOIN traces t ON t.id = g.trace_id"
    " WHERE g.hash = ?1 AND t.name = ?2 AND g.frame = ?3"
    " ORDER BY g.device_key = ?4 DESC, g.reverted_at IS NULL DESC, g.id LIMIT 1";

/* This store's id of the golden the farm compared with, 0 when it lacks it:
 * the same device key's first, then one in use. */
static rt_status map_golden(struct rt_store *store, const char *device_key, struct rt_trace_result *u)
{
    if (!u->r.golden_hash)
        return rt_ok_status();
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_by_hash, &stmt));
    sqlite3_bind_text(stmt, 1, u->r.golden_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, u->trace, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, u->r.frame);
    sqlite3_bind_text(stmt, 4, device_key ? device_key : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        u->r.golden_id = sqlite3_column_int64(stmt, 0);
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE
               ? rt_ok_status() : rt_store_sql_error(store, rc, "looking up a golden");
}

/* The goldens the runner compared with that this store never had. One it
 * has, even reverted, stays as it is: a runner must not bring back what the
 * dashboard reverted. */
static rt_status add_goldens(struct rt_store *store, const struct rt_store_upload *u)
{
    for (size_t i = 0; i < u->golden_count; i++) {
        struct rt_golden_new g = u->goldens[i];
        char by[300];
        snprintf(by, sizeof by, "%s", g.approved_by && *g.approved_by ? g.approved_by
                                      : u->run.host ? u->run.host : "");
        g.approved_by = by;
        g.from_result = 0;
        struct rt_golden_put put = {.in = &g, .action = "uploaded", .never_restore = true};
        if (g.frame < 1 || !g.trace || !*g.trace)
            return rt_errorf(RT_ERR_BAD_INPUT, "goldens[%zu]: no trace or frame", i);
        RT_TRY(rt_status_wrap(rt_store_golden_put_tx(store, &put), "goldens[%zu]", i));
    }
    return rt_ok_status();
}

/* A result's place in the upload, sorted by its trace's name to find the
 * results of one trace together: an upload of 20,000 results names 4,000
 * traces, and looking for each trace's results through the whole list was
 * 80 million strcmp calls, a third of the upload's time (bench/STORE.md). */
struct placed {
    const char *trace;
    size_t index;
};

static int by_trace_then_index(const void *a, const void *b)
{
    const struct placed *x = a, *y = b;
    int c = strcmp(x->trace, y->trace);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* A trace's results: a run of PLACED from START, COUNT long. */
struct group {
    size_t start, count;
};

static int by_first_index(const void *a, const void *b, void *placed)
{
    size_t x = ((const struct placed *)placed)[((const struct group *)a)->start].index;
    size_t y = ((const struct placed *)placed)[((const struct group *)b)->start].index;
    return (x > y) - (x < y);
}

/* Records every trace's results at once, the traces in the order they first
 * appear and each one's results in upload order (as before the sort). */
static rt_status record_traces(struct rt_store *store, int64_t run_id, const struct rt_store_upload *u)
{
    size_t n = u->result_count, groups = 0;
    struct placed *placed = malloc((n + 1) * sizeof *placed);
    struct group *group = malloc((n + 1) * sizeof *group);
    struct rt_result *batch = malloc((n + 1) * sizeof *batch);
    rt_status s = placed && group && batch ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; rt_ok(&s) && i < n; i++)
        placed[i] = (struct placed){.trace = u->results[i].trace, .index = i};
    if (rt_ok(&s)) {
        qsort(placed, n, sizeof *placed, by_trace_then_index);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || strcmp(placed[i].trace, placed[i - 1].trace))
                group[groups++] = (struct group){.start = i};
        for (size_t g = 0; g < groups; g++)
            group[g].count = (g + 1 < groups ? group[g + 1].start : n) - group[g].start;
        qsort_r(group, groups, sizeof *group, by_first_index, placed);
    }
    for (size_t g = 0; rt_ok(&s) && g < groups; g++) {
        for (size_t k = 0; k < group[g].count; k++)
            batch[k] = u->results[placed[group[g].start + k].index].r;
        s = rt_store_record_trace_results(store, run_id, placed[group[g].start].trace, batch,
                                          group[g].count);
    }
    free(placed);
    free(group);
    free(batch);
    return s;
}

static rt_status record(struct rt_store *store, const struct rt_store_upload *u, int64_t *run_id_out,
                        bool *duplicate_out)
{
    RT_TRY(rt_store_run_find_uuid(store, u->run.uuid, run_id_out));
    if (*run_id_out) {
        *duplicate_out = true; /* already recorded: change nothing */
        return rt_ok_status();
    }
    RT_TRY(add_goldens(store, u));
    RT_TRY(rt_store_run_begin(store, &u->run, run_id_out));
    for (size_t i = 0; i < u->result_count; i++)
        RT_TRY(map_golden(store, u->run.device_key, &u->results[i]));
    rt_status s = record_traces(store, *run_id_out, u);
    if (rt_ok(&s) && (u->finished_at || u->outcome))
        s = rt_store_run_finish_at(store, *run_id_out, u->finished_at, u->outcome);
    return s;
}

rt_status rt_store_upload_import(struct rt_store *store, const struct rt_store_upload *upload,
                                 int64_t *run_id_out, bool *duplicate_out)
{
    *run_id_out = 0;
    *duplicate_out = false;
    if (!upload->run.uuid)
        return rt_errorf(RT_ERR_BAD_INPUT, "run.id: missing");
    RT_TRY(rt_store_tx_begin(store));
    rt_status s = rt_store_tx_end(store, record(store, upload, run_id_out, duplicate_out));
    if (!rt_ok(&s))
        *run_id_out = 0;
    return s;
}
