/* capture/settings.c — RETRACE_* variables, both ways (see settings.h). */
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

/* Each choice's names and, at the same index, the values they stand for. */
static const char *const compression_names[] = {"zstd", "none", NULL};
static const int compression_values[] = {RT_TRACE_COMPRESSION_ZSTD, RT_TRACE_COMPRESSION_NONE};
static const char *const tracking_names[] = {"page-guard", "full", NULL};
static const int tracking_values[] = {RT_TRACK_PAGE_GUARD, RT_TRACK_FULL};
static const char *const delimiter_names[] = {"present", "submit", NULL};
static const int delimiter_values[] = {RT_FRAME_DELIMITER_PRESENT, RT_FRAME_DELIMITER_SUBMIT};

static const struct rt_capture_setting_info infos[RT_CAPTURE_SETTING_COUNT] = {
    [RT_CAPTURE_SETTING_OUTPUT] = {"RETRACE_OUTPUT", NULL},
    [RT_CAPTURE_SETTING_COMPRESSION] = {"RETRACE_COMPRESSION", compression_names},
    [RT_CAPTURE_SETTING_MEMORY_TRACKING] = {"RETRACE_MEMORY_TRACKING", tracking_names},
    [RT_CAPTURE_SETTING_FRAME_DELIMITER] = {"RETRACE_FRAME_DELIMITER", delimiter_names},
    [RT_CAPTURE_SETTING_SCREENSHOTS] = {"RETRACE_SCREENSHOTS", NULL},
    [RT_CAPTURE_SETTING_SCREENSHOT_FRAMES] = {"RETRACE_SCREENSHOT_FRAMES", NULL},
    [RT_CAPTURE_SETTING_OUTPUT_PARENT] = {"RETRACE_OUTPUT_PARENT", NULL},
};

static const int *const choice_values[RT_CAPTURE_SETTING_COUNT] = {
    [RT_CAPTURE_SETTING_COMPRESSION] = compression_values,
    [RT_CAPTURE_SETTING_MEMORY_TRACKING] = tracking_values,
    [RT_CAPTURE_SETTING_FRAME_DELIMITER] = delimiter_values,
};

/* The name of VALUE for a choice setting (the first name if none matches,
 * which only a zeroed struct can ask: its default). */
static const char *name_of(enum rt_capture_setting which, int value)
{
    for (int i = 0; infos[which].choices[i]; i++)
        if (choice_values[which][i] == value)
            return infos[which].choices[i];
    return infos[which].choices[0];
}

const struct rt_capture_setting_info *rt_capture_setting_info(enum rt_capture_setting which)
{
    return which < RT_CAPTURE_SETTING_COUNT ? &infos[which] : NULL;
}

static const char *value_of(rt_getenv_fn get, enum rt_capture_setting which)
{
    const char *v = get(infos[which].var);
    return v && *v ? v : NULL;
}

static rt_status pick(rt_getenv_fn get, enum rt_capture_setting which, int *out)
{
    const char *v = value_of(get, which);
    if (!v)
        return rt_ok_status(); /* keep the default */
    const char *const *choices = infos[which].choices;
    for (int i = 0; choices[i]; i++) {
        if (!strcmp(v, choices[i])) {
            *out = choice_values[which][i];
            return rt_ok_status();
        }
    }
    return rt_errorf(RT_ERR_USAGE, "%s=%s is not one of the accepted values (%s, %s)", infos[which].var,
                     v, choices[0], choices[1]);
}

static rt_status copy_text(enum rt_capture_setting which, const char *value, char *dst, size_t size)
{
    if (strlen(value) >= size)
        return rt_errorf(RT_ERR_USAGE, "%s: longer than %zu bytes", infos[which].var, size - 1);
    strcpy(dst, value);
    return rt_ok_status();
}

static rt_status load_choices(rt_getenv_fn get, struct rt_capture_settings *out)
{
    int c = (int)out->compression, t = (int)out->memory_tracking, d = (int)out->frame_delimiter;
    RT_TRY(pick(get, RT_CAPTURE_SETTING_COMPRESSION, &c));
    RT_TRY(pick(get, RT_CAPTURE_SETTING_MEMORY_TRACKING, &t));
    RT_TRY(pick(get, RT_CAPTURE_SETTING_FRAME_DELIMITER, &d));
    out->compression = (enum rt_trace_compression)c;
    out->memory_tracking = (enum rt_track_mode)t;
    out->frame_delimiter = (enum rt_frame_delimiter)d;
    return rt_ok_status();
}

