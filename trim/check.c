/*
 * trim/check.c — `retrace trim --check`: replays OUT (all its frames) and IN
 * (frames A..B) on the same device with screenshots of every frame and the
 * trace's verification points checked, and compares frame k of OUT with
 * frame A + k - 1 of IN pixel by pixel. Any difference is a failure.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "png_io.h"
#include "trim.h"

static rt_status replay_frames(const struct rt_trim_options *o, const char *trace, const char *dir, uint64_t first,
                               uint64_t last, struct rt_replay_result *res)
{
    char frames[64];
    snprintf(frames, sizeof frames, "%" PRIu64 "-%" PRIu64, first, last);
    struct rt_replay_options ro = {.trace_path = trace, .device = o->device ? o->device : rt_trim_default_device(),
                                   .screenshot_dir = dir, .end_frame = last, .memory_mode = o->memory_mode,
                                   .verify = true};
    RT_TRY(rt_frame_list_parse(frames, &ro.frames));
    rt_status s = rt_status_wrap(rt_replay_run(&ro, res), "replaying %s for --check", trace);
    rt_frame_list_finish(&ro.frames);
    rt_replay_outcome_finish(&res->outcome);
    return s;
}

/* 1 when identical, 0 when they differ (why in detail), -1 when neither exists. */
static int same_frame(const char *a, const char *b, char *detail, size_t size)
{
    bool ha = access(a, F_OK) == 0, hb = access(b, F_OK) == 0;
    if (!ha && !hb)
        return -1;
    if (ha != hb) {
        snprintf(detail, size, "%s has no screenshot where %s has one", ha ? "the original" : "the trim",
                 ha ? "the trim" : "the original");
        return 0;
    }
    struct rt_image x = {0}, y = {0};
    rt_status s1 = rt_png_read_file(a, &x), s2 = rt_png_read_file(b, &y);
    int same = rt_ok(&s1) && rt_ok(&s2) && x.width == y.width && x.height == y.height &&
               !memcmp(x.rgba, y.rgba, (size_t)x.width * x.height * 4);
    if (!same) {
        uint64_t differ = 0;
        for (size_t i = 0; rt_ok(&s1) && rt_ok(&s2) && x.width == y.width && x.height == y.height &&
                           i < (size_t)x.width * x.height; i++)
            differ += memcmp(x.rgba + 4 * i, y.rgba + 4 * i, 4) != 0;
        snprintf(detail, size, "%" PRIu64 " pixels differ (%ux%u against %ux%u)", differ, y.width, y.height,
                 x.width, x.height);
    }
    rt_image_finish(&x);
    rt_image_finish(&y);
    return same;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4200];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void compare_frames(const struct rt_trim_options *o, const char *in_dir, const char *out_dir, uint64_t n,
                           struct rt_trim_check_result *res)
{
    for (uint64_t k = 1; k <= n; k++) {
        char a[4400], b[4400], why[200] = "";
        snprintf(a, sizeof a, "%s/frame_%06" PRIu64 ".png", in_dir, o->first + k - 1);
        snprintf(b, sizeof b, "%s/frame_%06" PRIu64 ".png", out_dir, k);
        int same = same_frame(a, b, why, sizeof why);
        res->frames += same >= 0;
        res->identical += same == 1;
        if (same == 0 && !res->first_different) {
            res->first_different = k;
            snprintf(res->detail, sizeof res->detail, "frame %" PRIu64 " (the original's %" PRIu64 "): %s", k,
                     o->first + k - 1, why);
        }
    }
}

rt_status rt_trim_check(const struct rt_trim_options *o, struct rt_trim_check_result *res)
{
    *res = (struct rt_trim_check_result){0};
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char root[4096], in_dir[4200], out_dir[4200];
    snprintf(root, sizeof root, "%s/retrace-trim-check-XXXXXX", tmp);
    if (!mkdtemp(root))
        return rt_errorf(RT_ERR_INTERNAL, "cannot make a directory under %s for --check", tmp);
    snprintf(in_dir, sizeof in_dir, "%s/in", root);
    snprintf(out_dir, sizeof out_dir, "%s/out", root);
    struct rt_replay_result *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    rt_status s = a && b ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    if (rt_ok(&s) && (mkdir(in_dir, 0700) || mkdir(out_dir, 0700)))
        s = rt_errorf(RT_ERR_INTERNAL, "cannot make %s", in_dir);
    uint64_t n = o->last - o->first + 1;
    if (rt_ok(&s))
        s = replay_frames(o, o->in, in_dir, o->first, o->last, a);
    if (rt_ok(&s))
        s = replay_frames(o, o->out, out_dir, 1, n, b);
    if (rt_ok(&s)) {
        compare_frames(o, in_dir, out_dir, n, res);
        if (!res->first_different && b->verify_divergences > a->verify_divergences) {
            res->first_different = 1;
            snprintf(res->detail, sizeof res->detail, "verification points: %" PRIu64 " diverge in the trim, %"
                     PRIu64 " in the original (%.150s)", b->verify_divergences, a->verify_divergences, b->verify_first);
        }
        if (res->first_different)
            s = rt_errorf(RT_ERR_FAILED, "--check: %s", res->detail);
    }
    remove_dir(in_dir);
    remove_dir(out_dir);
    rmdir(root);
    free(a);
    free(b);
    return s;
}
