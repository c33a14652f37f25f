/*
 * wire/sync.c — the golden sync answer (docs/FORMATS.md section 5.1):
 * goldens (metadata only, images travel by hash) and expectations of one
 * device key, to JSON and back.
 */
#include "fields.h"

#include <string.h>

static cJSON *expectation_json(const struct rt_wire_expectation *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trace", e->trace);
    cJSON_AddStringToObject(o, "device_key", e->device_key ? e->device_key : "");
    cJSON_AddStringToObject(o, "kind", rt_expect_kind_name(e->kind));
    cJSON_AddStringToObject(o, "note", e->note ? e->note : "");
    cJSON_AddStringToObject(o, "set_by", e->set_by ? e->set_by : "");
    cJSON_AddItemToObject(o, "updated_at", rt_wire_string_or_null(e->updated_at));
    return o;
}

rt_status rt_sync_encode(const struct rt_sync_set *set, char **json_out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "retrace-sync");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddStringToObject(root, "device_key", set->device_key ? set->device_key : "");
    cJSON_AddNumberToObject(root, "seq", (double)set->seq);
    if (set->unchanged) {
        cJSON_AddBoolToObject(root, "unchanged", true);
    } else {
        cJSON *goldens = cJSON_AddArrayToObject(root, "goldens");
        for (size_t i = 0; goldens && i < set->golden_count; i++)
            cJSON_AddItemToArray(goldens, rt_wire_golden_json(&set->goldens[i], false));
        cJSON *expects = cJSON_AddArrayToObject(root, "expectations");
        for (size_t i = 0; expects && i < set->expectation_count; i++)
            cJSON_AddItemToArray(expects, expectation_json(&set->expectations[i]));
    }
    *json_out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return *json_out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

static rt_status decode_expectation(struct rt_arena *a, const cJSON *o, long index,
                                    struct rt_wire_expectation *e)
{
    struct rt_wire_path at = {"expectations", index};
    const char *kind = NULL;
    if (!cJSON_IsObject(o))
        return rt_errorf(RT_ERR_BAD_INPUT, "expectations[%ld]: not an object", index);
    RT_TRY(rt_wire_string(a, o, &at, "trace", true, &e->trace));
    RT_TRY(rt_wire_string(a, o, &at, "device_key", false, &e->device_key));
    e->device_key = e->device_key ? e->device_key : "";
    RT_TRY(rt_wire_string(a, o, &at, "kind", true, &kind));
    if (!rt_expect_kind_parse(kind, &e->kind) || e->kind == RT_EXPECT_NONE)
        return rt_wire_bad(&at, "kind", "expected skip, flaky, crash or hang");
    RT_TRY(rt_wire_string(a, o, &at, "note", false, &e->note));
    RT_TRY(rt_wire_string(a, o, &at, "set_by", false, &e->set_by));
    return rt_wire_time(a, o, &at, "updated_at", false, &e->updated_at);
}

static rt_status decode_lists(struct rt_sync_set *out, const cJSON *root)
{
    const cJSON *goldens = cJSON_GetObjectItemCaseSensitive(root, "goldens");
    const cJSON *expects = cJSON_GetObjectItemCaseSensitive(root, "expectations");
    if (!cJSON_IsArray(goldens) || !cJSON_IsArray(expects))
        return rt_errorf(RT_ERR_BAD_INPUT, "goldens and expectations: expected arrays");
    out->golden_count = (size_t)cJSON_GetArraySize(goldens);
    out->expectation_count = (size_t)cJSON_GetArraySize(expects);
    out->goldens = rt_arena_calloc(&out->arena, out->golden_count + 1, sizeof *out->goldens, 8);
    out->expectations =
        rt_arena_calloc(&out->arena, out->expectation_count + 1, sizeof *out->expectations, 8);
    if (!out->goldens || !out->expectations)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    long i = 0;
    const cJSON *item;
    struct rt_wire_path at = {"goldens", 0};
    cJSON_ArrayForEach(item, goldens) {
        at.index = i;
        RT_TRY(rt_wire_decode_golden(&out->arena, item, &at, false, &out->goldens[i++]));
    }
    i = 0;
    cJSON_ArrayForEach(item, expects) {
        RT_TRY(decode_expectation(&out->arena, item, i, &out->expectations[i]));
        i++;
    }
    return rt_ok_status();
}

static rt_status decode_root(struct rt_sync_set *out, const cJSON *root)
{
    struct rt_wire_path at = {"", -1};
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsObject(root) || !cJSON_IsString(format) || strcmp(format->valuestring, "retrace-sync"))
        return rt_errorf(RT_ERR_BAD_INPUT, "format: not a sync answer (\"format\": \"retrace-sync\" missing)");
    double version, seq;
    RT_TRY(rt_wire_number(root, &at, "version", 1, 1, 0, &version));
    if (version != 1)
        return rt_errorf(RT_ERR_BAD_INPUT, "version: expected 1");
    RT_TRY(rt_wire_number(root, &at, "seq", 0, 9007199254740991.0, 0, &seq));
    out->seq = (int64_t)seq;
    RT_TRY(rt_wire_string(&out->arena, root, &at, "device_key", false, &out->device_key));
    out->unchanged = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "unchanged"));
    return out->unchanged ? rt_ok_status() : decode_lists(out, root);
}

rt_status rt_sync_decode(const char *json, size_t size, struct rt_sync_set *out)
{
    memset(out, 0, sizeof *out);
    rt_arena_init(&out->arena, 0, 0);
    cJSON *root = cJSON_ParseWithLength(json, size);
    rt_status s = root ? decode_root(out, root)
                       : rt_errorf(RT_ERR_BAD_INPUT, "the sync answer is not JSON");
    cJSON_Delete(root);
    if (!rt_ok(&s))
        rt_sync_finish(out);
    return s;
}

void rt_sync_finish(struct rt_sync_set *set)
{
    rt_arena_finish(&set->arena);
    memset(set, 0, sizeof *set);
}
