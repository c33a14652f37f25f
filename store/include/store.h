/*
 * store/include/store.h — the SQLite golden store: one database file per farm (or
 * per developer) holding traces, golden PNGs, expectations, runs and results.
 *
 * Owns: the database schema (PRAGMA user_version + forward migrations in
 * store_schema.c) and every SQL statement of retrace; nothing else opens the
 * database. Statements are prepared once per connection and always bound,
 * never built from values. Connections run in WAL mode with foreign keys on
 * and a busy timeout; every write is a BEGIN IMMEDIATE transaction, and one
 * trace's results are committed in exactly one, so several processes can
 * record into one database at once and lose nothing. A struct rt_store is
 * one thread's at a time (nothing in it, nor its SQLite connection, opened
 * without SQLite's own locking, is locked): threads open one each.
 * Must not touch: Vulkan, replay, image metrics. PNG bytes are stored as
 * opaque blobs; png_io is used only to check that a blob is a PNG and to read
 * its size.
 * Errors: a database that is corrupt, not a database, from a newer retrace,
 * read-only when writing, or locked beyond the busy timeout is RT_ERR_BAD_INPUT
 * with a one-line reason; I/O failures on our side are RT_ERR_INTERNAL.
 * Entry points: rt_store_open / rt_store_close, rt_store_golden_*,
 * rt_store_goldens_for, rt_store_expectation_*, rt_store_run_*,
 * rt_store_record_trace_results, rt_store_export_goldens / _import_goldens.
 * Device keys: "" (or NULL) means "any device"; a key such as
 * "10de:2684/535.104" makes a golden or expectation specific to one device.
 */
#ifndef RT_STORE_H
#define RT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct rt_store;
struct cJSON;

enum rt_store_mode {
    RT_STORE_READ_ONLY,  /* never writes; the schema must already be current */
    RT_STORE_READ_WRITE, /* the file must exist; migrates it forward if older */
    RT_STORE_CREATE,     /* like READ_WRITE, creating an empty store if missing */
};

/** The schema version this retrace writes (PRAGMA user_version). */
int rt_store_schema_version(void);

/**
 * Opens PATH. Read-write modes run PRAGMA quick_check and migrate an older
 * schema forward in one transaction. Errors (RT_ERR_BAD_INPUT): missing file
 * (except CREATE), not a database or corrupt, schema newer than this retrace,
 * read-only file in a write mode, locked beyond the busy timeout.
 */
RT_MUST_CHECK rt_status rt_store_open(const char *path, enum rt_store_mode mode,
                                      struct rt_store **store_out);

/** Finalizes every statement and closes the connection. NULL is a no-op. */
void rt_store_close(struct rt_store *store);

/** How long a write waits for another process's transaction (default 10 s). */
void rt_store_set_busy_timeout(struct rt_store *store, int milliseconds);

/* ---- goldens ---------------------------------------------------------- */

enum rt_golden_status {
    RT_GOLDEN_ACCEPTED,  /* a correct rendering; any accepted golden may match */
    RT_GOLDEN_KNOWN_BAD, /* a wrong rendering kept so it is recognised, never matched */
};

/** "accepted" / "known-bad"; parse returns false for anything else. */
const char *rt_golden_status_name(enum rt_golden_status status);
bool rt_golden_status_parse(const char *name, enum rt_golden_status *status_out);

#define RT_STORE_HASH_HEX 32 /* XXH3-128, lower-case hex, without the NUL */

/** The store hash of SIZE bytes (XXH3-128, lower-case hex): a golden's PNG
 * bytes, or (the pixel hash) an image's RGBA8 pixels. */
void rt_store_hash(const void *data, size_t size, char hex_out[RT_STORE_HASH_HEX + 1]);

