/*
 * server/static.c — the pages of web/. A path is served only when every
 * segment is a plain name (letters, digits, '-', '_', '.', never starting
 * with '.'), so "..", dot files and odd bytes are refused before the file
 * system is asked; libmicrohttpd has already decoded %XX, so "%2e%2e" is
 * refused the same way. The file's real path must then still lie under the
 * web root: a symlink that leads out is refused too.
 */
#include "server_internal.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_STATIC_PATH 512

static const struct {
    const char *ext, *type;
} types[] = {
    {".html", "text/html; charset=utf-8"},  {".css", "text/css; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"}, {".mjs", "text/javascript; charset=utf-8"},
    {".svg", "image/svg+xml"},               {".png", "image/png"},
    {".json", "application/json"},           {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
};

static const char *content_type(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof *types; i++)
        if (!strcmp(dot, types[i].ext))
            return types[i].type;
    return "application/octet-stream";
}

static bool plain_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
}

/* True when PATH ("/a/b.js") is made of plain names only. */
static bool safe_path(const char *path)
{
    if (path[0] != '/' || strlen(path) >= MAX_STATIC_PATH)
        return false;
    bool segment_start = true;
    for (const char *p = path + 1; *p; p++) {
        if (*p == '/') {
            if (segment_start)
                return false; /* empty segment */
            segment_start = true;
            continue;
        }
        if (!plain_name_char(*p) || (segment_start && *p == '.'))
            return false;
        segment_start = false;
    }
    return !segment_start;
}

static bool under_root(const char *real, const char *root)
{
    size_t n = strlen(root);
    return !strncmp(real, root, n) && real[n] == '/';
}

static enum MHD_Result not_modified(struct rt_request *req, const char *etag)
{
    struct MHD_Response *response = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!response)
        return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    rt_http_common_headers(response);
    enum MHD_Result result = MHD_queue_response(req->conn, MHD_HTTP_NOT_MODIFIED, response);
    MHD_destroy_response(response);
    return result;
}

static void page_headers(struct MHD_Response *response, const char *type, const char *etag)
{
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    rt_http_common_headers(response);
    if (!strncmp(type, "text/html", 9))
        MHD_add_response_header(response, "Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data: blob:; "
                                "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
}

static enum MHD_Result send_file(struct rt_request *req, const char *real)
{
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such page");
    }
    char etag[64];
    snprintf(etag, sizeof etag, "\"%llx-%llx\"", (unsigned long long)st.st_mtim.tv_sec,
             (unsigned long long)st.st_size);
    const char *match = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_IF_NONE_MATCH);
    if (match && !strcmp(match, etag)) {
        close(fd);
        return not_modified(req, etag);
    }
    struct MHD_Response *response = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
    if (!response) {
        close(fd);
        return MHD_NO;
    }
    page_headers(response, content_type(real), etag);
    enum MHD_Result result = MHD_queue_response(req->conn, MHD_HTTP_OK, response);
    MHD_destroy_response(response); /* closes FD once sent */
    return result;
}

enum MHD_Result rt_static_serve(struct rt_request *req)
{
    const char *root = req->server->web_root;
    if (!root)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "this server has no pages (API only)");
    const char *path = !strcmp(req->url, "/") ? "/index.html" : req->url;
    if (!safe_path(path))
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "bad path");
    char joined[PATH_MAX];
    if (snprintf(joined, sizeof joined, "%s%s", root, path) >= (int)sizeof joined)
        return rt_http_error(req, MHD_HTTP_BAD_REQUEST, "bad path");
    char *real = realpath(joined, NULL);
    if (!real)
        return rt_http_error(req, MHD_HTTP_NOT_FOUND, "no such page");
    enum MHD_Result result = under_root(real, root)
                                 ? send_file(req, real)
                                 : rt_http_error(req, MHD_HTTP_FORBIDDEN, "outside the web root");
    free(real);
    return result;
}
