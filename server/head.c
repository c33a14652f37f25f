/*
 * server/head.c — the check of a request head before libmicrohttpd sees it
 * (see head.h). The grammar is RFC 9112's, narrowed: lines end in CRLF
 * (a bare LF is refused), no obsolete line folding, an origin-form target
 * of visible ASCII, HTTP/1.0 or 1.1, at most one Host and Content-Length,
 * and no Transfer-Encoding: a body needs its Content-Length (411). A
 * chunked body would be decoded by libmicrohttpd, whose answer to a
 * malformed one is an HTML page of its own that no hook can replace.
 */
#include "head.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_METHOD 20

struct line {
    const char *start;
    size_t size; /* without the CRLF */
};

struct fields {
    bool http11;
    unsigned count;
    int host, length, encoding;
    uint64_t content_length;
    bool length_overflow;
};

const char *rt_head_reason(unsigned status)
{
    switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

static enum rt_head_state refuse(struct rt_head_verdict *v, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum rt_head_state refuse(struct rt_head_verdict *v, unsigned status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
    v->status = status;
    return RT_HEAD_DONE;
}

/* RFC 9110 §5.6.2 tchar */
static bool tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The line starting at OFFSET: false when it has not ended within SIZE. */
static bool next_line(const char *buf, size_t size, size_t offset, struct line *out)
{
    const char *lf = memchr(buf + offset, '\n', size - offset);
    if (!lf)
        return false;
    out->start = buf + offset;
    out->size = (size_t)(lf - out->start); /* the CR, if any, is still counted */
    return true;
}

/* An unfinished request line: refuse early what can no longer become valid. */
static enum rt_head_state partial_request_line(const char *buf, size_t size,
                                               struct rt_head_verdict *v)
{
    size_t method = 0;
    while (method < size && tchar((unsigned char)buf[method]))
        method++;
    if (method < size && (buf[method] != ' ' || method == 0 || method > MAX_METHOD))
        return refuse(v, 400, "malformed request line");
    if (method == size && method > MAX_METHOD)
        return refuse(v, 400, "malformed request line");
    if (size > RT_HEAD_MAX_TARGET + MAX_METHOD + 16)
        return refuse(v, 414, "request target over %d bytes", RT_HEAD_MAX_TARGET);
    return RT_HEAD_INCOMPLETE;
}

static enum rt_head_state request_line(const struct line *l, struct fields *f,
                                       struct rt_head_verdict *v)
{
    if (l->size == 0 || l->start[l->size - 1] != '\r')
        return refuse(v, 400, "malformed request line (lines end in CRLF)");
    size_t n = l->size - 1, method = 0;
    const char *s = l->start;
    while (method < n && tchar((unsigned char)s[method]))
        method++;
    if (method == 0 || method > MAX_METHOD || method == n || s[method] != ' ')
        return refuse(v, 400, "malformed request line");
    size_t target = method + 1, end = target;
    while (end < n && (unsigned char)s[end] > ' ' && (unsigned char)s[end] < 127)
        end++;
    if (end - target > RT_HEAD_MAX_TARGET)
        return refuse(v, 414, "request target over %d bytes", RT_HEAD_MAX_TARGET);
    if (end == target || s[target] != '/' || end == n || s[end] != ' ')
        return refuse(v, 400, "malformed request line (the target must be a path)");
    const char *version = s + end + 1;
    size_t version_size = n - end - 1;
    f->http11 = version_size == 8 && !memcmp(version, "HTTP/1.1", 8);
    if (f->http11 || (version_size == 8 && !memcmp(version, "HTTP/1.0", 8)))
        return RT_HEAD_INCOMPLETE; /* fine so far: the fields come next */
    if (version_size > 5 && !memcmp(version, "HTTP/", 5))
        return refuse(v, 505, "only HTTP/1.0 and HTTP/1.1 are served");
    return refuse(v, 400, "malformed request line");
}

static bool value_char(unsigned char c)
{
    return c == '\t' || (c >= ' ' && c != 127); /* VCHAR, SP, HTAB, obs-text */
}

static bool is_field(const struct line *l, size_t name, const char *wanted)
{
    return name == strlen(wanted) && !strncasecmp(l->start, wanted, name);
}

/* Trims OWS around a field value. */
static void trim(const char **value, size_t *size)
{
    while (*size && (**value == ' ' || **value == '\t'))
        (*value)++, (*size)--;
    while (*size && ((*value)[*size - 1] == ' ' || (*value)[*size - 1] == '\t'))
        (*size)--;
}

/* Content-Length: digits only. More digits than a uint64_t holds is "too
 * large" (413), anything else not a number (400, UINT64_MAX). */
static void note_length(struct fields *f, const char *value, size_t size)
{
    f->length++;
    uint64_t n = 0;
    bool digits = size > 0;
    for (size_t i = 0; digits && i < size; i++) {
        digits = value[i] >= '0' && value[i] <= '9';
        if (i < 19)
            n = n * 10 + (uint64_t)(value[i] - '0');
    }
    f->length_overflow = digits && size > 19;
    f->content_length = digits ? n : UINT64_MAX;
}

static enum rt_head_state field_line(const struct line *l, struct fields *f,
                                     struct rt_head_verdict *v)
{
    if (l->size == 0 || l->start[l->size - 1] != '\r')
        return refuse(v, 400, "malformed header field (lines end in CRLF)");
    size_t n = l->size - 1, name = 0;
    if (l->start[0] == ' ' || l->start[0] == '\t')
        return refuse(v, 400, "folded header lines are not accepted");
    while (name < n && tchar((unsigned char)l->start[name]))
        name++;
    if (name == 0 || name == n || l->start[name] != ':')
        return refuse(v, 400, "malformed header field");
    const char *value = l->start + name + 1;
    size_t size = n - name - 1;
    for (size_t i = 0; i < size; i++)
        if (!value_char((unsigned char)value[i]))
            return refuse(v, 400, "a control character in a header field");
    /* libmicrohttpd 0.9.75 takes a Content-Length only without white space
     * after it (else its own HTML 400): so that is no number here either */
    bool trailing_space = size && (value[size - 1] == ' ' || value[size - 1] == '\t');
    trim(&value, &size);
    if (++f->count > RT_HEAD_MAX_FIELDS)
        return refuse(v, 431, "more than %d header fields", RT_HEAD_MAX_FIELDS);
    if (is_field(l, name, "Host"))
        f->host++;
    else if (is_field(l, name, "Content-Length"))
        note_length(f, value, trailing_space ? size + 1 : size); /* the space: not a digit */
    else if (is_field(l, name, "Transfer-Encoding"))
        f->encoding++;
    return RT_HEAD_INCOMPLETE;
}

static enum rt_head_state semantics(const struct fields *f, const struct rt_head_limits *limits,
                                    struct rt_head_verdict *v)
{
    if (f->host > 1 || (f->http11 && f->host == 0))
        return refuse(v, 400, "a request needs exactly one Host field");
    if (f->length > 1 || (f->length && f->encoding))
        return refuse(v, 400, "conflicting body lengths");
    if (f->encoding)
        return refuse(v, 411, RT_HEAD_NO_CHUNKED);
    if (f->length && !f->length_overflow && f->content_length == UINT64_MAX)
        return refuse(v, 400, "Content-Length is not a number");
    if (f->length && (f->length_overflow || f->content_length > limits->max_body))
        return refuse(v, 413, "request body over %llu bytes",
                      (unsigned long long)limits->max_body);
    v->status = 0;
    v->body_size = f->length ? f->content_length : 0;
    return RT_HEAD_DONE;
}

enum rt_head_state rt_head_check(const char *buf, size_t size, const struct rt_head_limits *limits,
                                 struct rt_head_verdict *v)
{
    memset(v, 0, sizeof *v);
    size_t window = size < RT_HEAD_MAX ? size : RT_HEAD_MAX;
    struct line l;
    if (!next_line(buf, window, 0, &l)) {
        enum rt_head_state s = partial_request_line(buf, window, v);
        if (s == RT_HEAD_INCOMPLETE && size >= RT_HEAD_MAX)
            return refuse(v, 431, "request head over %d bytes", RT_HEAD_MAX);
        return s;
    }
    struct fields f = {0};
    if (request_line(&l, &f, v) == RT_HEAD_DONE)
        return RT_HEAD_DONE;
    for (size_t offset = l.size + 1;; offset += l.size + 1) {
        if (!next_line(buf, window, offset, &l))
            return size >= RT_HEAD_MAX ? refuse(v, 431, "request head over %d bytes", RT_HEAD_MAX)
                                       : RT_HEAD_INCOMPLETE;
        if (l.size == 1 && l.start[0] == '\r') {
            v->head_size = offset + 2;
            return semantics(&f, limits, v);
        }
        if (field_line(&l, &f, v) == RT_HEAD_DONE)
            return RT_HEAD_DONE;
    }
}
