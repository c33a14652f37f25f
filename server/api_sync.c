/*
 * server/api_sync.c — GET /api/sync (docs/FORMATS.md section 5.1): the
 * goldens (metadata only) and expectations of one device key and of "any
 * device" for the traces asked for, encoded by wire/. The ETag is the set's
 * sequence number and the hash of the answer, so a runner whose cache holds
 * this set hears 304 and nothing else; ?since=SEQ says "unchanged" the same
 * way without ETags.
 */
#include "server_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#define MAX_TRACES 100000

/* "a,b,c" as the JSON array the store's scope takes; NULL (every trace) when absent. */
static bool traces_json(const char *list, char **out)
{
    *out = NULL;
    if (!list)
        return true;
    cJSON *a = cJSON_CreateArray();
    size_t n = 0;
    for (const char *p = list; a && *p && n < MAX_TRACES; n++) {
        size_t len = strcspn(p, ",");
        char *name = strndup(p, len);
        if (!name || !len || !cJSON_AddItemToArray(a, cJSON_CreateString(name))) {
            free(name);
            cJSON_Delete(a);
            return false;
        }
        free(name);
        p += len + (p[len] == ',');
    }
    *out = a ? cJSON_PrintUnformatted(a) : NULL;
    cJSON_Delete(a);
    return *out != NULL;
}

/* The store's rows as the wire's set (pointers into LIST). */
static rt_status to_set(const struct rt_store_sync_list *list, const char *key, struct rt_sync_set *set)
{
    memset(set, 0, sizeof *set);
    set->device_key = key;
    set->seq = list->seq;
    set->goldens = calloc(list->goldens.count + 1, sizeof *set->goldens);
    set->expectations = calloc(list->expectations.count + 1, sizeof *set->expectations);
    if (!set->goldens || !set->expectations)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < list->goldens.count; i++) {
        const struct rt_golden *g = &list->goldens.items[i];
        struct rt_wire_golden *w = &set->goldens[set->golden_count++];
        *w = (struct rt_wire_golden){.id = g->id, .trace = g->trace, .frame = g->frame,
                                     .device_key = g->device_key, .status = g->status, .size = g->size,
                                     .width = g->width, .height = g->height,
                                     .approved_by = g->approved_by,
                                     .approved_at = g->approved_at[0] ? g->approved_at : NULL};
        memcpy(w->hash, g->hash, sizeof w->hash);
    }
    for (size_t i = 0; i < list->expectations.count; i++) {
        const struct rt_expectation_row *e = &list->expectations.items[i];
        set->expectations[set->expectation_count++] = (struct rt_wire_expectation){
            .trace = e->trace, .device_key = e->device_key, .kind = e->kind, .note = e->note,
            .set_by = e->set_by, .updated_at = e->updated_at[0] ? e->updated_at : NULL};
    }
    return rt_ok_status();
}

static enum MHD_Result send_text(struct rt_request *req, unsigned status, char *text, const char *etag)
{
    struct MHD_Response *response =
        text ? MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE)
             : MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!response) {
        free(text);
        return MHD_NO;
    }
    if (text)
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
                                "application/json; charset=utf-8");
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    if (etag)
        MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    rt_http_common_headers(response);
    enum MHD_Result result = MHD_queue_response(req->conn, status, response);
    MHD_destroy_response(response);
    return result;
}

/* ?since=SEQ: "unchanged" when no event in scope is newer. */
static enum MHD_Result since(struct rt_request *req, struct rt_store *store, const char *key,
                             const char *traces, int64_t seq_asked, bool *answered)
{
    int64_t seq = 0;
    rt_status s = rt_store_sync_seq(store, key, traces, &seq);
    *answered = !rt_ok(&s) || seq <= seq_asked;
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!*answered)
        return MHD_NO;
    struct rt_sync_set set = {.device_key = key, .seq = seq, .unchanged = true};
    char *text = NULL;
    s = rt_sync_encode(&set, &text);
    return rt_ok(&s) ? send_text(req, MHD_HTTP_OK, text, NULL) : rt_http_store_error(req, &s);
}

static enum MHD_Result answer_set(struct rt_request *req, struct rt_store *store, const char *key,
                                  const char *traces)
{
    struct rt_store_sync_list list;
    struct rt_sync_set set = {0};
    char *text = NULL;
    rt_status s = rt_store_sync_list(store, key, traces, &list);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    s = to_set(&list, key, &set);
    if (rt_ok(&s))
        s = rt_sync_encode(&set, &text);
    free(set.goldens);
    free(set.expectations);
    int64_t seq = list.seq;
    rt_store_sync_list_finish(&list);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    char hash[RT_STORE_HASH_HEX + 1], etag[80];
    rt_store_hash(text, strlen(text), hash);
    snprintf(etag, sizeof etag, "\"sync-%lld-%.16s\"", (long long)seq, hash);
    const char *match = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_IF_NONE_MATCH);
    if (match && !strcmp(match, etag)) {
        free(text);
        return send_text(req, MHD_HTTP_NOT_MODIFIED, NULL, etag);
    }
    return send_text(req, MHD_HTTP_OK, text, etag);
}

enum MHD_Result rt_api_sync(struct rt_request *req)
{
    const char *key = rt_http_arg(req, "device_key");
    const char *since_text = rt_http_arg(req, "since");
    int64_t seq_asked = 0;
    if (since_text && !rt_http_parse_id(since_text, &seq_asked) && strcmp(since_text, "0"))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "since: expected a sequence number");
    if (key && strlen(key) > 500)
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "device_key: longer than 500 bytes");
    char *traces = NULL;
    if (!traces_json(rt_http_arg(req, "traces"), &traces))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "traces: expected names separated by commas");
    struct rt_store *store = NULL;
    rt_status s = rt_server_reader(req->server, &store);
    enum MHD_Result result = MHD_NO;
    bool answered = false;
    if (!rt_ok(&s))
        result = rt_http_store_error(req, &s);
    else if (since_text)
        result = since(req, store, key ? key : "", traces, seq_asked, &answered);
    if (rt_ok(&s) && !answered)
        result = answer_set(req, store, key ? key : "", traces);
    cJSON_free(traces);
    return result;
}
