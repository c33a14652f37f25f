/*
 * server/routes.c — which handler answers a request: /api/... to the JSON
 * API (reads, images, writes), anything else to the static pages.
 */
#include "api_diagnosis.h"
#include "server_internal.h"

#include <stdio.h>
#include <string.h>

#define MAX_SEGMENTS 6
#define MAX_API_PATH 512

static bool is_read(const char *method)
{
    return !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
}

static enum MHD_Result method_not_allowed(struct rt_request *req, const char *allow)
{
    /* 405 must name what is allowed (RFC 9110 §15.5.6). */
    return rt_http_error_with_header(req, MHD_HTTP_METHOD_NOT_ALLOWED, MHD_HTTP_HEADER_ALLOW,
                                     allow, "method not allowed");
}

/* Splits PATH (after "/api/") in place; false on an empty or surplus segment. */
static bool split(char *path, char **segments, int *count_out)
{
    int count = 0;
    for (char *part = path; part;) {
        char *slash = strchr(part, '/');
        if (slash)
            *slash = '\0';
        if (!*part || count == MAX_SEGMENTS)
            return false;
        segments[count++] = part;
        part = slash ? slash + 1 : NULL;
    }
    *count_out = count;
    return true;
}

static enum MHD_Result route_api(struct rt_request *req)
{
    char path[MAX_API_PATH];
    char *segments[MAX_SEGMENTS];
    int count = 0;
    if (snprintf(path, sizeof path, "%s", req->url + 5) >= (int)sizeof path ||
        !split(path, segments, &count))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such API path");
    if (is_read(req->method)) {
        if (!strcmp(segments[0], "images"))
            return rt_api_image(req, segments, count);
        enum MHD_Result result = MHD_NO;
        if (rt_api_diagnosis_read(req, segments, count, &result) || rt_api_read(req, segments, count, &result))
            return result;
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such API path");
    }
    if (!strcmp(req->method, MHD_HTTP_METHOD_POST) && count == 1 && !strcmp(segments[0], "runs"))
        return rt_api_diagnosis_upload(req, segments, count); /* the run, then its diagnoses */
    if (!strcmp(req->method, MHD_HTTP_METHOD_POST))
        return rt_api_write(req, segments, count);
    return method_not_allowed(req, "GET, HEAD, POST");
}

enum MHD_Result rt_server_route(struct rt_request *req)
{
    if (!strncmp(req->url, "/api/", 5))
        return route_api(req);
    if (!strcmp(req->url, "/api"))
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such API path");
    if (!is_read(req->method))
        return method_not_allowed(req, "GET, HEAD");
    return rt_static_serve(req);
}
