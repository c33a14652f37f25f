/* replay/crash.c — where a replay was when a fatal signal came (see crash.h). */
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "crash.h"
#include "replay_internal.h"

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])

static rt_replay_crash_fn crash_fn;
static void *crash_ctx;
static struct replay *volatile watched; /* the replay running now, or NULL */
static volatile pid_t replay_thread;
static volatile sig_atomic_t handling;

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    }
    return "a fatal signal";
}

/* Whether PC lies in the object this code is linked into (the retrace
 * binary), not in a driver, a layer or the loader. */
static bool in_own_code(const void *pc)
{
    Dl_info at, own;
    return pc && dladdr(pc, &at) && dladdr((void *)in_own_code, &own) && at.dli_fbase == own.dli_fbase;
}

static const void *fault_pc(void *uctx)
{
#if defined(__x86_64__)
    return (const void *)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (const void *)((ucontext_t *)uctx)->uc_mcontext.pc;
#else
    (void)uctx;
    return NULL;
#endif
}

static void describe(const struct replay *r, int sig, void *uctx, struct rt_replay_crash *c)
{
    *c = (struct rt_replay_crash){.signal = sig, .signal_name = signal_name(sig), .frame = r->frame + 1,
                                  .in_retrace = sig != SIGABRT && in_own_code(fault_pc(uctx))};
    c->other_thread = (pid_t)syscall(SYS_gettid) != replay_thread;
    if (c->other_thread && r->last_submit_seq) {
        c->call = r->last_submit_seq;
        c->command = rt_vk_cmd_name(r->last_submit_cmd);
        c->frame = r->last_submit_frame;
    } else {
        c->call = r->call_seq;
        c->command = r->in_call ? rt_vk_cmd_name(r->current_cmd) : "";
    }
}

static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
    (void)info;
    struct replay *r = watched;
    if (handling++ || !r || !crash_fn)
        return; /* SA_RESETHAND: the fault again, by default action */
    struct rt_replay_crash c;
    describe(r, sig, uctx, &c);
    crash_fn(&c, crash_ctx);
}

/* The handlers before ours (a sanitizer's, or the defaults), put back after. */
static struct sigaction previous[FATAL_COUNT];
static bool installed;

static void install(bool on)
{
    static char *alt_stack;
    if (on && !alt_stack && (alt_stack = malloc(SIGSTKSZ * 4))) {
        stack_t ss = {.ss_sp = alt_stack, .ss_size = SIGSTKSZ * 4};
        sigaltstack(&ss, NULL);
    }
    if (on == installed)
        return;
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        if (!on) {
            sigaction(fatal_signals[i], &previous[i], NULL);
            continue;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
        sigaction(fatal_signals[i], &sa, &previous[i]);
    }
    installed = on;
}

void rt_replay_on_crash(rt_replay_crash_fn fn, void *ctx)
{
    crash_fn = fn;
    crash_ctx = ctx;
    install(fn != NULL);
}

void replay_crash_watch(struct replay *r)
{
    replay_thread = (pid_t)syscall(SYS_gettid);
    watched = r;
}
