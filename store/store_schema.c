/*
 * store/store_schema.c — the golden store's schema as forward migrations.
 *
 * migrations[i] takes a database from user_version i to i + 1. A released
 * migration is never edited: a change is a new entry at the end, so any older
 * database can be brought forward. Statements here are fixed DDL with no
 * values in them, which is why they may go through sqlite3_exec.
 */
#include "store_internal.h"

#include <stdio.h>

/* Version 1: every table of DESIGN.md "Golden store". Device keys are ''
 * rather than NULL for "any device" so that UNIQUE and PRIMARY KEY treat
 * them as equal. */
static const char migration_1[] =
    "CREATE TABLE traces ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE,"
    "  added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
    "  finished_at TEXT, outcome TEXT,"
    "  host TEXT, device TEXT, driver TEXT, device_key TEXT,"
    "  workarounds TEXT, delays TEXT, version TEXT, label TEXT);"
    "CREATE TABLE goldens ("
    "  id INTEGER PRIMARY KEY,"
    "  trace_id INTEGER NOT NULL REFERENCES traces(id),"
    "  frame INTEGER NOT NULL CHECK (frame >= 1),"
    "  device_key TEXT NOT NULL DEFAULT '',"
    "  status TEXT NOT NULL CHECK (status IN ('accepted','known-bad')),"
    "  png BLOB NOT NULL,"
    "  hash TEXT NOT NULL,"
    "  size INTEGER NOT NULL,"
    "  width INTEGER NOT NULL, height INTEGER NOT NULL,"
    "  approved_by TEXT NOT NULL DEFAULT '',"
    "  from_result INTEGER REFERENCES results(id) ON DELETE SET NULL,"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
    "  UNIQUE (trace_id, frame, device_key, hash));"
    "CREATE TABLE expectations ("
    "  trace_id INTEGER NOT NULL REFERENCES traces(id),"
    "  device_key TEXT NOT NULL DEFAULT '',"
    "  kind TEXT NOT NULL CHECK (kind IN ('skip','flaky','crash','hang')),"
    "  note TEXT NOT NULL DEFAULT '',"
    "  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
    "  PRIMARY KEY (trace_id, device_key));"
    "CREATE TABLE results ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  trace_id INTEGER NOT NULL REFERENCES traces(id),"
    "  frame INTEGER NOT NULL CHECK (frame >= 0),"
    "  status TEXT NOT NULL CHECK (status IN"
    "    ('pass','fail','new','error','crash','timeout','flaky')),"
    "  ssim REAL, ssim_worst_tile REAL, psnr REAL, threshold REAL,"
    "  diff_pixels INTEGER, max_diff INTEGER,"
    "  golden_id INTEGER REFERENCES goldens(id) ON DELETE SET NULL,"
    "  actual_png BLOB, diff_png BLOB,"
    "  replay_ms REAL, attempts INTEGER NOT NULL DEFAULT 1,"
    "  message TEXT);";

/* Version 2: `--shard I/N` runs from many machines are joined into one run by
 * the dashboard, which needs to know each upload's shard; and the indexes the
 * dashboard's per-run and per-trace history queries need. */
static const char migration_2[] =
    "ALTER TABLE runs ADD COLUMN shard TEXT;"
    "CREATE INDEX results_by_run ON results (run_id, trace_id, frame);"
    "CREATE INDEX results_by_trace ON results (trace_id, frame, run_id);"
    "CREATE INDEX goldens_by_key ON goldens (trace_id, frame, device_key);";

/* Version 3 (docs/FORMATS.md section 3): runs uploaded from farm machines
 * carry their own id, so a retried upload is recognised; a run replays under
 * several configurations, so each result names its own; results keep the
 * worst-tile threshold, the golden's hash (goldens differ between stores) and
 * the replay report. */