struct rt_golden {
    int64_t id;
    char *trace;
    uint32_t frame;      /* frames count from 1 */
    char *device_key;    /* "" = any device */
    enum rt_golden_status status;
    char hash[RT_STORE_HASH_HEX + 1];
    uint64_t size;       /* PNG bytes */
    uint32_t width, height;
    char *approved_by;   /* "" when unknown */
    int64_t from_result; /* results.id it was approved from, 0 if none */
    char *created_at;    /* UTC, ISO 8601 */
    char *approved_at;   /* when it was last approved or marked ("" when unknown) */
    bool reverted;       /* no longer used (history only): never matched, never synced */
    uint8_t *png;        /* only when asked for; png_size bytes */
    size_t png_size;
};

/** Frees what a golden owns; leaves it zeroed. */
void rt_golden_finish(struct rt_golden *golden);

struct rt_golden_list {
    struct rt_golden *items;
    size_t count;
};

void rt_golden_list_finish(struct rt_golden_list *list);

struct rt_golden_new {
    const char *trace;
    uint32_t frame;
    const char *device_key;       /* NULL or "" = any device */
    const void *png;
    size_t png_size;
    const char *approved_by;      /* may be NULL */
    int64_t from_result;          /* 0 = none */
    enum rt_golden_status status; /* used only when a new row is made */
    const char *approved_at;      /* ISO 8601 UTC; NULL = now */
};

/**
 * Stores a golden after checking that the bytes are a PNG (RT_ERR_BAD_INPUT
 * otherwise). Idempotent: the same bytes for the same key return the existing
 * id with *created_out false (created_out may be NULL).
 */
RT_MUST_CHECK rt_status rt_store_golden_put(struct rt_store *store,
                                            const struct rt_golden_new *golden,
                                            int64_t *id_out, bool *created_out);

struct rt_golden_filter {
    const char *trace;      /* NULL = every trace */
    uint32_t frame;         /* 0 = every frame */
    const char *device_key; /* NULL = every device; "" = device-independent only */
};

/** Goldens matching FILTER (NULL = all), ordered by trace, frame, device, id; no PNG bytes. */
RT_MUST_CHECK rt_status rt_store_golden_list(struct rt_store *store,
                                             const struct rt_golden_filter *filter,
                                             struct rt_golden_list *list_out);

/** One golden by id, with its PNG bytes when WITH_PNG. Unknown id: RT_ERR_BAD_INPUT. */
RT_MUST_CHECK rt_status rt_store_golden_get(struct rt_store *store, int64_t id,
                                            bool with_png, struct rt_golden *golden_out);

/** Reverts a golden (never deletes it: ids are never reused, history is kept).
 * Unknown id: RT_ERR_BAD_INPUT. */
RT_MUST_CHECK rt_status rt_store_golden_remove(struct rt_store *store, int64_t id);

/** Marks a golden accepted or known-bad. Unknown id: RT_ERR_BAD_INPUT. */
RT_MUST_CHECK rt_status rt_store_golden_mark(struct rt_store *store, int64_t id,
                                             enum rt_golden_status status);

/** As rt_store_golden_mark, recording BY in the history; *event_out (may be
 * NULL) is the event's id, 0 when nothing changed. */
RT_MUST_CHECK rt_status rt_store_golden_mark_by(struct rt_store *store, int64_t id,
                                                enum rt_golden_status status, const char *by,
                                                int64_t *event_out);

/** Reverts golden ID as BY: kept for its history, never matched or synced again. */
RT_MUST_CHECK rt_status rt_store_golden_revert(struct rt_store *store, int64_t id,
                                               const char *by, int64_t *event_out);

enum rt_store_event_kind { RT_EVENT_GOLDEN, RT_EVENT_EXPECTATION };

struct rt_store_undo {
    bool found;       /* the event exists */
    bool conflict;    /* a later change of the same golden or expectation came after it */
    int64_t event_id; /* the undo's own event */
    int64_t golden_id;
};

/** Undoes one history event by putting back the state before it, as a new event by BY. */
RT_MUST_CHECK rt_status rt_store_event_undo(struct rt_store *store, enum rt_store_event_kind kind,
                                            int64_t event_id, const char *by,
                                            struct rt_store_undo *out);

