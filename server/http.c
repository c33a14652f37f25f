/*
 * server/http.c — building answers: JSON bodies, JSON errors, the headers
 * every answer carries, query arguments and ids.
 */
#include "server_internal.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void rt_http_common_headers(struct MHD_Response *response)
{
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(response, "X-Frame-Options", "DENY");
    MHD_add_response_header(response, "Referrer-Policy", "no-referrer");
}

/* TEXT (taken over) as an answer. cJSON and SQLite's JSON functions copy
 * string bytes as they are, and a request's bytes echoed in an error or an
 * upload's stored names may be no UTF-8, which JSON must be (RFC 8259
 * §8.1): such bytes become '?'. */
/* The length of TEXT's ASCII start, 8 bytes at a time (a whole 8 bytes
 * that are ASCII end no UTF-8 sequence, so the scrub may start after them):
 * answers are almost all ASCII, and the byte-by-byte scrub was a tenth of
 * a trace history's instructions. */
static size_t ascii_prefix(const char *text, size_t size)
{
    size_t i = 0;
    for (uint64_t word; i + 8 <= size; i += 8) {
        memcpy(&word, text + i, 8);
        if (word & 0x8080808080808080u)
            break;
    }
    return i;
}

struct MHD_Response *rt_http_json_text_response(char *text, size_t *size_out)
{
    if (!text)
        return NULL;
    size_t size = strlen(text);
    size_t ascii = ascii_prefix(text, size);
    rt_utf8_scrub(text + ascii, size - ascii);
    if (size_out)
        *size_out = size;
    struct MHD_Response *response =
        MHD_create_response_from_buffer(size, text, MHD_RESPMEM_MUST_FREE);
    if (!response) {
        free(text);
        return NULL;
    }
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "application/json; charset=utf-8");
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    rt_http_common_headers(response);
    return response;
}

struct MHD_Response *rt_http_json_response_sized(cJSON *json, size_t *size_out)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    return rt_http_json_text_response(text, size_out);
}

struct MHD_Response *rt_http_json_response(cJSON *json)
{
    return rt_http_json_response_sized(json, NULL);
}

/* Queues RESPONSE (NULL: out of memory, and libmicrohttpd closes the
 * connection) with STATUS and drops our reference. */
static enum MHD_Result send_response(struct rt_request *req, unsigned status,
                                     struct MHD_Response *response)
{
    if (!response)
        return MHD_NO;
    enum MHD_Result result = MHD_queue_response(req->conn, status, response);
    MHD_destroy_response(response);
    if (status >= 500)
        fprintf(stderr, "retrace serve: %s %s -> %u\n", req->method, req->url, status);
    return result;
}

enum MHD_Result rt_http_json(struct rt_request *req, unsigned status, cJSON *json)
{
    return send_response(req, status, rt_http_json_response(json));
}

/* {"error": MESSAGE} with STATUS, and HEADER: VALUE when HEADER is given. */
static enum MHD_Result send_error(struct rt_request *req, unsigned status, const char *header,
                                  const char *value, const char *fmt, va_list ap)
{
    char message[512];
    vsnprintf(message, sizeof message, fmt, ap);
    cJSON *json = cJSON_CreateObject();
    if (json && !cJSON_AddStringToObject(json, "error", message)) {
        cJSON_Delete(json);
        json = NULL;
    }
    if (status >= 500)
        fprintf(stderr, "retrace serve: %s\n", message);
    struct MHD_Response *response = rt_http_json_response(json);
    if (response && header)
        MHD_add_response_header(response, header, value);
    if (response && status == MHD_HTTP_SERVICE_UNAVAILABLE)
        MHD_add_response_header(response, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    return send_response(req, status, response);
}

enum MHD_Result rt_http_error(struct rt_request *req, unsigned status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum MHD_Result result = send_error(req, status, NULL, NULL, fmt, ap);
    va_end(ap);
    return result;
}

enum MHD_Result rt_http_error_with_header(struct rt_request *req, unsigned status,
                                          const char *header, const char *value,
                                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum MHD_Result result = send_error(req, status, header, value, fmt, ap);
    va_end(ap);
    return result;
}

enum MHD_Result rt_http_store_error(struct rt_request *req, rt_status *s)
{
    enum MHD_Result r;
    if (rt_store_status_busy(s))
        r = rt_http_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "%s (retry later)", s->msg);
    else if (s->code == RT_ERR_BAD_INPUT || s->code == RT_ERR_USAGE)
        r = rt_http_error(req, MHD_HTTP_BAD_REQUEST, "%s", s->msg);
    else
        r = rt_http_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", s->msg);
    rt_status_free(s); /* the error ends in the response */
    return r;
}

const char *rt_http_arg(struct rt_request *req, const char *name)
{
    const char *value = MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
    return value && *value ? value : NULL;
}

bool rt_http_parse_id(const char *text, int64_t *id_out)
{
    if (!text || !*text || strlen(text) > 15)
        return false;
    int64_t value = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        value = value * 10 + (*p - '0');
    }
    *id_out = value;
    return value > 0;
}
