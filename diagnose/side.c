/* diagnose/side.c — one side's replay of the frame, in a child process
 * (`retrace replay TRACE --end-frame F --dump-draws F --dump-dir DIR
 * --dump-only LIST` and the side's own arguments), and its draws.json. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diagnose_internal.h"
#include "file.h"

int diag_spawn(const char *const *argv, const char *log, const char *icd)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        if (icd)
            setenv("VK_ICD_FILENAMES", icd, 1);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static rt_status read_index(const char *dir, struct diag_dump *out)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/draws.json", dir);
    uint8_t *text = NULL;
    size_t size = 0;
    RT_TRY(rt_file_read(path, &text, &size));
    out->index = cJSON_ParseWithLength((const char *)text, size);
    free(text);
    if (!out->index || !cJSON_IsArray(cJSON_GetObjectItem(out->index, "draws")))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: not a draws.json (docs/FORMATS.md 7.2)", path);
    return rt_ok_status();
}

struct error_line {
    char text[512];
};

/* The last "error:" line the replay printed, without its "retrace: error: ". */
static struct error_line last_error_line(const char *log)
{
    struct error_line e = {"the replay refused the trace"};
    FILE *f = fopen(log, "r");
    char line[sizeof e.text];
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "error: ");
        if (!at)
            continue;
        snprintf(e.text, sizeof e.text, "%s", at + strlen("error: "));
        e.text[strcspn(e.text, "\n")] = '\0';
    }
    if (f)
        fclose(f);
    return e;
}

rt_status diag_replay(const struct rt_diagnose_options *o, const struct rt_diagnose_side *side, const char *dir,
                      const uint32_t *only, uint32_t count, struct diag_dump *out)
{
    *out = (struct diag_dump){0};
    snprintf(out->dir, sizeof out->dir, "%s", dir);
    if (mkdir(dir, 0777) && errno != EEXIST)
        return rt_errorf(RT_ERR_USAGE, "cannot make %s: %s", dir, strerror(errno));
    char frame[24], list[4096] = "", log[PATH_MAX + 16];
    snprintf(frame, sizeof frame, "%" PRIu64, o->frame);
    for (uint32_t i = 0, used = 0; i < count && used < sizeof list - 12; i++)
        used += (uint32_t)snprintf(list + used, sizeof list - used, "%s%" PRIu32, i ? "," : "", only[i]);
    snprintf(log, sizeof log, "%s/replay.log", dir);
    const char *argv[RT_DIAGNOSE_MAX_ARGS + 16] = {o->retrace, "replay", o->trace, "--end-frame", frame,
                                                   "--dump-draws", frame, "--dump-dir", dir, "--dump-only", list};
    uint32_t n = 11;
    if (rt_diagnose_exact(o)) /* buffers are compared byte for byte, so only when judged exactly */
        argv[n++] = "--dump-buffers";
    for (uint32_t i = 0; i < side->arg_count; i++)
        argv[n++] = side->args[i];
    argv[n] = NULL;
    int rc = diag_spawn(argv, log, side->icd);
    if (rc == RT_ERR_BAD_INPUT) /* the trace itself is corrupt: say so, as replay does */
        return rt_errorf(RT_ERR_BAD_INPUT, "%s (a replay's output: %s)", last_error_line(log).text, log);
    if (rc != 0)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "a replay of %s exited %d (its output: %s)", o->trace, rc, log);
    return read_index(dir, out);
}

void diag_dump_finish(struct diag_dump *d)
{
    cJSON_Delete(d->index);
    d->index = NULL;
}

cJSON *diag_entry(const struct diag_dump *d, uint32_t n)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(d->index, "draws"))
        if (cJSON_GetNumberValue(cJSON_GetObjectItem(e, "draw")) == (double)n)
            return (cJSON *)e;
    return NULL;
}

bool diag_file(const struct diag_dump *d, uint32_t n, const char *role, char *path, size_t size)
{
    return diag_file_of(d, n, role, ".png", path, size);
}

bool diag_file_of(const struct diag_dump *d, uint32_t n, const char *role, const char *ext, char *path, size_t size)
{
    const cJSON *f, *entry = d && d->index ? diag_entry(d, n) : NULL;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(entry, "files")) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(f, "path"));
        const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(f, "role"));
        size_t len = name ? strlen(name) : 0;
        if (r && !strcmp(r, role) && len > 4 && !strcmp(name + len - 4, ext)) {
            snprintf(path, size, "%s/%s", d->dir, name);
            return true;
        }
    }
    return false;
}
