/*
 * server/api_write.c — POST /api/...: approve a result's image as a golden,
 * mark it (or a golden) known-bad, and the run upload (api_upload.c). Every
 * write needs the bearer token, and goes through the one write connection
 * under the write lock; a database another process keeps busy is retried a
 * few times, then answered 503 so the client tries again later.
 */
#include "server_internal.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#define WRITE_ATTEMPTS 3
#define MAX_NAME 200

rt_status rt_server_write(struct rt_server *server, rt_server_write_fn fn, void *ctx)
{
    rt_status s = rt_ok_status();
    for (int attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
        pthread_mutex_lock(&server->write_lock);
        s = fn(server->writer, ctx);
        pthread_mutex_unlock(&server->write_lock);
        if (!rt_store_status_busy(&s))
            break;
        struct timespec pause = {.tv_nsec = 100000000L * (attempt + 1)};
        nanosleep(&pause, NULL);
    }
    return s;
}

/* ---- approve / known-bad ------------------------------------------------- */

struct review {
    int64_t id;
    const char *device_key, *approved_by;
    enum rt_golden_status status;
    int64_t golden_id;
};

static rt_status do_review(struct rt_store *store, void *ctx)
{
    struct review *r = ctx;
    return rt_store_dash_review(store, r->id, r->device_key, r->approved_by, r->status,
                                &r->golden_id);
}

/* An optional string member of the body; false when present but not a short string. */
static bool body_string(cJSON *body, const char *key, const char **out)
{
    cJSON *item = cJSON_GetObjectItemCaseSensitive(body, key);
    if (!item || cJSON_IsNull(item))
        return true;
    if (!cJSON_IsString(item) || strlen(item->valuestring) > MAX_NAME)
        return false;
    *out = item->valuestring;
    return true;
}

static enum MHD_Result reviewed(struct rt_request *req, const struct review *r)
{
    cJSON *json = cJSON_CreateObject();
    if (json && (!cJSON_AddNumberToObject(json, "result_id", (double)r->id) ||
                 !cJSON_AddNumberToObject(json, "golden_id", (double)r->golden_id) ||
                 !cJSON_AddStringToObject(json, "status", rt_golden_status_name(r->status)))) {
        cJSON_Delete(json);
        json = NULL;
    }
    return rt_http_json(req, MHD_HTTP_OK, json);
}

static enum MHD_Result review_result(struct rt_request *req, cJSON *body, const char *id_text,
                                     enum rt_golden_status status)
{
    struct review r = {.approved_by = "dashboard", .status = status};
    if (!rt_http_parse_id(id_text, &r.id))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such result: '%s'", id_text);
    if (!body_string(body, "device_key", &r.device_key) ||
        !body_string(body, "approved_by", &r.approved_by))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST,
                             "device_key and approved_by must be strings of at most %d bytes",
                             MAX_NAME);
    rt_status s = rt_server_write(req->server, do_review, &r);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!r.golden_id)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such result: %s", id_text);
    return reviewed(req, &r);
}

struct mark {
    int64_t id;
    enum rt_golden_status status;
    bool found;
};

static rt_status do_mark(struct rt_store *store, void *ctx)
{
    struct mark *m = ctx;
    struct rt_golden golden = {0};
    rt_status s = rt_store_golden_get(store, m->id, false, &golden);
    rt_golden_finish(&golden);
    if (!rt_ok(&s) && !rt_store_status_busy(&s))
        return rt_ok_status(); /* the only other failure of a lookup by id: unknown */
    RT_TRY(s);
    m->found = true;
    return rt_store_golden_mark(store, m->id, m->status);
}

static enum MHD_Result mark_golden(struct rt_request *req, const char *id_text,
                                   const char *status_name)
{
    struct mark m = {0};
    if (!rt_http_parse_id(id_text, &m.id))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such golden: '%s'", id_text);
    if (!rt_golden_status_parse(status_name, &m.status))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such API path");
    rt_status s = rt_server_write(req->server, do_mark, &m);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!m.found)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such golden: %s", id_text);
    cJSON *json = cJSON_CreateObject();
    if (json && (!cJSON_AddNumberToObject(json, "golden_id", (double)m.id) ||
                 !cJSON_AddStringToObject(json, "status", status_name))) {
        cJSON_Delete(json);
        json = NULL;
    }
    return rt_http_json(req, MHD_HTTP_OK, json);
}

/* ---- routing --------------------------------------------------------------- */

static enum MHD_Result unauthorized(struct rt_request *req)
{
    if (req->server->token_len == 0)
        return rt_http_error(req, MHD_HTTP_FORBIDDEN,
                             "writes are disabled: start retrace serve with --token-file");
    return rt_http_error_with_header(req, MHD_HTTP_UNAUTHORIZED, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                     "Bearer realm=\"retrace\"", "missing or wrong bearer token");
}

/* The body as a JSON object; an empty body is an empty object. NULL = malformed. */
static cJSON *parse_body(struct rt_request *req)
{
    if (req->body_size == 0)
        return cJSON_CreateObject();
    cJSON *body = cJSON_ParseWithLength(req->body, req->body_size);
    if (body && !cJSON_IsObject(body)) {
        cJSON_Delete(body);
        body = NULL;
    }
    return body;
}

static enum MHD_Result route(struct rt_request *req, cJSON *body, char **seg, int count)
{
    if (count == 1 && !strcmp(seg[0], "runs"))
        return rt_api_upload(req, body);
    if (count == 3 && !strcmp(seg[0], "results") && !strcmp(seg[2], "approve"))
        return review_result(req, body, seg[1], RT_GOLDEN_ACCEPTED);
    if (count == 3 && !strcmp(seg[0], "results") && !strcmp(seg[2], "known-bad"))
        return review_result(req, body, seg[1], RT_GOLDEN_KNOWN_BAD);
    if (count == 3 && !strcmp(seg[0], "goldens"))
        return mark_golden(req, seg[1], seg[2]);
    return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such API path");
}

enum MHD_Result rt_api_write(struct rt_request *req, char **seg, int count)
{
    if (!rt_auth_check(req))
        return unauthorized(req);
    cJSON *body = parse_body(req);
    if (!body)
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "the body is not a JSON object");
    enum MHD_Result result = route(req, body, seg, count);
    cJSON_Delete(body);
    return result;
}
