/*
 * Unit tests for capture/signals.c: one handler per fatal signal that
 * dispatches in a fixed order (the memory tracker's guarded pages, then the
 * program's own handler, then the emergency flush), leaves a signal the
 * program handles to the program, and restores what it found. The flush
 * itself on a dying process: test_trace.c's abnormal-exit tests, through
 * tests/cli/make_trace, which installs these handlers.
 */
#include <criterion/criterion.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memory_track.h"
#include "signals.h"
#include "trace.h"

#define OK(expr)                                        \
    do {                                                \
        rt_status s_ = (expr);                          \
        cr_assert(rt_ok(&s_), "%s: %s", #expr, s_.msg); \
    } while (0)

static const char *const names[] = {"vkCreateInstance", "vkQueueSubmit"};

static struct rt_trace_writer *open_writer(char *path, size_t size, const char *name)
{
    snprintf(path, size, "/tmp/rt_signals_%d_%s", (int)getpid(), name);
    struct rt_trace_writer_options o = {.path = path, .command_names = names, .command_count = 2,
                                        .compression = RT_TRACE_COMPRESSION_NONE};
    struct rt_trace_writer *w;
    OK(rt_trace_writer_create(&o, &w));
    return w;
}

static void write_frame(struct rt_trace_writer *w)
{
    uint32_t v = 1;
    OK(rt_trace_writer_call(w, 1, 7, 0, &v, sizeof v, NULL));
    OK(rt_trace_writer_frame_end(w));
}

static uint64_t frames_in(const char *path)
{
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open(path, &r));
    struct rt_trace_packet p;
    rt_status s;
    do {
        s = rt_trace_reader_next(r, &p);
    } while (rt_ok(&s) && p.type != RT_TRACE_PACKET_END);
    struct rt_trace_progress progress;
    rt_trace_reader_progress(r, &progress);
    rt_trace_reader_destroy(r);
    cr_assert_not(progress.emergency, "finished by the flush, not by close");
    return progress.frames;
}

static volatile sig_atomic_t program_saw;

static void program_handler(int sig)
{
    program_saw = sig;
}

/* A program that handles a signal itself (mpv quits cleanly on SIGINT, Mono
 * turns faults into exceptions) decides: the capture goes on. */
Test(signals, a_signal_the_program_handles_is_left_to_it)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = program_handler;
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    char path[160];
    struct rt_trace_writer *w = open_writer(path, sizeof path, "handled.rtrace");
    OK(capture_signals_install());
    capture_signals_set_trace(w);
    write_frame(w);
    raise(SIGUSR1);
    cr_assert_eq(program_saw, SIGUSR1, "the program's handler ran");
    write_frame(w); /* still capturing */
    cr_assert_neq(access(path, F_OK), 0, "not finished by the signal");
    capture_signals_set_trace(NULL);
    OK(rt_trace_writer_close(w, NULL));
    capture_signals_uninstall();
    cr_assert_eq(frames_in(path), 2);
    unlink(path);
}

Test(signals, install_is_idempotent_and_uninstall_restores_the_previous_disposition)
{
    struct sigaction before, during, after;
    cr_assert_eq(sigaction(SIGTERM, NULL, &before), 0);
    OK(capture_signals_install());
    OK(capture_signals_install());
    cr_assert_eq(sigaction(SIGTERM, NULL, &during), 0);
    cr_assert(during.sa_flags & SA_SIGINFO, "no handler installed");
    capture_signals_uninstall();
    cr_assert_eq(sigaction(SIGTERM, NULL, &after), 0);
    cr_assert_eq(after.sa_handler, before.sa_handler);
    cr_assert_eq(after.sa_flags & SA_SIGINFO, before.sa_flags & SA_SIGINFO);
}

Test(signals, an_ignored_signal_stays_ignored)
{
    signal(SIGHUP, SIG_IGN);
    OK(capture_signals_install());
    struct sigaction now;
    cr_assert_eq(sigaction(SIGHUP, NULL, &now), 0);
    cr_assert(!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN);
    raise(SIGHUP); /* still ignored: the test goes on */
    capture_signals_uninstall();
}

static sigjmp_buf program_jump;
static volatile sig_atomic_t program_faults;

static void program_segv(int sig)
{
    (void)sig;
    program_faults++;
    siglongjmp(program_jump, 1);
}

/* The order of signals.h: a write to a guarded page is the tracker's and
 * reaches neither the program's SIGSEGV handler nor the flush; a fault
 * elsewhere is the program's. */
Test(signals, a_guarded_page_is_the_trackers_before_the_programs_handler)
{
    setenv("RETRACE_USERFAULTFD", "0", 1); /* the signals backend */
    signal(SIGSEGV, program_segv);
    char path[160];
    struct rt_trace_writer *w = open_writer(path, sizeof path, "order.rtrace");
    OK(capture_signals_install());
    capture_signals_set_trace(w);
    struct rt_memory_tracker *t;
    OK(rt_tracker_create(RT_TRACK_PAGE_GUARD, &t));
    cr_assert_eq(rt_tracker_backend(t), RT_TRACK_SIGNALS);
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *app = NULL;
    OK(rt_tracker_map(t, 1, real, 0, ps, true, &app));
    ((volatile uint8_t *)app)[10] = 42;
    cr_assert_eq(program_faults, 0, "the tracker's fault reached the program");
    volatile uint8_t *forbidden = mmap(NULL, ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sigsetjmp(program_jump, 1) == 0)
        forbidden[0] = 1;
    cr_assert_eq(program_faults, 1, "an unrelated fault is the program's");
    write_frame(w);
    cr_assert_neq(access(path, F_OK), 0, "no flush: the program handled its fault");
    rt_tracker_destroy(t);
    capture_signals_set_trace(NULL);
    OK(rt_trace_writer_close(w, NULL));
    capture_signals_uninstall();
    cr_assert_eq(frames_in(path), 1);
    unlink(path);
}
