/* cli/capture_traces.c — the traces of one capture run (see capture_traces.h). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture_traces.h"
#include "settings.h"

/* A .part the program left (SIGKILL, the OOM killer, its own handler calling
 * _exit): finished here, once no process holds it. A process of the
 * program's that outlives it (a launcher's child) is given a few seconds. */
static void finish_leftover(const char *output)
{
    char part[PATH_MAX + 8];
    snprintf(part, sizeof part, "%s.part", output);
    if (access(part, F_OK) != 0)
        return;
    struct rt_trace_progress p;
    rt_status s;
    for (int tries = 0;; tries++) {
        s = rt_trace_finish_part(output, &p);
        if (rt_ok(&s) || !strstr(s.msg, "still being written") || tries == 100)
            break;
        rt_status_free(&s);
        usleep(100 * 1000);
    }
    if (!rt_ok(&s)) {
        fprintf(stderr, "retrace: warning: %s\n", s.msg);
        rt_status_free(&s);
        return;
    }
    fprintf(stderr, "retrace: the program left %s unfinished; retrace finished it: %llu whole "
            "frames, %llu calls kept\n", part, (unsigned long long)p.frames,
            (unsigned long long)p.calls);
}

/* A capture-time screenshot's annotation names its frame (capture/settings.h). */
static void add_shot(struct capture_trace *t, const char *text, size_t length)
{
    uint64_t frame;
    if (!rt_capture_screenshot_frame(text, length, &frame))
        return;
    uint64_t *grown = realloc(t->shots, (t->shot_count + 1) * sizeof *grown);
    if (!grown)
        return;
    t->shots = grown;
    t->shots[t->shot_count++] = frame;
}

/* The layer's note naming the memory-tracking path it took (capture/record.c:
 * "memory tracking: HOW"), kept for the summary. */
static void note_tracking(struct capture_trace *t, const char *text, size_t length)
{
    static const char prefix[] = "memory tracking: ";
    size_t n = sizeof prefix - 1;
    if (t->tracking[0] || length <= n || memcmp(text, prefix, n) != 0)
        return;
    snprintf(t->tracking, sizeof t->tracking, "%.*s", (int)(length - n), text + n);
}

/* Reads the whole trace: its frames and calls, and how far it is good. */
static void read_trace(struct capture_trace *t)
{
    struct rt_trace_reader *reader;
    rt_status s = rt_trace_reader_open(t->path, &reader);
    if (!rt_ok(&s)) {
        if (snprintf(t->warning, sizeof t->warning, "%s: %s", t->path, s.msg) >= (int)sizeof t->warning)
            t->warning[sizeof t->warning - 2] = '~'; /* cut: a long path */
        rt_status_free(&s);
        return;
    }
    struct rt_trace_packet packet;
    do {
        s = rt_trace_reader_next(reader, &packet);
        if (rt_ok(&s) && packet.type == RT_TRACE_PACKET_ANNOTATION &&
            packet.u.annotation.kind == RT_TRACE_ANNOTATION_SCREENSHOT)
            add_shot(t, packet.u.annotation.text, packet.u.annotation.length);
        if (rt_ok(&s) && packet.type == RT_TRACE_PACKET_ANNOTATION &&
            packet.u.annotation.kind == RT_TRACE_ANNOTATION_NOTE)
            note_tracking(t, packet.u.annotation.text, packet.u.annotation.length);
    } while (rt_ok(&s) && packet.type != RT_TRACE_PACKET_END);
    rt_trace_reader_progress(reader, &t->progress);
    rt_trace_reader_destroy(reader);
    t->read = true;
    struct stat st = {0};
    stat(t->path, &st);
    t->bytes = (long long)st.st_size;
    if (!rt_ok(&s))
        if (snprintf(t->warning, sizeof t->warning, "the trace is good up to byte %llu: %s",
                     (unsigned long long)t->progress.good_bytes, s.msg) >= (int)sizeof t->warning)
            t->warning[sizeof t->warning - 2] = '~';
    rt_status_free(&s);
}

/* The counts the layer handed over (settings.h, RT_CAPTURE_SUMMARY_SUFFIX)
 * instead of reading the trace: only for the trace it describes, as large
 * as the writer left it (the writer's own stats, after its fsync and rename;
 * a trace it finished is whole, so "good up to" is its end). False: read it. */
