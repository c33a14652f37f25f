/*
 * runner/job.c — one job (a trace under a configuration): the replay's
 * command line, and what its end means: a crash, a hang, an error, or frames
 * to compare; a retry when it failed and retries are left; flaky when a
 * retry passed; a regression unless an expectation explains it.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "diagnosis.h"
#include "exec.h"
#include "replay_report.h"
#include "wire.h"

/* Wrapper words (32) + the fixed arguments + 2 per delay (32) + the seed, with room. */
#define MAX_ARGS 128

static int severity(enum rt_result_status s)
{
    switch (s) {
    case RT_RESULT_PASS: return 0;
    case RT_RESULT_FLAKY: return 1;
    case RT_RESULT_NEW: return 2;
    case RT_RESULT_FAIL: return 3;
    case RT_RESULT_ERROR: return 4;
    case RT_RESULT_TIMEOUT: return 5;
    case RT_RESULT_CRASH: return 6;
    }
    return 7;
}

static bool failing(enum rt_result_status s)
{
    return s == RT_RESULT_FAIL || s == RT_RESULT_ERROR || s == RT_RESULT_CRASH || s == RT_RESULT_TIMEOUT;
}

/* The expectation for a trace on this device: the manifest's, else the store's. */
static enum rt_expect_kind expectation(struct rt_exec *x, const struct rt_manifest_trace *t, char **note_out)
{
    const char *key = rt_exec_device_key(x);
    const struct rt_manifest_expect *e = rt_manifest_expect_for(t, key, x->out->device);
    *note_out = NULL;
    if (e) {
        *note_out = strdup(e->note);
        return e->kind;
    }
    struct rt_expectation se = {0};
    rt_status s = rt_store_expectation_get(x->store, t->name, key, &se);
    enum rt_expect_kind kind = rt_ok(&s) ? se.kind : RT_EXPECT_NONE;
    if (kind != RT_EXPECT_NONE && se.note)
        *note_out = strdup(se.note);
    rt_expectation_finish(&se);
    return kind;
}

/* A result for the whole job (frame 0): it produced no frame to compare. */
static struct rt_run_frame *job_level(enum rt_result_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static struct rt_run_frame *job_level(enum rt_result_status status, const char *fmt, ...)
{
    struct rt_run_frame *f = calloc(1, sizeof *f);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!f)
        return NULL;
    f->r = (struct rt_result){.status = status, .ssim = NAN, .ssim_worst_tile = NAN, .psnr = NAN,
                              .threshold = NAN, .diff_pixels = -1, .max_diff = -1, .replay_ms = NAN};
    f->message = strdup(msg);
    f->r.message = f->message;
    return f;
}

static void frames_free(struct rt_run_frame *frames, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(frames[i].actual_png);
        free(frames[i].diff_png);
        free(frames[i].message);
        rt_run_diagnosis_free(frames[i].diagnosis);
    }
    free(frames);
}

/* Attaches FRAMES to job J and records it: the end of the job. */
static rt_status settle(struct rt_exec *x, size_t j, struct rt_run_frame *frames, size_t n)
{
    struct rt_run_job_result *jr = &x->out->jobs[j];
    struct rt_job_state *st = &x->states[j];
    jr->frames = frames, jr->frame_count = n;
    jr->status = RT_RESULT_PASS;
    for (size_t i = 0; i < n; i++)
        if (severity(frames[i].r.status) > severity(jr->status))
            jr->status = frames[i].r.status;
    if (!failing(jr->status) && st->failed_once) {
        jr->status = RT_RESULT_FLAKY;
        for (size_t i = 0; i < n; i++) {
            if (frames[i].r.status != RT_RESULT_PASS)
                continue;
            frames[i].r.status = RT_RESULT_FLAKY;
            char msg[700];
            snprintf(msg, sizeof msg, "passed on attempt %u after failing: %s", jr->attempts, st->first_failure);
            free(frames[i].message);
            frames[i].message = strdup(msg);
            frames[i].r.message = frames[i].message;
        }
    }
    for (size_t i = 0; i < n; i++) {
        frames[i].r.attempts = jr->attempts;
        frames[i].r.replay_ms = jr->replay_ms;
    }
    for (size_t i = 0; i < n && !jr->reason; i++)
        if (frames[i].r.status != RT_RESULT_PASS && frames[i].message)
            jr->reason = strdup(frames[i].message);
    if (!jr->reason)
        jr->reason = strdup("");
    jr->regression = rt_wire_regression(jr->status, jr->expected); /* the server's rule too */
    x->out->regressions += jr->regression;
    x->failures += failing(jr->status);
    x->finished++;
    st->done = true;
    return rt_record_job(x, j);
}

