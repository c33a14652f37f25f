/*
 * server/api_diagnosis.c — failing results' diagnoses (docs/FORMATS.md 7.4):
 * the "diagnosis" member of an upload's results, checked before anything of
 * the upload is stored and recorded after the run (store_diagnosis.h); GET
 * /api/results/ID/diagnosis (the first divergent draw, its pipeline,
 * shaders and image URLs), /api/results/ID/diagnosis/ROLE (the PNG, its
 * content hash as ETag) and /api/runs/ID/diagnoses (what the run page marks
 * its rows with).
 */
#include "api_diagnosis.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "png_io.h"
#include "store_diagnosis.h"
#include "wire.h"

#define SHORT_TEXT 200
#define MAX_SHADERS 16
#define SHADER_TEXT_MAX (256u << 10)
#define RUN_PAGE 200
#define RUN_PAGE_MAX 5000

/* One uploaded diagnosis, pointing into the body and ARENA. */
struct up_diag {
    const char *trace, *configuration;
    uint32_t frame;
    struct rt_diagnosis d;
    char *shaders; /* malloc'd */
};

struct up_set {
    struct rt_arena arena;
    struct up_diag *items;
    size_t count;
    const char *uuid;
    int64_t run_id;
};

static void up_set_finish(struct up_set *u)
{
    for (size_t i = 0; i < u->count; i++)
        free(u->items[i].shaders);
    free(u->items);
    rt_arena_finish(&u->arena);
}

/* ---- checking an upload's diagnoses --------------------------------------- */

struct check {
    long index;   /* results[INDEX] */
    char why[256];
};

static bool bad(struct check *c, const char *field, const char *what)
{
    snprintf(c->why, sizeof c->why, "results[%ld].diagnosis.%s: %s", c->index, field, what);
    return false;
}

/* An optional string of at most MAX bytes: NULL when absent or null. */
static bool text(struct check *c, const cJSON *o, const char *key, size_t max, const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsString(v) || strlen(v->valuestring) > max)
        return bad(c, key, max == SHORT_TEXT ? "expected text of at most 200 bytes" : "expected text of at most 4096 bytes");
    *out = v->valuestring;
    return true;
}

/* An optional number in [LO, HI]: DEF when absent or null. */
static bool number(struct check *c, const cJSON *o, const char *key, double lo, double hi, double def, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = def;
    if (!v || cJSON_IsNull(v))
        return true;
    char what[96];
    snprintf(what, sizeof what, "expected a number from %g to %g", lo, hi);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
        return bad(c, key, what);
    *out = v->valuedouble;
    return true;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* images.ROLE: base64 of a PNG no larger than 16384 a side that decodes. */
static bool image(struct check *c, struct rt_arena *arena, const cJSON *images, int role, struct rt_diagnosis *d)
{
    const char *name = rt_diagnosis_role_name((enum rt_diagnosis_role)role);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(images, name);
    char field[64];
    snprintf(field, sizeof field, "images.%s", name);
    if (!v || cJSON_IsNull(v))
        return true;
    uint8_t *png = NULL;
    size_t size = 0;
    if (!cJSON_IsString(v) || !rt_wire_base64_decode(arena, v->valuestring, &png, &size))
        return bad(c, field, "expected base64 text");
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size < 24 || memcmp(png, signature, 8) || memcmp(png + 12, "IHDR", 4))
        return bad(c, field, "not a PNG image");
    uint32_t w = be32(png + 16), h = be32(png + 20);
    if (!w || !h || w > RT_WIRE_MAX_IMAGE_SIDE || h > RT_WIRE_MAX_IMAGE_SIDE)
        return bad(c, field, "the image is larger than 16384 pixels a side");
    struct rt_image decoded = {0};
    rt_status s = rt_png_read_memory(png, size, &decoded);
    rt_image_finish(&decoded);
    if (!rt_ok(&s)) {
        rt_status_free(&s);
        return bad(c, field, "the PNG does not decode");
    }
    d->png[role] = png, d->png_size[role] = size;
    return true;
}