static bool take_summary(struct capture_trace *t)
{
    struct rt_capture_summary summary;
    struct stat st;
    if (!rt_capture_summary_take(t->path, &summary) || stat(t->path, &st) != 0 ||
        (uint64_t)st.st_size != summary.file_bytes)
        return false;
    t->progress = (struct rt_trace_progress){.good_bytes = summary.file_bytes, .blocks = summary.blocks,
                                             .packets = summary.packets, .calls = summary.calls,
                                             .frames = summary.frames, .raw_bytes = summary.raw_bytes,
                                             .ended = true};
    snprintf(t->tracking, sizeof t->tracking, "%s", summary.tracking);
    t->bytes = (long long)st.st_size;
    t->read = true;
    return true;
}

/* STEM-PID.rtrace, the name another process of the program (a launcher's
 * child, a probe) writes under (capture/settings.c, capture/record.c).
 * The pid, or 0 when NAME is not one. */
static long sibling_pid(const char *name, const char *stem, size_t stem_len, const char *suffix)
{
    if (strncmp(name, stem, stem_len) || name[stem_len] != '-')
        return 0;
    const char *p = name + stem_len + 1;
    size_t digits = strspn(p, "0123456789");
    return digits > 0 && digits < 10 && !strcmp(p + digits, suffix) ? atol(p) : 0;
}

static void add_sibling(struct capture_traces *out, const char *path, long pid)
{
    if (out->count >= CAPTURE_MAX_TRACES || access(path, F_OK) != 0)
        return;
    struct capture_trace *t = &out->others[out->count++];
    *t = (struct capture_trace){.pid = pid};
    snprintf(t->path, sizeof t->path, "%s", path);
}

static void find_siblings(const char *output, time_t started, struct capture_traces *out)
{
    char copy[PATH_MAX], dir_copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", output);
    snprintf(dir_copy, sizeof dir_copy, "%s", output);
    const char *base = basename(copy), *dir = dirname(dir_copy);
    size_t stem_len = strlen(base);
    if (stem_len > 7 && !strcmp(base + stem_len - 7, ".rtrace"))
        stem_len -= 7;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        long pid;
        if (stat(path, &st) != 0 || st.st_mtime < started)
            continue;
        if ((pid = sibling_pid(e->d_name, base, stem_len, ".rtrace.part"))) {
            path[strlen(path) - 5] = '\0';
            finish_leftover(path);
            add_sibling(out, path, pid);
        } else if ((pid = sibling_pid(e->d_name, base, stem_len, ".rtrace"))) {
            add_sibling(out, path, pid);
        }
    }
    if (d)
        closedir(d);
}

static int by_pid(const void *a, const void *b)
{
    long x = ((const struct capture_trace *)a)->pid, y = ((const struct capture_trace *)b)->pid;
    return (x > y) - (x < y);
}

/* The program never created an instance (a launcher, a shell script): -o
 * becomes the trace of the first of its processes that rendered frames
 * (with FRAMES), else of the first that wrote one. */
static bool promote(struct capture_traces *out, bool frames)
{
    for (int i = 0; i < out->count; i++) {
        struct capture_trace *t = &out->others[i];
        if (!t->read || (frames && t->progress.frames == 0) || rename(t->path, out->main.path) != 0)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s", out->main.path);
        out->main = *t;
        snprintf(out->main.path, sizeof out->main.path, "%s", path);
        out->main_exists = true;
        out->promoted_pid = t->pid;
        memmove(t, t + 1, (size_t)(out->count - i - 1) * sizeof *t);
        out->count--;
        return true;
    }
    return false;
}

void capture_traces_collect(const char *output, time_t started, struct capture_traces *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->main.path, sizeof out->main.path, "%s", output);
    finish_leftover(output);
    find_siblings(output, started, out);
    qsort(out->others, (size_t)out->count, sizeof out->others[0], by_pid);
    for (int i = 0; i < out->count; i++)
        read_trace(&out->others[i]);
    out->main_exists = access(output, F_OK) == 0;
    if (out->main_exists && !take_summary(&out->main))
        read_trace(&out->main);
    else if (!out->main_exists && !promote(out, true))
        promote(out, false);
}