static const char migration_3[] =
    "ALTER TABLE runs ADD COLUMN uuid TEXT;"
    "ALTER TABLE runs ADD COLUMN configurations TEXT;"
    "CREATE UNIQUE INDEX runs_by_uuid ON runs (uuid);"
    "CREATE INDEX runs_by_label ON runs (label, id);"
    "ALTER TABLE results ADD COLUMN configuration TEXT NOT NULL DEFAULT 'default';"
    "ALTER TABLE results ADD COLUMN tile_threshold REAL;"
    "ALTER TABLE results ADD COLUMN golden_hash TEXT;"
    "ALTER TABLE results ADD COLUMN report TEXT;";

/* Version 4: the colour gate of `retrace compare` (the largest CIEDE2000
 * difference of 32x32 tile means, compare/README.md) is recorded with its
 * threshold, so a colour failure shows why; and each run names the runner
 * process (pid and its start, on runs.host) so that the next runner on the
 * same host can tell a run whose process was killed from one still going. */
static const char migration_4[] =
    "ALTER TABLE results ADD COLUMN delta_e REAL;"
    "ALTER TABLE results ADD COLUMN colour_threshold REAL;"
    "ALTER TABLE runs ADD COLUMN pid INTEGER;"
    "ALTER TABLE runs ADD COLUMN pid_start TEXT;"
    "CREATE INDEX runs_unfinished ON runs (host) WHERE finished_at IS NULL;";

/* Version 5 (docs/FORMATS.md section 5.4): the dashboard is the farm's source
 * of goldens and expectations. A golden is never deleted, only reverted, so
 * ids are never reused and every change can be undone from its history
 * (golden_events, expectation_events: AUTOINCREMENT, so an event id is never
 * given twice either). Runs name their CI pipeline and the golden set they
 * compared with; results keep the expectation applied, whether they were a
 * regression, and the actual image's pixel hash, by which identical failures
 * are grouped. sync_state is the runner's side: the last answer's ETag. */
static const char migration_5[] =
    "ALTER TABLE goldens ADD COLUMN reverted_at TEXT;"
    "ALTER TABLE goldens ADD COLUMN approved_at TEXT;"
    "UPDATE goldens SET approved_at = created_at;"
    "CREATE TABLE golden_events ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  golden_id INTEGER NOT NULL REFERENCES goldens(id),"
    "  action TEXT NOT NULL CHECK (action IN ('added','approved','known-bad','reverted',"
    "    'restored','uploaded','synced','undo')),"
    "  existed_before INTEGER NOT NULL,"
    "  status_before TEXT, reverted_before INTEGER NOT NULL DEFAULT 0,"
    "  status_after TEXT NOT NULL, reverted_after INTEGER NOT NULL DEFAULT 0,"
    "  by TEXT NOT NULL DEFAULT '',"
    "  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
    "  result_id INTEGER, undoes INTEGER);"
    "CREATE INDEX golden_events_by_golden ON golden_events (golden_id, id);"
    "ALTER TABLE expectations ADD COLUMN set_by TEXT NOT NULL DEFAULT '';"
    "CREATE TABLE expectation_events ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  trace_id INTEGER NOT NULL REFERENCES traces(id),"
    "  device_key TEXT NOT NULL DEFAULT '',"
    "  kind_before TEXT NOT NULL, note_before TEXT NOT NULL DEFAULT '',"
    "  kind_after TEXT NOT NULL, note_after TEXT NOT NULL DEFAULT '',"
    "  by TEXT NOT NULL DEFAULT '',"
    "  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
    "  undoes INTEGER);"
    "CREATE INDEX expectation_events_by_key ON expectation_events (trace_id, device_key, id);"
    "ALTER TABLE runs ADD COLUMN pipeline TEXT;"
    "ALTER TABLE runs ADD COLUMN golden_set TEXT;"
    "CREATE INDEX runs_by_pipeline ON runs (pipeline, started_at) WHERE pipeline IS NOT NULL;"
    "CREATE INDEX runs_by_start ON runs (started_at, id);"
    "ALTER TABLE results ADD COLUMN expected TEXT;"
    "ALTER TABLE results ADD COLUMN regression INTEGER;"
    "ALTER TABLE results ADD COLUMN actual_hash TEXT;"
    "CREATE INDEX results_by_actual ON results (actual_hash) WHERE actual_hash IS NOT NULL;"
    "CREATE TABLE sync_state ("
    "  server TEXT NOT NULL, device_key TEXT NOT NULL, traces TEXT NOT NULL,"
    "  etag TEXT, seq INTEGER, synced_at TEXT,"
    "  PRIMARY KEY (server, device_key, traces));";

