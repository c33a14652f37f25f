/* Unit tests for capture/settings: RETRACE_* variables. */
#include <criterion/criterion.h>
#include <string.h>

#include "settings.h"

static const char *const *fake_env;

static const char *fake_getenv(const char *name)
{
    for (const char *const *e = fake_env; e && *e; e += 2)
        if (!strcmp(e[0], name))
            return e[1];
    return NULL;
}

static rt_status load(const char *const *env, struct rt_capture_settings *out)
{
    fake_env = env;
    return rt_capture_settings_load(fake_getenv, "vkcube", out);
}

Test(capture_settings, defaults)
{
    struct rt_capture_settings s;
    cr_assert_eq(load(NULL, &s).code, RT_OK);
    cr_assert_eq(s.compression, RT_TRACE_COMPRESSION_ZSTD);
    cr_assert_eq(s.memory_tracking, RT_TRACK_PAGE_GUARD);
    cr_assert_eq(s.frame_delimiter, RT_FRAME_DELIMITER_PRESENT);
    cr_assert(strncmp(s.output, "retrace_vkcube_", 15) == 0, "%s", s.output);
    cr_assert_str_eq(s.screenshot_dir, "");
    rt_capture_settings_finish(&s);
}

Test(capture_settings, every_variable)
{
    const char *env[] = {"RETRACE_OUTPUT", "/tmp/x.rtrace", "RETRACE_COMPRESSION", "none",
                         "RETRACE_MEMORY_TRACKING", "full", "RETRACE_FRAME_DELIMITER", "submit",
                         "RETRACE_SCREENSHOTS", "/tmp/shots", "RETRACE_SCREENSHOT_FRAMES", "2,5-6",
                         NULL};
    struct rt_capture_settings s;
    rt_status st = load(env, &s);
    cr_assert_eq(st.code, RT_OK, "%s", st.msg);
    cr_assert_str_eq(s.output, "/tmp/x.rtrace");
    cr_assert_eq(s.compression, RT_TRACE_COMPRESSION_NONE);
    cr_assert_eq(s.memory_tracking, RT_TRACK_FULL);
    cr_assert_eq(s.frame_delimiter, RT_FRAME_DELIMITER_SUBMIT);
    cr_assert_str_eq(s.screenshot_dir, "/tmp/shots");
    cr_assert(rt_frame_list_contains(&s.screenshot_frames, 6));
    cr_assert_not(rt_frame_list_contains(&s.screenshot_frames, 1));
    char text[256];
    rt_capture_settings_describe(&s, text, sizeof text);
    cr_assert_str_eq(text, "compression=none memory-tracking=full frame-delimiter=submit screenshots=yes");
    rt_capture_settings_finish(&s);
}

Test(capture_settings, bad_values_name_the_variable)
{
    const char *env1[] = {"RETRACE_MEMORY_TRACKING", "shadow", NULL};
    struct rt_capture_settings s;
    rt_status st = load(env1, &s);
    cr_assert_eq(st.code, RT_ERR_USAGE);
    cr_assert(strstr(st.msg, "RETRACE_MEMORY_TRACKING=shadow"), "%s", st.msg);
    const char *env2[] = {"RETRACE_SCREENSHOTS", "/tmp", "RETRACE_SCREENSHOT_FRAMES", "0", NULL};
    st = load(env2, &s);
    cr_assert_eq(st.code, RT_ERR_USAGE);
    cr_assert(strstr(st.msg, "RETRACE_SCREENSHOT_FRAMES"), "%s", st.msg);
    const char *env3[] = {"RETRACE_SCREENSHOT_FRAMES", "1", NULL};
    cr_assert_eq(load(env3, &s).code, RT_ERR_USAGE);
}