/**
 * The accepted goldens (with PNG bytes) a replayed frame may match: those for
 * DEVICE_KEY when there are any, otherwise the device-independent ones. An
 * empty list means the frame has no golden yet (a "new" result).
 */
RT_MUST_CHECK rt_status rt_store_goldens_for(struct rt_store *store, const char *trace,
                                             uint32_t frame, const char *device_key,
                                             struct rt_golden_list *list_out);

/* ---- expectations ----------------------------------------------------- */

enum rt_expect_kind {
    RT_EXPECT_NONE,  /* no expectation: results count normally */
    RT_EXPECT_SKIP,  /* do not replay this trace on this device */
    RT_EXPECT_FLAKY, /* a failure is reported but not a regression */
    RT_EXPECT_CRASH, /* the replay is known to crash */
    RT_EXPECT_HANG,  /* the replay is known to hang (time out) */
};

const char *rt_expect_kind_name(enum rt_expect_kind kind);
bool rt_expect_kind_parse(const char *name, enum rt_expect_kind *kind_out);

struct rt_expectation {
    enum rt_expect_kind kind;
    char *device_key; /* the key it was found under ("" = any device) */
    char *note;
};

void rt_expectation_finish(struct rt_expectation *expectation);

/** Sets the expectation for TRACE on DEVICE_KEY; RT_EXPECT_NONE removes it. */
RT_MUST_CHECK rt_status rt_store_expectation_set(struct rt_store *store, const char *trace,
                                                 const char *device_key,
                                                 enum rt_expect_kind kind, const char *note);

/** As rt_store_expectation_set, recording BY in the history; *event_out (may
 * be NULL) is the event's id, 0 when nothing changed. */
RT_MUST_CHECK rt_status rt_store_expectation_set_by(struct rt_store *store, const char *trace,
                                                    const char *device_key,
                                                    enum rt_expect_kind kind, const char *note,
                                                    const char *by, int64_t *event_out);

/**
 * The expectation for TRACE on DEVICE_KEY, falling back to the
 * device-independent one; kind RT_EXPECT_NONE when there is neither.
 */
RT_MUST_CHECK rt_status rt_store_expectation_get(struct rt_store *store, const char *trace,
                                                 const char *device_key,
                                                 struct rt_expectation *expectation_out);

/* ---- golden sync (store_sync.c, docs/FORMATS.md section 5.1) --------------- */

/** An expectation as listed for a sync. */
struct rt_expectation_row {
    char *trace, *device_key;
    enum rt_expect_kind kind;
    char *note, *set_by, *updated_at;
};

struct rt_expectation_rows {
    struct rt_expectation_row *items;
    size_t count;
};

void rt_expectation_rows_finish(struct rt_expectation_rows *rows);

/** The server's side: what one device key syncs. */
struct rt_store_sync_list {
    int64_t seq; /* the newest history event in scope */
    struct rt_golden_list goldens; /* no PNG bytes; reverted ones left out */
    struct rt_expectation_rows expectations;
};

/**
 * The goldens and expectations of DEVICE_KEY and of "any device" for the
 * traces named in TRACES_JSON (a JSON array of names; NULL = every trace),
 * read in one snapshot.
 */
RT_MUST_CHECK rt_status rt_store_sync_list(struct rt_store *store, const char *device_key,
                                           const char *traces_json,
                                           struct rt_store_sync_list *out);
void rt_store_sync_list_finish(struct rt_store_sync_list *list);

/** Only the newest history event in that scope (for ?since= answers). */
RT_MUST_CHECK rt_status rt_store_sync_seq(struct rt_store *store, const char *device_key,
                                          const char *traces_json, int64_t *seq_out);

/** The PNG of any golden whose store hash is HASH (malloc'd), *png_out NULL when none. */
RT_MUST_CHECK rt_status rt_store_png_by_hash(struct rt_store *store, const char *hash,
                                             uint8_t **png_out, size_t *size_out);

/** One golden of a sync answer: png NULL when this store already holds the bytes. */
struct rt_store_sync_golden {
    struct rt_golden_new golden;
    const char *hash;
};

