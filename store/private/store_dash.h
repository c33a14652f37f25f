/*
 * store/private/store_dash.h — what the dashboard's store files share
 * (store_dashboard.c, store_dash_pages.c, store_dash_rows.c,
 * store_dash_joined.c): the column lists, turning rows into JSON, counts,
 * snapshots.
 * Private to store/ like store_internal.h.
 */
#ifndef RT_STORE_DASH_H
#define RT_STORE_DASH_H

#include "store_internal.h"

#include <cjson/cJSON.h>

#define RUN_COLUMNS                                                                    \
    "SELECT u.id, u.started_at, u.finished_at, u.outcome, u.host, u.device, u.driver," \
    " u.device_key, u.workarounds, u.delays, u.version AS retrace_version, u.label, u.shard," \
    " u.uuid, u.configurations AS configurations_json, u.pipeline, u.golden_set"

/* The status of the newest golden made from result R through the dashboard
 * (one seek in goldens_by_result). */
#define REVIEW_OF(r)                                                                   \
    "(SELECT g.status FROM goldens g WHERE g.from_result = " r " AND g.reverted_at IS NULL" \
    " ORDER BY g.id DESC LIMIT 1)"

#define RESULT_COLUMNS                                                                   \
    "SELECT r.id, r.run_id, t.name AS trace, r.frame, r.status, r.ssim, r.ssim_worst_tile," \
    " r.psnr, r.threshold, r.diff_pixels, r.max_diff, r.replay_ms, r.attempts,"          \
    " r.golden_id, r.actual_image IS NOT NULL AS has_actual,"                            \
    " r.diff_image IS NOT NULL AS has_diff, coalesce(r.message, '') AS message,"         \
    " " REVIEW_OF("r.id") " AS review, r.configuration, r.tile_threshold, r.golden_hash,"          \
    " r.delta_e, r.colour_threshold, r.expected, r.regression, r.actual_hash,"           \
    " r.worst_tiles AS worst_tiles_json"
#define RESULT_FROM                                                                      \
    " FROM results r JOIN traces t ON t.id = r.trace_id"

#define RESULTS_FAILURES_FIRST                                                               \
    " ORDER BY CASE r.status WHEN 'fail' THEN 0 WHEN 'crash' THEN 1 WHEN 'timeout' THEN 2" \
    " WHEN 'error' THEN 3 WHEN 'new' THEN 4 WHEN 'flaky' THEN 5 ELSE 6 END,"              \
    " t.name, r.frame, r.id"

/** Steps STMT (already bound) to the end, appending each row to ARRAY as an
 * object keyed by column names ("..._json" columns parsed, "has_..." booleans). */
RT_MUST_CHECK rt_status rt_dash_rows_into(struct rt_store *store, sqlite3_stmt *stmt,
                                          cJSON *array, const char *what);

/** The single row of STMT as an object, or *obj_out NULL when there is none. */
RT_MUST_CHECK rt_status rt_dash_row_into(struct rt_store *store, sqlite3_stmt *stmt,
                                         cJSON **obj_out, const char *what);

/** Deletes JSON and says the answer ran out of memory. */
rt_status rt_dash_out_of_memory(cJSON *json);

/** A string member of OBJ, NULL when absent or not a string. */
const char *rt_dash_text_field(cJSON *obj, const char *key);

/** Adds "counts" (by status; approved failures as "approved") to every run of
 * RUNS, in any order. */
RT_MUST_CHECK rt_status rt_dash_add_counts(struct rt_store *store, cJSON *runs);

/** Adds "triage" (new, still failing since run N, fixed) to every result of
 * RESULTS and "groups" (failures with the same actual image) to JSON;
 * DEVICE_KEY names the results' device when they carry none of their own. */
RT_MUST_CHECK rt_status rt_dash_add_triage(struct rt_store *store, cJSON *json, cJSON *results,
                                           const char *device_key);

/** Begins a read transaction unless one is open (*began says which). */
RT_MUST_CHECK rt_status rt_dash_snapshot_begin(struct rt_store *store, bool *began);

/** Ends what rt_dash_snapshot_begin began; returns RESULT unless ending failed. */
rt_status rt_dash_snapshot_end(struct rt_store *store, bool began, rt_status result);

/* Returns CALL's status, run inside one read snapshot. */
#define IN_SNAPSHOT(store, call)                              \
    do {                                                      \
        bool began_ = false;                                  \
        RT_TRY(rt_dash_snapshot_begin((store), &began_));     \
        return rt_dash_snapshot_end((store), began_, (call)); \
    } while (0)

#endif