void capture_traces_reread_main(struct capture_traces *traces, const char *path)
{
    free(traces->main.shots);
    traces->main = (struct capture_trace){0};
    snprintf(traces->main.path, sizeof traces->main.path, "%s", path);
    traces->main_exists = access(path, F_OK) == 0;
    if (traces->main_exists)
        read_trace(&traces->main);
}

void capture_traces_finish(struct capture_traces *traces)
{
    free(traces->main.shots);
    for (int i = 0; i < traces->count; i++)
        free(traces->others[i].shots);
    memset(traces, 0, sizeof *traces);
}

static cJSON *trace_json(const struct capture_trace *t, cJSON *o)
{
    cJSON_AddStringToObject(o, "trace", t->path);
    if (t->pid)
        cJSON_AddNumberToObject(o, "pid", (double)t->pid);
    cJSON_AddNumberToObject(o, "frames", (double)t->progress.frames);
    cJSON_AddNumberToObject(o, "calls", (double)t->progress.calls);
    cJSON_AddNumberToObject(o, "bytes", (double)t->bytes);
    cJSON_AddNumberToObject(o, "raw_bytes", (double)t->progress.raw_bytes);
    if (t->tracking[0])
        cJSON_AddStringToObject(o, "memory_tracking", t->tracking);
    return o;
}

/* How the program ended, for --json: {"exit": N} or {"signal": N, "name": "..."}. */
static void add_program_status(cJSON *o, int status)
{
    cJSON *program = cJSON_AddObjectToObject(o, "program");
    if (WIFSIGNALED(status)) {
        cJSON_AddNumberToObject(program, "signal", WTERMSIG(status));
        cJSON_AddStringToObject(program, "name", strsignal(WTERMSIG(status)));
    } else {
        cJSON_AddNumberToObject(program, "exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

static void print_json(const struct capture_traces *traces, int status)
{
    cJSON *o = cJSON_CreateObject();
    add_program_status(o, status);
    if (traces->main.read)
        trace_json(&traces->main, o);
    if (traces->promoted_pid)
        cJSON_AddNumberToObject(o, "pid", (double)traces->promoted_pid);
    cJSON *others = cJSON_AddArrayToObject(o, "other_traces");
    for (int i = 0; others && i < traces->count; i++)
        if (traces->others[i].read)
            cJSON_AddItemToArray(others, trace_json(&traces->others[i], cJSON_CreateObject()));
    char *text = cJSON_PrintUnformatted(o);
    if (text)
        printf("%s\n", text);
    cJSON_free(text);
    cJSON_Delete(o);
}

static void print_text(const struct capture_trace *t)
{
    printf("trace: %s\nframes: %llu  calls: %llu  bytes: %lld (raw %llu)\n", t->path,
           (unsigned long long)t->progress.frames, (unsigned long long)t->progress.calls, t->bytes,
           (unsigned long long)t->progress.raw_bytes);
    if (t->tracking[0])
        printf("memory tracking: %s\n", t->tracking);
}

static void print_warning(const struct capture_trace *t)
{
    if (t->warning[0])
        fprintf(stderr, "retrace: warning: %s\n", t->warning);
}

void capture_traces_print(const struct capture_traces *traces, int status, bool json)
{
    if (traces->promoted_pid)
        fprintf(stderr, "retrace: the program created no Vulkan instance; %s is the trace of its "
                "process %ld, the first that %s\n", traces->main.path, traces->promoted_pid,
                traces->main.progress.frames ? "rendered frames" : "wrote one (none rendered a frame)");
    for (int i = 0; i < traces->count; i++)
        fprintf(stderr, "retrace: another process of the program (%ld) wrote %s\n",
                traces->others[i].pid, traces->others[i].path);
    if (json) {
        print_json(traces, status);
    } else {
        if (traces->main.read)
            print_text(&traces->main);
        for (int i = 0; i < traces->count; i++)
            if (traces->others[i].read)
                print_text(&traces->others[i]);
    }
    if (traces->main.read)
        print_warning(&traces->main);
    for (int i = 0; i < traces->count; i++)
        print_warning(&traces->others[i]);
}
