/* replay/report.c — the replay report (docs/FORMATS.md section 1) of one
 * replay: its options and result as a struct rt_replay_report, which report/
 * (the format's one encoder) turns into JSON, written through a rename. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "replay_report.h"
#include "report.h"
#include "workarounds/workaround.h"

/* Everything below fills a struct rt_replay_report from one replay's options
 * and result; report/ owns the format's keys and writes the JSON. Arrays are
 * allocated from ARENA. */
struct filler {
    struct rt_arena *arena;
    bool oom;
};

static void *take(struct filler *f, size_t n, size_t size)
{
    void *p = n ? rt_arena_calloc(f->arena, n, size, 8) : NULL;
    f->oom |= n && !p;
    return p;
}

static void configuration(struct filler *f, const struct rt_replay_options *o, struct rt_replay_report *r)
{
    static const char *const validate[] = {"off", "on", "sync"};
    const struct rt_replay_config *c = o->config;
    const char **names = take(f, RT_WA_COUNT, sizeof *names);
    for (int i = 0; c && names && i < RT_WA_COUNT; i++)
        if (c->workarounds[i])
            names[r->configuration.workaround_count++] = rt_workaround_info((enum rt_workaround)i)->name;
    r->configuration.workarounds = names;
    const char **sets = take(f, c ? c->set_count : 0, sizeof *sets);
    for (uint32_t i = 0; sets && i < c->set_count; i++)
        sets[r->configuration.set_count++] = c->sets[i];
    r->configuration.sets = sets;
    struct rt_report_delay *delays = take(f, c ? c->delay_count : 0, sizeof *delays);
    for (uint32_t i = 0; delays && i < c->delay_count; i++)
        delays[r->configuration.delay_count++] = (struct rt_report_delay){
            rt_delay_event_name(c->delays[i].event), c->delays[i].us, c->delays[i].jitter_us};
    r->configuration.delays = delays;
    r->configuration.seed = c ? c->seed : 0;
    r->configuration.pipeline_cache = c ? c->pipeline_cache : NULL;
    enum rt_replay_validate v = c ? c->validate : RT_VALIDATE_OFF;
    r->configuration.validate = validate[o->validate && v == RT_VALIDATE_OFF ? RT_VALIDATE_ON : v];
}

static void version_text(char *buf, size_t size, uint32_t v)
{
    snprintf(buf, size, "%u.%u.%u", (v >> 22) & 0x7fu, (v >> 12) & 0x3ffu, v & 0xfffu); /* VK_API_VERSION_* */
}

static char *text_copy(struct filler *f, const char *s)
{
    char *c = rt_arena_strndup(f->arena, s, strlen(s));
    f->oom |= !c;
    return c;
}

static void device(struct filler *f, const struct rt_replay_result *res, struct rt_replay_report *r)
{
    const struct rt_replay_outcome *o = &res->outcome;
    char text[600], version[32];
    if (!(r->has_device = res->device_name[0] != '\0'))
        return;
    r->device.name = res->device_name;
    r->device.vendor_id = o->device.vendor_id;
    r->device.device_id = o->device.device_id;
    if (o->device.driver_name[0])
        snprintf(text, sizeof text, "%s %s", o->device.driver_name, o->device.driver_info);
    else
        snprintf(text, sizeof text, "%u", o->device.driver_version);
    r->device.driver = text_copy(f, text);
    r->device.driver_version = o->device.driver_version;
    version_text(version, sizeof version, o->device.api_version);
    r->device.api_version = text_copy(f, version);
    rt_replay_device_key(o->device.vendor_id, o->device.device_id, o->device.driver_info, o->device.driver_version,
                         text, sizeof text); /* devices.c: what `retrace devices` prints */
    r->device.device_key = text_copy(f, text);
}

/* "a,b,c" -> its names, in the arena. */
static const char *const *split(struct filler *f, const char *comma_separated, size_t *count)
{
    char *copy = text_copy(f, comma_separated), *save = NULL;
    const char **names = take(f, strlen(comma_separated) / 2 + 1, sizeof *names);
    *count = 0;
    for (char *s = copy && names ? strtok_r(copy, ",", &save) : NULL; s; s = strtok_r(NULL, ",", &save))
        names[(*count)++] = s;
    return names;
}

/* Each workaround that acted, with its counters as its descriptor names them. */
static void workarounds_acted(struct filler *f, const struct rt_replay_outcome *o, struct rt_replay_report *r)
{
    struct rt_report_acted *acted = take(f, RT_WA_COUNT, sizeof *acted);
    for (int id = 0; acted && id < RT_WA_COUNT; id++) {
        const struct replay_workaround *w = replay_workarounds[id];
        struct rt_report_counter *counters = take(f, w->counter_count, sizeof *counters);
        bool any = false;
        for (uint32_t c = 0; counters && c < w->counter_count; c++) {
            counters[c] = (struct rt_report_counter){w->counters[c].name, o->acted[id][w->counters[c].index]};
            any |= counters[c].value != 0;
        }
        if (!any)
            continue;
        struct rt_report_acted *a = &acted[r->acted_count++];
        *a = (struct rt_report_acted){.workaround = w->info.name, .counters = counters,
                                      .counter_count = w->counter_count, .names_key = w->names_key};
        if (w->names_key)
            a->names = split(f, o->acted_names[id], &a->name_count);
    }
    r->acted = acted;
}

