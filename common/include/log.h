/*
 * common/include/log.h — diagnostics on stderr, "retrace: LEVEL: message".
 *
 * Owns: the log level (RETRACE_LOG=error|warn|info|debug, default warn).
 * Must not touch: anything but libc. Never used for a command's real output.
 */
#ifndef RT_LOG_H
#define RT_LOG_H

enum rt_log_level { RT_LOG_ERROR, RT_LOG_WARN, RT_LOG_INFO, RT_LOG_DEBUG };

void rt_log(enum rt_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
