/* report/report.c — the replay report's one encoder and one decoder. Each
 * object's scalar members are a table of (key, JSON type, place in the
 * struct) that both directions read, so a key is spelt once; arrays and the
 * per-workaround objects are written out by hand, each beside its reader. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "replay_report.h"

enum kind { K_STR, K_STR_OR_NULL, K_U64, K_U32, K_INT, K_F64, K_BOOL };

struct field {
    const char *key;
    enum kind kind;
    size_t offset; /* in the struct the table describes */
};

#define R(key, kind, member) {key, kind, offsetof(struct rt_replay_report, member)}
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct field trace_fields[] = {
    R("path", K_STR, trace.path), R("application", K_STR, trace.application),
    R("capture_device", K_STR, trace.capture_device), R("frames", K_U64, trace.frames),
    R("calls", K_U64, trace.calls)};
static const struct field device_fields[] = {
    R("name", K_STR, device.name), R("vendor_id", K_U32, device.vendor_id), R("device_id", K_U32, device.device_id),
    R("driver", K_STR, device.driver), R("driver_version", K_U32, device.driver_version),
    R("api_version", K_STR, device.api_version), R("device_key", K_STR, device.device_key)};
static const struct field config_tail_fields[] = {
    R("seed", K_U64, configuration.seed), R("pipeline_cache", K_STR_OR_NULL, configuration.pipeline_cache),
    R("validate", K_STR, configuration.validate)};
static const struct field validation_fields[] = {
    R("errors", K_U64, validation.errors), R("warnings", K_U64, validation.warnings),
    R("sync_hazards", K_U64, validation.sync_hazards), R("ignored", K_U64, validation.ignored)};
static const struct field verify_fields[] = {
    R("points", K_U64, verify.points), R("divergences", K_U64, verify.divergences),
    R("first", K_STR_OR_NULL, verify.first), R("checked", K_BOOL, verify.checked), R("note", K_STR, verify.note)};
static const struct field gpu_stall_fields[] = {
    R("asked_us", K_U64, gpu_stall.asked_us), R("measured_us", K_F64, gpu_stall.measured_us),
    R("iterations", K_U64, gpu_stall.iterations), R("method", K_STR, gpu_stall.method)};
static const struct field pipeline_cache_fields[] = {
    R("loaded_bytes", K_U64, pipeline_cache.loaded_bytes), R("saved_bytes", K_U64, pipeline_cache.saved_bytes),
    R("notice", K_STR, pipeline_cache.notice)};
static const struct field exit_fields[] = {R("code", K_INT, exit.code), R("message", K_STR, exit.message)};

#define E(type, key, kind, member) {key, kind, offsetof(type, member)}
static const struct field delay_fields[] = {E(struct rt_report_delay, "event", K_STR, event),
                                            E(struct rt_report_delay, "us", K_U64, us),
                                            E(struct rt_report_delay, "jitter_us", K_U64, jitter_us)};
static const struct field screenshot_fields[] = {E(struct rt_report_screenshot, "frame", K_U64, frame),
                                                 E(struct rt_report_screenshot, "path", K_STR, path)};
static const struct field id_fields[] = {
    E(struct rt_report_validation_id, "id", K_STR, id), E(struct rt_report_validation_id, "errors", K_U64, errors),
    E(struct rt_report_validation_id, "warnings", K_U64, warnings),
    E(struct rt_report_validation_id, "ignored", K_BOOL, ignored)};
static const struct field applied_fields[] = {E(struct rt_report_delay_applied, "count", K_U64, count),
                                              E(struct rt_report_delay_applied, "total_ms", K_F64, total_ms)};

/* --- encoding ------------------------------------------------------------------ */

static void put(cJSON *obj, const void *base, const struct field *f)
{
    const char *at = (const char *)base + f->offset;
    const char *s;
    switch (f->kind) {
    case K_STR:
    case K_STR_OR_NULL:
        memcpy(&s, at, sizeof s);
        if (!s && f->kind == K_STR_OR_NULL)
            cJSON_AddNullToObject(obj, f->key);
        else
            cJSON_AddStringToObject(obj, f->key, s ? s : "");
        return;
    case K_U64: cJSON_AddNumberToObject(obj, f->key, (double)*(const uint64_t *)(const void *)at); return;
    case K_U32: cJSON_AddNumberToObject(obj, f->key, *(const uint32_t *)(const void *)at); return;
    case K_INT: cJSON_AddNumberToObject(obj, f->key, *(const int *)(const void *)at); return;
    case K_F64: cJSON_AddNumberToObject(obj, f->key, *(const double *)(const void *)at); return;
    case K_BOOL: cJSON_AddBoolToObject(obj, f->key, *(const bool *)(const void *)at); return;
    }
}

