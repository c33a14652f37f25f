/*
 * capture/signals.h — every signal handler of the capture layer, in one place.
 *
 * Owns: one handler for each signal whose default action ends the process
 * (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1/2, SIGXCPU,
 * SIGXFSZ, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS; not SIGTRAP,
 * which debuggers own, nor SIGPROF/SIGVTALRM, which profilers own), the
 * dispositions found before it, the trace the emergency flush finishes, and
 * the exit() hook. One signal is dispatched in this order:
 *  1. a SIGSEGV on a page the memory tracker guards (its signals backend):
 *     the tracker serves it (rt_tracker_handle_fault) and the access is retried;
 *  2. a handler the program installed before us: it runs and decides (it may
 *     quit cleanly, ignore the signal or, like Mono, turn a fault into an
 *     exception), and the capture goes on unless it left the signal to its
 *     default action;
 *  3. otherwise, for a signal the program did not ignore: the trace is
 *     finished by trace/'s emergency flush, then the default action runs for
 *     real (exit status and core dump are the true ones).
 * Signals that were ignored at install stay ignored. A second thread taking
 * a signal while the flush runs waits for it.
 * Must not touch: page state (memory_track.c), the trace file (trace/).
 */
#ifndef RT_CAPTURE_SIGNALS_H
#define RT_CAPTURE_SIGNALS_H

#include "status.h"
#include "trace.h"

/** Installs the handlers and the exit() hook; idempotent. */
rt_status capture_signals_install(void) RT_MUST_CHECK;

/** The trace the flush finishes on a fatal signal or exit() without close;
 * NULL for none. Setting NULL waits until no handler still uses the old
 * one, so it may be freed afterwards. */
void capture_signals_set_trace(struct rt_trace_writer *w);

/** Restores the dispositions found at install, where ours is still the
 * handler (a library about to be unloaded; tests). The exit() hook stays and
 * finds no trace. */
void capture_signals_uninstall(void);

#endif
