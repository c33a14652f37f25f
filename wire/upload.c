/*
 * wire/upload.c — the run upload (docs/FORMATS.md sections 2 and 5.2):
 * struct rt_upload to JSON and back. The encoder writes every key the
 * decoder reads, so the round trip in tests/unit/test_wire.c keeps them one
 * list.
 */
#include "fields.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

bool rt_wire_regression(enum rt_result_status status, enum rt_expect_kind expected)
{
    bool failing = status == RT_RESULT_FAIL || status == RT_RESULT_ERROR ||
                   status == RT_RESULT_CRASH || status == RT_RESULT_TIMEOUT;
    bool excused = expected == RT_EXPECT_FLAKY ||
                   (expected == RT_EXPECT_CRASH && status == RT_RESULT_CRASH) ||
                   (expected == RT_EXPECT_HANG && status == RT_RESULT_TIMEOUT);
    return failing && !excused;
}

/* ---- encode ------------------------------------------------------------------ */

static cJSON *count_or_null(int64_t v) { return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v); }

static cJSON *base64_or_null(const void *data, size_t size)
{
    if (!data || !size)
        return cJSON_CreateNull();
    char *text = rt_wire_base64_encode(data, size);
    cJSON *s = text ? cJSON_CreateString(text) : NULL;
    free(text);
    return s;
}

static cJSON *run_json(const struct rt_upload *u)
{
    const struct rt_run_info *i = &u->rec.run;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "id", rt_wire_string_or_null(i->uuid));
    cJSON_AddStringToObject(o, "label", i->label ? i->label : "");
    cJSON_AddItemToObject(o, "shard", rt_wire_string_or_null(i->shard));
    cJSON_AddStringToObject(o, "host", i->host ? i->host : "");
    cJSON_AddStringToObject(o, "device", i->device ? i->device : "");
    cJSON_AddStringToObject(o, "driver", i->driver ? i->driver : "");
    cJSON_AddStringToObject(o, "device_key", i->device_key ? i->device_key : "");
    cJSON_AddStringToObject(o, "retrace_version", i->version ? i->version : "");
    cJSON_AddItemToObject(o, "pipeline", rt_wire_string_or_null(i->pipeline));
    cJSON_AddItemToObject(o, "golden_set", rt_wire_string_or_null(i->golden_set));
    cJSON_AddItemToObject(o, "started_at", rt_wire_string_or_null(i->started_at));
    cJSON_AddItemToObject(o, "finished_at", rt_wire_string_or_null(u->rec.finished_at));
    cJSON_AddItemToObject(o, "outcome", rt_wire_string_or_null(u->rec.outcome));
    cJSON *configs = i->configurations ? cJSON_Parse(i->configurations) : NULL;
    cJSON_AddItemToObject(o, "configurations", configs ? configs : cJSON_CreateArray());
    return o;
}

static void add_metrics(cJSON *o, const struct rt_result *r)
{
    cJSON_AddItemToObject(o, "ssim", rt_wire_number_or_null(r->ssim));
    cJSON_AddItemToObject(o, "ssim_worst_tile", rt_wire_number_or_null(r->ssim_worst_tile));
    cJSON_AddItemToObject(o, "psnr", rt_wire_number_or_null(r->psnr));
    cJSON_AddItemToObject(o, "threshold", rt_wire_number_or_null(r->threshold));
    cJSON_AddItemToObject(o, "tile_threshold",
                          rt_wire_number_or_null(r->tile_threshold > 0 ? r->tile_threshold : NAN));
    bool colour = r->colour_threshold > 0; /* measured: the colour gate's number and threshold */
    cJSON_AddItemToObject(o, "delta_e", rt_wire_number_or_null(colour ? r->delta_e : NAN));
    cJSON_AddItemToObject(o, "colour_threshold",
                          rt_wire_number_or_null(colour ? r->colour_threshold : NAN));
    cJSON_AddItemToObject(o, "diff_pixels", count_or_null(r->diff_pixels));
    cJSON_AddItemToObject(o, "max_diff", count_or_null(r->max_diff));
    cJSON_AddItemToObject(o, "replay_ms", rt_wire_number_or_null(r->replay_ms));
    cJSON_AddNumberToObject(o, "attempts", r->attempts ? r->attempts : 1);
}

