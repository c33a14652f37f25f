/*
 * runner/stale.c — what a runner killed with SIGKILL (OOM, a CI job's hard
 * timeout) leaves behind, cleaned by the next `retrace run` on the same host:
 * its run, never finished in the store, is marked "aborted"; its work folder
 * in TMPDIR (retrace-run-PID-XXXXXX) is removed. Only what belongs to this
 * host and to a process that is gone is touched: another host's runs, a
 * runner still going, and another user's folders are left alone.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "process.h"

bool rt_stale_alive(int64_t pid, const char *pid_start, void *ctx)
{
    (void)ctx;
    return rt_process_alive(pid, pid_start);
}

rt_status rt_stale_abort_runs(struct rt_store *store, const char *host, size_t *count_out)
{
    return rt_store_runs_abort_gone(store, host, rt_stale_alive, NULL, count_out);
}

/* PID when NAME is a work folder "retrace-run-PID-XXXXXX", else 0. */
static int64_t work_folder_pid(const char *name)
{
    static const char prefix[] = RT_WORK_PREFIX;
    if (strncmp(name, prefix, sizeof prefix - 1))
        return 0;
    const char *p = name + sizeof prefix - 1;
    char *end = NULL;
    errno = 0;
    long long pid = strtoll(p, &end, 10);
    if (end == p || *p < '1' || *p > '9' || errno || *end != '-' || strlen(end + 1) != 6)
        return 0;
    return pid;
}

size_t rt_stale_clean_work(const char *tmp_dir)
{
    DIR *d = opendir(tmp_dir);
    if (!d)
        return 0;
    size_t removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t pid = work_folder_pid(e->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name) >= (int)sizeof path ||
            lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
            rt_stale_alive(pid, NULL, NULL))
            continue;
        rt_remove_tree(path);
        removed++;
    }
    closedir(d);
    return removed;
}
