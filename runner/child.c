/* runner/child.c — replays as child processes with a timeout (see child.h). */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double rt_child_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void exec_child(char *const argv[], const char *cwd, int out_fd, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the runner died before prctl took effect */
        _exit(127);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0)
        dup2(null_fd, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    if (cwd && chdir(cwd) != 0) {
        static const char msg[] = "retrace run: cannot enter the job's working directory\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(127);
    }
    execvp(argv[0], argv);
    static const char msg[] = "retrace run: cannot start the replay program\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
}

rt_status rt_child_start(char *const argv[], const char *cwd, unsigned timeout_s, struct rt_child *child)
{
    memset(child, 0, sizeof *child);
    child->fd = -1;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "pipe: %s", strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return rt_errorf(RT_ERR_INTERNAL, "fork: %s", strerror(errno));
    }
    if (pid == 0)
        exec_child(argv, cwd, fds[1], parent);
    setpgid(pid, pid); /* also here, so a kill right after fork reaches the group */
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    child->pid = pid;
    child->fd = fds[0];
    child->started = rt_child_now();
    child->deadline = child->started + timeout_s;
    return rt_ok_status();
}

/* Appends what the pipe holds, keeping the last RT_CHILD_TAIL bytes. */
static void drain(struct rt_child *c)
{
    char buf[4096];
    _Static_assert(sizeof buf < RT_CHILD_TAIL, "one read fits in the tail");
    for (;;) {
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0 || errno != EAGAIN) {
                close(c->fd);
                c->fd = -1;
            }
            return;
        }
        size_t len = (size_t)n; /* < sizeof buf < RT_CHILD_TAIL */
        if (c->tail_len + len > RT_CHILD_TAIL) {
            size_t drop = c->tail_len + len - RT_CHILD_TAIL;
            memmove(c->tail, c->tail + drop, c->tail_len - drop);
            c->tail_len -= drop;
        }
        memcpy(c->tail + c->tail_len, buf, len);
        c->tail_len += len;
        c->tail[c->tail_len] = 0;
    }
}

/* The child is gone (or killed): end its group too, read what is left, close. */
static void finish(struct rt_child *c)
{
    kill(-c->pid, SIGKILL);
    if (c->fd >= 0) {
        drain(c);
        if (c->fd >= 0)
            close(c->fd);
    }
    c->fd = -1;
    c->elapsed = rt_child_now() - c->started;
    c->done = true;
}

static void check(struct rt_child *c, double now)
{
    if (c->done || c->pid <= 0)
        return;
    if (c->fd >= 0)
        drain(c);
    int st;
    pid_t r = waitpid(c->pid, &st, WNOHANG);
    if (r == c->pid) {
        c->wait_status = st;
        finish(c);
    } else if (now >= c->deadline) {
        c->timed_out = true;
        kill(-c->pid, SIGKILL);
        while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR) {
        }
        finish(c);
    }
}

void rt_child_poll(struct rt_child *const *children, size_t count, int wait_ms)
{
    struct pollfd fds[64];
    size_t n = 0;
    for (size_t i = 0; i < count && n < 64; i++)
        if (!children[i]->done && children[i]->fd >= 0)
            fds[n++] = (struct pollfd){.fd = children[i]->fd, .events = POLLIN};
    /* An exit does not wake poll (a grandchild may hold the pipe), so wait in short steps. */
    if (n)
        poll(fds, n, wait_ms < 50 ? wait_ms : 50);
    else
        usleep((useconds_t)(wait_ms < 50 ? wait_ms : 50) * 1000);
    double now = rt_child_now();
    for (size_t i = 0; i < count; i++)
        check(children[i], now);
}

void rt_child_tail_lines(const struct rt_child *child, unsigned lines, char *buf, size_t size)
{
    const char *end = child->tail + child->tail_len;
    const char *start = end;
    unsigned found = 0;
    /* Walk back over LINES non-empty lines. */
    while (start > child->tail && found < lines) {
        const char *p = start;
        while (p > child->tail && (p[-1] == '\n' || p[-1] == '\r'))
            p--;
        if (p == child->tail)
            break;
        while (p > child->tail && p[-1] != '\n')
            p--;
        start = p;
        found++;
    }
    size_t o = 0;
    buf[0] = 0;
    for (const char *p = start; p < end && o + 1 < size; p++) {
        if (*p == '\r')
            continue;
        if (*p == '\n') {
            if (o && p + 1 < end && o + 3 < size && buf[o - 1] != ' ')
                buf[o++] = ';', buf[o++] = ' ';
            continue;
        }
        buf[o++] = (unsigned char)*p < 0x20 ? ' ' : *p;
    }
    while (o && (buf[o - 1] == ' ' || buf[o - 1] == ';'))
        o--;
    buf[o] = 0;
}

/* retrace's own error: "retrace: error: ..." or "retrace replay: ..." (not its warnings). */
static bool is_error_line(const char *p)
{
    return !strncmp(p, "retrace", 7) && (!strncmp(p, "retrace: error: ", 16) || !strncmp(p, "retrace replay: ", 16)) &&
           strncmp(p, "retrace replay: warning", 23);
}

static bool is_warning_line(const char *p) { return !strncmp(p, "retrace: warning: ", 18); }

/* The last line of the child's output that WANTED takes, into BUF. */
static bool last_line(const struct rt_child *child, bool (*wanted)(const char *), char *buf, size_t size)
{
    const char *found = NULL;
    size_t found_len = 0;
    for (const char *p = child->tail; *p;) {
        size_t len = strcspn(p, "\n");
        if (wanted(p))
            found = p, found_len = len;
        p += len + (p[len] == '\n');
    }
    if (!found)
        return false;
    snprintf(buf, size, "%.*s", (int)found_len, found);
    return true;
}

bool rt_child_error_line(const struct rt_child *child, char *buf, size_t size)
{
    return last_line(child, is_error_line, buf, size);
}

bool rt_child_warning_line(const struct rt_child *child, char *buf, size_t size)
{
    return last_line(child, is_warning_line, buf, size);
}

void rt_child_kill(struct rt_child *child)
{
    if (child->pid <= 0 || child->done)
        return;
    kill(-child->pid, SIGKILL);
    int st;
    while (waitpid(child->pid, &st, 0) < 0 && errno == EINTR) {
    }
    finish(child);
}

rt_status rt_child_capture(char *const argv[], unsigned timeout_s, char *buf, size_t size)
{
    struct rt_child c;
    RT_TRY(rt_child_start(argv, NULL, timeout_s, &c));
    struct rt_child *list[] = {&c};
    while (!c.done)
        rt_child_poll(list, 1, 50);
    snprintf(buf, size, "%s", c.tail);
    if (c.timed_out)
        return rt_errorf(RT_ERR_INTERNAL, "%s did not answer within %u s", argv[0], timeout_s);
    return rt_ok_status();
}
