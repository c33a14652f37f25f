/*
 * server/api_images.c — GET /api/images/golden/ID and
 * /api/images/result/ID/actual|diff. Each image carries an ETag (its content
 * hash) so a browser revalidates with If-None-Match and gets 304 without the
 * bytes; ids never change their image, so an hour of caching is safe.
 */
#include "server_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum MHD_Result send_image(struct rt_request *req, uint8_t *png, size_t size,
                                  const char *hash)
{
    char etag[RT_STORE_HASH_HEX + 3];
    snprintf(etag, sizeof etag, "\"%s\"", hash);
    const char *match = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_IF_NONE_MATCH);
    bool fresh = match && (!strcmp(match, etag) || !strcmp(match, "*"));
    struct MHD_Response *response =
        fresh ? MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT)
              : MHD_create_response_from_buffer(size, png, MHD_RESPMEM_MUST_FREE);
    if (fresh)
        free(png);
    if (!response) {
        if (!fresh)
            free(png);
        return MHD_NO;
    }
    if (!fresh)
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "image/png");
    MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "private, max-age=3600");
    rt_http_common_headers(response);
    enum MHD_Result result =
        MHD_queue_response(req->conn, fresh ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return result;
}

static bool is_hash(const char *s)
{
    return strlen(s) == RT_STORE_HASH_HEX && strspn(s, "0123456789abcdef") == RT_STORE_HASH_HEX;
}

/* /api/images/hash/HASH: content-addressed, what the runner's sync fetches. */
static enum MHD_Result by_hash(struct rt_request *req, const char *hash)
{
    if (!is_hash(hash))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such image: '%s'", hash);
    struct rt_store *store = NULL;
    uint8_t *png = NULL;
    size_t size = 0;
    rt_status s = rt_server_reader(req->server, &store);
    if (rt_ok(&s))
        s = rt_store_png_by_hash(store, hash, &png, &size);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!png)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no golden with hash %s", hash);
    char etag[RT_STORE_HASH_HEX + 1];
    memcpy(etag, hash, sizeof etag);
    return send_image(req, png, size, etag);
}

enum MHD_Result rt_api_image(struct rt_request *req, char **seg, int count)
{
    enum rt_dash_image which;
    if (count == 3 && !strcmp(seg[1], "hash"))
        return by_hash(req, seg[2]);
    if (count == 3 && !strcmp(seg[1], "golden"))
        which = RT_DASH_IMAGE_GOLDEN;
    else if (count == 4 && !strcmp(seg[1], "result") && !strcmp(seg[3], "actual"))
        which = RT_DASH_IMAGE_ACTUAL;
    else if (count == 4 && !strcmp(seg[1], "result") && !strcmp(seg[3], "diff"))
        which = RT_DASH_IMAGE_DIFF;
    else
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such image path");
    int64_t id = 0;
    if (!rt_http_parse_id(seg[2], &id))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such image: '%s'", seg[2]);
    struct rt_store *store = NULL;
    uint8_t *png = NULL;
    size_t size = 0;
    char hash[RT_STORE_HASH_HEX + 1];
    rt_status s = rt_server_reader(req->server, &store);
    if (rt_ok(&s))
        s = rt_store_dash_image(store, which, id, &png, &size, hash);
    if (!rt_ok(&s))
        return rt_http_store_error(req, &s);
    if (!png)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such image");
    return send_image(req, png, size, hash);
}