static cJSON *result_json(const struct rt_trace_result *w, const struct rt_wire_extra *x)
{
    const struct rt_result *r = &w->r;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trace", w->trace);
    cJSON_AddStringToObject(o, "configuration", r->configuration ? r->configuration : "default");
    cJSON_AddNumberToObject(o, "frame", r->frame);
    cJSON_AddStringToObject(o, "status", rt_result_status_name(r->status));
    add_metrics(o, r);
    cJSON_AddItemToObject(o, "golden_hash", rt_wire_string_or_null(r->golden_hash));
    cJSON_AddItemToObject(o, "actual_hash", rt_wire_string_or_null(r->actual_hash));
    cJSON_AddStringToObject(o, "message", r->message ? r->message : "");
    cJSON *report = r->report ? cJSON_Parse(r->report) : NULL;
    cJSON_AddItemToObject(o, "report", report ? report : cJSON_CreateNull());
    cJSON *tiles = r->worst_tiles ? cJSON_Parse(r->worst_tiles) : NULL;
    cJSON_AddItemToObject(o, "worst_tiles", tiles ? tiles : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "actual_png", base64_or_null(r->actual_png, r->actual_png_size));
    cJSON_AddItemToObject(o, "diff_png", base64_or_null(r->diff_png, r->diff_png_size));
    if (x && x->images_left_out)
        cJSON_AddBoolToObject(o, "images_left_out", true);
    cJSON_AddBoolToObject(o, "regression", r->regression);
    cJSON_AddStringToObject(o, "expected", r->expected ? r->expected : "none");
    cJSON_AddStringToObject(o, "expect_note", x && x->expect_note ? x->expect_note : "");
    return o;
}

static cJSON *golden_json(const struct rt_wire_golden *g, bool with_png)
{
    cJSON *o = cJSON_CreateObject();
    if (g->id)
        cJSON_AddNumberToObject(o, "id", (double)g->id);
    cJSON_AddStringToObject(o, "trace", g->trace);
    cJSON_AddNumberToObject(o, "frame", g->frame);
    cJSON_AddStringToObject(o, "device_key", g->device_key ? g->device_key : "");
    cJSON_AddStringToObject(o, "status", rt_golden_status_name(g->status));
    cJSON_AddStringToObject(o, "hash", g->hash);
    if (!with_png) {
        cJSON_AddNumberToObject(o, "size", (double)g->size);
        cJSON_AddNumberToObject(o, "width", g->width);
        cJSON_AddNumberToObject(o, "height", g->height);
    }
    cJSON_AddStringToObject(o, "approved_by", g->approved_by ? g->approved_by : "");
    cJSON_AddItemToObject(o, "approved_at", rt_wire_string_or_null(g->approved_at));
    if (with_png)
        cJSON_AddItemToObject(o, "png", base64_or_null(g->png, g->png_size));
    return o;
}

cJSON *rt_wire_golden_json(const struct rt_wire_golden *g, bool with_png) { return golden_json(g, with_png); }

static cJSON *upload_golden_json(const struct rt_golden_new *n)
{
    struct rt_wire_golden g = {.trace = n->trace, .frame = n->frame, .device_key = n->device_key,
                               .status = n->status, .approved_by = n->approved_by,
                               .approved_at = n->approved_at, .png = n->png, .png_size = n->png_size};
    rt_store_hash(n->png, n->png_size, g.hash);
    return golden_json(&g, true);
}

rt_status rt_upload_encode(const struct rt_upload *u, char **json_out)
{
    *json_out = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "retrace-run");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddItemToObject(root, "run", run_json(u));
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (size_t i = 0; results && i < u->rec.result_count; i++)
        cJSON_AddItemToArray(results, result_json(&u->rec.results[i], u->extra ? &u->extra[i] : NULL));
    cJSON *goldens = cJSON_AddArrayToObject(root, "goldens");
    for (size_t i = 0; goldens && i < u->rec.golden_count; i++)
        cJSON_AddItemToArray(goldens, upload_golden_json(&u->rec.goldens[i]));
    *json_out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return *json_out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory building the upload");
}

/* ---- decode ------------------------------------------------------------------ */

