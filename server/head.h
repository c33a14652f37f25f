/*
 * server/head.h — the check of a request's head (request line and header
 * fields, RFC 9112) that the front door (front.c) makes before a byte of
 * any request, the first or a later one on a connection, reaches
 * libmicrohttpd. It decides what libmicrohttpd would otherwise answer with
 * its own HTML (400, 413, 414, 431, 505, and a malformed chunked body's
 * 400: chunked bodies are refused, 411), so that every such answer is the
 * server's JSON, and how long the body is (the front passes on no byte
 * beyond it). The token and the declared body size are checked again by
 * server.c before any body byte is taken. Pure: bytes in, a verdict out;
 * safe on untrusted input (tests/fuzz/fuzz_head.c). Stricter than
 * libmicrohttpd on purpose: a head it passes, libmicrohttpd parses without
 * an error of its own.
 */
#ifndef RT_SERVER_HEAD_H
#define RT_SERVER_HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_HEAD_MAX 8192       /* request line and header fields together */
#define RT_HEAD_MAX_TARGET 4096 /* the request target (path and query) */
/* header fields: libmicrohttpd keeps a record of each in the connection's
 * 64 KiB (front.h), and answers its own HTML 431 when ~1000 tiny ones do
 * not fit; browsers send about 20 (Apache's LimitRequestFields is 100) */
#define RT_HEAD_MAX_FIELDS 100
/* The 411 for any Transfer-Encoding (front.c for first heads, server.c for later ones). */
#define RT_HEAD_NO_CHUNKED "a request body needs a Content-Length (chunked bodies are not accepted)"

struct rt_head_limits {
    uint64_t max_body; /* a declared Content-Length over this is 413 */
};

struct rt_head_verdict {
    unsigned status;   /* 0 = pass the connection on; else the answer to send */
    size_t head_size;  /* bytes of the head, its final empty line included */
    uint64_t body_size; /* its Content-Length (at most max_body), 0 without one */
    char message[160]; /* the "error" of the JSON answer when status != 0 */
};

enum rt_head_state {
    RT_HEAD_INCOMPLETE, /* the head has not ended yet and may still be fine: read more */
    RT_HEAD_DONE,       /* VERDICT says what to do */
};

/**
 * Checks the head at the start of BUF (SIZE bytes, the head and possibly
 * some of the body; not NUL-terminated). Returns RT_HEAD_INCOMPLETE while
 * the head has not ended and nothing seen so far is wrong (SIZE below
 * RT_HEAD_MAX), else RT_HEAD_DONE with VERDICT filled in.
 */
enum rt_head_state rt_head_check(const char *buf, size_t size, const struct rt_head_limits *limits,
                                 struct rt_head_verdict *verdict);

/** The reason phrase of an HTTP status the server sends. */
const char *rt_head_reason(unsigned status);

#endif
