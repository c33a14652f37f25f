/*
 * common/include/status.h — the one error type of retrace.
 *
 * Owns: rt_status (a code plus a one-line message), its constructors and the
 * code names. Every fallible function returns an rt_status (or fills one) and
 * the caller decides; only cli/ turns a status into an exit code.
 * Must not touch: anything but libc. Codes map one-to-one to the exit codes of
 * DESIGN.md, so cli/ can return status.code unchanged.
 */
#ifndef RT_STATUS_H
#define RT_STATUS_H

#include <stdbool.h>

#define RT_MUST_CHECK __attribute__((warn_unused_result))

enum rt_code {
    RT_OK = 0,
    RT_ERR_FAILED = 1,        /* a comparison or regression failed */
    RT_ERR_USAGE = 2,         /* bad flags or arguments */
    RT_ERR_BAD_INPUT = 3,     /* unreadable or corrupt trace, image, manifest, db */
    RT_ERR_CANNOT_REPLAY = 4, /* no device, unsupported feature */
    RT_ERR_INTERNAL = 5,      /* a bug, out of memory, an I/O error on our side */
};

#define RT_STATUS_MSG_MAX 512

typedef struct rt_status {
    enum rt_code code;
    const char *file; /* where the error was made: for logs, never for users */
    int line;
    char msg[RT_STATUS_MSG_MAX];
} rt_status;

/** A success status. */
static inline rt_status rt_ok_status(void)
{
    rt_status s = {.code = RT_OK};
    return s;
}

static inline bool rt_ok(const rt_status *s) { return s->code == RT_OK; }

rt_status rt_status_make(enum rt_code code, const char *file, int line,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/** Makes an error status at the point of failure, recording __FILE__:__LINE__. */
#define rt_errorf(code, ...) rt_status_make((code), __FILE__, __LINE__, __VA_ARGS__)

/** Returns from the enclosing function if EXPR (an rt_status) is an error. */
#define RT_TRY(expr)                         \
    do {                                     \
        rt_status rt__try = (expr);          \
        if (rt__try.code != RT_OK)           \
            return rt__try;                  \
    } while (0)

/** Prefixes an existing error's message with context ("reading x.png: ..."). */
rt_status rt_status_wrap(rt_status inner, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** "ok", "failed", "usage", "bad-input", "cannot-replay", "internal". */
const char *rt_code_name(enum rt_code code);

#endif
