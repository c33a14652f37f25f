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
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"

/* Reads the first line of PATH into BUF (newline dropped); false when unreadable. */
static bool read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = 0;
    return ok;
}

/* The state letter and start time (field 22, clock ticks since boot) of PID. */
static bool proc_stat(int64_t pid, char *state_out, unsigned long long *start_out)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%" PRId64 "/stat", pid);
    if (!read_line(path, line, sizeof line))
        return false;
    const char *p = strrchr(line, ')'); /* the command name may hold spaces */
    if (!p)
        return false;
    /* After ") ": state is field 3, starttime field 22. */
    return sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
                  state_out, start_out) == 2;
}

bool rt_stale_process_identity(int64_t pid, char *buf, size_t size)
{
    char boot[64] = "";
    char state;
    unsigned long long start;
    if (!proc_stat(pid, &state, &start))
        return false;
    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    snprintf(buf, size, "%s:%llu", boot, start);
    return true;
}

bool rt_stale_alive(int64_t pid, const char *pid_start, void *ctx)
{
    (void)ctx;
    if (pid <= 0 || pid > INT32_MAX)
        return false;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return false;
    char state;
    unsigned long long start;
    if (!proc_stat(pid, &state, &start))
        return true; /* no /proc: kill() said it exists */
    if (state == 'Z' || state == 'X')
        return false; /* killed, not yet reaped */
    char now[128];
    /* A pid reused by another process is not our runner. */
    return !pid_start || !*pid_start || !rt_stale_process_identity(pid, now, sizeof now) ||
           !strcmp(now, pid_start);
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
