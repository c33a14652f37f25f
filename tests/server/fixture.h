/*
 * tests/server/fixture.h — what the server tests share: a test store with
 * runs, goldens and a real failing result, a server on a free loopback port,
 * and a minimal HTTP client over raw sockets (so a test can also send what no
 * well-behaved client would).
 */
#ifndef RT_TEST_SERVER_FIXTURE_H
#define RT_TEST_SERVER_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

#define TEST_TOKEN "test-token-0123456789"

struct fixture {
    char dir[256];       /* a fresh temporary folder */
    char db[300], token_file[300], web[300], outside[300];
    struct rt_server *server;
    int64_t failing_result; /* a "fail" result with actual and diff images */
    int64_t passing_result; /* a "pass" result without images */
    int64_t golden;         /* the golden of the failing frame */
    int64_t newest_run, older_run;
};

/** Makes the folder, the store, the token file and the web root. */
void fixture_make(struct fixture *f);

/** Starts a server on the fixture with OPTIONS (listen, db and web root filled in). */
void fixture_start(struct fixture *f, struct rt_server_options *options);

/** Stops the server and removes the folder. */
void fixture_finish(struct fixture *f);

struct http_response {
    int status;       /* 0 when the connection closed without an answer */
    char headers[4096];
    char *body;       /* NUL-terminated */
    size_t body_size;
};

/** Connects to the fixture's server (5 s receive timeout); -1 on failure. */
int http_connect(const struct fixture *f);

/** Sends RAW bytes on a new connection and reads the answer until the server closes. */
void http_raw(const struct fixture *f, const char *raw, size_t size, struct http_response *out);

/** Reads an answer from FD until the server closes it. */
void http_read(int fd, struct http_response *out);

/** METHOD PATH with optional extra header lines ("A: b\r\n") and BODY. */
void http_request(const struct fixture *f, const char *method, const char *path,
                  const char *headers, const char *body, struct http_response *out);

/** A header's value (static buffer), NULL when absent. */
const char *http_header(const struct http_response *r, const char *name);

void http_response_finish(struct http_response *r);

#endif