/** The runner's side: the set to make the cache exactly. */
struct rt_store_sync_apply {
    const char *server, *device_key, *traces_json, *etag;
    int64_t seq;
    const struct rt_store_sync_golden *goldens;
    size_t golden_count;
    const struct rt_expectation_row *expectations;
    size_t expectation_count;
};

struct rt_store_sync_counts {
    size_t goldens, expectations, reverted;
};

/**
 * Makes the goldens and expectations in scope (A's device key and "any
 * device", A's traces) exactly A's, in ONE transaction: missing goldens are
 * stored (their bytes must hash to their hash), present ones take the
 * server's status and approver, ones A does not name are reverted, local
 * expectations A does not name are removed; records A's etag and seq.
 */
RT_MUST_CHECK rt_status rt_store_sync_apply(struct rt_store *store,
                                            const struct rt_store_sync_apply *a,
                                            struct rt_store_sync_counts *counts_out);

struct rt_store_sync_state {
    bool found;
    char etag[128];
    int64_t seq;
    char synced_at[32];
};

/** The last sync recorded for SERVER, DEVICE_KEY and TRACES_JSON. */
RT_MUST_CHECK rt_status rt_store_sync_state(struct rt_store *store, const char *server,
                                            const char *device_key, const char *traces_json,
                                            struct rt_store_sync_state *out);

/** A golden's history ({"golden", "events"}); NULL for an unknown id. */
RT_MUST_CHECK rt_status rt_store_dash_golden_history(struct rt_store *store, int64_t golden_id,
                                                     struct cJSON **json_out);

/** A trace's expectation history ({"trace", "events"}); NULL for an unknown trace. */
RT_MUST_CHECK rt_status rt_store_dash_expectation_history(struct rt_store *store,
                                                          const char *trace,
                                                          struct cJSON **json_out);

/* ---- runs and results ------------------------------------------------- */

struct rt_run_info {
    const char *host, *device, *driver, *device_key;
    const char *workarounds; /* the workaround set's name */
    const char *delays;      /* the --delay specs, as given */
    const char *version;     /* retrace's version */
    const char *label;       /* "nightly", a CI job name, ... */
    const char *shard;       /* "I/N" when --shard was used */
    const char *uuid;        /* the run's id for uploads (docs/FORMATS.md); NULL = none */
    const char *configurations; /* JSON array of the configurations replayed */
    const char *started_at;  /* ISO 8601 UTC; NULL = now */
    int64_t pid;             /* the runner process on HOST; 0 = none (an upload) */
    const char *pid_start;   /* that process's start (opaque, tells a reused pid apart) */
    const char *pipeline;    /* the CI pipeline the run belongs to (all its shards); NULL = none */
    const char *golden_set;  /* which goldens it compared with ("URL seq N", "local"); NULL = unknown */
};

/**
 * Records a new run and returns its id. NULL fields are stored as NULL. A
 * UUID that another run already has is RT_ERR_BAD_INPUT (look it up first
 * with rt_store_run_find_uuid to make an upload idempotent).
 */
RT_MUST_CHECK rt_status rt_store_run_begin(struct rt_store *store, const struct rt_run_info *info,
                                           int64_t *run_id_out);

/** The run whose uuid is UUID: *run_id_out is its id, or 0 when there is none. */
RT_MUST_CHECK rt_status rt_store_run_find_uuid(struct rt_store *store, const char *uuid,
                                               int64_t *run_id_out);

/** Sets a run's finish time (ISO 8601 UTC, NULL = now) and outcome. */
RT_MUST_CHECK rt_status rt_store_run_finish_at(struct rt_store *store, int64_t run_id,
                                               const char *finished_at, const char *outcome);

/** Whether the process PID that started at PID_START (as recorded) still runs. */
typedef bool (*rt_store_alive_fn)(int64_t pid, const char *pid_start, void *ctx);

