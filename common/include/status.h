/*
 * common/include/status.h — the one error type of retrace.
 *
 * Owns: rt_status (a code plus, for an error, a one-line message it owns),
 * its constructors, its release and the code names. Every fallible function returns an rt_status (or fills one) and
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

/** Longest message kept, terminating NUL included; longer ones are cut. */
#define RT_STATUS_MSG_MAX 512

/*
 * Two words, returned in registers: success costs no copy of a message.
 * An error's message lives in a record allocated where the error is made
 * (rt_errorf); the status owns it, and ownership moves with the value:
 * returning a status, RT_TRY and rt_status_wrap pass it on. Whoever ends an
 * error's journey without passing it on (logs it and goes on, or turns it
 * into an exit code) calls rt_status_free, or rt_status_drop for the code
 * alone. A status kept in two places needs rt_status_copy. On success msg
 * is "" (or NULL in a zeroed struct) and there is nothing to free.
 */
typedef struct rt_status {
    enum rt_code code;
    const char *msg; /* the one-line message; read-only, owned by the status */
} rt_status;

/** A success status. */
static inline rt_status rt_ok_status(void)
{
    rt_status s = {.code = RT_OK, .msg = ""};
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

/**
 * Prefixes an error's message with context ("reading x.png: ..."). Takes
 * INNER over: the result is the error to pass on or free (INNER unchanged
 * when it is a success).
 */
rt_status rt_status_wrap(rt_status inner, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void rt_status_release(rt_status *s); /* rt_status_free's work for an error */

/** Frees an error's message and leaves *S a success; nothing to do on success. */
static inline void rt_status_free(rt_status *s)
{
    if (s->code != RT_OK)
        rt_status_release(s);
}

/** Frees S's message and returns its code: for errors whose code is all that matters. */
static inline enum rt_code rt_status_drop(rt_status s)
{
    enum rt_code code = s.code;
    rt_status_free(&s);
    return code;
}

/** A second, independently owned status with the same code and message. */
rt_status rt_status_copy(const rt_status *s) RT_MUST_CHECK;

/** Where the error was made, "file:line" (for logs, never for users); "" on success. */
const char *rt_status_where(const rt_status *s, int *line);

/** "ok", "failed", "usage", "bad-input", "cannot-replay", "internal". */
const char *rt_code_name(enum rt_code code);

#endif
