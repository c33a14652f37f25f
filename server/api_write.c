/*
 * server/api_write.c — POST /api/... (docs/FORMATS.md section 5.3): approve a
 * result's image as a golden (for its device unless any device is asked
 * for), mark it (or a golden) known-bad, revert a golden, undo a history
 * event, set an expectation, and the run upload (api_upload.c). Every write
 * needs a bearer token, whose name is recorded as who did it, and goes
 * through the one write connection
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
        rt_status_free(&s); /* a busy store's error: trying again */
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

/* "scope": "device" (the default) or "any". */
static bool body_scope(cJSON *body, bool *any_out)
{
    const char *scope = "device";
    if (!body_string(body, "scope", &scope) || (strcmp(scope, "device") && strcmp(scope, "any")))
        return false;
    *any_out = !strcmp(scope, "any");
    return true;
}

/* {KEY: NUMBER, ...} with the write's own event id, or NULL when out of memory. */
static cJSON *answer_object(const char *k1, int64_t v1, const char *k2, int64_t v2)
{
    cJSON *json = cJSON_CreateObject();
    if (json && (!cJSON_AddNumberToObject(json, k1, (double)v1) ||
                 (k2 && !cJSON_AddNumberToObject(json, k2, (double)v2)))) {
        cJSON_Delete(json);
        json = NULL;
    }
    return json;
}

static rt_status do_review(struct rt_store *store, void *ctx)
{
    void **args = ctx;
    return rt_store_dash_review_by(store, args[0], args[1]);
}

static enum MHD_Result review_result(struct rt_request *req, const char *by, cJSON *body,
                                     const char *id_text, enum rt_golden_status status)
{
    struct rt_dash_review r = {.by = by, .status = status};
    struct rt_dash_reviewed out = {0};
    if (!rt_http_parse_id(id_text, &r.result_id))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such result: '%s'", id_text);
    if (!body_string(body, "device_key", &r.device_key) || !body_scope(body, &r.any_device))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST,
                             "scope must be \"device\" or \"any\", device_key a string of at most "
                             "%d bytes", MAX_NAME);
    void *args[2] = {&r, &out};
    rt_status s = rt_server_write(req->server, do_review, args);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!out.golden_id)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such result: %s", id_text);
    cJSON *json = answer_object("result_id", r.result_id, "golden_id", out.golden_id);
    if (json && (!cJSON_AddStringToObject(json, "status", rt_golden_status_name(status)) ||
                 !cJSON_AddStringToObject(json, "device_key", out.device_key) ||
                 !cJSON_AddNumberToObject(json, "event_id", (double)out.event_id) ||
                 !cJSON_AddStringToObject(json, "by", by))) {
        cJSON_Delete(json);
        json = NULL;
    }
    return rt_http_json(req, MHD_HTTP_OK, json);
}

/* ---- a golden's status, revert, undo ----------------------------------------- */

struct change {
    const char *by;
    int64_t id;
    enum { MARK, REVERT, UNDO_GOLDEN, UNDO_EXPECTATION } what;
    enum rt_golden_status status;
    bool found;
    struct rt_store_undo undo;
};

static rt_status do_change(struct rt_store *store, void *ctx)
{
    struct change *c = ctx;
    if (c->what == UNDO_GOLDEN || c->what == UNDO_EXPECTATION) {
        RT_TRY(rt_store_event_undo(store, c->what == UNDO_GOLDEN ? RT_EVENT_GOLDEN : RT_EVENT_EXPECTATION,
                                   c->id, c->by, &c->undo));
        c->found = c->undo.found;
        return rt_ok_status();
    }
    struct rt_golden golden = {0};
    rt_status s = rt_store_golden_get(store, c->id, false, &golden);
    rt_golden_finish(&golden);
    if (!rt_ok(&s) && !rt_store_status_busy(&s)) {
        rt_status_free(&s);
        return rt_ok_status(); /* the only other failure of a lookup by id: unknown */
    }
    RT_TRY(s);
    c->found = true;
    return c->what == MARK ? rt_store_golden_mark_by(store, c->id, c->status, c->by, &c->undo.event_id)
                           : rt_store_golden_revert(store, c->id, c->by, &c->undo.event_id);
}

static enum MHD_Result change(struct rt_request *req, struct change *c, const char *id_text,
                              const char *what)
{
    if (!rt_http_parse_id(id_text, &c->id))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such %s: '%s'", what, id_text);
    rt_status s = rt_server_write(req->server, do_change, c);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!c->found)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such %s: %s", what, id_text);
    if (c->undo.conflict)
        return rt_http_error(req, MHD_HTTP_CONFLICT,
                             "%s %s cannot be undone: a later change came after it", what, id_text);
    bool undo = c->what == UNDO_GOLDEN || c->what == UNDO_EXPECTATION;
    cJSON *json = answer_object(undo ? "undoes" : "golden_id", c->id, "event_id", c->undo.event_id);
    if (json && c->what == MARK && !cJSON_AddStringToObject(json, "status", rt_golden_status_name(c->status))) {
        cJSON_Delete(json);
        json = NULL;
    }
    return rt_http_json(req, MHD_HTTP_OK, json);
}