/**
 * Marks "aborted" (finished now) every unfinished run recorded on HOST whose
 * runner process ALIVE says is gone: a runner killed with SIGKILL never
 * finishes its run. Runs of other hosts, and runs without a pid, are never
 * touched. *count_out (may be NULL) is how many were marked.
 */
RT_MUST_CHECK rt_status rt_store_runs_abort_gone(struct rt_store *store, const char *host,
                                                 rt_store_alive_fn alive, void *ctx,
                                                 size_t *count_out);

/** Marks a run finished now with an outcome such as "passed", "failed" or "aborted". */
RT_MUST_CHECK rt_status rt_store_run_finish(struct rt_store *store, int64_t run_id,
                                            const char *outcome);

enum rt_result_status {
    RT_RESULT_PASS,
    RT_RESULT_FAIL,
    RT_RESULT_NEW,     /* no golden to compare with */
    RT_RESULT_ERROR,   /* the replay failed with an error */
    RT_RESULT_CRASH,
    RT_RESULT_TIMEOUT,
    RT_RESULT_FLAKY,   /* failed, then passed on a retry */
};

const char *rt_result_status_name(enum rt_result_status status);
bool rt_result_status_parse(const char *name, enum rt_result_status *status_out);

/** One frame's result. Metrics that were not measured are NAN (stored as NULL). */
struct rt_result {
    uint32_t frame; /* 0 for a trace-level result (a crash before any frame) */
    enum rt_result_status status;
    double ssim, ssim_worst_tile, psnr, threshold;
    int64_t diff_pixels;  /* -1 = not measured */
    int32_t max_diff;     /* largest channel difference, -1 = not measured */
    double replay_ms;     /* NAN = not measured */
    uint32_t attempts;    /* replays it took, 1 without retries */
    int64_t golden_id;    /* the golden compared with, 0 = none */
    const void *actual_png; /* failures only; may be NULL */
    size_t actual_png_size;
    const void *diff_png;
    size_t diff_png_size;
    const char *message;  /* may be NULL */
    const char *configuration; /* the configuration's name; NULL = "default" */
    double tile_threshold;     /* worst-tile threshold; 0 or NAN = not recorded */
    const char *golden_hash;   /* the golden's store hash; NULL = none */
    const char *report;        /* the replay report JSON (docs/FORMATS.md); may be NULL */
    double delta_e;            /* colour gate: largest CIEDE2000 of tile means */
    double colour_threshold;   /* its threshold; 0 or NAN = not recorded (nor is delta_e) */
    const char *expected;      /* the expectation applied ("none", "flaky", ...); NULL = not
                                  recorded, and then neither is regression */
    bool regression;           /* it counted towards exit 1 */
    const char *actual_hash;   /* pixel hash of the actual image (rt_store_pixel_hash); may be NULL */
    const char *worst_tiles;   /* {"ssim": [x,y,w,h], "colour": [x,y,w,h]} (JSON), or NULL */
};

/**
 * Records every result of one trace in run RUN_ID in ONE transaction: either
 * all N rows are committed or none. Waits for other writers up to the busy
 * timeout (retrying on SQLITE_BUSY), then fails with RT_ERR_BAD_INPUT.
 */
RT_MUST_CHECK rt_status rt_store_record_trace_results(struct rt_store *store, int64_t run_id,
                                                      const char *trace,
                                                      const struct rt_result *results,
                                                      size_t count);

/** How many results run RUN_ID holds for TRACE (NULL = every trace). */
RT_MUST_CHECK rt_status rt_store_result_count(struct rt_store *store, int64_t run_id,
                                              const char *trace, int64_t *count_out);

/** A stored run with its result counts; text fields are "" when not recorded. */
struct rt_run_row {
    int64_t id;
    char *started_at, *finished_at, *outcome;
    char *host, *device, *driver, *device_key, *workarounds, *delays, *version, *label,
        *shard, *uuid, *configurations;
    int64_t results;  /* rows recorded */
    int64_t failures; /* fail, crash, timeout and error rows */
};

struct rt_run_rows {
    struct rt_run_row *items;
    size_t count;
};