/* Version 6: where the worst tiles are (the SSIM one and the colour one, as
 * `retrace compare` found them), so the dashboard's zoom shows the tile that
 * was recorded rather than one it guesses from the images. */
static const char migration_6[] = "ALTER TABLE results ADD COLUMN worst_tiles TEXT;";

/* Version 7 (issue 18 §3, a year of nightly runs: docs/FORMATS.md section 8):
 * - a result's images live in `images`, once per content hash (the store
 *   hash of the PNG bytes, rt_hash()), so the same broken frame failing
 *   night after night is kept once; a passing result keeps none (those the
 *   old columns held are dropped here). actual_png and diff_png stay, NULL.
 * - `series` names what triage compares a result with (trace, frame,
 *   configuration, device key), and each result keeps its run's start
 *   (unixepoch) so "the previous result of this series" is one index seek
 *   instead of a walk over every result of the trace.
 * - `run_counts` holds each run's results by status, kept by triggers, so a
 *   page of runs is counted without reading their results.
 * - the indexes every API query needs (tests/server/test_server_plans.c).
 * Goldens keep their own bytes: they are never removed, and the sync API
 * serves them by hash. */
static const char migration_7[] =
    "CREATE TABLE images ("
    "  id INTEGER PRIMARY KEY,"
    "  hash TEXT NOT NULL UNIQUE,"
    "  size INTEGER NOT NULL,"
    "  png BLOB NOT NULL);"
    "INSERT OR IGNORE INTO images (hash, size, png)"
    "  SELECT rt_hash(actual_png), length(actual_png), actual_png FROM results"
    "  WHERE actual_png IS NOT NULL AND status <> 'pass';"
    "INSERT OR IGNORE INTO images (hash, size, png)"
    "  SELECT rt_hash(diff_png), length(diff_png), diff_png FROM results"
    "  WHERE diff_png IS NOT NULL AND status <> 'pass';"
    "CREATE TABLE series ("
    "  id INTEGER PRIMARY KEY,"
    "  trace_id INTEGER NOT NULL REFERENCES traces(id),"
    "  frame INTEGER NOT NULL,"
    "  configuration TEXT NOT NULL,"
    "  device_key TEXT NOT NULL,"
    "  UNIQUE (trace_id, frame, configuration, device_key));"
    "INSERT OR IGNORE INTO series (trace_id, frame, configuration, device_key)"
    "  SELECT DISTINCT r.trace_id, r.frame, r.configuration, coalesce(u.device_key, '')"
    "  FROM results r JOIN runs u ON u.id = r.run_id;"
    "ALTER TABLE results ADD COLUMN actual_image INTEGER;"
    "ALTER TABLE results ADD COLUMN diff_image INTEGER;"
    "ALTER TABLE results ADD COLUMN series_id INTEGER;"
    "ALTER TABLE results ADD COLUMN run_start INTEGER;"
    "UPDATE results SET"
    "  actual_image = CASE WHEN actual_png IS NOT NULL AND status <> 'pass' THEN"
    "    (SELECT id FROM images WHERE hash = rt_hash(results.actual_png)) END,"
    "  diff_image = CASE WHEN diff_png IS NOT NULL AND status <> 'pass' THEN"
    "    (SELECT id FROM images WHERE hash = rt_hash(results.diff_png)) END,"
    "  run_start = (SELECT coalesce(unixepoch(started_at), 0) FROM runs WHERE id = results.run_id),"
    "  series_id = (SELECT s.id FROM series s JOIN runs u ON u.id = results.run_id"
    "    WHERE s.trace_id = results.trace_id AND s.frame = results.frame"
    "    AND s.configuration = results.configuration AND s.device_key = coalesce(u.device_key, '')),"
    "  actual_png = NULL, diff_png = NULL;"
    "DROP INDEX results_by_run;"
    "DROP INDEX results_by_trace;"
    "CREATE INDEX results_by_run ON results (run_id, status);"
    "CREATE INDEX results_by_trace ON results (trace_id, run_start, run_id);"
    "CREATE INDEX results_by_series ON results (series_id, run_start, run_id, status);"
    "CREATE INDEX results_actual_image ON results (actual_image) WHERE actual_image IS NOT NULL;"
    "CREATE INDEX results_diff_image ON results (diff_image) WHERE diff_image IS NOT NULL;"
    "CREATE INDEX goldens_by_result ON goldens (from_result);"
    "CREATE INDEX goldens_by_hash ON goldens (hash);"
    "CREATE INDEX runs_by_series ON runs (label, device_key, started_at, id);"
    "CREATE TABLE run_counts ("
    "  run_id INTEGER NOT NULL, status TEXT NOT NULL, n INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, status)) WITHOUT ROWID;"
    "INSERT INTO run_counts SELECT run_id, status, count(*) FROM results GROUP BY run_id, status;"
    "CREATE TRIGGER results_counted AFTER INSERT ON results BEGIN"
    "  INSERT INTO run_counts (run_id, status, n) VALUES (new.run_id, new.status, 1)"
    "  ON CONFLICT (run_id, status) DO UPDATE SET n = n + 1; END;"
    "CREATE TRIGGER results_uncounted AFTER DELETE ON results BEGIN"
    "  UPDATE run_counts SET n = n - 1 WHERE run_id = old.run_id AND status = old.status; END;"
    "CREATE TRIGGER results_recounted AFTER UPDATE OF status, run_id ON results BEGIN"
    "  UPDATE run_counts SET n = n - 1 WHERE run_id = old.run_id AND status = old.status;"
    "  INSERT INTO run_counts (run_id, status, n) VALUES (new.run_id, new.status, 1)"
    "  ON CONFLICT (run_id, status) DO UPDATE SET n = n + 1; END;"
    "CREATE TRIGGER runs_uncounted AFTER DELETE ON runs BEGIN"
    "  DELETE FROM run_counts WHERE run_id = old.id; END;";

