/*
 * runner/include/runner.h — the regression runner behind `retrace run`: a manifest of
 * traces replayed under each configuration, each replay in a child process,
 * its frames compared with the goldens, the results recorded and uploaded.
 * (The folder is runner/, not run/: `run` is the top-level setup script.)
 *
 * Owns: the manifest format (docs/manifest.md; YAML read with libyaml), the
 * job list and its shards, child processes (own process group and working
 * directory, a timeout that kills the whole group), trace downloads (libcurl,
 * SHA-256 checked, cached), retries and expectations, JUnit XML, the run
 * upload of docs/FORMATS.md section 2 and its spool directory.
 * Must not touch: Vulkan and the replay engine (a replay is always a child
 * `retrace replay`, so its crash or hang is a result, never the runner's
 * death), SQL (store/store.h only), exit() (cli/ decides exit codes).
 * Entry points: rt_manifest_load, rt_run_jobs_plan, rt_run_execute,
 * rt_run_junit_write, rt_upload_body, rt_upload_spool_put, rt_upload_spool_send.
 */
#ifndef RT_RUNNER_H
#define RT_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "status.h"
#include "store.h"
#include "store_diagnosis.h"

/* ---- manifest ---------------------------------------------------------- */

/** One replay configuration: workaround sets and injected delays. */
struct rt_manifest_config {
    const char *name;
    const char **workarounds; /* passed as --workarounds A,B */
    size_t workaround_count;
    const char **delays;      /* each passed as --delay SPEC */
    size_t delay_count;
    bool has_seed;
    uint64_t seed;            /* --seed N */
    const char *skip_draws;   /* --skip-draws F:N[-M] (docs/FORMATS.md 7.1), or NULL */
    const char *diagnose;     /* `diagnose: REF`: failing frames are diagnosed against REF (7.4), or NULL */
    int line;
};

/** An expectation for the devices whose key or name matches DEVICE (a glob). */
struct rt_manifest_expect {
    const char *device;
    enum rt_expect_kind kind;
    const char *note;
    int line;
};

struct rt_manifest_trace {
    const char *name;
    const char *path;   /* absolute; for a URL trace, where it is cached */
    const char *url;    /* NULL for a local trace */
    const char *sha256; /* 64 lower-case hex digits, with url */
    const char *trim;   /* `trim: A-B`: replay `retrace trim` of it, frames A-B ("A-B"); NULL for none */
    const char *frames; /* normalised list such as "1,10" */
    uint32_t *frame_numbers;
    size_t frame_count;
    double threshold, tile_threshold;
    uint32_t timeout_s;
    const char **tags;
    size_t tag_count;
    size_t *configs; /* indexes into rt_manifest.configs */
    size_t config_count;
    struct rt_manifest_expect *expects;
    size_t expect_count;
    int line;
};

struct rt_manifest {
    struct rt_arena arena; /* every string and array below */
    const char *path;
    const char *label;     /* "" when the manifest names none */
    const char *cache_dir; /* absolute */
    struct rt_manifest_config *configs;
    size_t config_count;
    struct rt_manifest_trace *traces;
    size_t trace_count;
};

/**
 * Reads and checks the manifest at PATH. Anything wrong in it (YAML syntax,
 * an unknown key, a bad value, a missing key, a duplicate name) is
 * RT_ERR_BAD_INPUT "PATH:LINE: what is wrong"; nothing is half-loaded.
 */
RT_MUST_CHECK rt_status rt_manifest_load(const char *path, struct rt_manifest *out);
void rt_manifest_finish(struct rt_manifest *manifest);

/** The expectation of TRACE on a device (key or name matching), or NULL. */
const struct rt_manifest_expect *rt_manifest_expect_for(const struct rt_manifest_trace *trace,
                                                        const char *device_key,
                                                        const char *device_name);

/* ---- jobs and shards --------------------------------------------------- */