static rt_status load_screenshots(rt_getenv_fn get, struct rt_capture_settings *out)
{
    const char *dir = value_of(get, RT_CAPTURE_SETTING_SCREENSHOTS);
    const char *frames = value_of(get, RT_CAPTURE_SETTING_SCREENSHOT_FRAMES);
    if (!dir) {
        if (frames)
            return rt_errorf(RT_ERR_USAGE, "RETRACE_SCREENSHOT_FRAMES needs RETRACE_SCREENSHOTS");
        return rt_ok_status();
    }
    RT_TRY(copy_text(RT_CAPTURE_SETTING_SCREENSHOTS, dir, out->screenshot_dir, sizeof out->screenshot_dir));
    if (frames)
        RT_TRY(copy_text(RT_CAPTURE_SETTING_SCREENSHOT_FRAMES, frames, out->screenshot_frames_text,
                         sizeof out->screenshot_frames_text));
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) /* for a layer enabled by hand */
        return rt_errorf(RT_ERR_USAGE, "RETRACE_SCREENSHOTS: cannot create %s: %s", dir, strerror(errno));
    rt_status s = rt_frame_list_parse(frames ? frames : "1", &out->screenshot_frames);
    return rt_status_wrap(s, "RETRACE_SCREENSHOT_FRAMES");
}

bool rt_capture_output_for_pid(const char *path, long pid, char *out, size_t size)
{
    size_t n = strlen(path);
    size_t stem_len = n > 7 && !strcmp(path + n - 7, ".rtrace") ? n - 7 : n;
    return (size_t)snprintf(out, size, "%.*s-%ld.rtrace", (int)stem_len, path, pid) < size;
}

/* Only the process `retrace capture` started writes -o itself: a probe
 * child it forks (a game engine testing GL) must not take the name. */
static rt_status load_output_parent(rt_getenv_fn get, struct rt_capture_settings *out)
{
    const char *v = value_of(get, RT_CAPTURE_SETTING_OUTPUT_PARENT);
    if (!v)
        return rt_ok_status();
    char *end;
    errno = 0;
    long pid = strtol(v, &end, 10);
    if (errno || *end || pid <= 0)
        return rt_errorf(RT_ERR_USAGE, "RETRACE_OUTPUT_PARENT=%s is not a process id", v);
    out->output_parent = pid;
    if ((long)getppid() == pid)
        return rt_ok_status();
    char own[PATH_MAX];
    if (rt_capture_output_for_pid(out->output, (long)getpid(), own, sizeof own))
        memcpy(out->output, own, strlen(own) + 1);
    return rt_ok_status();
}

static rt_status load_output(rt_getenv_fn get, const char *program_name, struct rt_capture_settings *out)
{
    const char *output = value_of(get, RT_CAPTURE_SETTING_OUTPUT);
    if (output)
        return copy_text(RT_CAPTURE_SETTING_OUTPUT, output, out->output, sizeof out->output);
    snprintf(out->output, sizeof out->output, "retrace_%s_%ld.rtrace",
             program_name && *program_name ? program_name : "app", (long)getpid());
    return rt_ok_status();
}

rt_status rt_capture_settings_load(rt_getenv_fn get, const char *program_name,
                                   struct rt_capture_settings *out)
{
    *out = (struct rt_capture_settings){.compression = RT_TRACE_COMPRESSION_ZSTD,
                                        .memory_tracking = RT_TRACK_PAGE_GUARD,
                                        .frame_delimiter = RT_FRAME_DELIMITER_PRESENT};
    rt_status s = load_output(get, program_name, out);
    if (rt_ok(&s))
        s = load_choices(get, out);
    if (rt_ok(&s))
        s = load_screenshots(get, out);
    if (rt_ok(&s))
        s = load_output_parent(get, out);
    if (!rt_ok(&s))
        rt_capture_settings_finish(out);
    return s;
}

void rt_capture_settings_finish(struct rt_capture_settings *settings)
{
    rt_frame_list_finish(&settings->screenshot_frames);
}

/* SETTINGS' value of one variable, as load reads it. */
static const char *text_of(const struct rt_capture_settings *settings, enum rt_capture_setting which,
                           char *buf, size_t size)
{
    switch (which) {
    case RT_CAPTURE_SETTING_OUTPUT: return settings->output;
    case RT_CAPTURE_SETTING_COMPRESSION: return name_of(which, (int)settings->compression);
    case RT_CAPTURE_SETTING_MEMORY_TRACKING: return name_of(which, (int)settings->memory_tracking);
    case RT_CAPTURE_SETTING_FRAME_DELIMITER: return name_of(which, (int)settings->frame_delimiter);
    case RT_CAPTURE_SETTING_SCREENSHOTS: return settings->screenshot_dir;
    case RT_CAPTURE_SETTING_SCREENSHOT_FRAMES: return settings->screenshot_frames_text;
    case RT_CAPTURE_SETTING_OUTPUT_PARENT:
        if (settings->output_parent <= 0)
            return "";
        snprintf(buf, size, "%ld", settings->output_parent);
        return buf;
    case RT_CAPTURE_SETTING_COUNT: break;
    }
    return "";
}

