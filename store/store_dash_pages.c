/*
 * store/store_dash_pages.c — the dashboard's three big answers (the runs
 * list, a run page, a trace's history) as JSON text made by SQLite's own
 * JSON functions (json_object, json_group_array) in one statement each, so
 * no row becomes a cJSON tree to be printed afterwards. Those trees were
 * most of a page's cost at 10 million results (bench/STORE.md): a number
 * printed with printf and read back with sscanf, a node allocated and freed
 * per value. JSON still comes from a maintained library (README,
 * "dependencies"): SQLite's, which is linked already.
 *
 * The keys and their order are those the cJSON pages had (server/README.md
 * documents them). What differs is how SQLite writes a number: a REAL
 * with 15 significant digits (cJSON wrote 17 where 15 did not read back
 * within its epsilon: the two differ by at most 2e-16), and one with no
 * fraction keeps ".0" (an ssim of 1 is `1.0`; the same number to any JSON
 * reader). SQLite would write an infinity as `Inf`, which is no JSON: every
 * REAL goes through FINITE, which makes it null, as cJSON did (a PSNR of
 * two identical images is infinite).
 */
#include "store_dash.h"

#include <stdlib.h>
#include <string.h>

/* X, or NULL when X is infinite (NaN is never stored: SQLite makes it NULL). */
#define FINITE(x) "(CASE WHEN " x " BETWEEN -1.7976931348623157e308 AND 1.7976931348623157e308 THEN " x " END)"
/* The JSON text stored in X, parsed; null when X is NULL or no JSON. */
#define PARSED(x) "(CASE WHEN json_valid(" x ") THEN json(" x ") END)"
/* true or false (SQLite has no boolean: json() gives the JSON literal) */
#define BOOLEAN(cond) "(CASE WHEN " cond " THEN json('true') ELSE json('false') END)"
#define FAILING "('fail','error','crash','timeout')"

/* ---- a run: its row, counts and history strip ----------------------------- */

#define RUN_OBJECT(u)                                                                      \
    "'id', " u ".id, 'started_at', " u ".started_at, 'finished_at', " u ".finished_at,"   \
    " 'outcome', " u ".outcome, 'host', " u ".host, 'device', " u ".device,"              \
    " 'driver', " u ".driver, 'device_key', " u ".device_key,"                            \
    " 'workarounds', " u ".workarounds, 'delays', " u ".delays,"                          \
    " 'retrace_version', " u ".version, 'label', " u ".label, 'shard', " u ".shard,"      \
    " 'uuid', " u ".uuid, 'configurations', " PARSED(u ".configurations") ","            \
    " 'pipeline', " u ".pipeline, 'golden_set', " u ".golden_set"

/* Run U's results by status, kept by triggers in run_counts (s, n), and its
 * failures whose image was approved (a = 1 each: one seek in results_by_run
 * per failing status, the review one seek in goldens_by_result), which
 * count as "approved" instead of their status. (Not "c": test_server_plans
 * knows a table by its aliases, and "run_counts c" is one.) */
#define COUNT_OF(status) "'" status "', coalesce(sum(CASE WHEN cs.s = '" status "' THEN cs.n - cs.a END), 0)"
#define COUNTS(u)                                                                          \
    "(SELECT json_object(" COUNT_OF("pass") ", " COUNT_OF("fail") ", " COUNT_OF("flaky") "," \
    " " COUNT_OF("new") ", " COUNT_OF("crash") ", " COUNT_OF("timeout") ","                \
    " " COUNT_OF("error") ", 'approved', coalesce(sum(cs.a), 0))"                          \
    " FROM (SELECT k.status AS s, k.n AS n, 0 AS a FROM run_counts k WHERE k.run_id = " u ".id" \
    "  UNION ALL SELECT x.status, 0, 1 FROM results x WHERE x.run_id = " u ".id"             \
    "  AND x.status IN ('fail','new','error','crash','timeout','flaky')"                     \
    "  AND " REVIEW_OF("x.id") " = 'accepted') cs)"

/* This run and up to 9 earlier ones of its label and device key, oldest
 * first (runs_by_series walked backwards, the ten then put in order). */
#define HISTORY_STRIP(u)                                                                   \
    "(SELECT json_group_array(json_object('id', h.id, 'outcome', h.outcome,"               \
    " 'started_at', h.started_at)) FROM (SELECT * FROM (SELECT b.id, b.outcome, b.started_at" \
    " FROM runs b WHERE b.label IS " u ".label AND b.device_key IS " u ".device_key"        \
    " AND (b.started_at < " u ".started_at OR (b.started_at = " u ".started_at"            \
    " AND b.id <= " u ".id)) ORDER BY b.started_at DESC, b.id DESC LIMIT 10)"             \
    " ORDER BY started_at, id LIMIT 10) h)"

