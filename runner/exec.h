/*
 * runner/exec.h — the state of one `retrace run` shared by execute.c (the
 * scheduling loop), job.c (one replay: its command line and its verdict) and
 * record.c (the run and its results in the store). Internal to runner/.
 */
#ifndef RT_RUNNER_EXEC_H
#define RT_RUNNER_EXEC_H

#include <limits.h>

#include "child.h"
#include "internal.h"

/* A replay in flight. */
struct rt_slot {
    bool busy;
    size_t job;       /* index into the plan (and into out->jobs) */
    uint32_t attempt; /* 1-based */
    char dir[PATH_MAX];
    struct rt_child child;
};

/* Where a job stands between attempts. */
struct rt_job_state {
    uint32_t attempts;
    bool failed_once;     /* an earlier attempt failed: a later pass is flaky */
    char first_failure[512];
    bool done;
    bool started;         /* its first attempt has begun (jobs may start out of order) */
};

/* URL traces are fetched once per run. */
struct rt_fetch_state {
    bool tried;
    rt_status status;
    char trimmed[4096]; /* `trim:`: the cached trimmed trace replayed instead (trim_cache.c) */
    char imported[4096]; /* a .gfxr trace: its cached import, replayed (and trimmed) instead (fetch.c) */
};

struct rt_exec;
/** `trim:` on TRACE: makes (or finds) its trimmed trace in the cache. */
RT_MUST_CHECK rt_status rt_trim_cached(struct rt_exec *x, size_t trace);
/** A .gfxr TRACE: makes (or finds) its import in the cache (fetch.c). */
RT_MUST_CHECK rt_status rt_import_cached(struct rt_exec *x, size_t trace);
/** The trace file TRACE's replay and trim read: its import for a .gfxr, else its path. */
const char *rt_trace_source(const struct rt_exec *x, size_t trace);

struct rt_exec {
    const struct rt_manifest *m;
    const struct rt_run_plan *plan;
    const struct rt_run_options *o;
    struct rt_run_result *out;
    struct rt_store *store;
    char work[PATH_MAX];
    bool made_work;
    bool replay_has_report; /* `retrace replay --report` exists */
    bool first_done;        /* a replay has ended (and its report, if any, named the device) */
    struct rt_slot *slots;
    struct rt_job_state *states;
    struct rt_fetch_state *fetches; /* per manifest trace */
    size_t *retry_queue, retry_head, retry_tail;
    size_t next_job, finished, failures;
    double t0;
    char pid_start[128]; /* this runner's rt_stale_process_identity, "" when unknown */
};

/**
 * Downloads (or finds in the cache) every URL trace of the plan before any
 * replay starts, so no download holds up the loop that enforces timeouts.
 * A failure is kept and becomes the error result of that trace's jobs.
 */
void rt_job_prefetch(struct rt_exec *x);

/** Starts attempt ATTEMPT of job J in SLOT; a job that cannot start is finished here. */
RT_MUST_CHECK rt_status rt_job_start(struct rt_exec *x, struct rt_slot *slot, size_t j, uint32_t attempt);

/** Judges SLOT's finished child: records the job, or queues a retry. Frees the slot. */
RT_MUST_CHECK rt_status rt_job_finish(struct rt_exec *x, struct rt_slot *slot);

/** Learns the device from a replay report (first one wins). */
void rt_record_device_from_report(struct rt_exec *x, const char *report_json);

/** Records job J's results (opening the run first if needed), in one transaction. */
RT_MUST_CHECK rt_status rt_record_job(struct rt_exec *x, size_t j);

/** Opens the run in the store if no job did, then marks it finished with OUTCOME. */
RT_MUST_CHECK rt_status rt_record_run_finish(struct rt_exec *x, const char *outcome);

/** The device key goldens and expectations are looked up under ("" = unknown). */
const char *rt_exec_device_key(const struct rt_exec *x);

/** Fills a new run's id, start time and host. */
void rt_record_run_identity(struct rt_run_result *out);

/** Frees N frames and what they own. */
void rt_run_frames_free(struct rt_run_frame *frames, size_t n);

/* ---- stale.c: what a runner killed with SIGKILL left behind ---- */

/* A work folder under TMPDIR is PREFIX + the runner's pid + "-XXXXXX". */
#define RT_WORK_PREFIX "retrace-run-"

/** rt_process_alive as a store callback. */
bool rt_stale_alive(int64_t pid, const char *pid_start, void *ctx);

/** Marks "aborted" this host's unfinished runs whose runner is gone. */
RT_MUST_CHECK rt_status rt_stale_abort_runs(struct rt_store *store, const char *host, size_t *count_out);

/** Removes TMP_DIR's work folders of our user whose runner is gone; returns how many. */
size_t rt_stale_clean_work(const char *tmp_dir);

/** Removes DIR and everything in it (the work folder of a job); errors are ignored. */
void rt_remove_tree(const char *dir);

#endif