static rt_status fetch_once(struct rt_exec *x, size_t trace)
{
    struct rt_fetch_state *f = &x->fetches[trace];
    const struct rt_manifest_trace *t = &x->m->traces[trace];
    if (!f->tried) {
        f->tried = true;
        f->status = rt_fetch_trace(t->url, t->sha256, t->path);
    }
    return rt_status_copy(&f->status); /* f keeps its own until the run ends (execute.c) */
}

void rt_job_prefetch(struct rt_exec *x)
{
    for (size_t j = 0; j < x->plan->count; j++) {
        size_t t = x->plan->jobs[j].trace;
        if (!x->m->traces[t].url || x->fetches[t].tried)
            continue;
        if (x->o->progress)
            fprintf(stderr, "\r\033[Kfetching %s", x->m->traces[t].url);
        (void)rt_status_drop(fetch_once(x, t));
    }
}

/* ARGV of the replay; strings live in BUF. */
static void build_argv(struct rt_exec *x, size_t j, char **argv, char *buf, size_t size)
{
    const struct rt_run_job *job = &x->plan->jobs[j];
    const struct rt_manifest_trace *t = &x->m->traces[job->trace];
    const struct rt_manifest_config *c = &x->m->configs[job->config];
    size_t n = 0;
    for (char *const *w = x->o->wrapper; w && *w && n < MAX_ARGS - 32; w++)
        argv[n++] = *w;
    argv[n++] = (char *)x->o->retrace;
    argv[n++] = "replay";
    argv[n++] = t->trim ? x->fetches[job->trace].trimmed : (char *)rt_trace_source(x, job->trace);
    argv[n++] = "--screenshots", argv[n++] = "shots";
    argv[n++] = "--frames", argv[n++] = (char *)t->frames;
    if (x->replay_has_report)
        argv[n++] = "--report", argv[n++] = "report.json";
    if (x->o->device)
        argv[n++] = "--device", argv[n++] = (char *)x->o->device;
    size_t used = 0;
    if (c->workaround_count) { /* at most 32 names of 128 bytes (manifest.c): they fit */
        argv[n++] = "--workarounds";
        argv[n++] = buf;
        for (size_t i = 0; i < c->workaround_count && used < size; i++) {
            int w = snprintf(buf + used, size - used, "%s%s", i ? "," : "", c->workarounds[i]);
            used += w > 0 ? (size_t)w : 0;
        }
        used = used < size ? used + 1 : size;
    }
    for (size_t i = 0; i < c->delay_count && n < MAX_ARGS - 6; i++)
        argv[n++] = "--delay", argv[n++] = (char *)c->delays[i];
    if (c->skip_draws)
        argv[n++] = "--skip-draws", argv[n++] = (char *)c->skip_draws;
    if (c->has_seed && used < size) {
        argv[n++] = "--seed";
        argv[n++] = buf + used;
        snprintf(buf + used, size - used, "%llu", (unsigned long long)c->seed);
    }
    argv[n] = NULL;
}

