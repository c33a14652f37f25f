/*
 * runner/execute.c — the scheduling loop of `retrace run`: up to -j replays
 * at once, retries first, then the next job; a progress line on a terminal;
 * SIGINT/SIGTERM stop it cleanly (children killed, the run marked aborted).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnosis.h"
#include "exec.h"
#include "process.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) { interrupted = sig; }

static bool stop_asked(void) { return interrupted != 0; }

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void rt_remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* Does `retrace replay` take --report? (It came after the runner; older binaries do not.) */
static bool replay_has_option(const char *retrace, const char *option)
{
    char *argv[] = {(char *)retrace, "help", "replay", NULL};
    static char out[RT_CHILD_TAIL + 1];
    rt_status s = rt_child_capture(argv, 30, out, sizeof out);
    return rt_ok(&s) && strstr(out, option) != NULL;
}

static rt_status make_work_dir(struct rt_exec *x)
{
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    /* Ours are named by our pid, so the next runner can remove them should we be SIGKILLed. */
    x->out->work_cleaned = rt_stale_clean_work(tmp);
    if (x->o->work_dir) {
        snprintf(x->work, sizeof x->work, "%s", x->o->work_dir);
        if (mkdir(x->work, 0777) != 0 && errno != EEXIST)
            return rt_errorf(RT_ERR_BAD_INPUT, "cannot create %s: %s", x->work, strerror(errno));
        return rt_ok_status();
    }
    snprintf(x->work, sizeof x->work, "%s/" RT_WORK_PREFIX "%ld-XXXXXX", tmp, (long)getpid());
    if (!mkdtemp(x->work))
        return rt_errorf(RT_ERR_INTERNAL, "cannot create a work folder in %s: %s", tmp, strerror(errno));
    x->made_work = true;
    return rt_ok_status();
}

static void progress(struct rt_exec *x, const char *current)
{
    if (!x->o->progress)
        return;
    fprintf(stderr, "\r\033[K[%zu/%zu] %.0f s, %zu failed%s%s", x->finished, x->plan->count,
            rt_child_now() - x->t0, x->failures, current ? " - " : "", current ? current : "");
    fflush(stderr);
}

static bool work_left(const struct rt_exec *x)
{
    return x->retry_head < x->retry_tail || x->next_job < x->plan->count;
}

/*
 * While nobody has said which device this is, one replay runs alone: its
 * report names the device, so the expectations of the jobs after it (a skip
 * on this device, say) apply from the start.
 */
static bool learning_device(const struct rt_exec *x)
{
    return !x->first_done && x->replay_has_report && !x->out->device;
}

static size_t busy_count(const struct rt_exec *x)
{
    size_t n = 0;
    for (unsigned i = 0; i < x->o->jobs; i++)
        n += x->slots[i].busy;
    return n;
}

/*
 * --update-goldens: a trace's goldens are its first configuration's images
 * (the plan lists a trace's jobs together, in the manifest's order), so its
 * later configurations wait until that job is done. Before, they ran at once
 * and whichever finished first wrote the goldens: a deliberately broken
 * configuration's frames became the device's goldens.
 */
static bool waits_for_goldens(const struct rt_exec *x, size_t j)
{
    if (!x->o->update_goldens)
        return false;
    for (size_t k = j; k-- > 0 && x->plan->jobs[k].trace == x->plan->jobs[j].trace;)
        if (!x->states[k].done)
            return true;
    return false;
}

/* The first job not started that may start now; false when none may. */
static bool pick_new_job(struct rt_exec *x, size_t *out)
{
    for (size_t j = x->next_job; j < x->plan->count; j++) {
        if (x->states[j].started || waits_for_goldens(x, j))
            continue;
        x->states[j].started = true;
        while (x->next_job < x->plan->count && x->states[x->next_job].started)
            x->next_job++;
        *out = j;
        return true;
    }
    return false;
}

/* Fills free slots: retries first, then new jobs. */
static rt_status start_jobs(struct rt_exec *x)
{
    for (unsigned i = 0; i < x->o->jobs && !interrupted; i++) {
        struct rt_slot *slot = &x->slots[i];
        if (learning_device(x) && busy_count(x) > 0)
            return rt_ok_status();
        while (!slot->busy && work_left(x)) {
            size_t j;
            uint32_t attempt = 1;
            if (x->retry_head < x->retry_tail) {
                j = x->retry_queue[x->retry_head++];
                attempt = x->states[j].attempts + 1;
            } else if (!pick_new_job(x, &j)) {
                break; /* the jobs left wait for a busy one (waits_for_goldens) */
            }
            RT_TRY(rt_job_start(x, slot, j, attempt));
            const struct rt_run_job *job = &x->plan->jobs[j];
            char what[300];
            snprintf(what, sizeof what, "%s (%s)", x->m->traces[job->trace].name, x->m->configs[job->config].name);
            progress(x, what);
        }
    }
    return rt_ok_status();
}

static size_t busy_slots(struct rt_exec *x, struct rt_child **children)
{
    size_t n = 0;
    for (unsigned i = 0; i < x->o->jobs; i++)
        if (x->slots[i].busy)
            children[n++] = &x->slots[i].child;
    return n;
}