void rt_run_rows_finish(struct rt_run_rows *rows);

/** The newest LIMIT runs (0 = all), newest first; LABEL NULL = any label. */
RT_MUST_CHECK rt_status rt_store_runs_list(struct rt_store *store, const char *label,
                                           uint32_t limit, struct rt_run_rows *rows_out);

/** A stored result, as the dashboard and reports read it back. */
struct rt_result_row {
    int64_t id, run_id;
    char *trace;
    uint32_t frame;
    enum rt_result_status status;
    double ssim, ssim_worst_tile, psnr, threshold, replay_ms; /* NAN = not measured */
    int64_t diff_pixels;                                      /* -1 = not measured */
    int32_t max_diff;                                         /* -1 = not measured */
    int64_t golden_id;                                        /* 0 = none */
    uint32_t attempts;
    bool has_actual, has_diff; /* images: fetch with rt_store_result_image */
    char *message;             /* "" when none */
    char *configuration;       /* "default" when the run named none */
    double tile_threshold;     /* NAN = not recorded */
    char *golden_hash;         /* "" when none */
    char *report;              /* the replay report JSON, "" when none */
    double delta_e, colour_threshold; /* NAN = not recorded */
};

struct rt_result_rows {
    struct rt_result_row *items;
    size_t count;
};

void rt_result_rows_finish(struct rt_result_rows *rows);

/** Run RUN_ID's results, failures first (fail, crash, timeout, error, new, flaky, pass), then by trace and frame. */
RT_MUST_CHECK rt_status rt_store_results_list(struct rt_store *store, int64_t run_id,
                                              struct rt_result_rows *rows_out);

enum rt_result_image { RT_RESULT_IMAGE_ACTUAL, RT_RESULT_IMAGE_DIFF };

/**
 * A result's actual or diff PNG, malloc'd into *png_out (free() it). A result
 * without that image, or an unknown id, is RT_ERR_BAD_INPUT.
 */
RT_MUST_CHECK rt_status rt_store_result_image(struct rt_store *store, int64_t result_id,
                                              enum rt_result_image which, uint8_t **png_out,
                                              size_t *size_out);

/**
 * Makes result RESULT_ID's actual image an accepted golden for its trace and
 * frame (device-independent unless DEVICE_KEY is given), recording who
 * approved it and from which result. Returns the golden's id.
 */
RT_MUST_CHECK rt_status rt_store_golden_approve_result(struct rt_store *store, int64_t result_id,
                                                       const char *device_key,
                                                       const char *approved_by,
                                                       int64_t *golden_id_out);

/* ---- export / import -------------------------------------------------- */

struct rt_store_io_counts {
    size_t written;  /* export: PNG files written; import: goldens added */
    size_t existing; /* import: entries already in the store */
};

/**
 * Writes every golden as DIR/<id>-<trace>-f<frame>.png plus DIR/index.json
 * (file, trace, frame, device, status, hash, approved_by). Creates DIR.
 */
RT_MUST_CHECK rt_status rt_store_export_goldens(struct rt_store *store, const char *dir,
                                                struct rt_store_io_counts *counts_out);

/**
 * Reads DIR/index.json and adds its goldens in ONE transaction: a broken
 * index, a missing file, a hash mismatch or a file that is not a PNG is
 * RT_ERR_BAD_INPUT and nothing is committed. Importing twice adds nothing.
 */
RT_MUST_CHECK rt_status rt_store_import_goldens(struct rt_store *store, const char *dir,
                                                struct rt_store_io_counts *counts_out);


/* ---- the dashboard's reads and writes (store_dashboard.c) --------------
 * These answer with cJSON trees (the caller frees them with cJSON_Delete)
 * shaped as the dashboard's JSON API (server/README.md): the queries are the
 * store's, the JSON keys are the column names. The three big pages (the runs
 * list, a run, a trace's history: store_dash_pages.c) answer with JSON text
 * instead (malloc'd, free() it), made by SQLite's JSON functions in the
 * query itself. A lookup of an unknown id is RT_OK with *json_out NULL, so
 * the server can answer 404 without parsing a message. */