static bool is_hex32(const char *s) { return s && strlen(s) == 32 && strspn(s, "0123456789abcdef") == 32; }

/* "shaders": at most 16 of {stage, xxh128, disassembly}; kept as JSON text. */
static bool shaders(struct check *c, const cJSON *o, struct up_diag *u)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "shaders");
    if (!a || cJSON_IsNull(a))
        return true;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > MAX_SHADERS)
        return bad(c, "shaders", "expected an array of at most 16 shaders");
    const cJSON *sh;
    cJSON_ArrayForEach(sh, a) {
        const char *stage = NULL, *hash = NULL, *dis = NULL;
        if (!cJSON_IsObject(sh) || !text(c, sh, "stage", SHORT_TEXT, &stage) || !text(c, sh, "xxh128", SHORT_TEXT, &hash) ||
            !text(c, sh, "disassembly", SHADER_TEXT_MAX, &dis) || !is_hex32(hash))
            return bad(c, "shaders", "each is {stage, xxh128 (32 hex digits), disassembly (at most 256 KiB)}");
    }
    u->shaders = cJSON_PrintUnformatted(a);
    u->d.shaders = u->shaders;
    return u->shaders != NULL || bad(c, "shaders", "out of memory");
}

static bool diverged_fields(struct check *c, struct rt_arena *arena, const cJSON *o, struct up_diag *u)
{
    struct rt_diagnosis *d = &u->d;
    double draw, call;
    if (!number(c, o, "draw", 1, 1e9, 0, &draw) || !number(c, o, "call", 0, 9e15, -1, &call))
        return false;
    if (draw < 1 || (d->draws >= 0 && draw > (double)d->draws))
        return bad(c, "draw", "expected a draw from 1 to draws");
    d->draw = (int64_t)draw, d->call = (int64_t)call;
    if (!text(c, o, "command", SHORT_TEXT, &d->command) || !text(c, o, "pipeline", SHORT_TEXT, &d->pipeline) ||
        !text(c, o, "target", SHORT_TEXT, &d->target) || !number(c, o, "ssim", -1, 1, NAN, &d->ssim) ||
        !number(c, o, "delta_e", 0, 1e9, NAN, &d->delta_e) || !shaders(c, o, u))
        return false;
    const cJSON *images = cJSON_GetObjectItemCaseSensitive(o, "images");
    if (images && !cJSON_IsNull(images) && !cJSON_IsObject(images))
        return bad(c, "images", "expected an object");
    for (int r = 0; images && r < RT_DIAGNOSIS_ROLES; r++)
        if (!image(c, arena, images, r, d))
            return false;
    return true;
}

static bool decode_one(struct check *c, struct rt_arena *arena, const cJSON *result, const cJSON *o, struct up_diag *u)
{
    if (!cJSON_IsObject(o)) {
        snprintf(c->why, sizeof c->why, "results[%ld].diagnosis: expected an object", c->index);
        return false;
    }
    const cJSON *frame = cJSON_GetObjectItemCaseSensitive(result, "frame");
    u->trace = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "trace"));
    u->configuration = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "configuration"));
    u->frame = cJSON_IsNumber(frame) && frame->valuedouble >= 0 && frame->valuedouble <= 1e9 ? (uint32_t)frame->valuedouble : 0;
    if (!u->trace) /* the run's own check (rt_api_upload) names it */
        return true;
    struct rt_diagnosis *d = &u->d;
    *d = (struct rt_diagnosis){.draws = -1, .replays = -1, .call = -1, .ssim = NAN, .delta_e = NAN};
    const char *outcome = NULL;
    double draws, replays;
    if (!text(c, o, "reference", RT_WIRE_MAX_TEXT, &d->reference) || !text(c, o, "message", RT_WIRE_MAX_TEXT, &d->message) ||
        !text(c, o, "outcome", SHORT_TEXT, &outcome) || !number(c, o, "draws", 0, 1e9, -1, &draws) ||
        !number(c, o, "replays", 0, 1e6, -1, &replays))
        return false;
    if (!d->reference)
        return bad(c, "reference", "missing");
    if (!rt_diagnosis_outcome_parse(outcome, &d->outcome))
        return bad(c, "outcome", "expected diverged, none, no-draws or error");
    d->draws = (int64_t)draws, d->replays = (int64_t)replays;
    return d->outcome != RT_DIAGNOSIS_DIVERGED || diverged_fields(c, arena, o, u);
}

