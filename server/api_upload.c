/*
 * server/api_upload.c — POST /api/runs: a run uploaded by `retrace run
 * --server` (docs/FORMATS.md section 2). 201 {"id", "run"} when recorded,
 * 200 {"id", "run", "duplicate": true} when that run id is already here,
 * 400 for a malformed upload, 503 while the database stays busy.
 */
#include "server_internal.h"

#include <cjson/cJSON.h>

struct upload {
    const cJSON *body;
    int64_t run_id;
    bool duplicate;
};

static rt_status do_upload(struct rt_store *store, void *ctx)
{
    struct upload *u = ctx;
    return rt_store_upload_import(store, u->body, &u->run_id, &u->duplicate);
}

enum MHD_Result rt_api_upload(struct rt_request *req, cJSON *body)
{
    struct upload u = {.body = body};
    rt_status s = rt_server_write(req->server, do_upload, &u);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(body, "run");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(run, "id");
    cJSON *json = cJSON_CreateObject();
    if (json && (!cJSON_AddStringToObject(json, "id", id->valuestring) ||
                 !cJSON_AddNumberToObject(json, "run", (double)u.run_id) ||
                 (u.duplicate && !cJSON_AddBoolToObject(json, "duplicate", 1)))) {
        cJSON_Delete(json);
        json = NULL;
    }
    return rt_http_json(req, u.duplicate ? MHD_HTTP_OK : MHD_HTTP_CREATED, json);
}
