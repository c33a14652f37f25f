/*
 * store/store_upload.c — importing a run upload (docs/FORMATS.md section 2,
 * what `retrace run --server` sends) into the store in ONE transaction:
 * either the run and every result are recorded or nothing is. Idempotent by
 * the run's uuid. Every field is checked before it is stored; images arrive
 * as base64 and must decode to PNG bytes.
 */
#include "store_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TEXT 4096

struct upload_result {
    struct rt_result r;
    const char *trace;
    uint8_t *actual, *diff;
    char *report;
};

/* ---- field readers --------------------------------------------------------- */

/* An optional string: NULL when absent or null; false when of another type or too long. */
static bool opt_string(const cJSON *obj, const char *key, const char **out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!item || cJSON_IsNull(item))
        return true;
    if (!cJSON_IsString(item) || strlen(item->valuestring) > MAX_TEXT)
        return false;
    *out = item->valuestring;
    return true;
}

/* An optional finite number: DEF when absent or null. */
static bool opt_number(const cJSON *obj, const char *key, double def, double *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!item || cJSON_IsNull(item))
        return true;
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return false;
    *out = item->valuedouble;
    return true;
}

static bool valid_uuid(const char *id)
{
    if (!id || strlen(id) != 36)
        return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        char c = id[i];
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (dash ? c != '-' : !hex)
            return false;
    }
    return true;
}

static int base64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Strict base64 (padding required); false on any other byte. */
static bool base64_decode(const char *text, uint8_t **out, size_t *size_out)
{
    size_t n = strlen(text);
    if (n == 0 || n % 4)
        return false;
    size_t pad = (text[n - 1] == '=') + (n > 1 && text[n - 2] == '=');
    uint8_t *bytes = malloc(n / 4 * 3);
    if (!bytes)
        return false;
    size_t size = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t group = 0;
        for (size_t j = 0; j < 4; j++) {
            bool padding = i + j >= n - pad;
            int v = padding ? (text[i + j] == '=' ? 0 : -1) : base64_value((unsigned char)text[i + j]);
            if (v < 0) {
                free(bytes);
                return false;
            }
            group = group << 6 | (uint32_t)v;
        }
        bytes[size++] = (uint8_t)(group >> 16);
        bytes[size++] = (uint8_t)(group >> 8);
        bytes[size++] = (uint8_t)group;
    }
    *out = bytes;
    *size_out = size - pad;
    return true;
}

/* An optional base64 PNG; false when it is not base64 or not a PNG. */
static bool opt_png(const cJSON *obj, const char *key, uint8_t **out, size_t *size_out)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    *size_out = 0;
    if (!item || cJSON_IsNull(item))
        return true;
    if (!cJSON_IsString(item) || !base64_decode(item->valuestring, out, size_out))
        return false;
    return *size_out > sizeof signature && !memcmp(*out, signature, sizeof signature);
}

/* ---- one result ------------------------------------------------------------- */

static rt_status bad(size_t index, const char *what)
{
    return rt_errorf(RT_ERR_BAD_INPUT, "results[%zu]: %s", index, what);
}

static rt_status read_metrics(const cJSON *item, size_t i, struct rt_result *r)
{
    double diff_pixels, max_diff, attempts;
    if (!opt_number(item, "ssim", NAN, &r->ssim) ||
        !opt_number(item, "ssim_worst_tile", NAN, &r->ssim_worst_tile) ||
        !opt_number(item, "psnr", NAN, &r->psnr) ||
        !opt_number(item, "threshold", NAN, &r->threshold) ||
        !opt_number(item, "tile_threshold", NAN, &r->tile_threshold) ||
        !opt_number(item, "delta_e", NAN, &r->delta_e) ||
        !opt_number(item, "colour_threshold", NAN, &r->colour_threshold) ||
        !opt_number(item, "replay_ms", NAN, &r->replay_ms) ||
        !opt_number(item, "diff_pixels", -1, &diff_pixels) ||
        !opt_number(item, "max_diff", -1, &max_diff) ||
        !opt_number(item, "attempts", 1, &attempts))
        return bad(i, "a metric is not a number");
    if (diff_pixels < -1 || diff_pixels > 1e15 || max_diff < -1 || max_diff > 65535 ||
        attempts < 1 || attempts > 1000)
        return bad(i, "diff_pixels, max_diff or attempts out of range");
    if (r->delta_e < 0 || r->colour_threshold < 0)
        return bad(i, "delta_e or colour_threshold is negative");
    r->diff_pixels = (int64_t)diff_pixels;
    r->max_diff = (int32_t)max_diff;
    r->attempts = (uint32_t)attempts;
    return rt_ok_status();
}

