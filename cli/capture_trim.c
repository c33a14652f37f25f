/* cli/capture_trim.c — the trim at the end of `retrace capture --trim-frames` (capture_trim.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_trim.h"
#include "trim.h"

int capture_trim_parse(const struct rt_command *self, const char *option, const char *text, uint64_t *first,
                       uint64_t *last)
{
    char *end = NULL;
    if (text[0] < '0' || text[0] > '9')
        return cli_usage_error(self, "%s: expected A or A-B (frames count from 1), got '%s'", option, text);
    *first = strtoull(text, &end, 10);
    *last = *first;
    if (*end == '-' && end[1] >= '0' && end[1] <= '9')
        *last = strtoull(end + 1, &end, 10);
    if (*end || *first < 1 || *last < *first)
        return cli_usage_error(self, "%s: expected A or A-B with 1 <= A <= B, got '%s'", option, text);
    return 0;
}

rt_status capture_trim_prepare(struct capture_trim *t, const char *output)
{
    size_t n = strlen(output);
    if (n > 7 && !strcmp(output + n - 7, ".rtrace"))
        n -= 7;
    if (snprintf(t->final, sizeof t->final, "%s", output) >= (int)sizeof t->final ||
        snprintf(t->temp, sizeof t->temp, "%.*s.untrimmed.rtrace", (int)n, output) >= (int)sizeof t->temp)
        return rt_errorf(RT_ERR_USAGE, "-o: path too long");
    capture_trim_remove_temp(t); /* a retrace killed with SIGKILL left it */
    unlink(t->final);            /* never reported as this run's */
    return rt_ok_status();
}

void capture_trim_remove_temp(const struct capture_trim *t)
{
    char part[PATH_MAX + 8];
    snprintf(part, sizeof part, "%s.part", t->temp);
    unlink(t->temp);
    unlink(part);
}

/* The range against the frames the run made: cut at its end, refused before A. */
static rt_status clamp(struct capture_trim *t, uint64_t frames)
{
    if (frames < t->first)
        return rt_errorf(RT_ERR_BAD_INPUT, "--trim-frames %" PRIu64 "-%" PRIu64 ": the program ended after %" PRIu64
                         " frames, before frame %" PRIu64 "; no trace written", t->first, t->last, frames, t->first);
    if (frames < t->last) {
        fprintf(stderr, "retrace: warning: --trim-frames %" PRIu64 "-%" PRIu64 ": the program ended after %" PRIu64
                " frames; trimmed to frames %" PRIu64 "-%" PRIu64 "\n", t->first, t->last, frames, t->first, frames);
        t->last = frames;
    }
    return rt_ok_status();
}

rt_status capture_trim_finish(struct capture_trim *t, struct capture_traces *traces)
{
    if (!traces->main.read)
        return rt_ok_status(); /* summarise says why there is no trace */
    RT_TRY(clamp(t, traces->main.progress.frames));
    /* IN is removed once OUT is written: the snapshot names the run instead. */
    struct rt_trim_options o = {.in = traces->main.path, .out = t->final, .first = t->first, .last = t->last,
                                .progress = isatty(2), .source = "the run captured with --trim-frames (not kept)"};
    struct rt_trim_result r;
    RT_TRY(rt_status_wrap(rt_trim_run(&o, &r), "--trim-frames"));
    fprintf(stderr, "retrace: trimmed frames %" PRIu64 "-%" PRIu64 " of the run's %" PRIu64 " (%lld bytes) to %s: "
            "snapshot %" PRIu64 " bytes, %" PRIu64 " calls kept of %" PRIu64 " before frame %" PRIu64 "; the "
            "untrimmed trace is removed\n", t->first, t->first + r.frames - 1, r.source_frames, traces->main.bytes,
            t->final, r.snapshot_bytes, r.kept_calls, r.kept_calls + r.dropped_calls, t->first);
    capture_traces_reread_main(traces, t->final);
    return rt_ok_status();
}
