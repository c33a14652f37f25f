/* common/status.c — constructors for rt_status (see status.h). */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

rt_status rt_status_make(enum rt_code code, const char *file, int line,
                         const char *fmt, ...)
{
    rt_status s = {.code = code, .file = file, .line = line};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s.msg, sizeof s.msg, fmt, ap);
    va_end(ap);
    return s;
}

rt_status rt_status_wrap(rt_status inner, const char *fmt, ...)
{
    if (inner.code == RT_OK)
        return inner;
    rt_status s = inner;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s.msg, sizeof s.msg, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n + 3 >= sizeof s.msg)
        return s;
    /* Append ": inner", truncating inner to what fits. */
    size_t used = (size_t)n;
    size_t room = sizeof s.msg - used - 3;
    size_t len = strnlen(inner.msg, sizeof inner.msg);
    if (len > room)
        len = room;
    memcpy(s.msg + used, ": ", 2);
    memcpy(s.msg + used + 2, inner.msg, len);
    s.msg[used + 2 + len] = '\0';
    return s;
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