/* ---- the runs list ---------------------------------------------------------- */

#define RUNS_MATCHING                                                                   \
    " FROM runs u WHERE (?1 IS NULL OR u.label = ?1)"                                   \
    " AND (?2 IS NULL OR u.device = ?2 OR u.device_key = ?2)"                           \
    " AND (?3 IS NULL OR u.outcome = ?3"                                                \
    "  OR EXISTS (SELECT 1 FROM run_counts c WHERE c.run_id = u.id AND c.status = ?3"  \
    "   AND c.n > 0))"

static const char sql_runs_page[] =
    "SELECT json_object('runs', (SELECT json_group_array(json_object(" RUN_OBJECT("u") ","
    " 'counts', " COUNTS("u") ", 'history', " HISTORY_STRIP("u") "))"
    " FROM (SELECT u.*" RUNS_MATCHING " ORDER BY u.started_at DESC, u.id DESC LIMIT ?4 OFFSET ?5) u),"
    " 'total', (SELECT count(*)" RUNS_MATCHING "), 'limit', ?4, 'offset', ?5)";

/* ---- one run's page of results ----------------------------------------------- */

/* Result P before the result the triage is for (Q: its series, its run's
 * start, its run): a range of results_by_series bound straight from Q's
 * row, no seek to find Q first. */
#define BEFORE(p, q)                                                                      \
    p ".series_id = " q ".series_id AND (" p ".run_start < " q ".run_start"               \
    " OR (" p ".run_start = " q ".run_start AND " p ".run_id < " q ".run_id))"

/* What is new and since when (issue 17 §2, store_dash_triage.c for the
 * joined page): a failure is "new", or "still-failing" since the first
 * failure after the last pass before it; a pass after a failure is
 * "fixed"; anything else null. */
#define TRIAGE(q)                                                                          \
    "(CASE WHEN " q ".status IN " FAILING " THEN"                                         \
    " (WITH lp AS (SELECT e.run_start AS s, e.run_id AS rid FROM results e"               \
    "   WHERE " BEFORE("e", q) " AND e.status IN ('pass','flaky')"                        \
    "   ORDER BY e.run_start DESC, e.run_id DESC LIMIT 1),"                               \
    "  sr AS (SELECT (SELECT e.run_id FROM results e WHERE " BEFORE("e", q)               \
    "   AND e.status IN " FAILING " AND (NOT EXISTS (SELECT 1 FROM lp)"                  \
    "   OR e.run_start > (SELECT s FROM lp) OR (e.run_start = (SELECT s FROM lp)"         \
    "   AND e.run_id > (SELECT rid FROM lp))) ORDER BY e.run_start, e.run_id LIMIT 1) AS rid)" \
    "  SELECT json_object('state', CASE WHEN sr.rid IS NULL THEN 'new' ELSE 'still-failing' END," \
    "   'since_run', sr.rid, 'last_pass_run', (SELECT rid FROM lp)) FROM sr)"              \
    " ELSE (SELECT CASE WHEN e.status IN " FAILING " THEN json_object('state', 'fixed') END" \
    "  FROM results e WHERE " BEFORE("e", q) " ORDER BY e.run_start DESC, e.run_id DESC LIMIT 1)" \
    " END)"

/* A result as the run page and the result page have it (server/README.md). */
#define RESULT_OBJECT(r)                                                                   \
    "'id', " r ".id, 'run_id', " r ".run_id, 'trace', " r ".trace, 'frame', " r ".frame," \
    " 'status', " r ".status, 'ssim', " FINITE(r ".ssim") ","                             \
    " 'ssim_worst_tile', " FINITE(r ".ssim_worst_tile") ", 'psnr', " FINITE(r ".psnr") "," \
    " 'threshold', " FINITE(r ".threshold") ", 'diff_pixels', " r ".diff_pixels,"         \
    " 'max_diff', " r ".max_diff, 'replay_ms', " FINITE(r ".replay_ms") ","               \
    " 'attempts', " r ".attempts, 'golden_id', " r ".golden_id,"                          \
    " 'has_actual', " BOOLEAN(r ".actual_image IS NOT NULL") ","                          \
    " 'has_diff', " BOOLEAN(r ".diff_image IS NOT NULL") ","                              \
    " 'message', coalesce(" r ".message, ''), 'review', " REVIEW_OF(r ".id") ","          \
    " 'configuration', " r ".configuration, 'tile_threshold', " FINITE(r ".tile_threshold") "," \
    " 'golden_hash', " r ".golden_hash, 'delta_e', " FINITE(r ".delta_e") ","             \
    " 'colour_threshold', " FINITE(r ".colour_threshold") ", 'expected', " r ".expected," \
    " 'regression', " r ".regression, 'actual_hash', " r ".actual_hash,"                  \
    " 'worst_tiles', " PARSED(r ".worst_tiles")