/* Version 8 (issue 19 part 4, docs/FORMATS.md section 7.4): a failing
 * result's diagnosis, the first draw whose output diverges from a reference
 * replay. Its images go into schema 7's `images` (once per content hash,
 * shared with results' images), named by role in diagnosis_images. Garbage
 * collection (store_gc.c) only knows results' images, so two triggers keep
 * the images right: one a diagnosis still names is never deleted, and one
 * whose last diagnosis went (with its result) goes too unless a result or
 * another diagnosis names it. Tables only: the migration is instant. */
static const char migration_8[] =
    "CREATE TABLE diagnoses ("
    "  result_id INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,"
    "  reference TEXT NOT NULL,"
    "  outcome TEXT NOT NULL CHECK (outcome IN ('diverged','none','no-draws','error')),"
    "  draws INTEGER, replays INTEGER, draw INTEGER, call INTEGER,"
    "  command TEXT, pipeline TEXT, target TEXT, shaders TEXT,"
    "  ssim REAL, delta_e REAL,"
    "  message TEXT NOT NULL DEFAULT '',"
    "  diagnosed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
    "CREATE TABLE diagnosis_images ("
    "  result_id INTEGER NOT NULL REFERENCES diagnoses(result_id) ON DELETE CASCADE,"
    "  role TEXT NOT NULL CHECK (role IN"
    "    ('before_test','after_test','before_reference','after_reference','diff')),"
    "  image_id INTEGER NOT NULL,"
    "  PRIMARY KEY (result_id, role)) WITHOUT ROWID;"
    "CREATE INDEX diagnosis_images_by_image ON diagnosis_images (image_id);"
    "CREATE TRIGGER diagnosis_image_kept BEFORE DELETE ON images"
    "  WHEN EXISTS (SELECT 1 FROM diagnosis_images WHERE image_id = old.id) BEGIN"
    "  SELECT RAISE(IGNORE); END;"
    "CREATE TRIGGER diagnosis_image_freed AFTER DELETE ON diagnosis_images"
    "  WHEN NOT EXISTS (SELECT 1 FROM diagnosis_images WHERE image_id = old.image_id)"
    "  AND NOT EXISTS (SELECT 1 FROM results WHERE actual_image = old.image_id)"
    "  AND NOT EXISTS (SELECT 1 FROM results WHERE diff_image = old.image_id) BEGIN"
    "  DELETE FROM images WHERE id = old.image_id; END;";

