/*
 * server/api_read.c — GET /api/...: runs, one run, one result, a trace's
 * history, goldens, expectations (server/README.md lists them). Each is one
 * store call on the worker's own read connection.
 */
#include "server_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PAGE 50
#define MAX_PAGE 500

/* A number argument within 0..MAX (DEFAULT when absent); false when malformed. */
static bool number_arg(struct rt_request *req, const char *name, uint32_t def, uint32_t max,
                       uint32_t *out)
{
    const char *text = rt_http_arg(req, name);
    *out = def;
    if (!text)
        return true;
    /* digits only: strtoul alone also takes leading spaces and a sign */
    if (strspn(text, "0123456789") != strlen(text))
        return false;
    errno = 0;
    unsigned long value = strtoul(text, NULL, 10);
    if (errno == ERANGE || value > max)
        return false;
    *out = (uint32_t)value;
    return true;
}

/* A read's answer: JSON text (malloc'd), or NULL for "not found". */
typedef rt_status (*read_fn)(struct rt_store *store, struct rt_request *req, const void *arg,
                             char **text_out);

/* The text of JSON (taken over) when S is fine, for the reads that still
 * build a cJSON tree (the small answers; the big pages come as text from
 * the store). Called after the read, never in the same expression: the
 * order in which arguments are evaluated is unspecified. */
static rt_status tree_text(rt_status s, cJSON *json, char **text_out)
{
    *text_out = NULL;
    if (rt_ok(&s) && json && !(*text_out = cJSON_PrintUnformatted(json)))
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory printing an answer");
    cJSON_Delete(json);
    return s;
}

struct cache_key {
    char text[512];
    bool overflow;
};

/* The cache key: the path and the arguments some read uses, in one order.
 * Any other argument changes no answer, so it must not make a new entry
 * (700 requests with junk arguments once filled the cache). */
static bool make_key(struct rt_request *req, struct cache_key *key)
{
    static const char *const known[] = {"label", "device", "status", "limit",
                                        "offset", "trace", "date", "pipeline"};
    size_t n = (size_t)snprintf(key->text, sizeof key->text, "%s?", req->url);
    for (size_t i = 0; n < sizeof key->text && i < sizeof known / sizeof *known; i++) {
        const char *value = rt_http_arg(req, known[i]);
        if (value)
            n += (size_t)snprintf(key->text + n, sizeof key->text - n, "&%s=%s", known[i], value);
    }
    key->overflow = n >= sizeof key->text;
    return !key->overflow;
}

/* Runs FN on the worker's connection: 200 with its JSON, 404 when it found
 * nothing. A 200 is kept in the worker's cache and sent again, without
 * asking the store, until the database's data_version changes. */
static enum MHD_Result answer(struct rt_request *req, read_fn fn, const void *arg,
                              const char *what)
{
    struct rt_worker *worker = NULL;
    int64_t version = 0;
    rt_server_sweep_stale(req->server); /* before data_version: a sweep that marks runs changes it */
    rt_status s = rt_server_worker(req->server, &worker);
    if (rt_ok(&s))
        s = rt_store_data_version(worker->reader, &version);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    struct cache_key key;
    bool cacheable = worker->cache_size && make_key(req, &key);
    struct MHD_Response *cached = cacheable ? rt_cache_get(worker, key.text, version) : NULL;
    if (cached)
        return MHD_queue_response(req->conn, MHD_HTTP_OK, cached);
    char *text = NULL;
    s = fn(worker->reader, req, arg, &text);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!text)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such %s", what);
    size_t size = 0;
    struct MHD_Response *response = rt_http_json_text_response(text, &size);
    if (!response)
        return MHD_NO;
    enum MHD_Result result = MHD_queue_response(req->conn, MHD_HTTP_OK, response);
    if (cacheable)
        rt_cache_put(worker, key.text, version, response, size);
    else
        MHD_destroy_response(response);
    return result;
}

