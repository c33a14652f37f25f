/* Unit tests for capture/settings: RETRACE_* variables. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    cr_assert_eq(rt_status_drop(load(NULL, &s)), RT_OK);
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
    rt_status_free(&st);
    st = load(env2, &s);
    cr_assert_eq(st.code, RT_ERR_USAGE);
    cr_assert(strstr(st.msg, "RETRACE_SCREENSHOT_FRAMES"), "%s", st.msg);
    const char *env3[] = {"RETRACE_SCREENSHOT_FRAMES", "1", NULL};
    cr_assert_eq(rt_status_drop(load(env3, &s)), RT_ERR_USAGE);
    rt_status_free(&st);
}

/* Encoded variables, as a small environment the decoder then reads; values
 * are copied, as setenv does (encode's may not outlive the call). */
static const char *encoded[2 * RT_CAPTURE_SETTING_COUNT + 1];
static char values[RT_CAPTURE_SETTING_COUNT][PATH_MAX];

static void fake_setenv(void *ctx, const char *name, const char *value)
{
    int *n = ctx, i = *n / 2;
    snprintf(values[i], sizeof values[0], "%s", value);
    encoded[2 * i] = name;
    encoded[2 * i + 1] = values[i];
    *n += 2;
}

static void encode(const struct rt_capture_settings *s)
{
    int n = 0;
    rt_capture_settings_encode(s, fake_setenv, &n);
    cr_assert_eq(n, 2 * RT_CAPTURE_SETTING_COUNT, "every variable is set, defaults too");
    encoded[n] = NULL;
}

Test(capture_settings, encode_then_decode_gives_the_same_settings)
{
    struct rt_capture_settings in = {.compression = RT_TRACE_COMPRESSION_NONE,
                                     .memory_tracking = RT_TRACK_FULL,
                                     .frame_delimiter = RT_FRAME_DELIMITER_SUBMIT,
                                     .output_parent = (long)getppid()};
    strcpy(in.output, "/tmp/round trip.rtrace");
    strcpy(in.screenshot_dir, "/tmp");
    strcpy(in.screenshot_frames_text, "2,5-6,100-");
    encode(&in);
    struct rt_capture_settings out;
    rt_status st = load(encoded, &out);
    cr_assert_eq(st.code, RT_OK, "%s", st.msg);
    cr_assert_str_eq(out.output, in.output);
    cr_assert_eq(out.compression, in.compression);
    cr_assert_eq(out.memory_tracking, in.memory_tracking);
    cr_assert_eq(out.frame_delimiter, in.frame_delimiter);
    cr_assert_str_eq(out.screenshot_dir, in.screenshot_dir);
    cr_assert_str_eq(out.screenshot_frames_text, in.screenshot_frames_text);
    cr_assert(rt_frame_list_contains(&out.screenshot_frames, 5) && rt_frame_list_contains(&out.screenshot_frames, 1000));
    cr_assert_not(rt_frame_list_contains(&out.screenshot_frames, 3));
    cr_assert_eq(out.output_parent, in.output_parent);
    rt_capture_settings_finish(&out);
}

Test(capture_settings, defaults_round_trip)
{
    struct rt_capture_settings in, out;
    cr_assert_eq(rt_status_drop(load(NULL, &in)), RT_OK);
    encode(&in);
    cr_assert_eq(rt_status_drop(load(encoded, &out)), RT_OK);
    cr_assert_str_eq(out.output, in.output);
    cr_assert_eq(out.compression, in.compression);
    cr_assert_eq(out.memory_tracking, in.memory_tracking);
    cr_assert_eq(out.frame_delimiter, in.frame_delimiter);
    cr_assert_str_eq(out.screenshot_dir, "");
    cr_assert_eq(out.output_parent, 0);
    rt_capture_settings_finish(&in);
    rt_capture_settings_finish(&out);
}

Test(capture_settings, every_choice_round_trips)
{
    for (int i = 0; i < RT_CAPTURE_SETTING_COUNT; i++) {
        const struct rt_capture_setting_info *info = rt_capture_setting_info((enum rt_capture_setting)i);
        for (int c = 0; info->choices && info->choices[c]; c++) {
            const char *env[] = {info->var, info->choices[c], NULL};
            struct rt_capture_settings s;
            cr_assert_eq(rt_status_drop(load(env, &s)), RT_OK, "%s=%s", info->var, info->choices[c]);
            encode(&s);
            bool found = false;
            for (int k = 0; encoded[k]; k += 2)
                found |= !strcmp(encoded[k], info->var) && !strcmp(encoded[k + 1], info->choices[c]);
            cr_assert(found, "%s=%s is not encoded back", info->var, info->choices[c]);
            rt_capture_settings_finish(&s);
        }
    }
}

/* A process that is not a child of RETRACE_OUTPUT_PARENT (a probe the
 * program forked) writes NAME-PID.rtrace, not the program's -o. */
