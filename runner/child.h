/*
 * runner/child.h — one replay as a child process (internal to runner/).
 *
 * The child runs in its own process group and working directory, with stdout
 * and stderr into one pipe whose last bytes are kept as the reason for a
 * failure. A timeout kills the whole group (a replay's own children too), and
 * the group is killed after the child exits so nothing it started lingers.
 * The child also dies with the runner (PR_SET_PDEATHSIG), so a killed runner
 * leaves no replay behind.
 */
#ifndef RT_RUNNER_CHILD_H
#define RT_RUNNER_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "status.h"

#define RT_CHILD_TAIL 16384

struct rt_child {
    pid_t pid;        /* also the process group id; 0 when not running */
    int fd;           /* read end of the output pipe, -1 when closed */
    double started, deadline; /* CLOCK_MONOTONIC seconds */
    char tail[RT_CHILD_TAIL + 1]; /* the last output bytes, NUL-terminated */
    size_t tail_len;
    bool done, timed_out;
    int wait_status;  /* waitpid's, when done and not timed out */
    double elapsed;   /* seconds from start to exit */
};

double rt_child_now(void);

/** Starts ARGV[0] (searched in PATH) in CWD, with TIMEOUT_S seconds to live. */
RT_MUST_CHECK rt_status rt_child_start(char *const argv[], const char *cwd, unsigned timeout_s,
                                       struct rt_child *child);

/**
 * Waits up to WAIT_MS for output or an exit among CHILDREN (those running),
 * reads what arrived, reaps the ones that exited and kills the ones past
 * their deadline. Marks each finished child done.
 */
void rt_child_poll(struct rt_child *const *children, size_t count, int wait_ms);

/** The last LINES non-empty lines of the child's output, "; "-joined, into BUF. */
void rt_child_tail_lines(const struct rt_child *child, unsigned lines, char *buf, size_t size);

/**
 * The last line of the child's output that is retrace's own error ("retrace:
 * error: ..." or "retrace replay: ..."; warnings are not), into BUF; false
 * when there is none.
 */
bool rt_child_error_line(const struct rt_child *child, char *buf, size_t size);

/**
 * The last "retrace: warning: " line of the child's output, into BUF; false
 * when there is none. For a replay that failed without an error line (exit 2:
 * --frames named frames it could not save), that warning is what went wrong.
 */
bool rt_child_warning_line(const struct rt_child *child, char *buf, size_t size);

/** Kills a running child's group and reaps it (an aborted run). */
void rt_child_kill(struct rt_child *child);

/**
 * Runs ARGV to the end (at most TIMEOUT_S) and returns its output (up to
 * RT_CHILD_TAIL bytes) in BUF; for short questions such as `retrace help replay`.
 */
RT_MUST_CHECK rt_status rt_child_capture(char *const argv[], unsigned timeout_s, char *buf, size_t size);

#endif
