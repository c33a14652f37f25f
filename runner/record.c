/*
 * runner/record.c — the run and its results in the store. The run row is
 * opened when the first job finishes (by then a replay report has said which
 * device this is), and each job's results are committed in one transaction
 * the moment it ends, so a runner killed mid-run loses only the jobs in
 * flight.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "replay_report.h"
#include "wire.h"

static void iso_now(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A version 4 UUID from /dev/urandom (docs/FORMATS.md section 2). */
static void make_uuid(char out[37])
{
    unsigned char b[16] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b) {
        struct timespec ts; /* no urandom: time and pid still make runs distinct */
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t v[2] = {(uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, (uint64_t)getpid()};
        memcpy(b, v, sizeof b);
    }
    if (fd >= 0)
        close(fd);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

void rt_record_run_identity(struct rt_run_result *out)
{
    make_uuid(out->uuid);
    iso_now(out->started_at, sizeof out->started_at);
    if (gethostname(out->host, sizeof out->host) != 0)
        snprintf(out->host, sizeof out->host, "unknown");
    out->host[sizeof out->host - 1] = 0;
}

const char *rt_exec_device_key(const struct rt_exec *x)
{
    if (x->o->device_key)
        return x->o->device_key;
    return x->out->device_key ? x->out->device_key : "";
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

void rt_record_device_from_report(struct rt_exec *x, const char *report_json)
{
    if (x->out->device)
        return;
    struct rt_arena arena;
    struct rt_replay_report report;
    rt_arena_init(&arena, 0, 0);
    rt_status s = rt_replay_report_decode(report_json, &arena, &report);
    if (rt_ok(&s) && report.has_device) {
        x->out->device = dup_or_null(report.device.name);
        x->out->driver = dup_or_null(report.device.driver);
        x->out->device_key = dup_or_null(report.device.device_key);
    }
    rt_arena_finish(&arena);
}

static rt_status begin_run(struct rt_exec *x)
{
    if (x->out->run_id)
        return rt_ok_status();
    char *configs = rt_upload_configurations_json(x->m);
    struct rt_run_info info = {.host = x->out->host, .device = x->out->device, .driver = x->out->driver,
                               .device_key = rt_exec_device_key(x), .version = RT_VERSION,
                               .label = x->out->label, .shard = x->o->shard, .uuid = x->out->uuid,
                               .configurations = configs, .started_at = x->out->started_at,
                               .pid = getpid(), .pid_start = x->pid_start,
                               .pipeline = x->o->pipeline, .golden_set = x->o->golden_set};
    rt_status s = rt_store_run_begin(x->store, &info, &x->out->run_id);
    free(configs);
    return s;
}

rt_status rt_record_job(struct rt_exec *x, size_t j)
{
    struct rt_run_job_result *jr = &x->out->jobs[j];
    RT_TRY(begin_run(x));
    const struct rt_manifest_trace *t = &x->m->traces[jr->job.trace];
    struct rt_result *rows = calloc(jr->frame_count ? jr->frame_count : 1, sizeof *rows);
    if (!rows)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < jr->frame_count; i++) {
        rows[i] = jr->frames[i].r;
        rows[i].configuration = x->m->configs[jr->job.config].name;
        rows[i].tile_threshold = t->tile_threshold;
        rows[i].golden_hash = jr->frames[i].golden_hash[0] ? jr->frames[i].golden_hash : NULL;
        rows[i].report = jr->report;
        rows[i].actual_hash = jr->frames[i].actual_hash[0] ? jr->frames[i].actual_hash : NULL;
        rows[i].worst_tiles = jr->frames[i].worst_tiles[0] ? jr->frames[i].worst_tiles : NULL;
        rows[i].expected = rt_expect_kind_name(jr->expected);
        rows[i].regression = rt_wire_regression(rows[i].status, jr->expected);
    }
    rt_status s = rt_store_record_trace_results(x->store, x->out->run_id, t->name, rows, jr->frame_count);
    free(rows);
    return s;
}

rt_status rt_record_run_finish(struct rt_exec *x, const char *outcome)
{
    iso_now(x->out->finished_at, sizeof x->out->finished_at);
    RT_TRY(begin_run(x));
    return rt_store_run_finish(x->store, x->out->run_id, outcome);
}
