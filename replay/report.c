/* replay/report.c — the replay report (docs/FORMATS.md section 1), built
 * with cJSON from the options and the result of one replay. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "devices.h"
#include "report.h"
#include "workarounds/workaround.h"

static cJSON *string_list(const char *comma_separated)
{
    cJSON *a = cJSON_CreateArray();
    char copy[512], *save = NULL;
    snprintf(copy, sizeof copy, "%s", comma_separated);
    for (char *s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save))
        cJSON_AddItemToArray(a, cJSON_CreateString(s));
    return a;
}

static cJSON *configuration(const struct rt_replay_options *o)
{
    static const char *const validate[] = {"off", "on", "sync"};
    const struct rt_replay_config *c = o->config;
    cJSON *j = cJSON_CreateObject(), *was = cJSON_AddArrayToObject(j, "workarounds");
    cJSON *sets = cJSON_AddArrayToObject(j, "workaround_sets"), *delays = cJSON_AddArrayToObject(j, "delays");
    for (int i = 0; c && i < RT_WA_COUNT; i++)
        if (c->workarounds[i])
            cJSON_AddItemToArray(was, cJSON_CreateString(rt_workaround_info((enum rt_workaround)i)->name));
    for (uint32_t i = 0; c && i < c->set_count; i++)
        cJSON_AddItemToArray(sets, cJSON_CreateString(c->sets[i]));
    for (uint32_t i = 0; c && i < c->delay_count; i++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "event", rt_delay_event_name(c->delays[i].event));
        cJSON_AddNumberToObject(d, "us", (double)c->delays[i].us);
        cJSON_AddNumberToObject(d, "jitter_us", (double)c->delays[i].jitter_us);
        cJSON_AddItemToArray(delays, d);
    }
    cJSON_AddNumberToObject(j, "seed", c ? (double)c->seed : 0);
    if (c && c->pipeline_cache)
        cJSON_AddStringToObject(j, "pipeline_cache", c->pipeline_cache);
    else
        cJSON_AddNullToObject(j, "pipeline_cache");
    enum rt_replay_validate v = c ? c->validate : RT_VALIDATE_OFF;
    cJSON_AddStringToObject(j, "validate", validate[o->validate && v == RT_VALIDATE_OFF ? RT_VALIDATE_ON : v]);
    return j;
}

static void version_text(char *buf, size_t size, uint32_t v)
{
    snprintf(buf, size, "%u.%u.%u", (v >> 22) & 0x7fu, (v >> 12) & 0x3ffu, v & 0xfffu); /* VK_API_VERSION_* */
}

static cJSON *device(const struct rt_replay_result *res)
{
    const struct rt_replay_outcome *o = &res->outcome;
    if (!res->device_name[0])
        return cJSON_CreateNull();
    cJSON *j = cJSON_CreateObject();
    char text[600], version[32];
    cJSON_AddStringToObject(j, "name", res->device_name);
    cJSON_AddNumberToObject(j, "vendor_id", o->device.vendor_id);
    cJSON_AddNumberToObject(j, "device_id", o->device.device_id);
    if (o->device.driver_name[0])
        snprintf(text, sizeof text, "%s %s", o->device.driver_name, o->device.driver_info);
    else
        snprintf(text, sizeof text, "%u", o->device.driver_version);
    cJSON_AddStringToObject(j, "driver", text);
    cJSON_AddNumberToObject(j, "driver_version", o->device.driver_version);
    version_text(version, sizeof version, o->device.api_version);
    cJSON_AddStringToObject(j, "api_version", version);
    rt_replay_device_key(o->device.vendor_id, o->device.device_id, o->device.driver_info, o->device.driver_version,
                         text, sizeof text); /* devices.c: what `retrace devices` prints */
    cJSON_AddStringToObject(j, "device_key", text);
    return j;
}

/* Each workaround's counters and names as its descriptor names them. */
static cJSON *workarounds_acted(const struct rt_replay_outcome *o)
{
    cJSON *j = cJSON_CreateObject();
    for (int id = 0; id < RT_WA_COUNT; id++) {
        const struct replay_workaround *w = replay_workarounds[id];
        bool acted = false;
        for (uint32_t c = 0; c < w->counter_count; c++)
            acted |= o->acted[id][w->counters[c].index] != 0;
        if (!acted)
            continue;
        cJSON *a = cJSON_AddObjectToObject(j, w->info.name);
        for (uint32_t c = 0; c < w->counter_count; c++)
            cJSON_AddNumberToObject(a, w->counters[c].name, (double)o->acted[id][w->counters[c].index]);
        if (w->names_key)
            cJSON_AddItemToObject(a, w->names_key, string_list(o->acted_names[id]));
    }
    return j;
}

static cJSON *delays_applied(const struct rt_replay_outcome *o)
{
    cJSON *j = cJSON_CreateObject();
    for (int e = 0; e < RT_DELAY_EVENT_COUNT; e++) {
        if (!o->delays[e].count)
            continue;
        cJSON *d = cJSON_AddObjectToObject(j, rt_delay_event_name((enum rt_delay_event)e));
        cJSON_AddNumberToObject(d, "count", (double)o->delays[e].count);
        cJSON_AddNumberToObject(d, "total_ms", (double)o->delays[e].total_us / 1e3);
    }
    return j;
}

