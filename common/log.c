/* common/log.c — stderr diagnostics (see log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int current_level = -1;

static enum rt_log_level level_from_env(void)
{
    const char *v = getenv("RETRACE_LOG");
    if (!v)
        return RT_LOG_WARN;
    if (!strcmp(v, "error"))
        return RT_LOG_ERROR;
    if (!strcmp(v, "info"))
        return RT_LOG_INFO;
    if (!strcmp(v, "debug"))
        return RT_LOG_DEBUG;
    return RT_LOG_WARN;
}

void rt_log(enum rt_log_level level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (current_level < 0)
        current_level = (int)level_from_env();
    if ((int)level > current_level)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One fprintf so lines from several threads do not interleave. */
    fprintf(stderr, "retrace: %s: %s\n", names[level], line);
}
