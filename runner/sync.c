/*
 * runner/sync.c — `retrace run --server URL` pulls the goldens and
 * expectations of this device key and the manifest's traces before the
 * first job (docs/FORMATS.md section 5.1): GET /api/sync with the last
 * answer's ETag (an unchanged set is a 304), then only the images the local
 * store lacks, by hash, then one transaction that makes the cache exactly
 * the server's set. Anything that fails leaves the cache as it was.
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wire.h"

#define MAX_ANSWER (64u << 20)
/* The trace list is sent in the URL while it is short; a farm's manifest does
 * not fit in a request target (retrace serve takes 4096 bytes), so past this
 * the runner asks for every trace of its device key and keeps the manifest's. */
#define MAX_TRACE_QUERY 2048

struct get_buffer {
    struct rt_http_get *get;
    size_t cap;
};

static size_t keep_body(char *data, size_t size, size_t n, void *user)
{
    struct get_buffer *b = user;
    struct rt_http_get *g = b->get;
    size_t len = size * n;
    if (g->size + len > MAX_ANSWER)
        return 0; /* too large: libcurl fails the transfer */
    if (g->size + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < g->size + len + 1)
            cap *= 2;
        char *grown = realloc(g->body, cap);
        if (!grown)
            return 0;
        g->body = grown, b->cap = cap;
    }
    memcpy(g->body + g->size, data, len);
    g->size += len;
    g->body[g->size] = '\0';
    return len;
}

static size_t keep_etag(char *data, size_t size, size_t n, void *user)
{
    struct rt_http_get *g = user;
    size_t len = size * n;
    if (len > 5 && !strncasecmp(data, "ETag:", 5)) {
        const char *v = data + 5;
        while (*v == ' ')
            v++;
        size_t vl = (size_t)(data + len - v);
        while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
            vl--;
        snprintf(g->etag, sizeof g->etag, "%.*s", (int)vl, v);
    }
    return len;
}

rt_status rt_http_get(const char *url, const char *if_none_match, struct rt_http_get *g)
{
    memset(g, 0, sizeof *g);
    CURL *curl = curl_easy_init();
    if (!curl)
        return rt_errorf(RT_ERR_INTERNAL, "cannot start libcurl");
    struct get_buffer b = {.get = g};
    char header[200];
    struct curl_slist *headers = NULL;
    if (if_none_match && *if_none_match) {
        snprintf(header, sizeof header, "If-None-Match: %s", if_none_match);
        headers = curl_slist_append(headers, header);
    }
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, keep_etag);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, g);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, g->error);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 15L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 300L);
    CURLcode rc = curl_easy_perform(curl);
    if (rc == CURLE_OK)
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &g->code);
    else if (!g->error[0])
        snprintf(g->error, sizeof g->error, "%s", curl_easy_strerror(rc));
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return rt_ok_status();
}

void rt_http_get_finish(struct rt_http_get *g)
{
    free(g->body);
    memset(g, 0, sizeof *g);
}

/* SERVER without a trailing slash, then PATH. */
static void join_url(char *out, size_t size, const char *server, const char *path)
{
    size_t sl = strlen(server);
    snprintf(out, size, "%.*s%s", (int)(sl && server[sl - 1] == '/' ? sl - 1 : sl), server, path);
}