/* Version 9 (issue 18): a golden keeps its PNG in its row, before the
 * columns a listing shows, so listing goldens walked every PNG's overflow
 * pages (2,000 goldens of 300 KB: 8.1 s and 600 MB read, cold). This index
 * holds every column a listing, the sync API and the dashboard show: they
 * read it, never the rows. One index over a table of thousands: instant. */
static const char migration_9[] =
    "CREATE INDEX goldens_listed ON goldens (trace_id, frame, device_key, id, status, hash,"
    " size, width, height, approved_by, from_result, created_at, approved_at, reverted_at);";

static const char *const migrations[] = {migration_1, migration_2, migration_3, migration_4,
                                         migration_5, migration_6, migration_7, migration_8,
                                         migration_9};

#define MIGRATION_COUNT ((int)(sizeof migrations / sizeof migrations[0]))

int rt_store_schema_version(void) { return MIGRATION_COUNT; }

static rt_status exec_sql(sqlite3 *db, const char *sql, const char *what)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc == SQLITE_OK)
        return rt_ok_status();
    rt_status s = rt_store_rc_status(rc, what, err ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
    return s;
}

static rt_status read_version(sqlite3 *db, int *version_out)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        *version_out = sqlite3_column_int(stmt, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_OK)
        return rt_store_rc_status(rc, "reading the schema version", sqlite3_errmsg(db));
    return rt_ok_status();
}

/* rt_hash(BLOB): the store hash (rt_store_hash_hex) of a blob, NULL for NULL;
 * migration 7 files result images under it. */
static void sql_hash(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    char hex[RT_STORE_HASH_HEX + 1];
    const void *data = sqlite3_value_blob(argv[0]);
    rt_store_hash_hex(data ? data : "", (size_t)sqlite3_value_bytes(argv[0]), hex);
    sqlite3_result_text(ctx, hex, RT_STORE_HASH_HEX, SQLITE_TRANSIENT);
}

static rt_status apply_from(sqlite3 *db, int from, int target)
{
    int rc = sqlite3_create_function(db, "rt_hash", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                     NULL, sql_hash, NULL, NULL);
    if (rc != SQLITE_OK)
        return rt_store_rc_status(rc, "schema migration", sqlite3_errmsg(db));
    for (int v = from; v < target; v++) {
        char what[64];
        snprintf(what, sizeof what, "schema migration %d -> %d", v, v + 1);
        RT_TRY(exec_sql(db, migrations[v], what));
    }
    /* PRAGMA takes no bound parameters; TARGET is an int we checked. */
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", target);
    return exec_sql(db, pragma, "setting the schema version");
}

rt_status rt_store_schema_migrate(sqlite3 *db, int target)
{
    if (target < 0 || target > MIGRATION_COUNT)
        return rt_errorf(RT_ERR_INTERNAL, "no schema version %d", target);
    /* IMMEDIATE: two processes opening a new store at once must not both
     * create the tables; the loser waits, then sees the new version. */
    RT_TRY(exec_sql(db, "BEGIN IMMEDIATE", "starting the schema migration"));
    int version = 0;
    rt_status s = read_version(db, &version);
    if (rt_ok(&s) && version > MIGRATION_COUNT)
        s = rt_errorf(RT_ERR_BAD_INPUT,
                      "database schema version %d is newer than this retrace (%d)", version,
                      MIGRATION_COUNT);
    if (rt_ok(&s) && version < target)
        s = apply_from(db, version, target);
    if (rt_ok(&s))
        return exec_sql(db, "COMMIT", "committing the schema migration");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return s;
}
