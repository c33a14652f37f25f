/* capture/settings.c — RETRACE_* variables (see settings.h). */
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

struct choice {
    const char *name;
    int value;
};

static rt_status pick(rt_getenv_fn get, const char *var, const struct choice *choices,
                      size_t count, int *out)
{
    const char *v = get(var);
    if (!v || !*v)
        return rt_ok_status(); /* keep the default */
    for (size_t i = 0; i < count; i++) {
        if (!strcmp(v, choices[i].name)) {
            *out = choices[i].value;
            return rt_ok_status();
        }
    }
    return rt_errorf(RT_ERR_USAGE, "%s=%s is not one of the accepted values (%s%s%s)", var, v,
                     choices[0].name, count > 1 ? ", " : "", count > 1 ? choices[1].name : "");
}

static rt_status copy_path(const char *var, const char *value, char *dst, size_t size)
{
    if (strlen(value) >= size)
        return rt_errorf(RT_ERR_USAGE, "%s is longer than %zu bytes", var, size - 1);
    strcpy(dst, value);
    return rt_ok_status();
}

static rt_status load_choices(rt_getenv_fn get, struct rt_capture_settings *out)
{
    static const struct choice compression[] = {{"zstd", RT_TRACE_COMPRESSION_ZSTD},
                                                {"none", RT_TRACE_COMPRESSION_NONE}};
    static const struct choice tracking[] = {{"page-guard", RT_TRACK_PAGE_GUARD},
                                             {"full", RT_TRACK_FULL}};
    static const struct choice delimiter[] = {{"present", RT_FRAME_DELIMITER_PRESENT},
                                              {"submit", RT_FRAME_DELIMITER_SUBMIT}};
    int c = (int)out->compression, t = (int)out->memory_tracking, d = (int)out->frame_delimiter;
    RT_TRY(pick(get, "RETRACE_COMPRESSION", compression, 2, &c));
    RT_TRY(pick(get, "RETRACE_MEMORY_TRACKING", tracking, 2, &t));
    RT_TRY(pick(get, "RETRACE_FRAME_DELIMITER", delimiter, 2, &d));
    out->compression = (enum rt_trace_compression)c;
    out->memory_tracking = (enum rt_track_mode)t;
    out->frame_delimiter = (enum rt_frame_delimiter)d;
    return rt_ok_status();
}

static rt_status load_screenshots(rt_getenv_fn get, struct rt_capture_settings *out)
{
    const char *dir = get("RETRACE_SCREENSHOTS");
    const char *frames = get("RETRACE_SCREENSHOT_FRAMES");
    if (!dir || !*dir) {
        if (frames && *frames)
            return rt_errorf(RT_ERR_USAGE, "RETRACE_SCREENSHOT_FRAMES needs RETRACE_SCREENSHOTS");
        return rt_ok_status();
    }
    RT_TRY(copy_path("RETRACE_SCREENSHOTS", dir, out->screenshot_dir, sizeof out->screenshot_dir));
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) /* for a layer enabled by hand */
        return rt_errorf(RT_ERR_USAGE, "RETRACE_SCREENSHOTS: cannot create %s: %s", dir, strerror(errno));
    rt_status s = rt_frame_list_parse(frames && *frames ? frames : "1", &out->screenshot_frames);
    return rt_status_wrap(s, "RETRACE_SCREENSHOT_FRAMES");
}

rt_status rt_capture_settings_load(rt_getenv_fn get, const char *program_name,
                                   struct rt_capture_settings *out)
{
    *out = (struct rt_capture_settings){.compression = RT_TRACE_COMPRESSION_ZSTD,
                                        .memory_tracking = RT_TRACK_PAGE_GUARD,
                                        .frame_delimiter = RT_FRAME_DELIMITER_PRESENT};
    const char *output = get("RETRACE_OUTPUT");
    if (output && *output) {
        RT_TRY(copy_path("RETRACE_OUTPUT", output, out->output, sizeof out->output));
    } else {
        snprintf(out->output, sizeof out->output, "retrace_%s_%ld.rtrace",
                 program_name && *program_name ? program_name : "app", (long)getpid());
    }
    rt_status s = load_choices(get, out);
    if (rt_ok(&s))
        s = load_screenshots(get, out);
    if (!rt_ok(&s))
        rt_capture_settings_finish(out);
    return s;
}

void rt_capture_settings_finish(struct rt_capture_settings *settings)
{
    rt_frame_list_finish(&settings->screenshot_frames);
}

void rt_capture_settings_describe(const struct rt_capture_settings *settings, char *buf, size_t size)
{
    snprintf(buf, size, "compression=%s memory-tracking=%s frame-delimiter=%s screenshots=%s",
             settings->compression == RT_TRACE_COMPRESSION_NONE ? "none" : "zstd",
             settings->memory_tracking == RT_TRACK_FULL ? "full" : "page-guard",
             settings->frame_delimiter == RT_FRAME_DELIMITER_SUBMIT ? "submit" : "present",
             settings->screenshot_dir[0] ? "yes" : "no");
}