static rt_status answer_error(const char *url, const struct rt_http_get *g)
{
    if (g->code == 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot reach %s: %s", url, g->error);
    return rt_errorf(RT_ERR_INTERNAL, "%s answered %ld", url, g->code);
}

/* The manifest's trace names as a JSON array (the store's scope) and a comma list (the URL's). */
static rt_status trace_lists(const struct rt_manifest *m, char **json_out, char **query_out)
{
    cJSON *a = cJSON_CreateArray();
    CURL *curl = curl_easy_init();
    size_t len = 1;
    for (size_t i = 0; i < m->trace_count; i++)
        len += 3 * strlen(m->traces[i].name) + 1;
    char *query = malloc(len);
    if (!a || !curl || !query) {
        cJSON_Delete(a);
        curl_easy_cleanup(curl);
        free(query);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    query[0] = '\0';
    for (size_t i = 0; i < m->trace_count; i++) {
        cJSON_AddItemToArray(a, cJSON_CreateString(m->traces[i].name));
        char *escaped = curl_easy_escape(curl, m->traces[i].name, 0);
        if (escaped) {
            strcat(query, i ? "," : "");
            strcat(query, escaped);
        }
        curl_free(escaped);
    }
    curl_easy_cleanup(curl);
    *json_out = cJSON_PrintUnformatted(a);
    cJSON_Delete(a);
    *query_out = query;
    return *json_out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

/* Fetches the image of every golden of SET the store lacks; checked when applied. */
static rt_status fetch_images(struct rt_store *store, const char *server, const struct rt_sync_set *set,
                              struct rt_store_sync_golden *goldens, struct rt_http_get *images)
{
    for (size_t i = 0; i < set->golden_count; i++) {
        const struct rt_wire_golden *w = &set->goldens[i];
        goldens[i] = (struct rt_store_sync_golden){
            .golden = {.trace = w->trace, .frame = w->frame, .device_key = w->device_key,
                       .approved_by = w->approved_by, .approved_at = w->approved_at,
                       .status = w->status},
            .hash = w->hash};
        uint8_t *png = NULL;
        size_t size = 0;
        RT_TRY(rt_store_png_by_hash(store, w->hash, &png, &size));
        free(png);
        if (png)
            continue;
        char url[2048], path[128];
        snprintf(path, sizeof path, "/api/images/hash/%s", w->hash);
        join_url(url, sizeof url, server, path);
        RT_TRY(rt_http_get(url, NULL, &images[i]));
        if (images[i].code != 200)
            return answer_error(url, &images[i]);
        goldens[i].golden.png = images[i].body;
        goldens[i].golden.png_size = images[i].size;
    }
    return rt_ok_status();
}

static rt_status apply_set(struct rt_store *store, const struct rt_run_sync *o, const char *traces_json,
                           const char *etag, const struct rt_sync_set *set, struct rt_sync_result *out)
{
    size_t n = set->golden_count;
    struct rt_store_sync_golden *goldens = calloc(n + 1, sizeof *goldens);
    struct rt_http_get *images = calloc(n + 1, sizeof *images);
    struct rt_expectation_row *expects = calloc(set->expectation_count + 1, sizeof *expects);
    rt_status s = goldens && images && expects ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    if (rt_ok(&s))
        s = fetch_images(store, o->server, set, goldens, images);
    for (size_t i = 0; i < set->expectation_count && expects; i++) {
        const struct rt_wire_expectation *e = &set->expectations[i];
        expects[i] = (struct rt_expectation_row){
            .trace = (char *)e->trace, .device_key = (char *)e->device_key, .kind = e->kind,
            .note = (char *)(e->note ? e->note : ""), .set_by = (char *)(e->set_by ? e->set_by : ""),
            .updated_at = (char *)e->updated_at};
    }
    struct rt_store_sync_apply a = {.server = o->server, .device_key = o->device_key,
                                    .traces_json = traces_json, .etag = etag, .seq = set->seq,
                                    .goldens = goldens, .golden_count = n, .expectations = expects,
                                    .expectation_count = set->expectation_count};
    struct rt_store_sync_counts counts = {0};
    if (rt_ok(&s))
        s = rt_store_sync_apply(store, &a, &counts);
    for (size_t i = 0; images && i < n; i++) {
        out->fetched += images[i].body != NULL;
        rt_http_get_finish(&images[i]);
    }
    out->goldens = counts.goldens, out->expectations = counts.expectations, out->reverted = counts.reverted;
    free(goldens);
    free(images);
    free(expects);
    return s;
}

/* The hashes the server listed: what an upload need not carry. */
static rt_status keep_hashes(const struct rt_sync_set *set, struct rt_sync_result *out)
{
    out->server_hashes = calloc(set->golden_count + 1, sizeof *out->server_hashes);
    if (!out->server_hashes)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < set->golden_count; i++)
        memcpy(out->server_hashes[i], set->goldens[i].hash, RT_STORE_HASH_HEX + 1);
    out->server_hash_count = set->golden_count;
    return rt_ok_status();
}

/* Hashes of the cache in scope after a 304: what the last answer listed. */
static rt_status cached_hashes(struct rt_store *store, const struct rt_run_sync *o, const char *traces_json,
                               struct rt_sync_result *out)
{
    struct rt_store_sync_list list = {0};
    RT_TRY(rt_store_sync_list(store, o->device_key, traces_json, &list));
    out->server_hashes = calloc(list.goldens.count + 1, sizeof *out->server_hashes);
    if (out->server_hashes)
        for (size_t i = 0; i < list.goldens.count; i++)
            memcpy(out->server_hashes[i], list.goldens.items[i].hash, RT_STORE_HASH_HEX + 1);
    out->server_hash_count = out->server_hashes ? list.goldens.count : 0;
    out->goldens = list.goldens.count;
    out->expectations = list.expectations.count;
    rt_store_sync_list_finish(&list);
    return out->server_hashes ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

static bool in_manifest(const struct rt_manifest *m, const char *trace)
{
    for (size_t i = 0; i < m->trace_count; i++)
        if (!strcmp(m->traces[i].name, trace))
            return true;
    return false;
}

/* Keeps the goldens and expectations of the manifest's traces (the set's arena keeps the rest). */
static void keep_manifest_traces(const struct rt_manifest *m, struct rt_sync_set *set)
{
    size_t g = 0, e = 0;
    for (size_t i = 0; i < set->golden_count; i++)
        if (in_manifest(m, set->goldens[i].trace))
            set->goldens[g++] = set->goldens[i];
    for (size_t i = 0; i < set->expectation_count; i++)
        if (in_manifest(m, set->expectations[i].trace))
            set->expectations[e++] = set->expectations[i];
    set->golden_count = g, set->expectation_count = e;
}

static rt_status sync_with(struct rt_store *store, const struct rt_manifest *m, const struct rt_run_sync *o,
                           const char *traces_json, const char *query, struct rt_sync_result *out)
{
    bool every_trace = strlen(query) > MAX_TRACE_QUERY;
    struct rt_store_sync_state state = {0};
    RT_TRY(rt_store_sync_state(store, o->server, o->device_key, traces_json, &state));
    char url[8192], path[7000];
    CURL *curl = curl_easy_init();
    char *key = curl ? curl_easy_escape(curl, o->device_key ? o->device_key : "", 0) : NULL;
    snprintf(path, sizeof path, "/api/sync?device_key=%s%s%s", key ? key : "", every_trace ? "" : "&traces=",
             every_trace ? "" : query);
    curl_free(key);
    curl_easy_cleanup(curl);
    join_url(url, sizeof url, o->server, path);
    struct rt_http_get g;
    RT_TRY(rt_http_get(url, state.found ? state.etag : NULL, &g));
    rt_status s = rt_ok_status();
    if (g.code == 304) {
        out->unchanged = true;
        out->seq = state.seq;
        s = cached_hashes(store, o, traces_json, out);
    } else if (g.code == 200) {
        struct rt_sync_set set;
        s = rt_sync_decode(g.body, g.size, &set);
        if (rt_ok(&s) && every_trace)
            keep_manifest_traces(m, &set);
        if (rt_ok(&s)) {
            out->seq = set.seq;
            s = apply_set(store, o, traces_json, g.etag, &set, out);
        }
        if (rt_ok(&s))
            s = keep_hashes(&set, out);
        rt_sync_finish(&set);
    } else {
        s = answer_error(url, &g);
    }
    rt_http_get_finish(&g);
    return s;
}

rt_status rt_run_sync_goldens(const struct rt_manifest *m, const struct rt_run_sync *o,
                              struct rt_sync_result *out)
{
    memset(out, 0, sizeof *out);
    struct rt_store *store = NULL;
    RT_TRY(rt_store_open(o->db_path, RT_STORE_CREATE, &store));
    char *traces_json = NULL, *query = NULL;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rt_status s = trace_lists(m, &traces_json, &query);
    if (rt_ok(&s))
        s = sync_with(store, m, o, traces_json, query, out);
    if (!rt_ok(&s)) { /* offline: what the cache holds, and since when */
        struct rt_store_sync_state state = {0};
        if (rt_status_drop(rt_store_sync_state(store, o->server, o->device_key, traces_json, &state)) == RT_OK &&
            state.found)
            out->seq = state.seq, out->cached = true;
    }
    snprintf(out->golden_set, sizeof out->golden_set, "%s seq %lld%s", o->server, (long long)out->seq,
             rt_ok(&s) ? "" : out->cached ? " (cache: the sync failed)" : " (local: the sync failed)");
    cJSON_free(traces_json);
    free(query);
    rt_store_close(store);
    return s;
}

void rt_sync_result_finish(struct rt_sync_result *r)
{
    free(r->server_hashes);
    memset(r, 0, sizeof *r);
}

bool rt_sync_result_has(const struct rt_sync_result *r, const char *hash)
{
    for (size_t i = 0; i < r->server_hash_count; i++)
        if (!strcmp(r->server_hashes[i], hash))
            return true;
    return false;
}