static rt_status read_result(const cJSON *item, size_t i, struct upload_result *u)
{
    struct rt_result *r = &u->r;
    const char *status = NULL;
    const cJSON *frame = cJSON_GetObjectItemCaseSensitive(item, "frame");
    if (!cJSON_IsObject(item))
        return bad(i, "not an object");
    if (!opt_string(item, "trace", &u->trace) || !u->trace || !*u->trace)
        return bad(i, "\"trace\" is missing");
    if (!cJSON_IsNumber(frame) || frame->valuedouble < 0 || frame->valuedouble > 1e9 ||
        frame->valuedouble != floor(frame->valuedouble))
        return bad(i, "\"frame\" is missing or not a frame number");
    r->frame = (uint32_t)frame->valuedouble;
    if (!opt_string(item, "status", &status) || !rt_result_status_parse(status, &r->status))
        return bad(i, "\"status\" is missing or not pass/fail/new/error/crash/timeout/flaky");
    if (!opt_string(item, "configuration", &r->configuration) ||
        !opt_string(item, "golden_hash", &r->golden_hash) ||
        !opt_string(item, "message", &r->message))
        return bad(i, "configuration, golden_hash and message must be strings");
    RT_TRY(read_metrics(item, i, r));
    if (!opt_png(item, "actual_png", &u->actual, &r->actual_png_size) ||
        !opt_png(item, "diff_png", &u->diff, &r->diff_png_size))
        return bad(i, "actual_png and diff_png must be base64 PNG images");
    r->actual_png = u->actual;
    r->diff_png = u->diff;
    const cJSON *report = cJSON_GetObjectItemCaseSensitive(item, "report");
    if (cJSON_IsObject(report) && !(u->report = cJSON_PrintUnformatted(report)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->report = u->report;
    return rt_ok_status();
}

/* ---- the run ---------------------------------------------------------------- */

static const char sql_golden_by_hash[] =
    "SELECT g.id FROM goldens g JOIN traces t ON t.id = g.trace_id"
    " WHERE g.hash = ?1 AND t.name = ?2 AND g.frame = ?3 ORDER BY g.id LIMIT 1";

/* This store's id of the golden the farm compared with, 0 when it lacks it. */
static rt_status map_golden(struct rt_store *store, struct upload_result *u)
{
    if (!u->r.golden_hash)
        return rt_ok_status();
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_golden_by_hash, &stmt));
    sqlite3_bind_text(stmt, 1, u->r.golden_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, u->trace, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, u->r.frame);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        u->r.golden_id = sqlite3_column_int64(stmt, 0);
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE
               ? rt_ok_status() : rt_store_sql_error(store, rc, "looking up a golden");
}

