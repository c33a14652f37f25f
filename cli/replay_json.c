/* cli/replay_json.c — `retrace replay --json`: the result as one JSON object (see cli.h). */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"
#include "replay.h"

/* The exit status the text mode would give, as a status with a message. */
static rt_status verdict(const struct rt_replay_options *o, const struct rt_replay_result *res,
                         rt_status status, int frames_rc)
{
    if (!rt_ok(&status))
        return status;
    if (frames_rc)
        return rt_errorf(frames_rc, "--frames names frames that were not saved (the last frame replayed is %"
                         PRIu64 "; the warnings say which and why)", res->last_frame);
    if (o->validate && res->validation_errors)
        return rt_errorf(RT_ERR_FAILED, "validation: %" PRIu64 " errors", res->validation_errors);
    if (o->verify && res->verify_divergences && res->verify_same_kind)
        return rt_errorf(RT_ERR_FAILED, "verify: the replay diverged from the capture %s",
                         res->verify_first);
    return status;
}

static void add_u64(cJSON *o, const char *key, uint64_t v) { cJSON_AddNumberToObject(o, key, (double)v); }

static void add_counts(cJSON *j, const struct rt_replay_options *o, const struct rt_replay_result *res)
{
    add_u64(j, "frames", res->frames);
    add_u64(j, "calls", res->calls);
    add_u64(j, "skipped_calls", res->skipped_calls);
    add_u64(j, "memory_updates", res->memory_updates);
    cJSON_AddNumberToObject(j, "seconds", res->seconds);
    add_u64(j, "screenshots", res->screenshots);
    add_u64(j, "readbacks", res->readbacks);
    add_u64(j, "images_not_saved", res->conversion_warnings); /* each warned on stderr */
    add_u64(j, "last_frame", res->last_frame);
    add_u64(j, "unsupported", res->unsupported);
    cJSON_AddBoolToObject(j, "good_prefix_only", res->good_prefix_only);
    cJSON *m = res->device_name[0] ? cJSON_AddObjectToObject(j, "memory") : NULL; /* none: no device was chosen */
    if (m)
        cJSON_AddStringToObject(m, "mode", res->memory_rebound ? "rebind" : "direct");
    if (m && res->memory_rebound) {
        add_u64(m, "placed", res->rebind_placed);
        add_u64(m, "moved", res->rebind_moved);
    }
    if (o->validate) {
        cJSON *v = cJSON_AddObjectToObject(j, "validation");
        add_u64(v, "errors", res->validation_errors);
        add_u64(v, "warnings", res->validation_warnings);
        add_u64(v, "ignored", res->validation_ignored);
        add_u64(v, "replay_own", res->validation_replay);
        cJSON *ids = cJSON_AddArrayToObject(v, "by_id");
        for (uint32_t i = 0; ids && i < res->validation_id_count; i++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "id", res->validation_ids[i].id);
            add_u64(e, "errors", res->validation_ids[i].errors);
            add_u64(e, "warnings", res->validation_ids[i].warnings);
            cJSON_AddBoolToObject(e, "ignored", res->validation_ids[i].ignored);
            cJSON_AddItemToArray(ids, e);
        }
    }
    if (o->verify) {
        cJSON *v = cJSON_AddObjectToObject(j, "verify");
        add_u64(v, "points", res->verify_points);
        add_u64(v, "divergences", res->verify_divergences);
        cJSON_AddBoolToObject(v, "same_kind_of_device", res->verify_same_kind);
        cJSON_AddBoolToObject(v, "checked", rt_replay_verify_checked(res));
        if (!rt_replay_verify_checked(res))
            cJSON_AddStringToObject(v, "note", rt_replay_verify_nothing_why);
    }
}

static int print_object(cJSON *j)
{
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!text)
        return cli_fail(rt_errorf(RT_ERR_INTERNAL, "out of memory printing JSON"));
    printf("%s\n", text);
    cJSON_free(text);
    return 0;
}

static cJSON *result_object(const struct rt_replay_options *o, const struct rt_replay_result *res, int code,
                            const char *name, const char *message)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "trace", o->trace_path);
    cJSON_AddStringToObject(j, "device", res->device_name);
    add_counts(j, o, res);
    if (code) {
        cJSON *e = cJSON_AddObjectToObject(j, "error");
        cJSON_AddNumberToObject(e, "code", code);
        cJSON_AddStringToObject(e, "name", name);
        cJSON_AddStringToObject(e, "message", message);
    }
    return j;
}

int cli_replay_json_result(const struct rt_replay_options *o, const struct rt_replay_result *res,
                           rt_status status, int frames_rc)
{
    rt_status v = verdict(o, res, status, frames_rc);
    int rc = print_object(result_object(o, res, (int)v.code, rt_code_name(v.code), v.msg));
    enum rt_code code = rt_status_drop(v); /* STATUS ends here */
    return rc ? rc : (int)code;
}

void cli_replay_json_crash(const struct rt_replay_options *o, const struct rt_replay_result *res, int code,
                           const char *message)
{
    int rc = print_object(result_object(o, res, code, code == CLI_EXIT_DRIVER_CRASHED ? "driver-crashed"
                                        : rt_code_name(RT_ERR_INTERNAL), message));
    (void)rc; /* the crash's exit code stands */
}