static rt_status read_runs(struct rt_store *store, struct rt_request *req, const void *arg,
                           char **json_out)
{
    (void)req;
    return rt_store_dash_runs(store, arg, json_out);
}

#define RUN_RESULTS 200
#define RUN_RESULTS_MAX 5000

/* A run page: ?limit= results (200, at most 5000) from ?offset=, failures first. */
static rt_status read_run(struct rt_store *store, struct rt_request *req, const void *arg,
                          char **json_out)
{
    uint32_t limit = RUN_RESULTS, offset = 0;
    if (!number_arg(req, "limit", RUN_RESULTS, RUN_RESULTS_MAX, &limit) || limit == 0 ||
        !number_arg(req, "offset", 0, 1000000000u, &offset))
        return rt_errorf(RT_ERR_BAD_INPUT, "limit must be 1..%d and offset a number",
                         RUN_RESULTS_MAX);
    return rt_store_dash_run(store, *(const int64_t *)arg, limit, offset, json_out);
}

static rt_status read_result(struct rt_store *store, struct rt_request *req, const void *arg,
                             char **text_out)
{
    (void)req;
    cJSON *json = NULL;
    rt_status s = rt_store_dash_result(store, *(const int64_t *)arg, &json);
    return tree_text(s, json, text_out);
}

#define HISTORY_POINTS 1000
#define HISTORY_POINTS_MAX 10000

struct history_query {
    const char *trace;
    uint32_t limit;
};

static rt_status read_history(struct rt_store *store, struct rt_request *req, const void *arg,
                              char **json_out)
{
    const struct history_query *q = arg;
    return rt_store_dash_history(store, q->trace, rt_http_arg(req, "device"), q->limit,
                                 json_out);
}

/* GET /api/history?trace=NAME[&device=KEY][&limit=N]: the newest N points. */
static enum MHD_Result history(struct rt_request *req)
{
    struct history_query q = {.trace = rt_http_arg(req, "trace")};
    if (!q.trace)
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "history needs ?trace=NAME");
    if (!number_arg(req, "limit", HISTORY_POINTS, HISTORY_POINTS_MAX, &q.limit) || q.limit == 0)
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "limit must be 1..%d",
                             HISTORY_POINTS_MAX);
    return answer(req, read_history, &q, "trace");
}

static rt_status read_joined(struct rt_store *store, struct rt_request *req, const void *arg,
                             char **text_out)
{
    cJSON *json = NULL;
    rt_status s = arg ? rt_store_dash_pipeline(store, arg, &json)
                      : rt_store_dash_joined(store, rt_http_arg(req, "label"),
                                             rt_http_arg(req, "date"), &json);
    return tree_text(s, json, text_out);
}

/* YYYY-MM-DD */
static bool is_date(const char *text)
{
    static const char shape[] = "dddd-dd-dd";
    if (!text || strlen(text) != sizeof shape - 1)
        return false;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? text[i] < '0' || text[i] > '9' : text[i] != '-')
            return false;
    return true;
}

static enum MHD_Result joined(struct rt_request *req)
{
    const char *pipeline = rt_http_arg(req, "pipeline");
    if (pipeline)
        return answer(req, read_joined, pipeline, "runs of that pipeline");
    if (!rt_http_arg(req, "label") || !is_date(rt_http_arg(req, "date")))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "joined needs ?pipeline=ID, or ?label=L&date=YYYY-MM-DD");
    return answer(req, read_joined, NULL, "runs with that label and date");
}

static rt_status read_goldens(struct rt_store *store, struct rt_request *req, const void *arg,
                              char **text_out)
{
    (void)arg;
    cJSON *json = NULL;
    rt_status s = rt_store_dash_goldens(store, rt_http_arg(req, "trace"), &json);
    return tree_text(s, json, text_out);
}

