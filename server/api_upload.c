/*
 * server/api_upload.c — POST /api/runs: a run uploaded by `retrace run
 * --server` (docs/FORMATS.md sections 2 and 5.2). The upload is decoded and
 * checked by wire/ (400 naming the field), its regressions and outcome are
 * recomputed from its results rather than believed, then recorded. 201
 * {"id", "run"} when recorded, 200 {"id", "run", "duplicate": true} when that
 * run id is already here, 503 while the database stays busy.
 */
#include "server_internal.h"

#include <cjson/cJSON.h>

#include "wire.h"

struct upload {
    const struct rt_store_upload *rec;
    int64_t run_id;
    bool duplicate;
};

static rt_status do_upload(struct rt_store *store, void *ctx)
{
    struct upload *u = ctx;
    return rt_store_upload_import(store, u->rec, &u->run_id, &u->duplicate);
}

enum MHD_Result rt_api_upload(struct rt_request *req, cJSON *body)
{
    struct rt_upload decoded;
    rt_status s = rt_upload_decode_tree(body, &decoded);
    if (!rt_ok(&s)) {
        enum MHD_Result r = rt_http_error(req, MHD_HTTP_BAD_REQUEST, "%s", s.msg);
        rt_status_free(&s);
        return r;
    }
    rt_upload_recompute(&decoded);
    struct upload u = {.rec = &decoded.rec};
    s = rt_server_write(req->server, do_upload, &u);
    if (!rt_ok(&s)) {
        rt_upload_finish(&decoded);
        return rt_http_store_error(req, &s);
    }
    cJSON *json = cJSON_CreateObject();
    if (json && (!cJSON_AddStringToObject(json, "id", decoded.rec.run.uuid) ||
                 !cJSON_AddNumberToObject(json, "run", (double)u.run_id) ||
                 !cJSON_AddStringToObject(json, "outcome", decoded.rec.outcome) ||
                 (u.duplicate && !cJSON_AddBoolToObject(json, "duplicate", 1)))) {
        cJSON_Delete(json);
        json = NULL;
    }
    rt_upload_finish(&decoded);
    return rt_http_json(req, u.duplicate ? MHD_HTTP_OK : MHD_HTTP_CREATED, json);
}
