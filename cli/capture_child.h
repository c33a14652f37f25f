/*
 * cli/capture_child.h — running the program under `retrace capture`
 * (capture_child.c says why it is run this way).
 */
#ifndef RT_CLI_CAPTURE_CHILD_H
#define RT_CLI_CAPTURE_CHILD_H

#include <stdbool.h>

#include "status.h"

struct capture_child {
    int status;      /* the program's wait status */
    int exec_errno;  /* not 0: the program could not be started */
    int stop_signal; /* not 0: retrace was sent this signal and passed it on */
};

/**
 * Runs ARGV[0] with ARGV in a process group of its own and waits for it.
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to retrace meanwhile go to the
 * whole group (the third one as SIGKILL); the handlers stay until
 * capture_child_restore_signals, so retrace can finish the trace first.
 */
rt_status capture_child_run(char **argv, struct capture_child *out);

void capture_child_restore_signals(void);

/** Ends retrace by SIG, as the program was asked to end (exit status 128+SIG
 * in a shell, which a script's caller expects of a stopped command). */
void capture_child_end_like(int sig);

#endif