/* The page's results (?2 from ?3, failures first) once, numbered, for the
 * results and for their groups: the run's results sorted by their keys
 * alone (no row's columns carried through the sort), then the page's rows
 * read by id. */
#define PAGE_COLUMNS                                                                       \
    "r.id, r.run_id, r.frame, r.status, r.ssim, r.ssim_worst_tile, r.psnr, r.threshold,"  \
    " r.diff_pixels, r.max_diff, r.replay_ms, r.attempts, r.golden_id, r.actual_image,"   \
    " r.diff_image, r.message, r.configuration, r.tile_threshold, r.golden_hash,"         \
    " r.delta_e, r.colour_threshold, r.expected, r.regression, r.actual_hash,"            \
    " r.worst_tiles, r.series_id, r.run_start"
static const char sql_run_page[] =
    "WITH ids AS (SELECT r.id, t.name AS trace, row_number() OVER (" RESULTS_FAILURES_FIRST
    ") AS pos" RESULT_FROM " WHERE r.run_id = ?1" RESULTS_FAILURES_FIRST " LIMIT ?2 OFFSET ?3),"
    " page AS MATERIALIZED (SELECT ids.pos, ids.trace, " PAGE_COLUMNS
    " FROM ids JOIN results r ON r.id = ids.id)"
    " SELECT json_object(" RUN_OBJECT("u") ", 'counts', " COUNTS("u") ","
    " 'results_total', (SELECT coalesce(sum(k.n), 0) FROM run_counts k WHERE k.run_id = u.id),"
    " 'results_limit', ?2, 'results_offset', ?3, 'history', " HISTORY_STRIP("u") ","
    " 'results', (SELECT json_group_array(json_object(" RESULT_OBJECT("p") ", 'triage', "
    TRIAGE("p") ")) FROM (SELECT * FROM page ORDER BY pos LIMIT -1) p),"
    /* failing results with the same actual image, in the order they first
     * appear: "the same image fails on 3 configurations" is one group */
    " 'groups', (SELECT json_group_array(json_object('actual_hash', g.actual_hash,"
    "  'count', (SELECT count(*) FROM page q WHERE q.actual_hash = g.actual_hash"
    "   AND q.status IN " FAILING "),"
    "  'result_ids', (SELECT json_group_array(q.id) FROM (SELECT id FROM page"
    "   WHERE actual_hash = g.actual_hash AND status IN " FAILING " ORDER BY pos LIMIT -1) q),"
    "  'configurations', (SELECT json_group_array(DISTINCT q.configuration) FROM"
    "   (SELECT coalesce(configuration, 'default') AS configuration FROM page"
    "   WHERE actual_hash = g.actual_hash AND status IN " FAILING " ORDER BY pos LIMIT -1) q),"
    "  'device_keys', json_array(coalesce(u.device_key, ''))))"
    "  FROM (SELECT actual_hash, min(pos) AS first FROM page WHERE actual_hash <> ''"
    "   AND status IN " FAILING " GROUP BY actual_hash ORDER BY first LIMIT -1) g))"
    " FROM runs u WHERE u.id = ?1";

/* ---- a trace's history --------------------------------------------------------- */

/* A golden of trace T (goldens_listed covers every column: no table row read). */
#define GOLDEN_OBJECT(g, t)                                                                \
    "'id', " g ".id, 'trace', " t ".name, 'frame', " g ".frame,"                          \
    " 'device_key', " g ".device_key, 'status', " g ".status, 'hash', " g ".hash,"        \
    " 'size', " g ".size, 'width', " g ".width, 'height', " g ".height,"                  \
    " 'approved_by', " g ".approved_by, 'from_result', " g ".from_result,"                \
    " 'created_at', " g ".created_at, 'approved_at', coalesce(" g ".approved_at, " g ".created_at)," \
    " 'reverted_at', " g ".reverted_at"
#define GOLDEN_COLUMNS_LISTED                                                              \
    "id, frame, device_key, status, hash, size, width, height, approved_by, from_result,"  \
    " created_at, approved_at, reverted_at"

/* The newest ?3 results of trace TR (of device key ?2 through its series),
 * oldest first: an index walk backwards from the newest, never the whole
 * trace's results, then those put in order. Only the keys go through the
 * two sorts; each point's columns are read once, in order, by id. */