static enum MHD_Result golden_write(struct rt_request *req, const char *by, const char *id_text,
                                    const char *verb)
{
    struct change c = {.by = by, .what = MARK};
    if (!strcmp(verb, "revert"))
        c.what = REVERT;
    else if (!rt_golden_status_parse(verb, &c.status))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such API path");
    return change(req, &c, id_text, "golden");
}

/* ---- expectations ---------------------------------------------------------------- */

struct expect {
    const char *by, *trace, *device_key, *note;
    enum rt_expect_kind kind;
    int64_t event_id;
};

static rt_status do_expect(struct rt_store *store, void *ctx)
{
    struct expect *e = ctx;
    return rt_store_expectation_set_by(store, e->trace, e->device_key, e->kind, e->note, e->by,
                                       &e->event_id);
}

static enum MHD_Result set_expectation(struct rt_request *req, const char *by, cJSON *body)
{
    struct expect e = {.by = by, .note = ""};
    const char *kind = NULL, *note_too_long = NULL;
    bool any = false;
    cJSON *note = cJSON_GetObjectItemCaseSensitive(body, "note");
    if (cJSON_IsString(note) && strlen(note->valuestring) <= 4096)
        e.note = note->valuestring;
    else if (note && !cJSON_IsNull(note))
        note_too_long = "note";
    if (note_too_long || !body_string(body, "trace", &e.trace) || !e.trace || !*e.trace ||
        !body_string(body, "kind", &kind) || !rt_expect_kind_parse(kind, &e.kind) ||
        !body_string(body, "device_key", &e.device_key) || !body_scope(body, &any))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST,
                             "expected {\"trace\", \"kind\": skip|flaky|crash|hang|none, \"note\" (at "
                             "most 4096 bytes), \"device_key\" or \"scope\": \"any\"}");
    if (any)
        e.device_key = "";
    else if (!e.device_key)
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST,
                             "device_key: missing (the device the expectation is for, or \"scope\": \"any\")");
    rt_status s = rt_server_write(req->server, do_expect, &e);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    cJSON *json = answer_object("event_id", e.event_id, NULL, 0);
    if (json && (!cJSON_AddStringToObject(json, "trace", e.trace) ||
                 !cJSON_AddStringToObject(json, "device_key", e.device_key) ||
                 !cJSON_AddStringToObject(json, "kind", rt_expect_kind_name(e.kind)))) {
        cJSON_Delete(json);
        json = NULL;
    }
    return rt_http_json(req, MHD_HTTP_OK, json);
}

/* ---- routing --------------------------------------------------------------- */

static enum MHD_Result unauthorized(struct rt_request *req)
{
    if (req->server->token_count == 0)
        return rt_http_error(req, MHD_HTTP_FORBIDDEN,
                             "writes are disabled: start retrace serve with --tokens or --token-file");
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

static enum MHD_Result route(struct rt_request *req, const char *by, cJSON *body, char **seg,
                             int count)
{
    if (count == 1 && !strcmp(seg[0], "runs"))
        return rt_api_upload(req, body);
    if (count == 1 && !strcmp(seg[0], "expectations"))
        return set_expectation(req, by, body);
    if (count == 3 && !strcmp(seg[0], "results") && !strcmp(seg[2], "approve"))
        return review_result(req, by, body, seg[1], RT_GOLDEN_ACCEPTED);
    if (count == 3 && !strcmp(seg[0], "results") && !strcmp(seg[2], "known-bad"))
        return review_result(req, by, body, seg[1], RT_GOLDEN_KNOWN_BAD);
    if (count == 3 && !strcmp(seg[0], "goldens"))
        return golden_write(req, by, seg[1], seg[2]);
    if (count == 3 && !strcmp(seg[2], "undo") &&
        (!strcmp(seg[0], "golden-events") || !strcmp(seg[0], "expectation-events"))) {
        struct change c = {.by = by, .what = seg[0][0] == 'g' ? UNDO_GOLDEN : UNDO_EXPECTATION};
        return change(req, &c, seg[1], "event");
    }
    return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such API path");
}

enum MHD_Result rt_api_write(struct rt_request *req, char **seg, int count)
{
    const char *by = rt_auth_check(req);
    if (!by)
        return unauthorized(req);
    cJSON *body = parse_body(req);
    if (!body)
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "the body is not a JSON object");
    enum MHD_Result result = route(req, by, body, seg, count);
    cJSON_Delete(body);
    return result;
}