static rt_status read_run_info(const cJSON *run, struct rt_run_info *info, char **configs_out)
{
    if (!cJSON_IsObject(run))
        return rt_errorf(RT_ERR_BAD_INPUT, "\"run\" is missing");
    if (!opt_string(run, "id", &info->uuid) || !valid_uuid(info->uuid))
        return rt_errorf(RT_ERR_BAD_INPUT, "run.id is missing or not a UUID");
    const char *finished = NULL, *outcome = NULL;
    if (!opt_string(run, "label", &info->label) || !opt_string(run, "shard", &info->shard) ||
        !opt_string(run, "host", &info->host) || !opt_string(run, "device", &info->device) ||
        !opt_string(run, "driver", &info->driver) ||
        !opt_string(run, "device_key", &info->device_key) ||
        !opt_string(run, "retrace_version", &info->version) ||
        !opt_string(run, "started_at", &info->started_at) ||
        !opt_string(run, "finished_at", &finished) || !opt_string(run, "outcome", &outcome))
        return rt_errorf(RT_ERR_BAD_INPUT, "run: a text field is not a string");
    const cJSON *configs = cJSON_GetObjectItemCaseSensitive(run, "configurations");
    if (configs && !cJSON_IsNull(configs) && !cJSON_IsArray(configs))
        return rt_errorf(RT_ERR_BAD_INPUT, "run.configurations is not an array");
    if (cJSON_IsArray(configs) && !(*configs_out = cJSON_PrintUnformatted(configs)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    info->configurations = *configs_out;
    return rt_ok_status();
}

/* Records the results of TRACE (every one of ITEMS with that trace) at once. */
static rt_status record_trace(struct rt_store *store, int64_t run_id, struct upload_result *items,
                              size_t count, size_t first, bool *done)
{
    const char *trace = items[first].trace;
    struct rt_result *batch = malloc(count * sizeof *batch);
    if (!batch)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    size_t n = 0;
    for (size_t i = first; i < count; i++)
        if (!done[i] && !strcmp(items[i].trace, trace)) {
            done[i] = true;
            batch[n++] = items[i].r;
        }
    rt_status s = rt_store_record_trace_results(store, run_id, trace, batch, n);
    free(batch);
    return s;
}

static rt_status record(struct rt_store *store, const cJSON *upload, struct upload_result *items,
                        size_t count, int64_t *run_id_out, bool *duplicate_out)
{
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(upload, "run");
    struct rt_run_info info = {0};
    char *configs = NULL;
    rt_status s = read_run_info(run, &info, &configs);
    if (rt_ok(&s))
        s = rt_store_run_find_uuid(store, info.uuid, run_id_out);
    if (rt_ok(&s) && *run_id_out) {
        *duplicate_out = true; /* already recorded: change nothing */
        free(configs);
        return s;
    }
    if (rt_ok(&s))
        s = rt_store_run_begin(store, &info, run_id_out);
    free(configs);
    for (size_t i = 0; rt_ok(&s) && i < count; i++)
        s = map_golden(store, &items[i]);
    bool *done = calloc(count + 1, sizeof *done);
    if (!done && rt_ok(&s))
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; rt_ok(&s) && i < count; i++)
        if (!done[i])
            s = record_trace(store, *run_id_out, items, count, i, done);
    free(done);
    const char *finished = NULL, *outcome = NULL;
    (void)opt_string(run, "finished_at", &finished);
    (void)opt_string(run, "outcome", &outcome);
    if (rt_ok(&s) && (finished || outcome))
        s = rt_store_run_finish_at(store, *run_id_out, finished, outcome);
    return s;
}

static rt_status check_format(const cJSON *upload, const cJSON **results_out)
{
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(upload, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(upload, "version");
    if (!cJSON_IsObject(upload) || !cJSON_IsString(format) ||
        strcmp(format->valuestring, "retrace-run") != 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "not a run upload (\"format\": \"retrace-run\" missing)");
    if (!cJSON_IsNumber(version) || version->valuedouble != 1)
        return rt_errorf(RT_ERR_BAD_INPUT, "run upload version must be 1");
    *results_out = cJSON_GetObjectItemCaseSensitive(upload, "results");
    if (!cJSON_IsArray(*results_out))
        return rt_errorf(RT_ERR_BAD_INPUT, "\"results\" is missing or not an array");
    return rt_ok_status();
}

rt_status rt_store_upload_import(struct rt_store *store, const cJSON *upload,
                                 int64_t *run_id_out, bool *duplicate_out)
{
    *run_id_out = 0;
    *duplicate_out = false;
    const cJSON *results = NULL;
    RT_TRY(check_format(upload, &results));
    size_t count = (size_t)cJSON_GetArraySize(results);
    struct upload_result *items = calloc(count + 1, sizeof *items);
    if (!items)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status s = rt_ok_status();
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, results) {
        s = read_result(item, i, &items[i]);
        if (!rt_ok(&s))
            break;
        i++;
    }
    if (rt_ok(&s))
        s = rt_store_tx_begin(store);
    if (rt_ok(&s))
        s = rt_store_tx_end(store, record(store, upload, items, count, run_id_out, duplicate_out));
    for (size_t j = 0; j < count; j++) {
        free(items[j].actual);
        free(items[j].diff);
        cJSON_free(items[j].report);
    }
    free(items);
    if (!rt_ok(&s))
        *run_id_out = 0;
    return s;
}