/* Every results[i].diagnosis of BODY into U; false with C->why when one is wrong. */
static bool decode_all(const cJSON *body, struct up_set *u, struct check *c)
{
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(body, "results");
    u->uuid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(body, "run"), "id"));
    if (!cJSON_IsArray(results))
        return true; /* rt_api_upload refuses it */
    size_t n = (size_t)cJSON_GetArraySize(results);
    u->items = calloc(n + 1, sizeof *u->items);
    if (!u->items) {
        snprintf(c->why, sizeof c->why, "out of memory");
        return false;
    }
    c->index = -1;
    const cJSON *r;
    cJSON_ArrayForEach(r, results) {
        c->index++;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(r, "diagnosis");
        if (!o || cJSON_IsNull(o))
            continue;
        if (!decode_one(c, &u->arena, r, o, &u->items[u->count]))
            return false;
        if (u->items[u->count].trace)
            u->count++;
    }
    return true;
}

static rt_status record(struct rt_store *store, void *ctx)
{
    struct up_set *u = ctx;
    RT_TRY(rt_store_run_find_uuid(store, u->uuid, &u->run_id));
    if (!u->run_id)
        return rt_ok_status(); /* the upload was refused: nothing to attach to */
    for (size_t i = 0; i < u->count; i++) { /* each its own transaction, under the write lock */
        int64_t id = 0;
        const struct up_diag *d = &u->items[i];
        RT_TRY(rt_store_diagnosis_put(store, u->run_id, d->trace, d->configuration, d->frame, &d->d, false, &id));
    }
    return rt_ok_status();
}

enum MHD_Result rt_api_diagnosis_upload(struct rt_request *req, char **seg, int count)
{
    if (!rt_auth_check(req) || req->body_size == 0)
        return rt_api_write(req, seg, count); /* its 401/403, or its answer to an empty body */
    cJSON *body = cJSON_ParseWithLength(req->body, req->body_size);
    if (!cJSON_IsObject(body)) {
        cJSON_Delete(body);
        return rt_api_write(req, seg, count); /* the same 400 every write gives */
    }
    struct up_set u = {0};
    rt_arena_init(&u.arena, 0, 0);
    struct check c = {0};
    if (!decode_all(body, &u, &c)) {
        up_set_finish(&u);
        cJSON_Delete(body);
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "%s", c.why);
    }
    enum MHD_Result result = rt_api_upload(req, body);
    if (u.count && u.uuid) {
        rt_status s = rt_server_write(req->server, record, &u);
        if (!rt_ok(&s)) /* the run is recorded and answered; a repeat of the upload records these */
            fprintf(stderr, "retrace serve: warning: the diagnoses of run %s: %s\n", u.uuid, s.msg);
        rt_status_free(&s);
    }
    up_set_finish(&u);
    cJSON_Delete(body);
    return result;
}

/* ---- reads ------------------------------------------------------------------ */

static enum MHD_Result send_png(struct rt_request *req, uint8_t *png, size_t size, const char *hash)
{
    char etag[RT_STORE_HASH_HEX + 3];
    snprintf(etag, sizeof etag, "\"%s\"", hash);
    const char *match = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    bool fresh = match && (!strcmp(match, etag) || !strcmp(match, "*"));
    struct MHD_Response *response = fresh ? MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT)
                                          : MHD_create_response_from_buffer(size, png, MHD_RESPMEM_MUST_FREE);
    if (fresh || !response)
        free(png);
    if (!response)
        return MHD_NO;
    if (!fresh)
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "image/png");
    MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "private, max-age=3600");
    rt_http_common_headers(response);
    enum MHD_Result r = MHD_queue_response(req->conn, fresh ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return r;
}