static rt_status decode_run(struct rt_upload *u, const cJSON *run)
{
    struct rt_arena *a = &u->arena;
    struct rt_wire_path at = {"run", -1};
    struct rt_run_info *i = &u->rec.run;
    if (!cJSON_IsObject(run))
        return rt_errorf(RT_ERR_BAD_INPUT, "run: missing or not an object");
    RT_TRY(rt_wire_string(a, run, &at, "id", true, &i->uuid));
    RT_TRY(rt_wire_string(a, run, &at, "label", false, &i->label));
    RT_TRY(rt_wire_string(a, run, &at, "shard", false, &i->shard));
    RT_TRY(rt_wire_string(a, run, &at, "host", false, &i->host));
    RT_TRY(rt_wire_string(a, run, &at, "device", false, &i->device));
    RT_TRY(rt_wire_string(a, run, &at, "driver", false, &i->driver));
    RT_TRY(rt_wire_string(a, run, &at, "device_key", false, &i->device_key));
    RT_TRY(rt_wire_string(a, run, &at, "retrace_version", false, &i->version));
    RT_TRY(rt_wire_string(a, run, &at, "pipeline", false, &i->pipeline));
    RT_TRY(rt_wire_string(a, run, &at, "golden_set", false, &i->golden_set));
    RT_TRY(rt_wire_time(a, run, &at, "started_at", false, &i->started_at));
    RT_TRY(rt_wire_time(a, run, &at, "finished_at", false, &u->rec.finished_at));
    /* Both are YYYY-MM-DDTHH:MM:SSZ: as text they order as times do. */
    if (i->started_at && u->rec.finished_at && strcmp(u->rec.finished_at, i->started_at) < 0)
        return rt_wire_bad(&at, "finished_at", "before run.started_at");
    RT_TRY(rt_wire_string(a, run, &at, "outcome", false, &u->rec.outcome));
    const char *outcome = u->rec.outcome;
    if (outcome && strcmp(outcome, "passed") && strcmp(outcome, "failed") && strcmp(outcome, "aborted"))
        return rt_wire_bad(&at, "outcome", "expected passed, failed or aborted");
    bool valid = strlen(i->uuid) == 36;
    for (int k = 0; valid && k < 36; k++) {
        char c = i->uuid[k];
        bool dash = k == 8 || k == 13 || k == 18 || k == 23;
        valid = dash ? c == '-' : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
    if (!valid)
        return rt_wire_bad(&at, "id", "expected a UUID");
    const cJSON *configs = cJSON_GetObjectItemCaseSensitive(run, "configurations");
    if (configs && !cJSON_IsNull(configs) && !cJSON_IsArray(configs))
        return rt_wire_bad(&at, "configurations", "expected an array");
    if (cJSON_IsArray(configs)) {
        char *text = cJSON_PrintUnformatted(configs);
        i->configurations = text ? rt_arena_strndup(a, text, strlen(text)) : NULL;
        cJSON_free(text);
        if (!i->configurations)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    return rt_ok_status();
}

static rt_status decode_metrics(const cJSON *o, const struct rt_wire_path *at, struct rt_result *r)
{
    double diff_pixels, max_diff, attempts;
    RT_TRY(rt_wire_number(o, at, "ssim", -1, 1, NAN, &r->ssim));
    RT_TRY(rt_wire_number(o, at, "ssim_worst_tile", -1, 1, NAN, &r->ssim_worst_tile));
    RT_TRY(rt_wire_number(o, at, "psnr", 0, 1e6, NAN, &r->psnr));
    RT_TRY(rt_wire_number(o, at, "threshold", 0, 1, NAN, &r->threshold));
    RT_TRY(rt_wire_number(o, at, "tile_threshold", 0, 1, NAN, &r->tile_threshold));
    RT_TRY(rt_wire_number(o, at, "delta_e", 0, 1e6, NAN, &r->delta_e));
    RT_TRY(rt_wire_number(o, at, "colour_threshold", 0, 1e6, NAN, &r->colour_threshold));
    RT_TRY(rt_wire_number(o, at, "replay_ms", 0, 1e12, NAN, &r->replay_ms));
    RT_TRY(rt_wire_number(o, at, "diff_pixels", 0, 1e15, -1, &diff_pixels));
    RT_TRY(rt_wire_number(o, at, "max_diff", 0, 65535, -1, &max_diff));
    RT_TRY(rt_wire_number(o, at, "attempts", 1, 1000, 1, &attempts));
    r->diff_pixels = (int64_t)diff_pixels;
    r->max_diff = (int32_t)max_diff;
    r->attempts = (uint32_t)attempts;
    return rt_ok_status();
}

static rt_status decode_frame(const cJSON *o, const struct rt_wire_path *at, uint32_t *frame,
                              uint32_t lowest)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "frame");
    if (!cJSON_IsNumber(f) || f->valuedouble < lowest || f->valuedouble > 1e9 ||
        f->valuedouble != floor(f->valuedouble))
        return rt_wire_bad(at, "frame", lowest ? "expected a frame number from 1"
                                               : "expected a frame number (0 for the whole trace)");
    *frame = (uint32_t)f->valuedouble;
    return rt_ok_status();
}