static cJSON *put_all(cJSON *obj, const void *base, const struct field *fields, size_t n)
{
    for (size_t i = 0; obj && i < n; i++)
        put(obj, base, &fields[i]);
    return obj;
}

static cJSON *strings(const char *const *items, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(items[i] ? items[i] : ""));
    return a;
}

static cJSON *objects(const void *items, size_t size, size_t n, const struct field *fields, size_t nfields)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, put_all(cJSON_CreateObject(), (const char *)items + i * size, fields, nfields));
    return a;
}

static cJSON *acted(const struct rt_replay_report *r)
{
    cJSON *j = cJSON_CreateObject();
    for (size_t i = 0; j && i < r->acted_count; i++) {
        const struct rt_report_acted *a = &r->acted[i];
        cJSON *o = cJSON_AddObjectToObject(j, a->workaround);
        for (size_t c = 0; o && c < a->counter_count; c++)
            cJSON_AddNumberToObject(o, a->counters[c].name, (double)a->counters[c].value);
        if (o && a->names_key)
            cJSON_AddItemToObject(o, a->names_key, strings(a->names, a->name_count));
    }
    return j;
}

static cJSON *applied(const struct rt_replay_report *r)
{
    cJSON *j = cJSON_CreateObject();
    for (size_t i = 0; j && i < r->delays_applied_count; i++)
        put_all(cJSON_AddObjectToObject(j, r->delays_applied[i].event), &r->delays_applied[i], applied_fields,
                N(applied_fields));
    return j;
}

static cJSON *nullable(bool present, const struct rt_replay_report *r, const struct field *fields, size_t n)
{
    return present ? put_all(cJSON_CreateObject(), r, fields, n) : cJSON_CreateNull();
}

static cJSON *configuration(const struct rt_replay_report *r)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddItemToObject(c, "workarounds", strings(r->configuration.workarounds, r->configuration.workaround_count));
    cJSON_AddItemToObject(c, "workaround_sets", strings(r->configuration.sets, r->configuration.set_count));
    cJSON_AddItemToObject(c, "delays", objects(r->configuration.delays, sizeof *r->configuration.delays,
                                               r->configuration.delay_count, delay_fields, N(delay_fields)));
    return put_all(c, r, config_tail_fields, N(config_tail_fields));
}

static cJSON *validation(const struct rt_replay_report *r)
{
    cJSON *v = put_all(cJSON_CreateObject(), r, validation_fields, N(validation_fields));
    cJSON_AddItemToObject(v, "ignore", strings(r->validation.ignore, r->validation.ignore_count));
    cJSON_AddItemToObject(v, "by_id", objects(r->validation.by_id, sizeof *r->validation.by_id,
                                              r->validation.by_id_count, id_fields, N(id_fields)));
    return v;
}

static cJSON *build(const struct rt_replay_report *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", RT_REPLAY_REPORT_FORMAT);
    cJSON_AddNumberToObject(root, "version", RT_REPLAY_REPORT_VERSION);
    cJSON_AddStringToObject(root, "retrace_version", r->retrace_version ? r->retrace_version : "");
    cJSON_AddItemToObject(root, "trace", put_all(cJSON_CreateObject(), r, trace_fields, N(trace_fields)));
    cJSON_AddItemToObject(root, "device", nullable(r->has_device, r, device_fields, N(device_fields)));
    cJSON_AddItemToObject(root, "configuration", configuration(r));
    cJSON *f = cJSON_AddObjectToObject(root, "frames");
    cJSON_AddNumberToObject(f, "replayed", (double)r->frames.replayed);
    cJSON *ms = cJSON_AddArrayToObject(f, "per_frame_cpu_ms");
    for (size_t i = 0; ms && i < r->frames.count; i++)
        cJSON_AddItemToArray(ms, cJSON_CreateNumber(r->frames.per_frame_cpu_ms[i]));
    cJSON_AddItemToObject(root, "screenshots", objects(r->screenshots, sizeof *r->screenshots, r->screenshot_count,
                                                       screenshot_fields, N(screenshot_fields)));
    cJSON_AddNumberToObject(root, "readbacks", (double)r->readbacks);
    cJSON_AddItemToObject(root, "validation", validation(r));
    cJSON_AddItemToObject(root, "verify", put_all(cJSON_CreateObject(), r, verify_fields, N(verify_fields)));
    cJSON_AddItemToObject(root, "workarounds_acted", acted(r));
    cJSON_AddItemToObject(root, "delays_applied", applied(r));
    cJSON_AddItemToObject(root, "gpu_stall", nullable(r->has_gpu_stall, r, gpu_stall_fields, N(gpu_stall_fields)));
    cJSON_AddItemToObject(root, "pipeline_cache",
                          nullable(r->has_pipeline_cache, r, pipeline_cache_fields, N(pipeline_cache_fields)));
    cJSON_AddNumberToObject(root, "wall_ms", r->wall_ms);
    cJSON_AddItemToObject(root, "exit", put_all(cJSON_CreateObject(), r, exit_fields, N(exit_fields)));
    return root;
}