static void outcome(struct filler *f, const struct rt_replay_options *opts, const struct rt_replay_outcome *o,
                    struct rt_replay_report *r)
{
    workarounds_acted(f, o, r);
    struct rt_report_delay_applied *applied = take(f, RT_DELAY_EVENT_COUNT, sizeof *applied);
    for (int e = 0; applied && e < RT_DELAY_EVENT_COUNT; e++)
        if (o->delays[e].count)
            applied[r->delays_applied_count++] = (struct rt_report_delay_applied){
                rt_delay_event_name((enum rt_delay_event)e), o->delays[e].count, (double)o->delays[e].total_us / 1e3};
    r->delays_applied = applied;
    if ((r->has_gpu_stall = o->gpu_stall.method != NULL)) {
        r->gpu_stall.asked_us = o->gpu_stall.asked_us;
        r->gpu_stall.measured_us = (double)o->gpu_stall.measured_ns / 1e3;
        r->gpu_stall.iterations = o->gpu_stall.iterations;
        r->gpu_stall.method = o->gpu_stall.method;
    }
    if ((r->has_pipeline_cache = opts->config && opts->config->pipeline_cache)) {
        r->pipeline_cache.loaded_bytes = o->pipeline_cache_loaded;
        r->pipeline_cache.saved_bytes = o->pipeline_cache_saved;
        r->pipeline_cache.notice = o->pipeline_cache_notice;
    }
}

static double milliseconds(double ms) { return (double)(int64_t)(ms * 1e3 + 0.5) / 1e3; } /* to the microsecond */

static void frames_and_shots(struct filler *f, const struct rt_replay_result *res, struct rt_replay_report *r)
{
    const struct rt_replay_outcome *o = &res->outcome;
    r->frames.replayed = res->frames;
    double *ms = take(f, o->frame_count, sizeof *ms);
    for (size_t i = 0; ms && i < o->frame_count; i++)
        ms[r->frames.count++] = milliseconds(o->frame_ms[i]);
    r->frames.per_frame_cpu_ms = ms;
    struct rt_report_screenshot *shots = take(f, o->screenshot_count, sizeof *shots);
    for (size_t i = 0; shots && i < o->screenshot_count; i++)
        shots[r->screenshot_count++] = (struct rt_report_screenshot){o->screenshot_frames[i], o->screenshot_paths[i]};
    r->screenshots = shots;
}

/* validation.ignored, .ignore (the ids asked) and .by_id (every id seen). */
static void validation(struct filler *f, const struct rt_replay_options *opts, const struct rt_replay_result *res,
                       struct rt_replay_report *r)
{
    r->validation.errors = res->validation_errors;
    r->validation.warnings = res->validation_warnings;
    r->validation.sync_hazards = res->outcome.sync_hazards;
    r->validation.ignored = res->validation_ignored;
    r->validation.ignore = opts->validate_ignore;
    r->validation.ignore_count = opts->validate_ignore ? opts->validate_ignore_count : 0;
    struct rt_report_validation_id *ids = take(f, res->validation_id_count, sizeof *ids);
    for (uint32_t i = 0; ids && i < res->validation_id_count; i++) {
        const struct rt_replay_validation_id *e = &res->validation_ids[i];
        ids[r->validation.by_id_count++] = (struct rt_report_validation_id){e->id, e->errors, e->warnings, e->ignored};
    }
    r->validation.by_id = ids;
}

static void fill(struct filler *f, const struct rt_replay_options *opts, const struct rt_replay_result *res, int code,
                 const char *message, struct rt_replay_report *r)
{
    r->retrace_version = RT_VERSION;
    r->trace.path = opts->trace_path;
    r->trace.application = res->outcome.application;
    r->trace.capture_device = res->outcome.capture_device;
    r->trace.frames = opts->total_frames ? opts->total_frames : res->frames;
    r->trace.calls = res->calls;
    device(f, res, r);
    configuration(f, opts, r);
    frames_and_shots(f, res, r);
    r->readbacks = res->readbacks;
    validation(f, opts, res, r);
    r->verify.points = res->verify_points;
    r->verify.divergences = res->verify_divergences;
    r->verify.first = res->verify_first[0] ? res->verify_first : NULL;
    r->verify.checked = opts->verify && rt_replay_verify_checked(res);
    r->verify.note = !opts->verify ? "--verify not asked" : rt_replay_verify_checked(res) ? "" : rt_replay_verify_nothing_why;
    outcome(f, opts, &res->outcome, r);
    r->wall_ms = milliseconds(res->seconds * 1e3);
    r->exit.code = code;
    r->exit.message = message ? message : "";
}

rt_status rt_replay_report_write(const char *path, const struct rt_replay_options *opts,
                                 const struct rt_replay_result *res, int exit_code, const char *message)
{
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    struct filler filler = {&arena, false};
    struct rt_replay_report report = {0};
    fill(&filler, opts, res, exit_code, message, &report);
    char *text = NULL;
    rt_status s = filler.oom ? rt_errorf(RT_ERR_INTERNAL, "out of memory") : rt_replay_report_encode(&report, &text);
    rt_arena_finish(&arena);
    RT_TRY(s);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    int err = errno;
    ok = f && fclose(f) == 0 && ok;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
        err = ok ? errno : err;
        remove(tmp);
        return rt_errorf(RT_ERR_INTERNAL, "cannot write the report %s: %s", path, strerror(err));
    }
    return rt_ok_status();
}