/** One replay to make: a trace under a configuration. */
struct rt_run_job {
    size_t trace, config;
    size_t index; /* position in the whole (unsharded) list */
};

struct rt_run_plan {
    struct rt_run_job *jobs;
    size_t count, total; /* this shard's jobs, the whole list's */
};

/** What to take from the manifest: NULL fields take everything. */
struct rt_run_filter {
    const char *tag;           /* only traces with this tag */
    const char *configuration; /* only this configuration (an unknown name is RT_ERR_USAGE) */
    uint32_t shard_index, shard_count; /* 1-based I of N; 0/0 = 1/1 */
};

/**
 * The trace x configuration list in manifest order, filtered, and of it the
 * jobs whose position k has k % N == I - 1: shards 1..N together take every
 * job exactly once, whatever machine computes them.
 */
RT_MUST_CHECK rt_status rt_run_jobs_plan(const struct rt_manifest *manifest,
                                         const struct rt_run_filter *filter,
                                         struct rt_run_plan *out);
void rt_run_plan_finish(struct rt_run_plan *plan);

/* ---- running ----------------------------------------------------------- */

struct rt_run_options {
    const char *db_path;
    const char *retrace;        /* the retrace binary a child runs (`retrace replay`) */
    char *const *wrapper;       /* a command the replay runs under (NULL-terminated), or NULL */
    const char *device;         /* --device for the replay, or NULL */
    const char *device_key;     /* this device's key for goldens and expectations; NULL: the
                                   replay report's (device-independent goldens until one came) */
    const char *label;          /* overrides the manifest's; NULL keeps it */
    const char *shard;          /* "I/N", recorded with the run, or NULL */
    unsigned jobs;              /* replays at once, >= 1 */
    unsigned retries;           /* extra attempts for a failing job */
    bool update_goldens;        /* new results' images become goldens for this device */
    bool progress;              /* a progress line on stderr (a terminal) */
    const char *work_dir;       /* where children run; NULL: a fresh one under TMPDIR */
    bool keep_work;             /* leave the work directory for inspection */
    const char *pipeline;       /* the CI pipeline (--pipeline, CI_PIPELINE_ID), or NULL */
    const char *golden_set;     /* which goldens the run compares with ("URL seq N", "local") */
    const struct rt_probed_device *probed; /* the device found before the first job, or NULL */
    const char *diagnose;       /* --diagnose[=REF]: every configuration's reference (over the manifest's) */
};

/** Whether REF names a diagnosis reference: lavapipe, device:X, config:X or icd:X (docs/FORMATS.md 7.4). */
bool rt_run_diagnose_ref_valid(const char *ref);

/** The device a run replays on, as `retrace devices --json` names it. */
struct rt_probed_device {
    char *name, *key, *driver;
    char index[16];    /* its index: what every replay of the run is given as --device */
    bool none_matched; /* devices were listed, but none is the one WANT names */
};

/**
 * Finds the device before the first job: `RETRACE devices --json` in a child,
 * the device WANT names (--device INDEX or a substring of its name; NULL =
 * the first). RT_ERR_CANNOT_REPLAY when there is none (none_matched set when
 * there are devices, but not that one).
 */
RT_MUST_CHECK rt_status rt_run_probe_device(const char *retrace, const char *want,
                                            struct rt_probed_device *out);
void rt_probed_device_finish(struct rt_probed_device *device);

/* ---- golden sync (docs/FORMATS.md section 5.1) --------------------------- */

struct rt_run_sync {
    const char *server;     /* the dashboard's URL */
    const char *db_path;    /* the runner's store: the cache */
    const char *device_key; /* this device's key ("" = device-independent goldens only) */
};