rt_status rt_replay_report_encode(const struct rt_replay_report *report, char **json_out)
{
    cJSON *root = build(report);
    *json_out = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return *json_out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

/* --- decoding ------------------------------------------------------------------ */

struct reader {
    struct rt_arena *arena;
    bool oom;
};

static const char *copy(struct reader *rd, const char *s)
{
    char *c = rt_arena_strndup(rd->arena, s, strlen(s));
    rd->oom |= !c;
    return c;
}

static void *array_of(struct reader *rd, size_t n, size_t size)
{
    void *p = n ? rt_arena_calloc(rd->arena, n, size, 8) : NULL;
    rd->oom |= n && !p;
    return p;
}

/* A (the array or object walked) when OK, else NULL: nothing to walk. */
static const cJSON *when(bool ok, const cJSON *a) { return ok ? a : NULL; }

static double number(const cJSON *v) { return cJSON_IsNumber(v) ? v->valuedouble : 0; }

static uint64_t whole(const cJSON *v)
{
    double d = number(v);
    return d > 0 && d < 18446744073709551616.0 ? (uint64_t)d : 0;
}

static void get(struct reader *rd, const cJSON *obj, void *base, const struct field *f)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, f->key);
    char *at = (char *)base + f->offset;
    const char *s = NULL;
    switch (f->kind) {
    case K_STR:
    case K_STR_OR_NULL:
        if (cJSON_IsString(v))
            s = copy(rd, v->valuestring);
        memcpy(at, &s, sizeof s);
        return;
    case K_U64: *(uint64_t *)(void *)at = whole(v); return;
    case K_U32: *(uint32_t *)(void *)at = (uint32_t)whole(v); return;
    case K_INT: *(int *)(void *)at = (int)number(v); return;
    case K_F64: *(double *)(void *)at = number(v); return;
    case K_BOOL: *(bool *)(void *)at = cJSON_IsTrue(v); return;
    }
}

static void get_all(struct reader *rd, const cJSON *obj, void *base, const struct field *fields, size_t n)
{
    for (size_t i = 0; i < n; i++)
        get(rd, obj, base, &fields[i]);
}

static const char *const *read_strings(struct reader *rd, const cJSON *a, size_t *count)
{
    size_t n = cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0, k = 0;
    const char **items = array_of(rd, n, sizeof *items);
    const cJSON *e;
    cJSON_ArrayForEach(e, when(cJSON_IsArray(a) && items, a))
        items[k++] = copy(rd, cJSON_IsString(e) ? e->valuestring : "");
    *count = items ? n : 0;
    return items;
}

static void *read_objects(struct reader *rd, const cJSON *a, size_t size, const struct field *fields, size_t nfields,
                          size_t *count)
{
    size_t n = cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0, k = 0;
    char *items = array_of(rd, n, size);
    const cJSON *e;
    cJSON_ArrayForEach(e, when(cJSON_IsArray(a) && items, a))
        get_all(rd, e, items + size * k++, fields, nfields);
    *count = items ? n : 0;
    return items;
}

/* One workaround's object: numbers are counters, the one array its names. */
static void read_acted_one(struct reader *rd, const cJSON *o, struct rt_report_acted *a)
{
    size_t n = 0, k = 0;
    const cJSON *e;
    a->workaround = copy(rd, o->string);
    cJSON_ArrayForEach(e, o)
        n += cJSON_IsNumber(e);
    struct rt_report_counter *counters = array_of(rd, n, sizeof *counters);
    cJSON_ArrayForEach(e, o) {
        if (cJSON_IsNumber(e) && counters)
            counters[k++] = (struct rt_report_counter){copy(rd, e->string), whole(e)};
        else if (cJSON_IsArray(e) && !a->names_key) {
            a->names_key = copy(rd, e->string);
            a->names = read_strings(rd, e, &a->name_count);
        }
    }
    a->counters = counters;
    a->counter_count = counters ? n : 0;
}

static void read_acted(struct reader *rd, const cJSON *j, struct rt_replay_report *r)
{
    size_t n = cJSON_IsObject(j) ? (size_t)cJSON_GetArraySize(j) : 0, k = 0;
    struct rt_report_acted *items = array_of(rd, n, sizeof *items);
    const cJSON *o;
    cJSON_ArrayForEach(o, when(cJSON_IsObject(j) && items, j))
        if (cJSON_IsObject(o))
            read_acted_one(rd, o, &items[k++]);
    r->acted = items;
    r->acted_count = k;
}