static void add_outcome(cJSON *root, const struct rt_replay_options *opts, const struct rt_replay_outcome *o)
{
    cJSON_AddItemToObject(root, "workarounds_acted", workarounds_acted(o));
    cJSON_AddItemToObject(root, "delays_applied", delays_applied(o));
    if (o->gpu_stall.method) {
        cJSON *g = cJSON_AddObjectToObject(root, "gpu_stall");
        cJSON_AddNumberToObject(g, "asked_us", (double)o->gpu_stall.asked_us);
        cJSON_AddNumberToObject(g, "measured_us", (double)o->gpu_stall.measured_ns / 1e3);
        cJSON_AddNumberToObject(g, "iterations", (double)o->gpu_stall.iterations);
        cJSON_AddStringToObject(g, "method", o->gpu_stall.method);
    } else {
        cJSON_AddNullToObject(root, "gpu_stall");
    }
    if (opts->config && opts->config->pipeline_cache) {
        cJSON *p = cJSON_AddObjectToObject(root, "pipeline_cache");
        cJSON_AddNumberToObject(p, "loaded_bytes", (double)o->pipeline_cache_loaded);
        cJSON_AddNumberToObject(p, "saved_bytes", (double)o->pipeline_cache_saved);
        cJSON_AddStringToObject(p, "notice", o->pipeline_cache_notice);
    } else {
        cJSON_AddNullToObject(root, "pipeline_cache");
    }
}

static cJSON *frames_and_shots(cJSON *root, const struct rt_replay_result *res)
{
    const struct rt_replay_outcome *o = &res->outcome;
    cJSON *f = cJSON_AddObjectToObject(root, "frames");
    cJSON_AddNumberToObject(f, "replayed", (double)res->frames);
    cJSON *ms = cJSON_AddArrayToObject(f, "per_frame_cpu_ms");
    for (size_t i = 0; i < o->frame_count; i++)
        cJSON_AddItemToArray(ms, cJSON_CreateNumber((double)(int64_t)(o->frame_ms[i] * 1e3 + 0.5) / 1e3));
    cJSON *shots = cJSON_AddArrayToObject(root, "screenshots");
    for (size_t i = 0; i < o->screenshot_count; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "frame", (double)o->screenshot_frames[i]);
        cJSON_AddStringToObject(s, "path", o->screenshot_paths[i]);
        cJSON_AddItemToArray(shots, s);
    }
    return f;
}

/* validation.ignored, .ignore (the ids asked) and .by_id (every id seen). */
static void validation_ids(cJSON *v, const struct rt_replay_options *opts, const struct rt_replay_result *res)
{
    cJSON_AddNumberToObject(v, "ignored", (double)res->validation_ignored);
    cJSON *ignore = cJSON_AddArrayToObject(v, "ignore");
    for (uint32_t i = 0; ignore && i < opts->validate_ignore_count; i++)
        cJSON_AddItemToArray(ignore, cJSON_CreateString(opts->validate_ignore[i]));
    cJSON *ids = cJSON_AddArrayToObject(v, "by_id");
    for (uint32_t i = 0; ids && i < res->validation_id_count; i++) {
        const struct rt_replay_validation_id *e = &res->validation_ids[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", e->id);
        cJSON_AddNumberToObject(o, "errors", (double)e->errors);
        cJSON_AddNumberToObject(o, "warnings", (double)e->warnings);
        cJSON_AddBoolToObject(o, "ignored", e->ignored);
        cJSON_AddItemToArray(ids, o);
    }
}

static cJSON *build(const struct rt_replay_options *opts, const struct rt_replay_result *res, int code,
                    const char *message)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "retrace-replay-report");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddStringToObject(root, "retrace_version", RT_VERSION);
    cJSON *t = cJSON_AddObjectToObject(root, "trace");
    cJSON_AddStringToObject(t, "path", opts->trace_path);
    cJSON_AddStringToObject(t, "application", res->outcome.application);
    cJSON_AddStringToObject(t, "capture_device", res->outcome.capture_device);
    cJSON_AddNumberToObject(t, "frames", (double)(opts->total_frames ? opts->total_frames : res->frames));
    cJSON_AddNumberToObject(t, "calls", (double)res->calls);
    cJSON_AddItemToObject(root, "device", device(res));
    cJSON_AddItemToObject(root, "configuration", configuration(opts));
    frames_and_shots(root, res);
    cJSON_AddNumberToObject(root, "readbacks", (double)res->readbacks);
    cJSON *v = cJSON_AddObjectToObject(root, "validation");
    cJSON_AddNumberToObject(v, "errors", (double)res->validation_errors);
    cJSON_AddNumberToObject(v, "warnings", (double)res->validation_warnings);
    cJSON_AddNumberToObject(v, "sync_hazards", (double)res->outcome.sync_hazards);
    validation_ids(v, opts, res);
    cJSON *verify = cJSON_AddObjectToObject(root, "verify");
    cJSON_AddNumberToObject(verify, "points", (double)res->verify_points);
    cJSON_AddNumberToObject(verify, "divergences", (double)res->verify_divergences);
    if (res->verify_first[0])
        cJSON_AddStringToObject(verify, "first", res->verify_first);
    else
        cJSON_AddNullToObject(verify, "first");
    cJSON_AddBoolToObject(verify, "checked", opts->verify && rt_replay_verify_checked(res));
    cJSON_AddStringToObject(verify, "note", !opts->verify ? "--verify not asked"
                                            : rt_replay_verify_checked(res) ? "" : rt_replay_verify_nothing_why);
    add_outcome(root, opts, &res->outcome);
    cJSON_AddNumberToObject(root, "wall_ms", (double)(int64_t)(res->seconds * 1e6 + 0.5) / 1e3);
    cJSON *e = cJSON_AddObjectToObject(root, "exit");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message ? message : "");
    return root;
}

rt_status rt_replay_report_write(const char *path, const struct rt_replay_options *opts,
                                 const struct rt_replay_result *res, int exit_code, const char *message)
{
    cJSON *root = build(opts, res, exit_code, message);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
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