struct cJSON;

struct rt_dash_runs_query {
    const char *label;  /* NULL = any */
    const char *device; /* matches the device name or the device key; NULL = any */
    const char *status; /* a run outcome ("failed") or a result status ("crash"); NULL = any */
    uint32_t limit;     /* 1..500 */
    uint32_t offset;
};

/** {"runs": [...], "total": N, "limit", "offset"}: newest first, each with its
 * result counts by status ("approved" counts failures whose image became a
 * golden) and "history", the outcomes of up to 10 earlier runs of the same
 * label and device key. */
RT_MUST_CHECK rt_status rt_store_dash_runs(struct rt_store *store,
                                           const struct rt_dash_runs_query *query,
                                           char **json_out);

/** One run with its counts and LIMIT of its results from OFFSET, failures
 * first ("results_total" says how many it has). */
RT_MUST_CHECK rt_status rt_store_dash_run(struct rt_store *store, int64_t run_id, uint32_t limit,
                                          uint32_t offset, char **json_out);

/** One result with its run, the golden it was compared with and the goldens
 * and expectation of its trace. */
RT_MUST_CHECK rt_status rt_store_dash_result(struct rt_store *store, int64_t result_id,
                                             struct cJSON **json_out);

/** A trace's newest LIMIT results over runs (oldest first), each with the
 * run's device key; DEVICE_KEY NULL = every device. {"trace", "points":
 * [...]}; NULL when the trace is unknown. */
RT_MUST_CHECK rt_status rt_store_dash_history(struct rt_store *store, const char *trace,
                                              const char *device_key, uint32_t limit,
                                              char **json_out);

/**
 * The runs of LABEL that started on DATE (YYYY-MM-DD, UTC), joined: the
 * shards of one nightly job. {"label", "date", "runs": [... with counts],
 * "counts" (summed), "results" (of every run, failures first)}; NULL when
 * there is no such run.
 */
RT_MUST_CHECK rt_status rt_store_dash_joined(struct rt_store *store, const char *label,
                                             const char *date, struct cJSON **json_out);

/** The runs of one CI pipeline (every shard), joined as rt_store_dash_joined
 * joins them; NULL when there is none. */
RT_MUST_CHECK rt_status rt_store_dash_pipeline(struct rt_store *store, const char *pipeline,
                                               struct cJSON **json_out);

/** Goldens without their bytes ({"goldens": [...]}); TRACE NULL = all. */
RT_MUST_CHECK rt_status rt_store_dash_goldens(struct rt_store *store, const char *trace,
                                              struct cJSON **json_out);

/** Expectations ({"expectations": [...]}); TRACE NULL = all. */
RT_MUST_CHECK rt_status rt_store_dash_expectations(struct rt_store *store, const char *trace,
                                                   struct cJSON **json_out);

enum rt_dash_image { RT_DASH_IMAGE_GOLDEN, RT_DASH_IMAGE_ACTUAL, RT_DASH_IMAGE_DIFF };

/**
 * A golden's or a result's PNG, malloc'd into *png_out (free() it), and its
 * content hash (RT_STORE_HASH_HEX hex digits) into ETAG_OUT for HTTP caching.
 * An unknown id, or a result without that image, is RT_OK with *png_out NULL.
 */
RT_MUST_CHECK rt_status rt_store_dash_image(struct rt_store *store, enum rt_dash_image which,
                                            int64_t id, uint8_t **png_out, size_t *size_out,
                                            char etag_out[RT_STORE_HASH_HEX + 1]);

/**
 * Stores result RESULT_ID's actual image as a golden with STATUS for its
 * trace and frame (DEVICE_KEY NULL or "" = any device), or re-marks that
 * golden when the same image is already stored: "approve" (accepted) and
 * "mark known-bad" from the dashboard. *golden_id_out is 0 when the result
 * is unknown; a result without an actual image is RT_ERR_BAD_INPUT.
 */