struct rt_sync_result {
    bool unchanged;  /* 304: the cache already held the server's set */
    bool cached;     /* the sync failed, and the cache holds an earlier sync's set */
    int64_t seq;     /* the set's sequence number (0 before any sync) */
    size_t goldens, expectations, fetched, reverted;
    char golden_set[2200]; /* what the run records: "URL seq N" (+ why it is the cache) */
    char (*server_hashes)[RT_STORE_HASH_HEX + 1]; /* the goldens the server listed */
    size_t server_hash_count;
};

/**
 * Pulls the goldens and expectations of O->device_key (and "any device") for
 * MANIFEST's traces from O->server into the store at O->db_path. A failure
 * (server down, a bad answer) is an error the caller reports as a warning:
 * the store is left as it was, and out->golden_set says so.
 */
RT_MUST_CHECK rt_status rt_run_sync_goldens(const struct rt_manifest *manifest,
                                            const struct rt_run_sync *o,
                                            struct rt_sync_result *out);
void rt_sync_result_finish(struct rt_sync_result *result);

/** Whether the server listed a golden with HASH at the last sync. */
bool rt_sync_result_has(const struct rt_sync_result *result, const char *hash);

/** One frame's (or, frame 0, the whole job's) result. */
struct rt_run_diagnosis;

struct rt_run_frame {
    struct rt_result r; /* what the store records; r.message, r.*_png point below */
    char golden_hash[RT_STORE_HASH_HEX + 1]; /* "" when none */
    char actual_hash[RT_STORE_HASH_HEX + 1]; /* pixel hash of the actual image, "" when none */
    int64_t added_golden; /* the golden --update-goldens made of this frame, 0 = none */
    char worst_tiles[160]; /* where the worst SSIM and colour tiles are (JSON), "" when not compared */
    uint8_t *actual_png, *diff_png;
    char *message;
    struct rt_run_diagnosis *diagnosis; /* a failing frame's, when asked for (runner/diagnosis.c), or NULL */
};

/** A failing frame's diagnosis (docs/FORMATS.md 7.4): what the store records, with the images' bytes. */
struct rt_run_diagnosis {
    struct rt_diagnosis d;      /* strings and images point into the fields below */
    char reference[1100];
    char command[200], pipeline[200], target[32];
    char *shaders, *message;    /* malloc'd */
    uint8_t *png[RT_DIAGNOSIS_ROLES];
};

/** "diverges at draw N of M (COMMAND, call C) against REF", "no draw diverges ...", ... into BUF. */
void rt_run_diagnosis_line(const struct rt_run_diagnosis *diag, char *buf, size_t size);

struct rt_run_job_result {
    struct rt_run_job job;
    bool skipped;                  /* an expectation said skip: nothing replayed */
    enum rt_expect_kind expected;  /* the expectation that applied */
    char *expect_note;            /* its note (malloc'd), or NULL */
    bool regression;               /* counts towards exit 1 */
    enum rt_result_status status;  /* the worst of its frames */
    uint32_t attempts;
    double replay_ms;
    char *reason;                  /* why it is not a pass ("" when it is) */
    char *report;                  /* the replay report JSON, or NULL */
    struct rt_run_frame *frames;
    size_t frame_count;
};

struct rt_run_result {
    char uuid[37];
    int64_t run_id;               /* 0 when nothing was recorded */
    char started_at[32], finished_at[32];
    char host[256];
    char *device, *driver, *device_key; /* "" when no replay reported them */
    const char *label;
    char shard[32];               /* "I/N", or "" */
    const char *pipeline, *golden_set; /* as the options gave them */
    struct rt_run_job_result *jobs;
    size_t job_count;
    size_t regressions, skipped;
    bool aborted;                 /* stopped early (a signal, a store error) */
    size_t stale_aborted;         /* earlier runs of this host whose runner was gone, now "aborted" */
    size_t work_cleaned;          /* work folders of such runners removed from TMPDIR */
    size_t diagnosed, undiagnosed; /* failing frames diagnosed, and those past the limit of 32 */
};