static rt_status loop(struct rt_exec *x)
{
    struct rt_child *children[64];
    for (;;) {
        RT_TRY(start_jobs(x));
        size_t n = busy_slots(x, children);
        if (n == 0 || interrupted)
            return rt_ok_status();
        rt_child_poll(children, n, 200);
        for (unsigned i = 0; i < x->o->jobs; i++)
            if (x->slots[i].busy && x->slots[i].child.done) {
                x->first_done = true;
                RT_TRY(rt_job_finish(x, &x->slots[i]));
                progress(x, NULL);
            }
    }
}

static rt_status setup(struct rt_exec *x)
{
    size_t jobs = x->plan->count ? x->plan->count : 1;
    x->slots = calloc(x->o->jobs, sizeof *x->slots);
    x->states = calloc(jobs, sizeof *x->states);
    x->fetches = calloc(x->m->trace_count ? x->m->trace_count : 1, sizeof *x->fetches);
    x->retry_queue = calloc(jobs * (x->o->retries + 1), sizeof *x->retry_queue);
    x->out->jobs = calloc(jobs, sizeof *x->out->jobs);
    if (!x->slots || !x->states || !x->fetches || !x->retry_queue || !x->out->jobs)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t j = 0; j < x->plan->count; j++)
        x->out->jobs[j].job = x->plan->jobs[j];
    x->out->job_count = x->plan->count;
    x->replay_has_report = replay_has_option(x->o->retrace, "--report");
    RT_TRY(make_work_dir(x));
    rt_job_prefetch(x);
    return rt_ok_status();
}

static void teardown(struct rt_exec *x)
{
    for (unsigned i = 0; x->slots && i < x->o->jobs; i++)
        if (x->slots[i].busy)
            rt_child_kill(&x->slots[i].child);
    if (x->made_work && !x->o->keep_work)
        rt_remove_tree(x->work);
    free(x->slots);
    free(x->states);
    for (size_t t = 0; x->fetches && t < x->m->trace_count; t++)
        rt_status_free(&x->fetches[t].status); /* job.c's fetch_once hands out copies */
    free(x->fetches);
    free(x->retry_queue);
    rt_store_close(x->store);
}

rt_status rt_run_execute(const struct rt_manifest *manifest, const struct rt_run_plan *plan,
                         const struct rt_run_options *options, struct rt_run_result *out)
{
    memset(out, 0, sizeof *out);
    if (options->jobs < 1 || options->jobs > 64)
        return rt_errorf(RT_ERR_USAGE, "-j must be from 1 to 64");
    struct rt_exec x = {.m = manifest, .plan = plan, .o = options, .out = out, .t0 = rt_child_now()};
    out->label = options->label ? options->label : manifest->label;
    out->pipeline = options->pipeline;
    out->golden_set = options->golden_set;
    if (options->probed) { /* known before the first job: expectations apply from it */
        out->device = strdup(options->probed->name);
        out->driver = strdup(options->probed->driver);
        /* --device-key is the key the run is recorded and uploaded under */
        out->device_key = strdup(options->device_key ? options->device_key : options->probed->key);
    }
    rt_record_run_identity(out);
    snprintf(out->shard, sizeof out->shard, "%s", options->shard ? options->shard : "");
    rt_status s = rt_store_open(options->db_path, RT_STORE_CREATE, &x.store);
    if (rt_ok(&s)) {
        rt_process_identity(getpid(), x.pid_start, sizeof x.pid_start);
        s = rt_stale_abort_runs(x.store, out->host, &out->stale_aborted);
    }
    if (!rt_ok(&s)) {
        rt_store_close(x.store);
        return s;
    }
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    interrupted = 0;
    s = setup(&x);
    if (rt_ok(&s))
        s = loop(&x);
    if (rt_ok(&s) && !interrupted)
        s = rt_run_diagnose_failures(&x, stop_asked);
    if (x.o->progress && x.plan->count)
        fputs("\r\033[K", stderr);
    if (rt_ok(&s) && interrupted)
        s = rt_errorf(RT_ERR_INTERNAL, "interrupted by signal %d; the jobs that finished are recorded",
                      (int)interrupted);
    out->aborted = interrupted || !rt_ok(&s);
    rt_status fin = rt_record_run_finish(&x, rt_run_outcome(out));
    if (rt_ok(&s))
        s = fin;
    else
        rt_status_free(&fin); /* the run's own error is the one said */
    teardown(&x);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (!out->device) {
        out->device = strdup("");
        out->driver = strdup("");
    }
    if (!out->device_key)
        out->device_key = strdup(options->device_key ? options->device_key : "");
    return s;
}

const char *rt_run_outcome(const struct rt_run_result *result)
{
    return result->aborted ? "aborted" : result->regressions ? "failed" : "passed";
}

void rt_run_result_finish(struct rt_run_result *result)
{
    for (size_t j = 0; result->jobs && j < result->job_count; j++) {
        struct rt_run_job_result *jr = &result->jobs[j];
        rt_run_frames_free(jr->frames, jr->frame_count);
        free(jr->reason);
        free(jr->report);
        free(jr->expect_note);
    }
    free(result->jobs);
    free(result->device);
    free(result->driver);
    free(result->device_key);
    memset(result, 0, sizeof *result);
}
