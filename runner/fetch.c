/*
 * runner/fetch.c — traces kept in an object store: fetched once with
 * libcurl into the manifest's cache folder, named by their SHA-256, verified
 * on every use (a cache can be damaged too); and GFXReconstruct captures
 * (.gfxr), imported once into the cache (rt_import_cached).
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/wait.h>

#include "child.h"
#include "digest.h"
#include "exec.h"
#include "file.h"
#include "internal.h"

static rt_status download(const char *url, const char *part)
{
    FILE *f = fopen(part, "wb");
    if (!f)
        return rt_errorf(RT_ERR_INTERNAL, "%s: %s", part, strerror(errno));
    CURL *curl = curl_easy_init();
    if (!curl) {
        fclose(f);
        return rt_errorf(RT_ERR_INTERNAL, "cannot start libcurl");
    }
    char err[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L); /* a stalled server is an error, not a hang */
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_cleanup(curl);
    bool write_failed = fclose(f) != 0;
    if (rc != CURLE_OK)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot download %s: %s", url, err[0] ? err : curl_easy_strerror(rc));
    if (write_failed)
        return rt_errorf(RT_ERR_INTERNAL, "writing %s failed", part);
    return rt_ok_status();
}

rt_status rt_fetch_trace(const char *url, const char *sha256, const char *path)
{
    char got[65];
    if (access(path, F_OK) == 0) {
        rt_status cached = rt_sha256_file_hex(path, got);
        if (rt_ok(&cached) && !strcmp(got, sha256))
            return rt_ok_status(); /* reused */
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    RT_TRY(rt_make_dirs(dir));
    char part[4200];
    snprintf(part, sizeof part, "%s.part.%ld", path, (long)getpid());
    rt_status s = download(url, part);
    if (rt_ok(&s))
        s = rt_sha256_file_hex(part, got);
    if (rt_ok(&s) && strcmp(got, sha256))
        s = rt_errorf(RT_ERR_BAD_INPUT, "sha256 mismatch for %s: the manifest says %s, the download is %s", url,
                      sha256, got);
    if (rt_ok(&s) && rename(part, path) != 0)
        s = rt_errorf(RT_ERR_INTERNAL, "cannot rename %s: %s", part, strerror(errno));
    if (!rt_ok(&s))
        unlink(part);
    return s;
}

/* ---- GFXReconstruct captures ------------------------------------------ */

#define IMPORT_TIMEOUT_S 3600

static bool is_gfxr(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".gfxr") == 0;
}

static rt_status run_import(const char *retrace, const char *source, const char *part)
{
    char *argv[] = {(char *)retrace, "import", (char *)source, "-o", (char *)part, NULL};
    struct rt_child c;
    RT_TRY(rt_child_start(argv, NULL, IMPORT_TIMEOUT_S, &c));
    struct rt_child *list[] = {&c};
    while (!c.done)
        rt_child_poll(list, 1, 200);
    char line[512] = "";
    if (c.timed_out || !WIFEXITED(c.wait_status) || WEXITSTATUS(c.wait_status) != 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "import of %s failed: %s", source,
                         rt_child_error_line(&c, line, sizeof line) ? line : "no message");
    return rt_ok_status();
}

/* A .gfxr trace (local or fetched) is replayed as its import, made once by
 * `retrace import` (a child, as every replay is) and kept as
 * CACHE/import/SHA256.rtrace, keyed by the capture's SHA-256. */
rt_status rt_import_cached(struct rt_exec *x, size_t trace)
{
    struct rt_fetch_state *f = &x->fetches[trace];
    const struct rt_manifest_trace *t = &x->m->traces[trace];
    if (!is_gfxr(t->path) || f->imported[0])
        return rt_ok_status();
    char sha[65], dir[4096], part[4200];
    RT_TRY(rt_sha256_file_hex(t->path, sha));
    snprintf(dir, sizeof dir, "%.4000s/import", x->m->cache_dir);
    RT_TRY(rt_make_dirs(dir));
    snprintf(f->imported, sizeof f->imported, "%.4000s/%s.rtrace", dir, sha);
    if (access(f->imported, R_OK) == 0)
        return rt_ok_status(); /* made by an earlier run */
    snprintf(part, sizeof part, "%s.part.%ld", f->imported, (long)getpid());
    if (x->o->progress)
        fprintf(stderr, "\r\033[Kimporting %s", t->name);
    rt_status s = run_import(x->o->retrace, t->path, part);
    if (rt_ok(&s) && rename(part, f->imported) != 0)
        s = rt_errorf(RT_ERR_INTERNAL, "cannot rename %s: %s", part, strerror(errno));
    if (!rt_ok(&s)) {
        unlink(part);
        f->imported[0] = '\0';
    }
    return s;
}

const char *rt_trace_source(const struct rt_exec *x, size_t trace)
{
    return x->fetches[trace].imported[0] ? x->fetches[trace].imported : x->m->traces[trace].path;
}
