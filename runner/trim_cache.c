/*
 * runner/trim_cache.c — `trim: A-B` on a manifest trace: the trace replayed
 * is `retrace trim SOURCE --frames A-B` (run as a child, as every replay is),
 * made once and kept as CACHE/trim/SHA256-A-B.rtrace, keyed by the source's
 * SHA-256 and the range, so a farm keeps one long capture and tests several
 * short windows of it; a changed source is trimmed again.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "digest.h"
#include "file.h"
#include "exec.h"
#include "internal.h"

#define TRIM_TIMEOUT_S 3600

static rt_status run_trim(const char *retrace, const char *source, const char *range, const char *part)
{
    char *argv[] = {(char *)retrace, "trim", (char *)source, "--frames", (char *)range, "-o", (char *)part, NULL};
    struct rt_child c;
    RT_TRY(rt_child_start(argv, NULL, TRIM_TIMEOUT_S, &c));
    struct rt_child *list[] = {&c};
    while (!c.done)
        rt_child_poll(list, 1, 200);
    char line[512] = "";
    if (c.timed_out || !WIFEXITED(c.wait_status) || WEXITSTATUS(c.wait_status) != 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "trim %s of %s failed: %s", range, source,
                         rt_child_error_line(&c, line, sizeof line) ? line : "no message");
    return rt_ok_status();
}

rt_status rt_trim_cached(struct rt_exec *x, size_t trace)
{
    struct rt_fetch_state *f = &x->fetches[trace];
    const struct rt_manifest_trace *t = &x->m->traces[trace];
    if (!t->trim || f->trimmed[0])
        return rt_ok_status();
    char sha[65], dir[PATH_MAX], part[PATH_MAX + 32];
    RT_TRY(rt_sha256_file_hex(rt_trace_source(x, trace), sha));
    snprintf(dir, sizeof dir, "%s/trim", x->m->cache_dir);
    RT_TRY(rt_make_dirs(dir)); /* a fresh $HOME has no ~/.cache/retrace */
    snprintf(f->trimmed, sizeof f->trimmed, "%.3900s/%s-%s.rtrace", dir, sha, t->trim);
    if (access(f->trimmed, R_OK) == 0)
        return rt_ok_status(); /* made by an earlier run */
    snprintf(part, sizeof part, "%s.part.%ld", f->trimmed, (long)getpid());
    if (x->o->progress)
        fprintf(stderr, "\r\033[Ktrimming %s to frames %s", t->name, t->trim);
    rt_status s = run_trim(x->o->retrace, rt_trace_source(x, trace), t->trim, part);
    if (rt_ok(&s) && rename(part, f->trimmed) != 0)
        s = rt_errorf(RT_ERR_INTERNAL, "cannot rename %s: %s", part, strerror(errno));
    if (!rt_ok(&s)) {
        unlink(part);
        f->trimmed[0] = '\0';
    }
    return s;
}
