/* tests/unit/test_report.c — the replay report's encoder and decoder agree:
 * every member survives a round trip, the text of a decoded report encodes
 * again byte for byte, and what is not a report is refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_report.h"

static bool ok(rt_status s) { return rt_ok(&s); }

static const char *const was[] = {"readback-barrier", "strip-unsupported"};
static const char *const sets[] = {"race-hunt"};
static const struct rt_report_delay delays[] = {{"create-pipeline", 25000, 5000}, {"gpu", 2000, 0}};
static const double frame_ms[] = {12.5, 0.001, 1234.567};
static const struct rt_report_screenshot shots[] = {{1, "out/frame_000001.png"}, {10, "out/frame_000010.png"}};
static const char *const ignore[] = {"VUID-vkDestroyDevice-device-00378"};
static const struct rt_report_validation_id ids[] = {{"VUID-vkDestroyDevice-device-00378", 2, 0, true},
                                                     {"UNASSIGNED-x", 0, 7, false}};
static const struct rt_report_counter barrier_counters[] = {
    {"barriers_inserted", 3}, {"readbacks_waited", 3}, {"submissions_waited", 6}};
static const struct rt_report_counter strip_counters[] = {{"extensions_stripped", 1}, {"features_stripped", 2}};
static const char *const stripped[] = {"VK_EXT_x", "shaderInt64 (VkPhysicalDeviceFeatures)"};
static const struct rt_report_acted acted[] = {
    {"readback-barrier", barrier_counters, 3, NULL, NULL, 0}, {"strip-unsupported", strip_counters, 2, "stripped", stripped, 2}};
static const struct rt_report_delay_applied applied[] = {{"create-pipeline", 12, 300.25}};

static struct rt_replay_report full(void)
{
    struct rt_replay_report r = {.retrace_version = "0.1.0", .has_device = true, .has_gpu_stall = true,
                                 .has_pipeline_cache = true};
    r.trace.path = "app.rtrace", r.trace.application = "app \"quoted\"\n", r.trace.capture_device = "llvmpipe";
    r.trace.frames = 100, r.trace.calls = 123456789012ull;
    r.device.name = "llvmpipe", r.device.driver = "llvmpipe Mesa 22.3.6", r.device.api_version = "1.3.230";
    r.device.device_key = "10005:0000/Mesa 22.3.6", r.device.vendor_id = 0x10005, r.device.device_id = 0xffffffffu;
    r.device.driver_version = 1;
    r.configuration.workarounds = was, r.configuration.workaround_count = 2;
    r.configuration.sets = sets, r.configuration.set_count = 1;
    r.configuration.delays = delays, r.configuration.delay_count = 2;
    r.configuration.seed = 999999999, r.configuration.pipeline_cache = "app.pcache", r.configuration.validate = "sync";
    r.frames.replayed = 3, r.frames.per_frame_cpu_ms = frame_ms, r.frames.count = 3;
    r.screenshots = shots, r.screenshot_count = 2, r.readbacks = 4;
    r.validation.errors = 2, r.validation.warnings = 7, r.validation.sync_hazards = 1, r.validation.ignored = 2;
    r.validation.ignore = ignore, r.validation.ignore_count = 1, r.validation.by_id = ids, r.validation.by_id_count = 2;
    r.verify.points = 5, r.verify.divergences = 1, r.verify.first = "after call 25", r.verify.checked = true;
    r.verify.note = "";
    r.acted = acted, r.acted_count = 2, r.delays_applied = applied, r.delays_applied_count = 1;
    r.gpu_stall.asked_us = 2000, r.gpu_stall.iterations = 77, r.gpu_stall.measured_us = 1999.5;
    r.gpu_stall.method = "calibrated-loop";
    r.pipeline_cache.loaded_bytes = 10, r.pipeline_cache.saved_bytes = 20, r.pipeline_cache.notice = "none";
    r.wall_ms = 812.5, r.exit.code = 4, r.exit.message = "the trace needs x";
    return r;
}

static void same_strings(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    cr_assert_eq(na, nb);
    for (size_t i = 0; i < na; i++)
        cr_assert_str_eq(a[i], b[i]);
}

static void same_head(const struct rt_replay_report *a, const struct rt_replay_report *b)
{
    cr_assert_str_eq(a->retrace_version, b->retrace_version);
    cr_assert_str_eq(a->trace.path, b->trace.path);
    cr_assert_str_eq(a->trace.application, b->trace.application);
    cr_assert_str_eq(a->trace.capture_device, b->trace.capture_device);
    cr_assert(a->trace.frames == b->trace.frames && a->trace.calls == b->trace.calls);
    cr_assert_eq(a->has_device, b->has_device);
    cr_assert_str_eq(a->device.name, b->device.name);
    cr_assert_str_eq(a->device.driver, b->device.driver);
    cr_assert_str_eq(a->device.api_version, b->device.api_version);
    cr_assert_str_eq(a->device.device_key, b->device.device_key);
    cr_assert(a->device.vendor_id == b->device.vendor_id && a->device.device_id == b->device.device_id &&
              a->device.driver_version == b->device.driver_version);
    same_strings(a->configuration.workarounds, a->configuration.workaround_count, b->configuration.workarounds,
                 b->configuration.workaround_count);
    same_strings(a->configuration.sets, a->configuration.set_count, b->configuration.sets, b->configuration.set_count);
    cr_assert_eq(a->configuration.delay_count, b->configuration.delay_count);
    for (size_t i = 0; i < a->configuration.delay_count; i++) {
        cr_assert_str_eq(a->configuration.delays[i].event, b->configuration.delays[i].event);
        cr_assert(a->configuration.delays[i].us == b->configuration.delays[i].us &&
                  a->configuration.delays[i].jitter_us == b->configuration.delays[i].jitter_us);
    }
    cr_assert_eq(a->configuration.seed, b->configuration.seed);
    cr_assert_str_eq(a->configuration.pipeline_cache, b->configuration.pipeline_cache);
    cr_assert_str_eq(a->configuration.validate, b->configuration.validate);
}

static void same_lists(const struct rt_replay_report *a, const struct rt_replay_report *b)
{
    cr_assert(a->frames.replayed == b->frames.replayed && a->frames.count == b->frames.count);
    for (size_t i = 0; i < a->frames.count; i++)
        cr_assert_eq(a->frames.per_frame_cpu_ms[i], b->frames.per_frame_cpu_ms[i]);
    cr_assert_eq(a->screenshot_count, b->screenshot_count);
    for (size_t i = 0; i < a->screenshot_count; i++) {
        cr_assert_eq(a->screenshots[i].frame, b->screenshots[i].frame);
        cr_assert_str_eq(a->screenshots[i].path, b->screenshots[i].path);
    }
    cr_assert_eq(a->readbacks, b->readbacks);
    cr_assert(a->validation.errors == b->validation.errors && a->validation.warnings == b->validation.warnings &&
              a->validation.sync_hazards == b->validation.sync_hazards && a->validation.ignored == b->validation.ignored);
    same_strings(a->validation.ignore, a->validation.ignore_count, b->validation.ignore, b->validation.ignore_count);
    cr_assert_eq(a->validation.by_id_count, b->validation.by_id_count);
    for (size_t i = 0; i < a->validation.by_id_count; i++) {
        cr_assert_str_eq(a->validation.by_id[i].id, b->validation.by_id[i].id);
        cr_assert(a->validation.by_id[i].errors == b->validation.by_id[i].errors &&
                  a->validation.by_id[i].warnings == b->validation.by_id[i].warnings &&
                  a->validation.by_id[i].ignored == b->validation.by_id[i].ignored);
    }
}

static void same_acted(const struct rt_replay_report *a, const struct rt_replay_report *b)
{
    cr_assert(a->verify.points == b->verify.points && a->verify.divergences == b->verify.divergences &&
              a->verify.checked == b->verify.checked);
    cr_assert_str_eq(a->verify.first, b->verify.first);
    cr_assert_str_eq(a->verify.note, b->verify.note);
    cr_assert_eq(a->acted_count, b->acted_count);
    for (size_t i = 0; i < a->acted_count; i++) {
        const struct rt_report_acted *x = &a->acted[i], *y = &b->acted[i];
        cr_assert_str_eq(x->workaround, y->workaround);
        cr_assert_eq(x->counter_count, y->counter_count);
        for (size_t c = 0; c < x->counter_count; c++) {
            cr_assert_str_eq(x->counters[c].name, y->counters[c].name);
            cr_assert_eq(x->counters[c].value, y->counters[c].value);
        }
        cr_assert_eq(!x->names_key, !y->names_key);
        if (x->names_key)
            cr_assert_str_eq(x->names_key, y->names_key);
        same_strings(x->names, x->name_count, y->names, y->name_count);
    }
}

static void same_tail(const struct rt_replay_report *a, const struct rt_replay_report *b)
{
    cr_assert_eq(a->delays_applied_count, b->delays_applied_count);
    for (size_t i = 0; i < a->delays_applied_count; i++) {
        cr_assert_str_eq(a->delays_applied[i].event, b->delays_applied[i].event);
        cr_assert(a->delays_applied[i].count == b->delays_applied[i].count &&
                  a->delays_applied[i].total_ms == b->delays_applied[i].total_ms);
    }
    cr_assert_eq(a->has_gpu_stall, b->has_gpu_stall);
    cr_assert(a->gpu_stall.asked_us == b->gpu_stall.asked_us && a->gpu_stall.iterations == b->gpu_stall.iterations &&
              a->gpu_stall.measured_us == b->gpu_stall.measured_us);
    cr_assert_str_eq(a->gpu_stall.method, b->gpu_stall.method);
    cr_assert_eq(a->has_pipeline_cache, b->has_pipeline_cache);
    cr_assert(a->pipeline_cache.loaded_bytes == b->pipeline_cache.loaded_bytes &&
              a->pipeline_cache.saved_bytes == b->pipeline_cache.saved_bytes);
    cr_assert_str_eq(a->pipeline_cache.notice, b->pipeline_cache.notice);
    cr_assert_eq(a->wall_ms, b->wall_ms);
    cr_assert_eq(a->exit.code, b->exit.code);
    cr_assert_str_eq(a->exit.message, b->exit.message);
}

static void same(const struct rt_replay_report *a, const struct rt_replay_report *b)
{
    same_head(a, b);
    same_lists(a, b);
    same_acted(a, b);
    same_tail(a, b);
}

Test(report, every_member_round_trips)
{
    struct rt_replay_report in = full(), out;
    struct rt_arena arena;
    char *text = NULL, *again = NULL;
    rt_arena_init(&arena, 0, 0);
    cr_assert(ok(rt_replay_report_encode(&in, &text)));
    cr_assert(ok(rt_replay_report_decode(text, &arena, &out)), "%s", text);
    same(&in, &out);
    cr_assert(ok(rt_replay_report_encode(&out, &again)));
    cr_assert_str_eq(text, again, "a decoded report encodes to the same text");
    free(text);
    free(again);
    rt_arena_finish(&arena);
}

/* What is absent encodes as the format says: null objects, empty lists. */
Test(report, nulls_and_empty_lists)
{
    struct rt_replay_report in = {.trace = {.path = "t.rtrace"}, .configuration = {.validate = "off"}}, out;
    struct rt_arena arena;
    char *text = NULL;
    rt_arena_init(&arena, 0, 0);
    cr_assert(ok(rt_replay_report_encode(&in, &text)));
    cr_assert(strstr(text, "\"device\":\tnull") && strstr(text, "\"gpu_stall\":\tnull") &&
              strstr(text, "\"pipeline_cache\":\tnull") && strstr(text, "\"first\":\tnull") &&
              strstr(text, "\"workarounds_acted\":\t{\n\t}") && strstr(text, "\"screenshots\":\t[]"), "%s", text);
    cr_assert(ok(rt_replay_report_decode(text, &arena, &out)));
    cr_assert_not(out.has_device || out.has_gpu_stall || out.has_pipeline_cache);
    cr_assert_null(out.verify.first);
    cr_assert_null(out.configuration.pipeline_cache);
    cr_assert_str_eq(out.trace.application, "", "a NULL string encodes as \"\"");
    cr_assert_eq(out.acted_count + out.screenshot_count + out.frames.count, 0);
    free(text);
    rt_arena_finish(&arena);
}

