/*
 * replay/include/crash.h — a replay that dies of a fatal signal (a trace that
 * reproduces a driver crash) says where: which call, which command, which
 * frame, and whether the fault was in retrace's own code.
 *
 * Owns: the handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT while
 * a replay runs, on an alternate stack (a stack overflow too), and what the
 * replay was doing when one came. It calls the caller's function, which may
 * write its report and exit (cli/ does, with exit code 7); if that function
 * returns, the signal's default action ends the process as before.
 * Must not touch: exit codes and wording (cli/'s), the replay's state.
 */
#ifndef RT_REPLAY_CRASH_H
#define RT_REPLAY_CRASH_H

#include <stdbool.h>
#include <stdint.h>

struct rt_replay_crash {
    int signal;
    const char *signal_name; /* "SIGSEGV" */
    uint64_t call;           /* the packet's sequence number, as warnings name calls */
    const char *command;     /* its command ("vkQueueSubmit"), or "" between calls */
    uint64_t frame;          /* 1-based frame being replayed */
    bool other_thread;       /* the fault came on a thread of the driver's (its queue
                              * thread): call is then the last submit replayed */
    bool in_retrace;         /* the faulting instruction is in retrace's own code */
};

typedef void (*rt_replay_crash_fn)(const struct rt_replay_crash *crash, void *ctx);

/** Calls FN (once, in the signal handler) if a replay dies of a fatal
 * signal after this; NULL uninstalls. */
void rt_replay_on_crash(rt_replay_crash_fn fn, void *ctx);

#endif