static rt_status decode_verdict(struct rt_arena *a, const cJSON *o, const struct rt_wire_path *at,
                                struct rt_trace_result *w, struct rt_wire_extra *x)
{
    const char *expected = NULL;
    RT_TRY(rt_wire_string(a, o, at, "expected", false, &expected));
    x->expected = RT_EXPECT_NONE;
    if (expected && !rt_expect_kind_parse(expected, &x->expected))
        return rt_wire_bad(at, "expected", "expected none, skip, flaky, crash or hang");
    w->r.expected = expected ? rt_expect_kind_name(x->expected) : NULL;
    RT_TRY(rt_wire_string(a, o, at, "expect_note", false, &x->expect_note));
    const cJSON *reg = cJSON_GetObjectItemCaseSensitive(o, "regression");
    if (reg && !cJSON_IsNull(reg) && !cJSON_IsBool(reg))
        return rt_wire_bad(at, "regression", "expected true or false");
    w->r.regression = cJSON_IsTrue(reg);
    x->images_left_out = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "images_left_out"));
    return rt_ok_status();
}

/* "worst_tiles": {"ssim": [x, y, w, h], "colour": [x, y, w, h]}, each optional. */
static rt_status decode_tiles(struct rt_arena *a, const cJSON *o, const struct rt_wire_path *at,
                              const char **out)
{
    const cJSON *tiles = cJSON_GetObjectItemCaseSensitive(o, "worst_tiles");
    *out = NULL;
    if (!tiles || cJSON_IsNull(tiles))
        return rt_ok_status();
    if (!cJSON_IsObject(tiles))
        return rt_wire_bad(at, "worst_tiles", "expected {\"ssim\": [x, y, w, h], \"colour\": [x, y, w, h]}");
    cJSON *clean = cJSON_CreateObject();
    static const char *const keys[] = {"ssim", "colour"};
    for (int k = 0; clean && k < 2; k++) {
        const cJSON *box = cJSON_GetObjectItemCaseSensitive(tiles, keys[k]), *v;
        if (!box)
            continue;
        bool ok = cJSON_IsArray(box) && cJSON_GetArraySize(box) == 4;
        cJSON_ArrayForEach(v, box)
            ok = ok && cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 65535 &&
                 v->valuedouble == floor(v->valuedouble);
        if (!ok) {
            cJSON_Delete(clean);
            return rt_wire_bad(at, "worst_tiles", "expected boxes of 4 whole numbers from 0 to 65535");
        }
        cJSON_AddItemToObject(clean, keys[k], cJSON_Duplicate(box, 1));
    }
    char *text = clean ? cJSON_PrintUnformatted(clean) : NULL;
    cJSON_Delete(clean);
    *out = text ? rt_arena_strndup(a, text, strlen(text)) : NULL;
    cJSON_free(text);
    return *out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

static rt_status decode_result(struct rt_upload *u, const cJSON *o, long index)
{
    struct rt_trace_result *w = &u->rec.results[index];
    struct rt_arena *a = &u->arena;
    struct rt_wire_path at = {"results", index};
    struct rt_result *r = &w->r;
    const char *status = NULL;
    if (!cJSON_IsObject(o))
        return rt_errorf(RT_ERR_BAD_INPUT, "results[%ld]: not an object", index);
    RT_TRY(rt_wire_string(a, o, &at, "trace", true, &w->trace));
    RT_TRY(decode_frame(o, &at, &r->frame, 0));
    RT_TRY(rt_wire_string(a, o, &at, "status", true, &status));
    if (!rt_result_status_parse(status, &r->status))
        return rt_wire_bad(&at, "status", "expected pass, fail, new, error, crash, timeout or flaky");
    RT_TRY(rt_wire_string(a, o, &at, "configuration", false, &r->configuration));
    RT_TRY(rt_wire_string(a, o, &at, "message", false, &r->message));
    char hash[RT_STORE_HASH_HEX + 1];
    RT_TRY(rt_wire_hash(o, &at, "golden_hash", false, hash));
    r->golden_hash = hash[0] ? rt_arena_strndup(a, hash, RT_STORE_HASH_HEX) : NULL;
    RT_TRY(rt_wire_hash(o, &at, "actual_hash", false, hash));
    r->actual_hash = hash[0] ? rt_arena_strndup(a, hash, RT_STORE_HASH_HEX) : NULL;
    RT_TRY(decode_metrics(o, &at, r));
    RT_TRY(decode_verdict(a, o, &at, w, &u->extra[index]));
    const uint8_t *png = NULL;
    RT_TRY(rt_wire_png(a, o, &at, "actual_png", &png, &r->actual_png_size, NULL, NULL));
    r->actual_png = png;
    RT_TRY(rt_wire_png(a, o, &at, "diff_png", &png, &r->diff_png_size, NULL, NULL));
    r->diff_png = png;
    RT_TRY(decode_tiles(a, o, &at, &r->worst_tiles));
    const cJSON *report = cJSON_GetObjectItemCaseSensitive(o, "report");
    if (report && !cJSON_IsNull(report) && !cJSON_IsObject(report))
        return rt_wire_bad(&at, "report", "expected an object (the replay report)");
    if (cJSON_IsObject(report)) {
        char *text = cJSON_PrintUnformatted(report);
        r->report = text ? rt_arena_strndup(a, text, strlen(text)) : NULL;
        cJSON_free(text);
        if (!r->report)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    return rt_ok_status();
}

rt_status rt_wire_decode_golden(struct rt_arena *a, const cJSON *o, const struct rt_wire_path *at,
                                bool with_png, struct rt_wire_golden *g)
{
    const char *status = NULL;
    if (!cJSON_IsObject(o))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s[%ld]: not an object", at->object, at->index);
    RT_TRY(rt_wire_string(a, o, at, "trace", true, &g->trace));
    RT_TRY(decode_frame(o, at, &g->frame, 1));
    RT_TRY(rt_wire_string(a, o, at, "device_key", false, &g->device_key));
    g->device_key = g->device_key ? g->device_key : "";
    RT_TRY(rt_wire_string(a, o, at, "status", true, &status));
    if (!rt_golden_status_parse(status, &g->status))
        return rt_wire_bad(at, "status", "expected accepted or known-bad");
    RT_TRY(rt_wire_hash(o, at, "hash", true, g->hash));
    RT_TRY(rt_wire_string(a, o, at, "approved_by", false, &g->approved_by));
    g->approved_by = g->approved_by ? g->approved_by : "";
    RT_TRY(rt_wire_time(a, o, at, "approved_at", false, &g->approved_at));
    double id, size, width, height;
    RT_TRY(rt_wire_number(o, at, "id", 0, 9007199254740991.0, 0, &id));
    RT_TRY(rt_wire_number(o, at, "size", 0, 1e12, 0, &size));
    RT_TRY(rt_wire_number(o, at, "width", 0, RT_WIRE_MAX_IMAGE_SIDE, 0, &width));
    RT_TRY(rt_wire_number(o, at, "height", 0, RT_WIRE_MAX_IMAGE_SIDE, 0, &height));
    g->id = (int64_t)id, g->size = (uint64_t)size, g->width = (uint32_t)width, g->height = (uint32_t)height;
    if (!with_png)
        return rt_ok_status();
    RT_TRY(rt_wire_png(a, o, at, "png", &g->png, &g->png_size, &g->width, &g->height));
    if (!g->png)
        return rt_wire_bad(at, "png", "missing");
    char actual[RT_STORE_HASH_HEX + 1];
    rt_store_hash(g->png, g->png_size, actual);
    if (strcmp(actual, g->hash))
        return rt_wire_bad(at, "hash", "is not the hash of png");
    g->size = g->png_size;
    return rt_ok_status();
}

static rt_status decode_array(const cJSON *root, const char *key, bool required, const cJSON **out,
                              size_t *count)
{
    *out = cJSON_GetObjectItemCaseSensitive(root, key);
    *count = 0;
    if (!*out || cJSON_IsNull(*out)) {
        *out = NULL;
        return required ? rt_errorf(RT_ERR_BAD_INPUT, "%s: missing", key) : rt_ok_status();
    }
    if (!cJSON_IsArray(*out))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: expected an array", key);
    *count = (size_t)cJSON_GetArraySize(*out);
    if (*count > RT_WIRE_MAX_RESULTS)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: more than %d entries", key, RT_WIRE_MAX_RESULTS);
    return rt_ok_status();
}

static rt_status decode_goldens(struct rt_upload *u, const cJSON *goldens)
{
    long i = 0;
    const cJSON *item;
    struct rt_wire_path at = {"goldens", 0};
    cJSON_ArrayForEach(item, goldens) {
        struct rt_wire_golden g = {0};
        at.index = i;
        RT_TRY(rt_wire_decode_golden(&u->arena, item, &at, true, &g));
        u->rec.goldens[i++] = (struct rt_golden_new){
            .trace = g.trace, .frame = g.frame, .device_key = g.device_key, .png = g.png,
            .png_size = g.png_size, .approved_by = g.approved_by, .status = g.status,
            .approved_at = g.approved_at};
    }
    return rt_ok_status();
}

static rt_status decode_lists(struct rt_upload *u, const cJSON *root)
{
    const cJSON *results, *goldens, *item;
    struct rt_store_upload *rec = &u->rec;
    RT_TRY(decode_array(root, "results", true, &results, &rec->result_count));
    RT_TRY(decode_array(root, "goldens", false, &goldens, &rec->golden_count));
    rec->results = rt_arena_calloc(&u->arena, rec->result_count + 1, sizeof *rec->results, 8);
    u->extra = rt_arena_calloc(&u->arena, rec->result_count + 1, sizeof *u->extra, 8);
    rec->goldens = rt_arena_calloc(&u->arena, rec->golden_count + 1, sizeof *rec->goldens, 8);
    if (!rec->results || !u->extra || !rec->goldens)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    long i = 0;
    cJSON_ArrayForEach(item, results)
        RT_TRY(decode_result(u, item, i++));
    return decode_goldens(u, goldens);
}

rt_status rt_upload_decode_tree(const cJSON *root, struct rt_upload *out)
{
    memset(out, 0, sizeof *out);
    rt_arena_init(&out->arena, 0, 0);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!cJSON_IsObject(root) || !cJSON_IsString(format) || strcmp(format->valuestring, "retrace-run"))
        return rt_errorf(RT_ERR_BAD_INPUT, "format: not a run upload (\"format\": \"retrace-run\" missing)");
    if (!cJSON_IsNumber(version) || version->valuedouble != 1)
        return rt_errorf(RT_ERR_BAD_INPUT, "version: expected 1");
    rt_status s = decode_run(out, cJSON_GetObjectItemCaseSensitive(root, "run"));
    if (rt_ok(&s))
        s = decode_lists(out, root);
    if (!rt_ok(&s))
        rt_upload_finish(out);
    return s;
}

rt_status rt_upload_decode(const char *json, size_t size, struct rt_upload *out)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_ParseWithLength(json, size);
    if (!root)
        return rt_errorf(RT_ERR_BAD_INPUT, "the upload is not JSON");
    rt_status s = rt_upload_decode_tree(root, out);
    cJSON_Delete(root);
    return s;
}

void rt_upload_recompute(struct rt_upload *u)
{
    bool any = false;
    for (size_t i = 0; i < u->rec.result_count; i++) {
        struct rt_result *r = &u->rec.results[i].r;
        enum rt_expect_kind expected = u->extra ? u->extra[i].expected : RT_EXPECT_NONE;
        r->regression = rt_wire_regression(r->status, expected);
        r->expected = rt_expect_kind_name(expected);
        any |= r->regression;
    }
    if (!u->rec.outcome || strcmp(u->rec.outcome, "aborted"))
        u->rec.outcome = any ? "failed" : "passed";
}

void rt_upload_finish(struct rt_upload *u)
{
    rt_arena_finish(&u->arena);
    memset(u, 0, sizeof *u);
}
