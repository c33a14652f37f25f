/* cli/capture_loader.c — the loader's reason a capture wrote no trace (see capture_loader.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture_loader.h"
#include "settings.h"

/* Both the layer's name and its library's contain this. */
#define LAYER_MARK "RETRACE_capture"

static void exec_probe(char **argv, const char *dir, int err_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char output[PATH_MAX + 32];
    snprintf(output, sizeof output, "%s/probe.rtrace", dir);
    setenv("VK_LOADER_DEBUG", "error,warn", 1);
    setenv(rt_capture_setting_info(RT_CAPTURE_SETTING_OUTPUT)->var, output, 1);
    unsetenv(rt_capture_setting_info(RT_CAPTURE_SETTING_SCREENSHOTS)->var);
    unsetenv(rt_capture_setting_info(RT_CAPTURE_SETTING_SCREENSHOT_FRAMES)->var);
    int null_fd = open("/dev/null", O_RDWR);
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    execvp(argv[0], argv);
    _exit(127);
}

/* A loader line about the layer, without the loader's prefix and padding.
 * The one that echoes VK_INSTANCE_LAYERS says nothing. */
static void keep_line(char *line, struct capture_loader_verdict *out)
{
    if (!strstr(line, LAYER_MARK) || strstr(line, "env var"))
        return;
    char *text = strstr(line, "[Vulkan Loader]") ? line + strlen("[Vulkan Loader]") : line;
    text += strspn(text, " \t");
    for (char *p = text; *p; p++) {
        if (*p == '\t')
            *p = ' ';
        while (p[0] == ' ' && (p[1] == ' ' || p[1] == '\t'))
            memmove(p + 1, p + 2, strlen(p + 1));
    }
    size_t used = strlen(out->lines);
    if (used + strlen(text) + 3 < sizeof out->lines && !strstr(out->lines, text))
        snprintf(out->lines + used, sizeof out->lines - used, "%s%s", used ? "; " : "", text);
}

/* Reads the probe's stderr until it closes, or the deadline, or the probe
 * ended and nothing more comes. */
static void read_lines(int fd, pid_t pid, int seconds, struct capture_loader_verdict *out)
{
    char buf[8192];
    size_t len = 0;
    bool exited = false;
    time_t deadline = time(NULL) + seconds;
    while (time(NULL) < deadline) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, 200);
        if (ready == 0 && exited)
            break;
        exited = exited || waitpid(pid, NULL, WNOHANG) == pid;
        if (ready <= 0)
            continue;
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
        char *nl;
        while ((nl = strchr(buf, '\n'))) {
            *nl = '\0';
            keep_line(buf, out);
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len + 1);
        }
        if (len == sizeof buf - 1)
            len = 0; /* a line longer than the buffer: not the loader's */
    }
    if (!exited) {
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

/* True when the probe wrote a trace; removes what it wrote, and DIR. */
static bool clear_probe_dir(const char *dir)
{
    bool wrote = false;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        wrote |= strstr(e->d_name, ".rtrace") != NULL;
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return wrote;
}

rt_status capture_loader_probe(char **argv, int seconds, struct capture_loader_verdict *out)
{
    *out = (struct capture_loader_verdict){0};
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/retrace-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return rt_errorf(RT_ERR_INTERNAL, "cannot create %s: %s", dir, strerror(errno));
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        rmdir(dir);
        return rt_errorf(RT_ERR_INTERNAL, "pipe failed: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid == 0)
        exec_probe(argv, dir, fds[1]);
    close(fds[1]);
    if (pid > 0) {
        setpgid(pid, pid);
        read_lines(fds[0], pid, seconds, out);
        kill(-pid, SIGKILL); /* what it started, too */
    }
    close(fds[0]);
    out->layer_loaded = clear_probe_dir(dir);
    return pid < 0 ? rt_errorf(RT_ERR_INTERNAL, "fork failed: %s", strerror(errno)) : rt_ok_status();
}

rt_status capture_loader_no_trace(const char *program, const struct capture_loader_verdict *v)
{
    if (v->lines[0] && !v->layer_loaded)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s wrote no trace: the capture layer did not load; the "
                         "Vulkan loader says: %s", program, v->lines);
    if (v->layer_loaded)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s wrote no trace: it created no Vulkan instance (run "
                         "again, it did: the capture layer loads)", program);
    return rt_errorf(RT_ERR_BAD_INPUT, "%s wrote no trace: it never created a Vulkan instance (run "
                     "again with the Vulkan loader's debug output, nothing was said about the "
                     "capture layer)", program);
}
