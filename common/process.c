/*
 * common/process.c — process identity and liveness (see process.h).
 */
#include "process.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Reads the first line of PATH into BUF (newline dropped); false when unreadable. */
static bool read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    /* fgets leaves BUF untouched when it reads nothing (a /proc file whose
     * process ended after the open reads empty): not a string then. */
    if (ok)
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

bool rt_process_identity(int64_t pid, char *buf, size_t size)
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

bool rt_process_alive(int64_t pid, const char *pid_start)
{
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
    return !pid_start || !*pid_start || !rt_process_identity(pid, now, sizeof now) ||
           !strcmp(now, pid_start);
}