RT_MUST_CHECK rt_status rt_store_dash_review(struct rt_store *store, int64_t result_id,
                                             const char *device_key, const char *approved_by,
                                             enum rt_golden_status status,
                                             int64_t *golden_id_out);

/** One result of a trace, named. */
struct rt_trace_result {
    const char *trace;
    struct rt_result r;
};

/** A run upload (docs/FORMATS.md sections 2 and 5.2) as wire/ decodes it. */
struct rt_store_upload {
    struct rt_run_info run; /* run.uuid is required */
    const char *finished_at, *outcome;
    struct rt_trace_result *results;
    size_t result_count;
    struct rt_golden_new *goldens; /* goldens compared with that this store may lack */
    size_t golden_count;
};

/**
 * Records a run upload in ONE transaction: the goldens this store never had
 * (any it had, even reverted, are left as they are; history "uploaded" by
 * the run's host), the run and every result, each result's golden_id mapped
 * from its golden_hash. Idempotent by run.uuid: a run already recorded with
 * that id sets *duplicate_out and changes nothing.
 */
RT_MUST_CHECK rt_status rt_store_upload_import(struct rt_store *store,
                                               const struct rt_store_upload *upload,
                                               int64_t *run_id_out, bool *duplicate_out);

/** A review from the dashboard: the result's image becomes a golden. */
struct rt_dash_review {
    int64_t result_id;
    bool any_device;        /* the golden is for every device, not the result's run's */
    const char *device_key; /* an explicit key (overrides both); NULL = by ANY_DEVICE */
    const char *by;         /* who (the token's name) */
    enum rt_golden_status status;
};

struct rt_dash_reviewed {
    int64_t golden_id; /* 0 when the result is unknown */
    int64_t event_id;  /* the history event, 0 when nothing changed */
    char device_key[512];
};

/** As rt_store_dash_review, with the scope rule (the result's device key by
 * default) and the history event for undo. */
RT_MUST_CHECK rt_status rt_store_dash_review_by(struct rt_store *store,
                                                const struct rt_dash_review *review,
                                                struct rt_dash_reviewed *out);

/**
 * A number that changes whenever another connection has committed to the
 * database since this connection last asked (PRAGMA data_version): what a
 * cache of answers checks to know it is still current.
 */
RT_MUST_CHECK rt_status rt_store_data_version(struct rt_store *store, int64_t *version_out);

/* ---- removing old runs (store_gc.c) ---------------------------------------- */

struct rt_store_gc_counts {
    uint64_t runs, results;   /* removed */
    uint64_t images;          /* result images no remaining result names, removed */
    uint64_t image_bytes;     /* their PNG bytes */
    uint64_t free_bytes;      /* pages of the file free for new rows afterwards (it does not shrink) */
    bool more;                /* MAX_RUNS was reached with older runs left */
};

/**
 * Removes the runs that started more than KEEP_DAYS (>= 1) days ago, oldest
 * first and at most MAX_RUNS of them (0 = all), each in its own transaction
 * with its results, then the images no remaining result names. Goldens are
 * never removed (one made from a removed result keeps its own bytes), nor an
 * image a kept result names.
 */
RT_MUST_CHECK rt_status rt_store_gc(struct rt_store *store, uint32_t keep_days, size_t max_runs,
                                    struct rt_store_gc_counts *out);

/** Called with each statement's SQL and its plan (EXPLAIN QUERY PLAN's
 * details, one a line). */
typedef void (*rt_store_plan_fn)(const char *sql, const char *plan, void *ctx);

/**
 * The query plan of every statement this connection has prepared so far
 * (transaction control and PRAGMAs left out): what
 * tests/server/test_server_plans.c holds against full scans of the tables
 * that grow every night, after driving each API route.
 */
RT_MUST_CHECK rt_status rt_store_query_plans(struct rt_store *store, rt_store_plan_fn fn,
                                             void *ctx);

/** True when S failed because another connection held the database locked
 * beyond the busy timeout (worth retrying later, not bad input). */
bool rt_store_status_busy(const rt_status *s);

#endif