Test(capture_settings, only_the_parents_child_writes_the_output)
{
    char parent[32], other[32];
    snprintf(parent, sizeof parent, "%ld", (long)getppid());
    snprintf(other, sizeof other, "%ld", (long)getpid()); /* not our parent */
    const char *mine[] = {"RETRACE_OUTPUT", "/tmp/g.rtrace", "RETRACE_OUTPUT_PARENT", parent, NULL};
    const char *theirs[] = {"RETRACE_OUTPUT", "/tmp/g.rtrace", "RETRACE_OUTPUT_PARENT", other, NULL};
    struct rt_capture_settings s;
    cr_assert_eq(rt_status_drop(load(mine, &s)), RT_OK);
    cr_assert_str_eq(s.output, "/tmp/g.rtrace");
    cr_assert_eq(rt_status_drop(load(theirs, &s)), RT_OK);
    char want[64];
    snprintf(want, sizeof want, "/tmp/g-%ld.rtrace", (long)getpid());
    cr_assert_str_eq(s.output, want);
    const char *bad[] = {"RETRACE_OUTPUT_PARENT", "12x", NULL};
    cr_assert_eq(rt_status_drop(load(bad, &s)), RT_ERR_USAGE);
}

/* The header's settings text (describe) gives back the frame delimiter. */
Test(capture_settings, described_delimiter_round_trips)
{
    const char *env[] = {"RETRACE_FRAME_DELIMITER", "submit", NULL};
    struct rt_capture_settings s;
    cr_assert_eq(rt_status_drop(load(env, &s)), RT_OK);
    char text[256];
    rt_capture_settings_describe(&s, text, sizeof text);
    cr_assert_eq(rt_capture_settings_described_delimiter(text), RT_FRAME_DELIMITER_SUBMIT, "%s", text);
    cr_assert_eq(rt_status_drop(load(NULL, &s)), RT_OK);
    rt_capture_settings_describe(&s, text, sizeof text);
    cr_assert_eq(rt_capture_settings_described_delimiter(text), RT_FRAME_DELIMITER_PRESENT, "%s", text);
    cr_assert_eq(rt_capture_settings_described_delimiter("RETRACE_COMPRESSION=none"), RT_FRAME_DELIMITER_PRESENT);
}

/* The screenshot name the layer writes is read back by info and capture. */
Test(capture_settings, screenshot_name_round_trips)
{
    char name[64], path[128];
    rt_capture_screenshot_name(42, name, sizeof name);
    cr_assert_str_eq(name, "frame_000042.png");
    snprintf(path, sizeof path, "/tmp/shots/%s", name);
    uint64_t frame = 0;
    cr_assert(rt_capture_screenshot_frame(path, strlen(path), &frame));
    cr_assert_eq(frame, 42);
    cr_assert_not(rt_capture_screenshot_frame("/tmp/frame_1.png.bak", 20, &frame));
    cr_assert_not(rt_capture_screenshot_frame("notes.txt", 9, &frame));
}

/* The summary the layer hands `retrace capture` reads back whole, is removed
 * once read, and a cut or altered one is refused (the trace is read instead). */
Test(capture_settings, summary_round_trips_and_refuses_damage)
{
    char dir[] = "/tmp/rt_summary_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char trace[128], path[160];
    snprintf(trace, sizeof trace, "%s/t.rtrace", dir);
    snprintf(path, sizeof path, "%s" RT_CAPTURE_SUMMARY_SUFFIX, trace);
    struct rt_capture_summary s = {.frames = 1000, .calls = 159399, .packets = 161400, .blocks = 21,
                                   .raw_bytes = 21029027, .file_bytes = 1122239},
                              got;
    snprintf(s.tracking, sizeof s.tracking, "page-guard through SIGSEGV and mprotect");
    cr_assert(rt_capture_summary_write(trace, &s));
    cr_assert(rt_capture_summary_take(trace, &got));
    cr_assert_eq(memcmp(&s, &got, sizeof s), 0);
    cr_assert_neq(access(path, F_OK), 0, "taken, so removed");
    cr_assert_not(rt_capture_summary_take(trace, &got), "none left");

    /* Cut before its end line, a field that is not a number, an unknown key. */
    static const char *const damaged[] = {
        "retrace-capture-summary 1\nframes 1\ncalls 2\npackets 3\nblocks 4\nraw_bytes 5\nfile_bytes 6\ntracking x\n",
        "retrace-capture-summary 1\nframes 1x\ncalls 2\npackets 3\nblocks 4\nraw_bytes 5\nfile_bytes 6\ntracking x\nend\n",
        "retrace-capture-summary 1\nframes 1\ncalls 2\npackets 3\nblocks 4\nraw 5\nfile_bytes 6\ntracking x\nend\n",
        "retrace-capture-summary 2\nframes 1\ncalls 2\npackets 3\nblocks 4\nraw_bytes 5\nfile_bytes 6\ntracking x\nend\n",
    };
    for (size_t i = 0; i < sizeof damaged / sizeof damaged[0]; i++) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs(damaged[i], f);
        fclose(f);
        cr_assert_not(rt_capture_summary_take(trace, &got), "damaged %zu", i);
        cr_assert_neq(access(path, F_OK), 0, "a damaged one is removed too");
    }
    rmdir(dir);
}
