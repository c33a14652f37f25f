/* capture/signals.c — the capture layer's signal handlers (see signals.h). */
#include "signals.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memory_track.h"

static const int fatal_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1,
                                    SIGUSR2, SIGXCPU, SIGXFSZ, SIGABRT, SIGSEGV, SIGBUS, SIGILL,
                                    SIGFPE, SIGSYS};
#define SIGNAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])

static struct sigaction previous[SIGNAL_COUNT];
static bool installed;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(struct rt_trace_writer *) trace;
static _Atomic int handlers_running; /* handlers that may hold the trace pointer */

static bool is_handler(const struct sigaction *sa)
{
    if (sa->sa_flags & SA_SIGINFO)
        return sa->sa_sigaction != NULL;
    return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

static bool now_default(int sig)
{
    struct sigaction current;
    return sigaction(sig, NULL, &current) == 0 && !(current.sa_flags & SA_SIGINFO) &&
           current.sa_handler == SIG_DFL;
}

/* The default action, for real: re-raised on this thread, delivered when the
 * handler returns. */
static void die_by_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static void flush_trace(void)
{
    atomic_fetch_add(&handlers_running, 1);
    struct rt_trace_writer *w = atomic_load(&trace);
    if (w)
        rt_trace_writer_emergency_flush_or_wait(w);
    atomic_fetch_sub(&handlers_running, 1);
}

static void run_previous(const struct sigaction *prev, int sig, siginfo_t *info, void *context)
{
    if (prev->sa_flags & SA_SIGINFO)
        prev->sa_sigaction(sig, info, context);
    else
        prev->sa_handler(sig);
}

/* The dispatch order of signals.h: tracker, program, flush. */
static void on_signal(int sig, siginfo_t *info, void *context)
{
    int saved_errno = errno;
    if (sig == SIGSEGV && rt_tracker_handle_fault(info->si_addr, context)) {
        errno = saved_errno;
        return;
    }
    for (size_t k = 0; k < SIGNAL_COUNT; k++) {
        if (fatal_signals[k] != sig)
            continue;
        const struct sigaction *prev = &previous[k];
        if (is_handler(prev)) {
            run_previous(prev, sig, info, context);
            if (now_default(sig))
                flush_trace();
        } else if (prev->sa_handler != SIG_IGN) {
            flush_trace();
            die_by_default(sig);
        }
    }
    errno = saved_errno;
}

/* exit() without close: not a signal context (see rt_trace_writer_exit_flush). */
static void on_exit_without_close(void)
{
    atomic_fetch_add(&handlers_running, 1);
    struct rt_trace_writer *w = atomic_load(&trace);
    if (w)
        rt_trace_writer_exit_flush(w);
    atomic_fetch_sub(&handlers_running, 1);
}

static void install_locked(void)
{
    for (size_t k = 0; k < SIGNAL_COUNT; k++) {
        struct sigaction current;
        if (sigaction(fatal_signals[k], NULL, &current) != 0)
            continue;
        /* An ignored SIGINT (nohup, background jobs) must stay ignored. */
        if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) {
            previous[k] = current;
            continue;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        /* A guarded page touched inside a handler (the program's) must fault
         * into the tracker again. */
        if (fatal_signals[k] == SIGSEGV)
            sa.sa_flags |= SA_NODEFER | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[k], &sa, &previous[k]);
    }
    static bool hooked;
    if (!hooked)
        hooked = atexit(on_exit_without_close) == 0;
    installed = true;
}

rt_status capture_signals_install(void)
{
    pthread_mutex_lock(&install_lock);
    if (!installed)
        install_locked();
    pthread_mutex_unlock(&install_lock);
    return rt_ok_status();
}

void capture_signals_set_trace(struct rt_trace_writer *w)
{
    atomic_store(&trace, w);
    if (w)
        return;
    struct timespec step = {0, 1000000L}; /* 1 ms, for at most 5 s */
    for (int i = 0; i < 5000 && atomic_load(&handlers_running) > 0; i++)
        nanosleep(&step, NULL);
}

void capture_signals_uninstall(void)
{
    pthread_mutex_lock(&install_lock);
    for (size_t k = 0; installed && k < SIGNAL_COUNT; k++) {
        struct sigaction current;
        /* Only where ours is still the handler: a later one chains to us. */
        if (sigaction(fatal_signals[k], NULL, &current) == 0 &&
            (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_signal)
            sigaction(fatal_signals[k], &previous[k], NULL);
    }
    installed = false;
    pthread_mutex_unlock(&install_lock);
}