Test(report, refuses_what_is_not_a_report)
{
    static const char *const bad[] = {"", "not json", "[]", "{}", "{\"format\": \"retrace-replay-report\"}",
                                      "{\"format\": \"retrace-replay-report\", \"version\": 2}",
                                      "{\"format\": \"other\", \"version\": 1}"};
    struct rt_arena arena;
    struct rt_replay_report out;
    rt_arena_init(&arena, 0, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rt_status s = rt_replay_report_decode(bad[i], &arena, &out);
        cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "%s", bad[i]);
        rt_status_free(&s);
    }
    rt_status null_text = rt_replay_report_decode(NULL, &arena, &out);
    cr_assert_eq(null_text.code, RT_ERR_BAD_INPUT);
    /* members of the wrong type read as zero, never as garbage */
    rt_status s = rt_replay_report_decode("{\"format\": \"retrace-replay-report\", \"version\": 1, \"wall_ms\": \"x\", "
                                          "\"device\": {\"name\": 3}, \"trace\": [1], \"workarounds_acted\": {\"a\": 1}}",
                                          &arena, &out);
    cr_assert(rt_ok(&s));
    cr_assert(out.has_device && !out.device.name && out.wall_ms == 0 && !out.trace.path && out.acted_count == 0);
    rt_arena_finish(&arena);
    rt_status_free(&s);
    rt_status_free(&null_text);
}

/* The keys, their order and their types are the format's (docs/FORMATS.md
 * section 1): a fixed report encodes to the committed text, and that text
 * decodes to the same report. A renamed key fails here, not in the runner. */
Test(report, matches_the_committed_version_1_text)
{
    char path[4096], *golden = NULL, *text = NULL;
    snprintf(path, sizeof path, "%s/report_v1.json", getenv("RT_TEST_DATA") ? getenv("RT_TEST_DATA") : "tests/data");
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    size_t n = 0;
    golden = calloc(1, 1 << 16);
    n = fread(golden, 1, (1 << 16) - 1, f);
    fclose(f);
    while (n && golden[n - 1] == '\n')
        golden[--n] = '\0';
    struct rt_replay_report in = full(), out;
    cr_assert(ok(rt_replay_report_encode(&in, &text)));
    cr_assert_str_eq(text, golden, "the encoder's text changed:\n%s", text);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    cr_assert(ok(rt_replay_report_decode(golden, &arena, &out)));
    same(&in, &out);
    rt_arena_finish(&arena);
    free(text);
    free(golden);
}
