/*
 * trim/trim.c — rt_trim_run: checks the request against IN (its frames, its
 * damage), replays IN to the start of frame A while following its objects
 * (calls.c), and at the stop has write.c write the trimmed trace.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "devices.h"
#include "digest.h"
#include "replay_trim.h"
#include "trim_write.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The same file, also through another name (a link, "./x"). */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) || stat(b, &sb))
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* IN's complete frames, and whether (and where) it is damaged. */
static rt_status scan(const char *path, uint64_t *frames, bool *damaged, char *why, size_t why_size)
{
    struct rt_trace_reader *r = NULL;
    RT_TRY(rt_status_wrap(rt_trace_reader_open(path, &r), "%s", path));
    struct rt_trace_packet p;
    rt_status s;
    do
        s = rt_trace_reader_next(r, &p);
    while (rt_ok(&s) && p.type != RT_TRACE_PACKET_END);
    struct rt_trace_progress pr;
    rt_trace_reader_progress(r, &pr);
    *frames = pr.frames;
    *damaged = !rt_ok(&s);
    snprintf(why, why_size, "%s", s.msg);
    rt_trace_reader_destroy(r);
    return rt_ok_status();
}

/* The range against IN: past the end is a usage error naming the last frame;
 * damage before frame A is bad input; damage after it cuts the range. */
static rt_status check_range(const struct rt_trim_options *o, struct rt_trim_result *res, uint64_t *last)
{
    RT_TRY(scan(o->in, &res->source_frames, &res->damaged, res->damage, sizeof res->damage));
    uint64_t n = res->source_frames;
    if (res->damaged && n < o->first)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s is damaged (%s); its good part has %" PRIu64 " complete frames, "
                         "fewer than frame %" PRIu64, o->in, res->damage, n, o->first);
    if (!res->damaged && n < o->last)
        return rt_errorf(RT_ERR_USAGE, "--frames %" PRIu64 "-%" PRIu64 ": %s has %" PRIu64 " frames (the last is "
                         "frame %" PRIu64 ")", o->first, o->last, o->in, n, n);
    *last = o->last < n ? o->last : n;
    return rt_ok_status();
}

struct trim_run {
    struct trim_state state;
    struct trim_writer writer;
    uint64_t *kept;
    double replay_start;
};

static rt_status kept_calls(struct trim_run *run)
{
    struct trim_state *t = &run->state;
    run->kept = malloc(((size_t)t->record_count + 1) * sizeof *run->kept);
    if (!run->kept)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->record_count; i++)
        if (t->records[i].kept)
            run->kept[n++] = t->records[i].seq; /* records are made in sequence order */
    run->writer.kept = run->kept;
    run->writer.kept_count = n;
    return rt_ok_status();
}

static rt_status stopped(void *user, struct replay *r)
{
    struct trim_run *run = user;
    run->writer.result->replay_seconds = now() - run->replay_start;
    RT_TRY(run->state.error);
    RT_TRY(trim_check_contents(&run->state, run->writer.opts->first));
    trim_state_close(&run->state);
    RT_TRY(kept_calls(run));
    return trim_write(&run->writer, &run->state, r);
}

/* lavapipe where there is one (every Linux machine can trim), else replay's choice. */
const char *rt_trim_default_device(void)
{
    static char name[256];
    struct rt_replay_device *list = NULL;
    uint32_t n = 0;
    rt_status s = rt_replay_list_devices(&list, &n);
    for (uint32_t i = 0; rt_ok(&s) && i < n && !name[0]; i++)
        if (list[i].device_type == VK_PHYSICAL_DEVICE_TYPE_CPU)
            snprintf(name, sizeof name, "%u", list[i].index);
    free(list);
    return name[0] ? name : NULL;
}

static rt_status track(void *user, const struct rt_trace_packet *p, enum rt_vk_cmd cmd, const void *args)
{
    return trim_track_call(&((struct trim_run *)user)->state, p, cmd, args);
}

static rt_status snapshot_packet(void *user, const struct rt_trace_packet *p)
{
    trim_track_snapshot(&((struct trim_run *)user)->state, p);
    return rt_ok_status();
}

static rt_status replay_to_a(struct trim_run *run, const struct rt_trim_options *o)
{
    struct rt_replay_trim_hooks hooks = {.user = run, .stop_frame = o->first, .call = track, .snapshot = snapshot_packet,
                                         .stopped = stopped};
    struct rt_replay_options ro = {.trace_path = o->in, .device = o->device ? o->device : rt_trim_default_device(),
                                   .memory_mode = o->memory_mode, .progress = o->progress,
                                   .total_frames = o->first - 1, .trim = &hooks};
    struct rt_replay_result *res = calloc(1, sizeof *res);
    if (!res)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status s = rt_replay_run(&ro, res);
    rt_replay_outcome_finish(&res->outcome);
    free(res);
    return s;
}

rt_status rt_trim_run(const struct rt_trim_options *o, struct rt_trim_result *res)
{
    *res = (struct rt_trim_result){0};
    if (o->first < 1 || o->last < o->first)
        return rt_errorf(RT_ERR_USAGE, "--frames: frames count from 1, and A-B needs A <= B");
    if (same_file(o->in, o->out) || !strcmp(o->in, o->out))
        return rt_errorf(RT_ERR_USAGE, "-o %s names the trace being trimmed; write elsewhere", o->out);
    uint64_t last = 0;
    RT_TRY(check_range(o, res, &last));
    struct trim_run *run = calloc(1, sizeof *run);
    if (!run)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    trim_state_init(&run->state);
    run->state.opts = o;
    run->state.result = res;
    const char *slash = strrchr(o->in, '/');
    run->writer = (struct trim_writer){.opts = o, .result = res, .last = last, .source_frames = res->source_frames,
                                       .source_name = o->source ? o->source : slash ? slash + 1 : o->in,
                                       .frame = 0};
    rt_status s = rt_sha256_file(o->in, run->writer.source_sha256);
    run->replay_start = now();
    if (rt_ok(&s))
        s = o->first == 1 ? trim_write(&run->writer, &run->state, NULL) : replay_to_a(run, o);
    if (!rt_ok(&s))
        unlink(o->out); /* a trimmed trace is whole or absent */
    trim_state_finish(&run->state);
    free(run->kept);
    free(run);
    return s;
}