rt_status rt_job_start(struct rt_exec *x, struct rt_slot *slot, size_t j, uint32_t attempt)
{
    const struct rt_run_job *job = &x->plan->jobs[j];
    const struct rt_manifest_trace *t = &x->m->traces[job->trace];
    struct rt_run_job_result *jr = &x->out->jobs[j];
    x->states[j].attempts = attempt;
    jr->attempts = attempt;
    if (attempt == 1) {
        jr->expected = expectation(x, t, &jr->expect_note);
        if (jr->expected == RT_EXPECT_SKIP) {
            jr->skipped = true;
            jr->attempts = 0;
            jr->reason = strdup(jr->expect_note ? jr->expect_note : "");
            x->out->skipped++;
            x->finished++;
            x->states[j].done = true;
            return rt_ok_status();
        }
    }
    if (t->url) {
        rt_status f = fetch_once(x, job->trace);
        if (!rt_ok(&f)) {
            struct rt_run_frame *fr = job_level(RT_RESULT_ERROR, "%s", f.msg);
            rt_status_free(&f);
            return fr ? settle(x, j, fr, 1) : rt_errorf(RT_ERR_INTERNAL, "out of memory");
        }
    }
    rt_status imported = rt_import_cached(x, job->trace);
    if (!rt_ok(&imported)) {
        struct rt_run_frame *fr = job_level(RT_RESULT_ERROR, "%s", imported.msg);
        rt_status_free(&imported);
        return fr ? settle(x, j, fr, 1) : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    rt_status trimmed = rt_trim_cached(x, job->trace);
    if (!rt_ok(&trimmed)) {
        struct rt_run_frame *fr = job_level(RT_RESULT_ERROR, "%s", trimmed.msg);
        rt_status_free(&trimmed);
        return fr ? settle(x, j, fr, 1) : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    if ((size_t)snprintf(slot->dir, sizeof slot->dir, "%.3900s/job-%04zu-%u", x->work, job->index + 1, attempt) >=
        sizeof slot->dir)
        return rt_errorf(RT_ERR_USAGE, "the work folder's path is too long");
    if (mkdir(slot->dir, 0777) != 0 && errno != EEXIST)
        return rt_errorf(RT_ERR_INTERNAL, "cannot create %s: %s", slot->dir, strerror(errno));
    char *argv[MAX_ARGS], buf[8192];
    build_argv(x, j, argv, buf, sizeof buf);
    RT_TRY(rt_child_start(argv, slot->dir, t->timeout_s, &slot->child));
    slot->busy = true, slot->job = j, slot->attempt = attempt;
    return rt_ok_status();
}

/* The replay report, when the replay wrote one (NULL otherwise); WALL_MS from it. */
static char *read_report(const char *dir, double *wall_ms)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/report.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t cap = 0, len = 0, n;
    do {
        if (len + 4096 + 1 > cap) {
            char *grown = realloc(text, cap = cap * 2 + 8192);
            if (!grown)
                break;
            text = grown;
        }
        n = fread(text + len, 1, cap - len - 1, f);
        len += n;
    } while (n > 0);
    fclose(f);
    if (!text)
        return NULL;
    text[len] = 0;
    struct rt_arena arena;
    struct rt_replay_report report;
    rt_arena_init(&arena, 0, 0);
    rt_status s = rt_replay_report_decode(text, &arena, &report);
    if (rt_ok(&s))
        *wall_ms = report.wall_ms;
    rt_arena_finish(&arena);
    if (!rt_ok(&s)) { /* not a report: leave it out rather than pass it on */
        free(text);
        return NULL;
    }
    return text;
}

static rt_status compare_frames(struct rt_exec *x, struct rt_slot *slot, struct rt_run_frame **out, size_t *n)
{
    const struct rt_manifest_trace *t = &x->m->traces[x->plan->jobs[slot->job].trace];
    struct rt_frame_check check = {.trace = t->name, .device_key = rt_exec_device_key(x),
                                   .threshold = t->threshold, .tile_threshold = t->tile_threshold,
                                   .update_goldens = x->o->update_goldens};
    *out = calloc(t->frame_count, sizeof **out);
    if (!*out)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    *n = t->frame_count;
    for (size_t i = 0; i < t->frame_count; i++) {
        struct rt_run_frame *f = &(*out)[i];
        f->r = (struct rt_result){.ssim = NAN, .ssim_worst_tile = NAN, .psnr = NAN, .diff_pixels = -1,
                                  .max_diff = -1, .replay_ms = NAN};
        char png[PATH_MAX + 64];
        snprintf(png, sizeof png, "%s/shots/frame_%06u.png", slot->dir, t->frame_numbers[i]);
        RT_TRY(rt_frame_compare(x->store, &check, t->frame_numbers[i], png, f));
    }
    return rt_ok_status();
}

/* `retrace replay`'s exit status when the driver crashed (README's exit
 * codes; cli/cli.h CLI_EXIT_DRIVER_CRASHED): its error line names the call. */
#define REPLAY_EXIT_DRIVER_CRASHED 7

/* The child's end as frames: a job-level crash, hang or error, or compared frames. */
static rt_status judge(struct rt_exec *x, struct rt_slot *slot, struct rt_run_frame **frames, size_t *n)
{
    const struct rt_child *c = &slot->child;
    const struct rt_manifest_trace *t = &x->m->traces[x->plan->jobs[slot->job].trace];
    char tail[700];
    rt_child_tail_lines(c, 3, tail, sizeof tail);
    *n = 1;
    if (c->timed_out)
        *frames = job_level(RT_RESULT_TIMEOUT, "no result after %u s (timeout; the replay's process group "
                            "was killed); last output: %s", t->timeout_s, tail[0] ? tail : "(none)");
    else if (WIFSIGNALED(c->wait_status))
        *frames = job_level(RT_RESULT_CRASH, "the replay was killed by signal %d (%s); last output: %s",
                            WTERMSIG(c->wait_status), strsignal(WTERMSIG(c->wait_status)), tail[0] ? tail : "(none)");
    else if (WEXITSTATUS(c->wait_status) == REPLAY_EXIT_DRIVER_CRASHED && rt_child_error_line(c, tail, sizeof tail))
        *frames = job_level(RT_RESULT_CRASH, "%s", tail + strlen("retrace: error: "));
    else if (WEXITSTATUS(c->wait_status) != 0 &&
             (rt_child_error_line(c, tail, sizeof tail) || rt_child_warning_line(c, tail, sizeof tail)))
        *frames = job_level(RT_RESULT_ERROR, "the replay exited %d: %s", WEXITSTATUS(c->wait_status), tail);
    else if (WEXITSTATUS(c->wait_status) != 0)
        *frames = job_level(RT_RESULT_ERROR, "the replay exited %d: %s", WEXITSTATUS(c->wait_status),
                            tail[0] ? tail : "(no output)");
    else
        return compare_frames(x, slot, frames, n);
    return *frames ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

rt_status rt_job_finish(struct rt_exec *x, struct rt_slot *slot)
{
    size_t j = slot->job;
    struct rt_run_job_result *jr = &x->out->jobs[j];
    struct rt_job_state *st = &x->states[j];
    double wall_ms = slot->child.elapsed * 1000.0;
    char *report = read_report(slot->dir, &wall_ms);
    if (report)
        rt_record_device_from_report(x, report);
    struct rt_run_frame *frames = NULL;
    size_t n = 0;
    rt_status s = judge(x, slot, &frames, &n);
    slot->busy = false;
    if (!x->o->keep_work)
        rt_remove_tree(slot->dir);
    if (!rt_ok(&s)) {
        frames_free(frames, n);
        free(report);
        return s;
    }
    enum rt_result_status worst = RT_RESULT_PASS;
    for (size_t i = 0; i < n; i++)
        if (severity(frames[i].r.status) > severity(worst))
            worst = frames[i].r.status;
    /* The device may be known only now (from the report): look again. */
    free(jr->expect_note);
    jr->expected = expectation(x, &x->m->traces[x->plan->jobs[j].trace], &jr->expect_note);
    bool expected_now = (jr->expected == RT_EXPECT_CRASH && worst == RT_RESULT_CRASH) ||
                        (jr->expected == RT_EXPECT_HANG && worst == RT_RESULT_TIMEOUT);
    if (failing(worst) && !expected_now && slot->attempt <= x->o->retries) {
        if (!st->failed_once)
            for (size_t i = 0; i < n; i++)
                if (frames[i].r.status == worst && frames[i].message) {
                    snprintf(st->first_failure, sizeof st->first_failure, "%s: %s",
                             rt_result_status_name(worst), frames[i].message);
                    break;
                }
        st->failed_once = true;
        frames_free(frames, n);
        free(report);
        x->retry_queue[x->retry_tail++] = j;
        return rt_ok_status();
    }
    free(jr->report);
    jr->report = report;
    jr->replay_ms = wall_ms;
    jr->attempts = slot->attempt;
    return settle(x, j, frames, n);
}

void rt_run_frames_free(struct rt_run_frame *frames, size_t n) { frames_free(frames, n); }