void rt_capture_settings_encode(const struct rt_capture_settings *settings, rt_setenv_fn set, void *ctx)
{
    char buf[32];
    for (int i = 0; i < RT_CAPTURE_SETTING_COUNT; i++)
        set(ctx, infos[i].var, text_of(settings, (enum rt_capture_setting)i, buf, sizeof buf));
}

void rt_capture_settings_describe(const struct rt_capture_settings *settings, char *buf, size_t size)
{
    snprintf(buf, size, "compression=%s memory-tracking=%s frame-delimiter=%s screenshots=%s",
             name_of(RT_CAPTURE_SETTING_COMPRESSION, (int)settings->compression),
             name_of(RT_CAPTURE_SETTING_MEMORY_TRACKING, (int)settings->memory_tracking),
             name_of(RT_CAPTURE_SETTING_FRAME_DELIMITER, (int)settings->frame_delimiter),
             settings->screenshot_dir[0] ? "yes" : "no");
}

enum rt_frame_delimiter rt_capture_settings_described_delimiter(const char *text)
{
    const char *key = "frame-delimiter=";
    const char *at = text ? strstr(text, key) : NULL;
    if (!at)
        return RT_FRAME_DELIMITER_PRESENT;
    at += strlen(key);
    const char *const *names = infos[RT_CAPTURE_SETTING_FRAME_DELIMITER].choices;
    for (int i = 0; names[i]; i++) {
        size_t n = strlen(names[i]);
        if (!strncmp(at, names[i], n) && (at[n] == ' ' || at[n] == '\0'))
            return (enum rt_frame_delimiter)delimiter_values[i];
    }
    return RT_FRAME_DELIMITER_PRESENT;
}

void rt_capture_screenshot_name(uint64_t frame, char *buf, size_t size)
{
    snprintf(buf, size, "frame_%06llu.png", (unsigned long long)frame);
}

bool rt_capture_screenshot_frame(const char *text, size_t length, uint64_t *frame)
{
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%.*s", (int)(length < sizeof name ? length : sizeof name - 1), text);
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    unsigned long long n;
    int end = 0;
    if (sscanf(base, "frame_%llu.png%n", &n, &end) != 1 || base[end] || !n)
        return false;
    *frame = n;
    return true;
}

static bool summary_path(const char *trace_path, char *out, size_t size)
{
    return (size_t)snprintf(out, size, "%s" RT_CAPTURE_SUMMARY_SUFFIX, trace_path) < size;
}

bool rt_capture_summary_write(const char *trace_path, const struct rt_capture_summary *s)
{
    char path[PATH_MAX + 16];
    if (!summary_path(trace_path, path, sizeof path))
        return false;
    FILE *f = fopen(path, "we");
    if (!f)
        return false;
    int n = fprintf(f, "retrace-capture-summary 1\nframes %llu\ncalls %llu\npackets %llu\nblocks %llu\n"
                       "raw_bytes %llu\nfile_bytes %llu\ntracking %s\nend\n",
                    (unsigned long long)s->frames, (unsigned long long)s->calls,
                    (unsigned long long)s->packets, (unsigned long long)s->blocks,
                    (unsigned long long)s->raw_bytes, (unsigned long long)s->file_bytes, s->tracking);
    bool ok = fclose(f) == 0 && n > 0;
    if (!ok)
        unlink(path);
    return ok;
}

/* One "key value" line into the summary; false for an unknown key. */
static bool summary_field(struct rt_capture_summary *s, const char *key, const char *value)
{
    static const char *const keys[] = {"frames", "calls", "packets", "blocks", "raw_bytes", "file_bytes"};
    uint64_t *fields[] = {&s->frames, &s->calls, &s->packets, &s->blocks, &s->raw_bytes, &s->file_bytes};
    if (!strcmp(key, "tracking")) {
        snprintf(s->tracking, sizeof s->tracking, "%s", value);
        return true;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strcmp(key, keys[i]))
            continue;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        if (errno || end == value || *end)
            return false;
        *fields[i] = v;
        return true;
    }
    return false;
}

bool rt_capture_summary_take(const char *trace_path, struct rt_capture_summary *out)
{
    *out = (struct rt_capture_summary){0};
    char path[PATH_MAX + 16];
    if (!summary_path(trace_path, path, sizeof path))
        return false;
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char line[256];
    bool ok = fgets(line, sizeof line, f) && !strcmp(line, "retrace-capture-summary 1\n");
    bool ended = false;
    unsigned seen = 0;
    while (ok && !ended && fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (!n || line[n - 1] != '\n') {
            ok = false;
            break;
        }
        line[n - 1] = '\0';
        if (!strcmp(line, "end")) {
            ended = true;
            break;
        }
        char *space = strchr(line, ' ');
        if (!space) {
            ok = false;
            break;
        }
        *space = '\0';
        ok = summary_field(out, line, space + 1);
        seen++;
    }
    fclose(f);
    unlink(path);
    return ok && ended && seen == 7;
}