static rt_status read_expectations(struct rt_store *store, struct rt_request *req,
                                   const void *arg, char **text_out)
{
    (void)arg;
    cJSON *json = NULL;
    rt_status s = rt_store_dash_expectations(store, rt_http_arg(req, "trace"), &json);
    return tree_text(s, json, text_out);
}

static rt_status read_golden_history(struct rt_store *store, struct rt_request *req,
                                     const void *arg, char **text_out)
{
    (void)req;
    cJSON *json = NULL;
    rt_status s = rt_store_dash_golden_history(store, *(const int64_t *)arg, &json);
    return tree_text(s, json, text_out);
}

static rt_status read_expectation_history(struct rt_store *store, struct rt_request *req,
                                          const void *arg, char **text_out)
{
    (void)req;
    cJSON *json = NULL;
    rt_status s = rt_store_dash_expectation_history(store, arg, &json);
    return tree_text(s, json, text_out);
}

static rt_status read_health(struct rt_store *store, struct rt_request *req, const void *arg,
                             char **text_out)
{
    (void)store, (void)arg;
    cJSON *json = cJSON_CreateObject();
    rt_status s = rt_ok_status();
    if (!json || !cJSON_AddBoolToObject(json, "ok", 1) ||
        !cJSON_AddStringToObject(json, "version", RT_VERSION) ||
        !cJSON_AddBoolToObject(json, "writable", req->server->token_count > 0))
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory");
    return tree_text(s, json, text_out);
}

static enum MHD_Result runs_list(struct rt_request *req)
{
    struct rt_dash_runs_query q = {.label = rt_http_arg(req, "label"),
                                   .device = rt_http_arg(req, "device"),
                                   .status = rt_http_arg(req, "status")};
    if (!number_arg(req, "limit", DEFAULT_PAGE, MAX_PAGE, &q.limit) || q.limit == 0 ||
        !number_arg(req, "offset", 0, 1000000000u, &q.offset))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST,
                             "limit must be 1..%d and offset a number", MAX_PAGE);
    return answer(req, read_runs, &q, "runs");
}

static enum MHD_Result by_id(struct rt_request *req, const char *text, read_fn fn,
                             const char *what)
{
    int64_t id = 0;
    if (!rt_http_parse_id(text, &id))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such %s: '%s'", what, text);
    return answer(req, fn, &id, what);
}

bool rt_api_read(struct rt_request *req, char **seg, int count, enum MHD_Result *result)
{
    if (count == 1 && !strcmp(seg[0], "runs"))
        *result = runs_list(req);
    else if (count == 2 && !strcmp(seg[0], "runs"))
        *result = by_id(req, seg[1], read_run, "run");
    else if (count == 2 && !strcmp(seg[0], "results"))
        *result = by_id(req, seg[1], read_result, "result");
    else if (count == 1 && !strcmp(seg[0], "history"))
        *result = history(req);
    else if (count == 1 && !strcmp(seg[0], "joined"))
        *result = joined(req);
    else if (count == 1 && !strcmp(seg[0], "goldens"))
        *result = answer(req, read_goldens, NULL, "goldens");
    else if (count == 1 && !strcmp(seg[0], "expectations"))
        *result = answer(req, read_expectations, NULL, "expectations");
    else if (count == 1 && !strcmp(seg[0], "sync"))
        *result = rt_api_sync(req);
    else if (count == 3 && !strcmp(seg[0], "goldens") && !strcmp(seg[2], "history"))
        *result = by_id(req, seg[1], read_golden_history, "golden");
    else if (count == 2 && !strcmp(seg[0], "expectations") && !strcmp(seg[1], "history")) {
        const char *trace = rt_http_arg(req, "trace");
        *result = trace ? answer(req, read_expectation_history, trace, "trace")
                        : rt_http_error(req, MHD_HTTP_BAD_REQUEST, "history needs ?trace=NAME");
    } else if (count == 1 && !strcmp(seg[0], "health"))
        *result = answer(req, read_health, NULL, "health");
    else
        return false;
    return true;
}