#define HISTORY_POINT                                                                      \
    "'run_id', u.id, 'started_at', u.started_at, 'label', u.label, 'device', u.device,"   \
    " 'device_key', coalesce(u.device_key, ''), 'result_id', r.id, 'frame', r.frame,"     \
    " 'status', r.status, 'ssim', " FINITE("r.ssim") ","                                  \
    " 'ssim_worst_tile', " FINITE("r.ssim_worst_tile") ", 'threshold', " FINITE("r.threshold") "," \
    " 'tile_threshold', " FINITE("r.tile_threshold") ", 'configuration', r.configuration," \
    " 'delta_e', " FINITE("r.delta_e") ", 'colour_threshold', " FINITE("r.colour_threshold") "," \
    " 'expected', r.expected"
#define HISTORY_PAGE(where)                                                                \
    "SELECT json_object('trace', tr.name, 'points', (SELECT json_group_array(json_object("  \
    HISTORY_POINT ")) FROM (SELECT * FROM (SELECT e.id AS rid, e.run_start AS s,"          \
    " e.run_id AS run, e.frame AS f FROM results e WHERE " where                           \
    " ORDER BY e.run_start DESC, e.run_id DESC, e.frame DESC LIMIT ?3)"                    \
    " ORDER BY s, run, f LIMIT -1) k JOIN results r ON r.id = k.rid JOIN runs u ON u.id = k.run)," \
    " 'goldens', (SELECT json_group_array(json_object(" GOLDEN_OBJECT("g", "tr") ")) FROM" \
    " (SELECT " GOLDEN_COLUMNS_LISTED " FROM goldens WHERE trace_id = tr.id"               \
    " ORDER BY frame, device_key, id LIMIT -1) g)) FROM traces tr WHERE tr.name = ?1"
static const char sql_history[] = HISTORY_PAGE("e.trace_id = tr.id");
static const char sql_history_device[] = HISTORY_PAGE(
    "e.series_id IN (SELECT id FROM series WHERE trace_id = tr.id AND device_key = ?2)");

/* ---- one statement, one row, one text ------------------------------------------- */

/* Steps STMT (bound) once: its one column's text into *TEXT_OUT (malloc'd),
 * or NULL when there is no row (an unknown run or trace). */
static rt_status page_text(struct rt_store *store, sqlite3_stmt *stmt, const char *what,
                           char **text_out)
{
    *text_out = NULL;
    int rc = sqlite3_step(stmt);
    rt_status s = rt_ok_status();
    if (rc == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(stmt, 0);
        size_t size = (size_t)sqlite3_column_bytes(stmt, 0);
        if (text && (*text_out = malloc(size + 1)))
            memcpy(*text_out, text, size + 1);
        else
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory %s", what);
    } else if (rc != SQLITE_DONE) {
        s = rt_store_sql_error(store, rc, what);
    }
    rt_store_stmt_done(stmt);
    return s;
}

static rt_status runs_now(struct rt_store *store, const struct rt_dash_runs_query *q,
                          char **text_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_runs_page, &stmt));
    sqlite3_bind_text(stmt, 1, q->label, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, q->device, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, q->status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, q->limit);
    sqlite3_bind_int64(stmt, 5, q->offset);
    return page_text(store, stmt, "listing runs", text_out);
}

static rt_status run_now(struct rt_store *store, int64_t run_id, uint32_t limit, uint32_t offset,
                         char **text_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_run_page, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    sqlite3_bind_int64(stmt, 2, limit);
    sqlite3_bind_int64(stmt, 3, offset);
    return page_text(store, stmt, "reading a run", text_out);
}

static rt_status history_now(struct rt_store *store, const char *trace, const char *device_key,
                             uint32_t limit, char **text_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, device_key ? sql_history_device : sql_history, &stmt));
    sqlite3_bind_text(stmt, 1, trace, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, device_key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, limit);
    return page_text(store, stmt, "reading a trace's history", text_out);
}

/* ---- the public entry points: each in one snapshot ------------------------ */

rt_status rt_store_dash_runs(struct rt_store *store, const struct rt_dash_runs_query *query,
                             char **json_out)
{
    IN_SNAPSHOT(store, runs_now(store, query, json_out));
}

rt_status rt_store_dash_run(struct rt_store *store, int64_t run_id, uint32_t limit,
                            uint32_t offset, char **json_out)
{
    IN_SNAPSHOT(store, run_now(store, run_id, limit, offset, json_out));
}

rt_status rt_store_dash_history(struct rt_store *store, const char *trace,
                                const char *device_key, uint32_t limit, char **json_out)
{
    IN_SNAPSHOT(store, history_now(store, trace, device_key, limit, json_out));
}