static enum MHD_Result diagnosis_image(struct rt_request *req, struct rt_store *store, int64_t id, const char *role)
{
    enum rt_diagnosis_role r;
    if (!rt_diagnosis_role_parse(role, &r))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such diagnosis image: '%s'", role);
    uint8_t *png = NULL;
    size_t size = 0;
    char hash[RT_STORE_HASH_HEX + 1];
    rt_status s = rt_store_diagnosis_image(store, id, r, &png, &size, hash);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!png)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "result %lld's diagnosis has no %s image", (long long)id, role);
    return send_png(req, png, size, hash);
}

/* ?NAME= within 0..MAX, DEF when absent; false when malformed. */
static bool page_arg(struct rt_request *req, const char *name, uint32_t def, uint32_t max, uint32_t *out)
{
    const char *t = rt_http_arg(req, name);
    *out = def;
    if (!t)
        return true;
    if (strlen(t) > 9 || strspn(t, "0123456789") != strlen(t))
        return false;
    unsigned long v = strtoul(t, NULL, 10);
    *out = (uint32_t)v;
    return v <= max;
}

static enum MHD_Result run_diagnoses(struct rt_request *req, struct rt_store *store, int64_t run_id)
{
    uint32_t limit, offset;
    if (!page_arg(req, "limit", RUN_PAGE, RUN_PAGE_MAX, &limit) || !limit ||
        !page_arg(req, "offset", 0, 1000000000u, &offset))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "limit must be 1..%d and offset a number", RUN_PAGE_MAX);
    cJSON *list = NULL;
    rt_status s = rt_store_run_diagnoses(store, run_id, limit, offset, &list);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    cJSON *json = cJSON_CreateObject();
    if (!json || !cJSON_AddNumberToObject(json, "run", (double)run_id) ||
        !cJSON_AddItemToObject(json, "diagnoses", list)) {
        cJSON_Delete(list);
        cJSON_Delete(json);
        return rt_http_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    return rt_http_json(req, MHD_HTTP_OK, json);
}

static enum MHD_Result no_content(struct rt_request *req)
{
    struct MHD_Response *response = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!response)
        return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    rt_http_common_headers(response);
    enum MHD_Result r = MHD_queue_response(req->conn, MHD_HTTP_NO_CONTENT, response);
    MHD_destroy_response(response);
    return r;
}

bool rt_api_diagnosis_read(struct rt_request *req, char **seg, int count, enum MHD_Result *result)
{
    bool of_result = (count == 3 || count == 4) && !strcmp(seg[0], "results") && !strcmp(seg[2], "diagnosis");
    bool of_run = count == 3 && !strcmp(seg[0], "runs") && !strcmp(seg[2], "diagnoses");
    if (!of_result && !of_run)
        return false;
    int64_t id = 0;
    if (!rt_http_parse_id(seg[1], &id)) {
        *result = rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such %s: '%s'", of_run ? "run" : "result", seg[1]);
        return true;
    }
    struct rt_store *store = NULL;
    rt_status s = rt_server_reader(req->server, &store);
    if (!rt_ok(&s)) {
        *result = rt_http_store_error(req, &s);
        return true;
    }
    if (of_run) {
        *result = run_diagnoses(req, store, id);
        return true;
    }
    if (count == 4) {
        *result = diagnosis_image(req, store, id, seg[3]);
        return true;
    }
    cJSON *json = NULL;
    bool exists = false;
    s = rt_store_diagnosis_json(store, id, &json);
    if (rt_ok(&s) && !json)
        s = rt_store_diagnosis_result_exists(store, id, &exists);
    if (!rt_ok(&s))
        *result = rt_http_store_error(req, &s);
    else if (json)
        *result = rt_http_json(req, MHD_HTTP_OK, json);
    else if (exists) /* a result that was not diagnosed: nothing to say, and no error for the page */
        *result = no_content(req);
    else
        *result = rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such result: %lld", (long long)id);
    return true;
}
