/* common/status.c — constructors and release of rt_status (see status.h). */
#include "status.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error's message and where it was made; rt_status.msg points at text. */
struct rt_error {
    const char *file;
    int line;
    char text[];
};

/* When even the record cannot be allocated: static, never freed. */
static const char out_of_memory[] = "out of memory while reporting an error";

static struct rt_error *record_of(const char *msg)
{
    return (struct rt_error *)(void *)(msg - offsetof(struct rt_error, text));
}

static bool owns_record(const rt_status *s)
{
    return s->code != RT_OK && s->msg && s->msg != out_of_memory;
}

/* A status of CODE whose message is LEN bytes (cut to fit) from the parts. */
static rt_status make(enum rt_code code, const char *file, int line, const char *a, size_t alen,
                      const char *b, size_t blen)
{
    size_t len = alen + blen;
    if (len >= RT_STATUS_MSG_MAX)
        len = RT_STATUS_MSG_MAX - 1;
    if (alen > len)
        alen = len;
    struct rt_error *e = malloc(sizeof *e + len + 1);
    if (!e)
        return (rt_status){.code = code, .msg = out_of_memory};
    e->file = file;
    e->line = line;
    memcpy(e->text, a, alen);
    memcpy(e->text + alen, b, len - alen);
    e->text[len] = '\0';
    return (rt_status){.code = code, .msg = e->text};
}

/* FMT into TEXT (RT_STATUS_MSG_MAX bytes); the length kept, cut to fit.
 * *FAILED (when asked) says vsnprintf failed: TEXT is then empty. */
static size_t format_clamped(char *text, const char *fmt, va_list ap, bool *failed)
{
    int n = vsnprintf(text, RT_STATUS_MSG_MAX, fmt, ap);
    if (failed)
        *failed = n < 0;
    if (n < 0)
        text[0] = '\0';
    return n < 0 ? 0 : (size_t)n >= RT_STATUS_MSG_MAX ? RT_STATUS_MSG_MAX - 1 : (size_t)n;
}

rt_status rt_status_make(enum rt_code code, const char *file, int line,
                         const char *fmt, ...)
{
    char text[RT_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    size_t len = format_clamped(text, fmt, ap, NULL);
    va_end(ap);
    return make(code, file, line, text, len, "", 0);
}

rt_status rt_status_wrap(rt_status inner, const char *fmt, ...)
{
    if (inner.code == RT_OK)
        return inner;
    char text[RT_STATUS_MSG_MAX];
    va_list ap;
    bool failed;
    va_start(ap, fmt);
    size_t used = format_clamped(text, fmt, ap, &failed);
    va_end(ap);
    const struct rt_error *e = owns_record(&inner) ? record_of(inner.msg) : NULL;
    rt_status s;
    if (failed || used + 3 >= sizeof text) { /* no room for ": inner": the prefix alone */
        s = make(inner.code, e ? e->file : NULL, e ? e->line : 0, text, used, "", 0);
    } else {
        memcpy(text + used, ": ", 2);
        const char *im = inner.msg ? inner.msg : "";
        s = make(inner.code, e ? e->file : NULL, e ? e->line : 0, text, used + 2, im, strlen(im));
    }
    rt_status_free(&inner);
    return s;
}

void rt_status_release(rt_status *s)
{
    if (owns_record(s))
        free(record_of(s->msg));
    *s = rt_ok_status();
}

rt_status rt_status_copy(const rt_status *s)
{
    if (!owns_record(s))
        return *s;
    const struct rt_error *e = record_of(s->msg);
    return make(s->code, e->file, e->line, s->msg, strlen(s->msg), "", 0);
}

const char *rt_status_where(const rt_status *s, int *line)
{
    const struct rt_error *e = owns_record(s) ? record_of(s->msg) : NULL;
    *line = e ? e->line : 0;
    return e && e->file ? e->file : "";
}

const char *rt_code_name(enum rt_code code)
{
    switch (code) {
    case RT_OK: return "ok";
    case RT_ERR_FAILED: return "failed";
    case RT_ERR_USAGE: return "usage";
    case RT_ERR_BAD_INPUT: return "bad-input";
    case RT_ERR_CANNOT_REPLAY: return "cannot-replay";
    case RT_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}
