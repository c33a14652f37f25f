/*
 * cli/capture_child.c — the program under `retrace capture`: started in a
 * process group of its own, stop signals sent to retrace passed on to that
 * whole group, waited for.
 *
 * Why a group of its own: retrace can then signal the program and everything
 * it started (a launcher's children) without signalling itself or the shell
 * script that runs it. Why forward: a CI job's timeout or a terminal closing
 * signals retrace, and the program must not go on as an orphan writing a
 * trace nobody finishes. The terminal's Ctrl-C reaches retrace (its group is
 * the foreground one) and is forwarded the same way. A program that reads the
 * terminal is given it when it tries (SIGTTIN), and the terminal comes back
 * to retrace when the program ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture_child.h"

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define STOP_COUNT (sizeof stop_signals / sizeof stop_signals[0])
#define KILL_AFTER 3 /* the third stop signal is a SIGKILL for the group */

/* Stop signals ignored when retrace started (nohup: SIGHUP; a background job
 * of a shell without job control: SIGINT, SIGQUIT): the program starts with
 * them ignored, as it would run bare. retrace still passes them on, so a
 * program that handles one itself gets it. */
static bool ignored_at_start[STOP_COUNT];

static volatile sig_atomic_t child_group;
static volatile sig_atomic_t received_signal;
static volatile sig_atomic_t received_count;

static bool was_ignored(int sig)
{
    for (size_t i = 0; i < STOP_COUNT; i++)
        if (stop_signals[i] == sig)
            return ignored_at_start[i];
    return false;
}

/* A signal ignored at start is passed on as it is (the program decides, as
 * run bare) and neither counts toward the SIGKILL nor ends retrace. */
static void forward(int sig)
{
    int saved_errno = errno;
    bool counted = !was_ignored(sig);
    if (counted) {
        received_signal = sig;
        received_count++;
    }
    if (child_group > 0)
        kill(-(pid_t)child_group, counted && received_count >= KILL_AFTER ? SIGKILL : sig);
    errno = saved_errno;
}

static void block_stop_signals(int how, sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < STOP_COUNT; i++)
        sigaddset(&set, stop_signals[i]);
    sigprocmask(how, &set, old);
}

static void note_ignored_signals(void)
{
    for (size_t i = 0; i < STOP_COUNT; i++) {
        struct sigaction now;
        ignored_at_start[i] = sigaction(stop_signals[i], NULL, &now) == 0 && now.sa_handler == SIG_IGN;
    }
}

/* HANDLER for every stop signal; SIG_DFL means as at start (default, or
 * ignored where it was ignored then). */
static void set_handlers(void (*handler)(int))
{
    for (size_t i = 0; i < STOP_COUNT; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = handler == SIG_DFL && ignored_at_start[i] ? SIG_IGN : handler;
        sigemptyset(&sa.sa_mask);
        sigaction(stop_signals[i], &sa, NULL);
    }
}

/* In the child, before exec: its own group, default stop signals (those
 * ignored at start stay ignored), and a
 * SIGTERM if retrace itself dies (SIGKILL) so the program is not orphaned. */
static void exec_child(char **argv, pid_t parent, const sigset_t *mask, int error_fd)
{
    setpgid(0, 0);
    set_handlers(SIG_DFL);
    sigprocmask(SIG_SETMASK, mask, NULL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(127);
    execvp(argv[0], argv);
    int err = errno;
    ssize_t n = write(error_fd, &err, sizeof err);
    (void)n;
    _exit(127);
}

/* Gives the terminal to the program's group (it tried to read it) or takes
 * it back; SIGTTOU is ignored meanwhile, as a background group must. */
static void hand_terminal(pid_t group)
{
    struct sigaction ignore, old;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGTTOU, &ignore, &old);
    tcsetpgrp(STDIN_FILENO, group);
    sigaction(SIGTTOU, &old, NULL);
}

static rt_status wait_child(pid_t pid, struct capture_child *out)
{
    bool handed = false;
    for (;;) {
        int status;
        if (waitpid(pid, &status, WUNTRACED) < 0) {
            if (errno == EINTR)
                continue;
            return rt_errorf(RT_ERR_INTERNAL, "waitpid failed: %s", strerror(errno));
        }
        if (WIFSTOPPED(status)) {
            int sig = WSTOPSIG(status);
            if ((sig == SIGTTIN || sig == SIGTTOU) && isatty(STDIN_FILENO)) {
                hand_terminal(pid);
                handed = true;
                kill(-pid, SIGCONT);
            }
            continue;
        }
        out->status = status;
        break;
    }
    if (handed)
        hand_terminal(getpgrp());
    return rt_ok_status();
}

rt_status capture_child_run(char **argv, struct capture_child *out)
{
    *out = (struct capture_child){0};
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "pipe failed: %s", strerror(errno));
    sigset_t old_mask;
    block_stop_signals(SIG_BLOCK, &old_mask); /* none lost between fork and setpgid */
    note_ignored_signals();
    set_handlers(forward);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_child(argv, parent, &old_mask, pipe_fds[1]);
    close(pipe_fds[1]);
    if (pid < 0) {
        close(pipe_fds[0]);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        return rt_errorf(RT_ERR_INTERNAL, "fork failed: %s", strerror(errno));
    }
    setpgid(pid, pid); /* both sides set it: whichever runs first */
    child_group = pid;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    int err = 0;
    while (read(pipe_fds[0], &err, sizeof err) < 0 && errno == EINTR)
        ;
    close(pipe_fds[0]);
    out->exec_errno = err;
    rt_status s = wait_child(pid, out);
    child_group = 0;
    out->stop_signal = received_signal;
    return s;
}

void capture_child_restore_signals(void)
{
    set_handlers(SIG_DFL);
}

void capture_child_end_like(int sig)
{
    capture_child_restore_signals();
    fflush(stdout);
    fflush(stderr);
    raise(sig);
}