static void read_applied(struct reader *rd, const cJSON *j, struct rt_replay_report *r)
{
    size_t n = cJSON_IsObject(j) ? (size_t)cJSON_GetArraySize(j) : 0, k = 0;
    struct rt_report_delay_applied *items = array_of(rd, n, sizeof *items);
    const cJSON *o;
    cJSON_ArrayForEach(o, when(cJSON_IsObject(j) && items, j)) {
        if (!cJSON_IsObject(o))
            continue;
        get_all(rd, o, &items[k], applied_fields, N(applied_fields));
        items[k++].event = copy(rd, o->string);
    }
    r->delays_applied = items;
    r->delays_applied_count = k;
}

static const cJSON *item(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

static void read_configuration(struct reader *rd, const cJSON *c, struct rt_replay_report *r)
{
    r->configuration.workarounds = read_strings(rd, item(c, "workarounds"), &r->configuration.workaround_count);
    r->configuration.sets = read_strings(rd, item(c, "workaround_sets"), &r->configuration.set_count);
    r->configuration.delays = read_objects(rd, item(c, "delays"), sizeof *r->configuration.delays, delay_fields,
                                           N(delay_fields), &r->configuration.delay_count);
    get_all(rd, c, r, config_tail_fields, N(config_tail_fields));
}

static void read_root(struct reader *rd, const cJSON *root, struct rt_replay_report *r)
{
    const cJSON *v = item(root, "retrace_version"), *dev = item(root, "device"), *f = item(root, "frames");
    r->retrace_version = cJSON_IsString(v) ? copy(rd, v->valuestring) : NULL;
    get_all(rd, item(root, "trace"), r, trace_fields, N(trace_fields));
    if ((r->has_device = cJSON_IsObject(dev)))
        get_all(rd, dev, r, device_fields, N(device_fields));
    read_configuration(rd, item(root, "configuration"), r);
    r->frames.replayed = whole(item(f, "replayed"));
    const cJSON *ms = item(f, "per_frame_cpu_ms"), *e;
    size_t n = cJSON_IsArray(ms) ? (size_t)cJSON_GetArraySize(ms) : 0, k = 0;
    double *times = array_of(rd, n, sizeof *times);
    cJSON_ArrayForEach(e, when(cJSON_IsArray(ms) && times, ms))
        times[k++] = number(e);
    r->frames.per_frame_cpu_ms = times;
    r->frames.count = times ? n : 0;
    r->screenshots = read_objects(rd, item(root, "screenshots"), sizeof *r->screenshots, screenshot_fields,
                                  N(screenshot_fields), &r->screenshot_count);
    r->readbacks = whole(item(root, "readbacks"));
    const cJSON *val = item(root, "validation");
    get_all(rd, val, r, validation_fields, N(validation_fields));
    r->validation.ignore = read_strings(rd, item(val, "ignore"), &r->validation.ignore_count);
    r->validation.by_id = read_objects(rd, item(val, "by_id"), sizeof *r->validation.by_id, id_fields, N(id_fields),
                                       &r->validation.by_id_count);
    get_all(rd, item(root, "verify"), r, verify_fields, N(verify_fields));
    read_acted(rd, item(root, "workarounds_acted"), r);
    read_applied(rd, item(root, "delays_applied"), r);
    if ((r->has_gpu_stall = cJSON_IsObject(item(root, "gpu_stall"))))
        get_all(rd, item(root, "gpu_stall"), r, gpu_stall_fields, N(gpu_stall_fields));
    if ((r->has_pipeline_cache = cJSON_IsObject(item(root, "pipeline_cache"))))
        get_all(rd, item(root, "pipeline_cache"), r, pipeline_cache_fields, N(pipeline_cache_fields));
    r->wall_ms = number(item(root, "wall_ms"));
    get_all(rd, item(root, "exit"), r, exit_fields, N(exit_fields));
}

rt_status rt_replay_report_decode(const char *json, struct rt_arena *arena, struct rt_replay_report *out)
{
    memset(out, 0, sizeof *out);
    cJSON *root = json ? cJSON_Parse(json) : NULL;
    const cJSON *format = item(root, "format"), *version = item(root, "version");
    if (!cJSON_IsObject(root) || !cJSON_IsString(format) || strcmp(format->valuestring, RT_REPLAY_REPORT_FORMAT) ||
        number(version) != RT_REPLAY_REPORT_VERSION) {
        cJSON_Delete(root);
        return rt_errorf(RT_ERR_BAD_INPUT, "not a version %d replay report", RT_REPLAY_REPORT_VERSION);
    }
    struct reader rd = {arena, false};
    read_root(&rd, root, out);
    cJSON_Delete(root);
    if (rd.oom) {
        memset(out, 0, sizeof *out);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading a replay report");
    }
    return rt_ok_status();
}