/**
 * Runs every job of PLAN, recording each job's results in the store as soon
 * as it finishes (one transaction). A job that crashes, hangs or fails is a
 * result, never an error here; errors are the store's (RT_ERR_BAD_INPUT) and
 * our own (RT_ERR_INTERNAL). *out holds the jobs that finished, also after an
 * error.
 */
RT_MUST_CHECK rt_status rt_run_execute(const struct rt_manifest *manifest,
                                       const struct rt_run_plan *plan,
                                       const struct rt_run_options *options,
                                       struct rt_run_result *out);
void rt_run_result_finish(struct rt_run_result *result);

/** "aborted" (stopped early), "failed" (any regression) or "passed". */
const char *rt_run_outcome(const struct rt_run_result *result);

/**
 * JUnit XML: one testcase per trace x configuration x frame ("replay" for a
 * job that produced no frame), failures with their numbers and reasons.
 */
RT_MUST_CHECK rt_status rt_run_junit_write(const struct rt_manifest *manifest,
                                           const struct rt_run_result *result,
                                           const char *path);

/* ---- upload ------------------------------------------------------------ */

/*
 * PNG bytes one upload carries at most: base64 makes them a third larger, and
 * the server takes 64 MiB (docs/FORMATS.md), so a night with many failures is
 * still accepted, with the images past the budget left out.
 */
#define RT_UPLOAD_IMAGE_BUDGET (40u << 20)

/** What an upload carries beyond the run's results. */
struct rt_upload_options {
    size_t image_budget;  /* PNG bytes at most (0: no images, what `retrace run --json` prints) */
    const char *db_path;  /* the store to read compared goldens from; NULL: send none */
    const struct rt_sync_result *synced; /* the goldens the server listed; NULL: it lacks all */
    const char *pipeline, *golden_set;
};

/**
 * The upload body of docs/FORMATS.md sections 2 and 5.2, as JSON text
 * (malloc'd, encoded by wire/), with the actual and diff PNGs of failures and
 * new frames until their bytes would pass the image budget (a result whose
 * images were left out says so in "images_left_out"), then every golden a
 * result was compared with (or --update-goldens made) that the server did
 * not list, while the budget lasts.
 */
RT_MUST_CHECK rt_status rt_upload_body(const struct rt_manifest *manifest,
                                       const struct rt_run_result *result,
                                       const struct rt_upload_options *options, char **json_out);

/** Writes BODY as SPOOL_DIR/UUID.json (a temporary file, then rename). */
RT_MUST_CHECK rt_status rt_upload_spool_put(const char *spool_dir, const char *uuid,
                                            const char *body);

struct rt_upload_counts {
    size_t sent, duplicates, kept; /* kept: still in the spool, to be sent again */
    size_t rejected;               /* refused for good (400, 413): moved to SPOOL/rejected/ */
};

/**
 * POSTs every SPOOL_DIR/<id>.json to SERVER/api/runs with the bearer TOKEN
 * and deletes each one the server took (201) or already had (200). A server
 * that cannot be reached or answers 5xx keeps the file for later
 * (RT_ERR_INTERNAL, "cannot reach" or its answer); 401/403 keep it too (fix
 * the token and send again) and 400/413 move it to SPOOL_DIR/rejected/ (it
 * would never be taken), both RT_ERR_BAD_INPUT with the server's reason. Sending continues past a
 * failing file; the status is the first failure's.
 */
RT_MUST_CHECK rt_status rt_upload_spool_send(const char *spool_dir, const char *server,
                                             const char *token, struct rt_upload_counts *out);

/** The token in the file at PATH: one non-empty line, trailing white space dropped. */
RT_MUST_CHECK rt_status rt_upload_read_token(const char *path, char *buf, size_t size);

/** $RETRACE_SPOOL, else ($XDG_CACHE_HOME or ~/.cache)/retrace/spool. */
RT_MUST_CHECK rt_status rt_upload_default_spool(char *buf, size_t size);

#endif
