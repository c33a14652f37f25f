/*
 * tests/server/test_server_hostile.c — requests no dashboard should send,
 * each answered with the right 4xx or a closed connection while the server
 * goes on serving others: path traversal (plain and percent-encoded), dot
 * files, symlinks out of the web root, oversized bodies (declared and
 * chunked), methods, a slow client holding a connection (408), more
 * connections than the limit (503), a database another process keeps locked, and a clean stop.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <iconv.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fixture.h"

#define MAX_BODY 4096
#define MAX_CONNECTIONS 4

static struct fixture f;

static void start(unsigned timeout_s)
{
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.threads = 1; /* one worker: the connection limit is exact */
    o.max_connections = MAX_CONNECTIONS;
    o.timeout_s = timeout_s;
    o.header_timeout_s = timeout_s;
    o.max_body = MAX_BODY;
    o.busy_timeout_ms = 100;
    o.token_file = f.token_file;
    fixture_start(&f, &o);
}

static void setup(void)
{
    fixture_make(&f);
    start(1);
}

static void teardown(void) { fixture_finish(&f); }

TestSuite(hostile, .init = setup, .fini = teardown, .timeout = 60);

static int get_status(const char *path)
{
    struct http_response r;
    http_request(&f, "GET", path, NULL, NULL, &r);
    int status = r.status;
    cr_assert(!strstr(r.body, "SECRET"), "GET %s leaked a file outside the web root", path);
    http_response_finish(&r);
    return status;
}

static void still_serving(void)
{
    cr_assert_eq(get_status("/api/runs"), 200);
    cr_assert_eq(get_status("/"), 200);
}

Test(hostile, pages_are_served_with_a_policy)
{
    struct http_response r;
    http_request(&f, "GET", "/", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "<title>runs</title>"));
    cr_assert(strstr(http_header(&r, "Content-Security-Policy"), "default-src 'self'"));
    cr_assert_str_eq(http_header(&r, "X-Content-Type-Options"), "nosniff");
    http_response_finish(&r);
    http_request(&f, "GET", "/app.js", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(http_header(&r, "Content-Type"), "text/javascript"));
    http_response_finish(&r);
    cr_assert_eq(get_status("/missing.html"), 404);
}

Test(hostile, traversal_plain_and_percent_encoded)
{
    const char *paths[] = {
        "/../secret.txt", "/./index.html", "/web/../secret.txt", "//etc/passwd",
        "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/%2e%2e%2fsecret.txt",
        "/..%2fsecret.txt", "/..%5csecret.txt", "/%252e%252e/secret.txt",
        "/index.html%00.png", "/.hidden", "/%2ehidden", "/a/../../secret.txt",
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        int status = get_status(paths[i]);
        cr_assert(status == 400 || status == 404, "GET %s answered %d", paths[i], status);
    }
    cr_assert_eq(get_status("/link.txt"), 403); /* a symlink out of the web root */
    still_serving();
}

Test(hostile, oversized_bodies)
{
    char header[128];
    snprintf(header, sizeof header, "Authorization: Bearer %s\r\n", TEST_TOKEN);
    /* declared too large: refused before the body is read */
    const char declared[] = "POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n"
                            "Authorization: Bearer " TEST_TOKEN "\r\n\r\n{";
    struct http_response r;
    http_raw(&f, declared, sizeof declared - 1, &r);
    cr_assert_eq(r.status, 413);
    http_response_finish(&r);
    /* chunked, with no length: refused before a byte of it is read (411) */
    size_t size = 3 * MAX_BODY;
    char *big = malloc(size + 1);
    memset(big, ' ', size);
    big[size] = '\0';
    char *raw = malloc(size + 512);
    int n = snprintf(raw, size + 512,
                     "POST /api/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n%s"
                     "Connection: close\r\n\r\n%zx\r\n%s\r\n0\r\n\r\n", header, size, big);
    http_raw(&f, raw, (size_t)n, &r);
    cr_assert_eq(r.status, 411, "a chunked body over the limit: %d", r.status);
    http_response_finish(&r);
    free(big);
    free(raw);
    still_serving();
}

Test(hostile, an_endless_chunked_body_is_cut_off)
{
    int fd = http_connect(&f);
    cr_assert(fd >= 0);
    char head[256];
    int n = snprintf(head, sizeof head,
                     "POST /api/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                     "Authorization: Bearer %s\r\n\r\n", TEST_TOKEN);
    cr_assert(send(fd, head, (size_t)n, MSG_NOSIGNAL) == n);
    static char chunk[16 * 1024 + 16];
    n = snprintf(chunk, sizeof chunk, "%x\r\n", 16 * 1024);
    memset(chunk + n, 'x', 16 * 1024);
    memcpy(chunk + n + 16 * 1024, "\r\n", 2);
    size_t size = (size_t)n + 16 * 1024 + 2, sent = 0;
    /* 64 MiB offered: the server must hang up long before */
    for (int i = 0; i < 4096; i++) {
        ssize_t w = send(fd, chunk, size, MSG_NOSIGNAL);
        if (w <= 0)
            break;
        sent += (size_t)w;
    }
    close(fd);
    cr_assert_lt(sent, (size_t)32 << 20, "the server read %zu bytes of an endless body", sent);
    still_serving();
}

Test(hostile, methods_and_garbage)
{
    struct http_response r;
    http_request(&f, "DELETE", "/api/runs/1", NULL, NULL, &r);
    cr_assert_eq(r.status, 405);
    cr_assert(http_header(&r, "Allow"));
    http_response_finish(&r);
    http_request(&f, "PUT", "/index.html", NULL, "x", &r);
    cr_assert_eq(r.status, 405);
    http_response_finish(&r);
    const char garbage[] = "\x16\x03\x01\x02\x00 not http at all\r\n\r\n";
    http_raw(&f, garbage, sizeof garbage - 1, &r);
    cr_assert(r.status == 0 || (r.status >= 400 && r.status < 500));
    http_response_finish(&r);
    still_serving();
}

/* glibc's iconv refuses any byte sequence that is not UTF-8 (RFC 3629). */
static bool valid_utf8(const char *text, size_t size)
{
    iconv_t cd = iconv_open("UTF-8", "UTF-8");
    cr_assert(cd != (iconv_t)-1);
    char out[8192];
    char *in = (char *)text;
    bool ok = true;
    while (size && ok) {
        char *o = out;
        size_t left = sizeof out;
        ok = iconv(cd, &in, &size, &o, &left) != (size_t)-1 || errno == E2BIG;
    }
    iconv_close(cd);
    return ok;
}

/* JSON is UTF-8 (RFC 8259 §8.1): bytes of the request echoed in an error, or
 * stored by an upload, must not make an answer a strict parser refuses. */
Test(hostile, answers_are_utf8_whatever_bytes_the_request_holds)
{
    const char *paths[] = {"/api/runs/%ff", "/api/results/%c0%af", "/api/runs/ab%e2%82",
                           "/api/images/golden/%ed%a0%80", "/api/history?trace=%f5%80"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        struct http_response r;
        http_request(&f, "GET", paths[i], NULL, NULL, &r);
        cr_assert(r.status >= 400 && r.status < 500, "GET %s answered %d", paths[i], r.status);
        cr_assert(valid_utf8(r.body, r.body_size), "GET %s: not UTF-8: %s", paths[i], r.body);
        http_response_finish(&r);
    }
    char header[128];
    snprintf(header, sizeof header, "Authorization: Bearer %s\r\n", TEST_TOKEN);
    struct http_response r;
    http_request(&f, "POST", "/api/results/%ff/approve", header, "{}", &r);
    cr_assert_eq(r.status, 404);
    cr_assert(valid_utf8(r.body, r.body_size), "not UTF-8: %s", r.body);
    http_response_finish(&r);
}

/* The big pages are SQLite's JSON text, which copies stored bytes as they
 * are: an upload's names and messages that are no UTF-8 (cJSON takes them
 * as they come) must still become '?' there, past the answer's long ASCII
 * start too. */
Test(hostile, pages_of_an_upload_with_bytes_that_are_no_utf8_are_utf8)
{
    char header[128];
    snprintf(header, sizeof header, "Authorization: Bearer %s\r\nContent-Type: application/json\r\n",
             TEST_TOKEN);
    const char *body =
        "{\"format\":\"retrace-run\",\"version\":1,\"run\":{\"id\":\"6b1f0e1c-3a43-4c55-9a1e-5d0c8f1b2a77\","
        "\"label\":\"nightly\xff\",\"host\":\"h\xc0\xaf\",\"device\":\"d\",\"device_key\":\"k\xed\xa0\x80\","
        "\"started_at\":\"2026-12-01T02:00:00Z\",\"finished_at\":\"2026-12-01T02:10:00Z\",\"outcome\":\"failed\"},"
        "\"results\":[{\"trace\":\"bad\xf5\x80trace\",\"frame\":1,\"status\":\"crash\","
        "\"message\":\"broke \xe2\x82 here\"}]}";
    struct http_response r;
    http_request(&f, "POST", "/api/runs", header, body, &r);
    cr_assert(r.status == 201, "upload answered %d: %s", r.status, r.body);
    cJSON *json = cJSON_Parse(r.body);
    char run[64];
    snprintf(run, sizeof run, "/api/runs/%d", (int)cJSON_GetObjectItemCaseSensitive(json, "run")->valuedouble);
    cJSON_Delete(json);
    http_response_finish(&r);
    const char *paths[] = {run, "/api/runs", "/api/history?trace=bad%f5%80trace"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        http_request(&f, "GET", paths[i], NULL, NULL, &r);
        cr_assert_eq(r.status, 200, "GET %s answered %d", paths[i], r.status);
        cr_assert(valid_utf8(r.body, r.body_size), "GET %s: not UTF-8: %s", paths[i], r.body);
        json = cJSON_Parse(r.body);
        cr_assert_not_null(json, "GET %s: not JSON", paths[i]);
        cJSON_Delete(json);
        http_response_finish(&r);
    }
}

/* limit and offset are plain digits: strtoul alone would take " 5" and "+5". */
Test(hostile, page_numbers_with_spaces_or_signs_are_refused)
{
    const char *paths[] = {"/api/runs?offset=%205", "/api/runs?limit=%2010",
                           "/api/runs?offset=%2B5", "/api/runs?limit=5%20",
                           "/api/runs?offset=-0", "/api/runs?offset=18446744073709551617"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        cr_assert_eq(get_status(paths[i]), 400, "GET %s", paths[i]);
    cr_assert_eq(get_status("/api/runs?offset=1000000000&limit=500"), 200);
}

Test(hostile, a_slow_client_is_cut_off_and_others_are_served)
{
    int slow = http_connect(&f);
    cr_assert(slow >= 0);
    const char partial[] = "GET /api/runs HTTP/1.1\r\nHost: x\r\n"; /* never finished */
    cr_assert(send(slow, partial, sizeof partial - 1, MSG_NOSIGNAL) > 0);
    still_serving(); /* while the slow client holds its connection */
    /* the header deadline (1 s here) ends it with a 408 (the 5 s receive
     * timeout only guards against a server that never does) */
    struct http_response r;
    http_read(slow, &r);
    close(slow);
    cr_assert_eq(r.status, 408, "the slow client got %d", r.status);
    cr_assert(strstr(r.body, "\"error\""), "not the JSON error: %s", r.body);
    http_response_finish(&r);
    still_serving();
}

Test(hostile, more_connections_than_the_limit)
{
    rt_server_stop(f.server);
    start(30); /* held connections must outlive this test's steps */
    int held[MAX_CONNECTIONS];
    for (int i = 0; i < MAX_CONNECTIONS; i++)
        cr_assert((held[i] = http_connect(&f)) >= 0);
    /* wait until the server has accepted them all: one of them gets an answer */
    const char request[] = "GET /api/runs HTTP/1.1\r\nHost: x\r\n\r\n";
    cr_assert(send(held[0], request, sizeof request - 1, MSG_NOSIGNAL) > 0);
    char buf[16];
    cr_assert(recv(held[0], buf, sizeof buf, 0) > 0);
    /* one more: answered 503 at once, with Retry-After, never silence */
    struct http_response r;
    const char extra[] = "GET /api/runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    http_raw(&f, extra, sizeof extra - 1, &r);
    cr_assert_eq(r.status, 503, "a connection over the limit was answered %d", r.status);
    cr_assert(http_header(&r, "Retry-After"));
    http_response_finish(&r);
    for (int i = 0; i < MAX_CONNECTIONS; i++)
        close(held[i]);
    /* the server forgets closed connections and serves again */
    for (int attempt = 0; attempt < 50; attempt++) {
        http_request(&f, "GET", "/api/runs", NULL, NULL, &r);
        int status = r.status;
        http_response_finish(&r);
        if (status == 200)
            return;
        usleep(20000);
    }
    cr_assert_fail("the server did not serve again after the connections closed");
}

Test(hostile, a_locked_database_is_503_then_works)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(f.db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    char header[128];
    snprintf(header, sizeof header, "Authorization: Bearer %s\r\n", TEST_TOKEN);
    struct http_response r;
    http_request(&f, "POST", "/api/goldens/1/known-bad", header, "", &r);
    cr_assert_eq(r.status, 503, "a locked database answered %d: %s", r.status, r.body);
    http_response_finish(&r);
    cr_assert_eq(get_status("/api/runs"), 200); /* reads go on (WAL) */
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    http_request(&f, "POST", "/api/goldens/1/known-bad", header, "", &r);
    cr_assert_eq(r.status, 200);
    http_response_finish(&r);
}

Test(hostile, bad_options_are_refused)
{
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.db_path = f.db;
    struct rt_server *server = NULL;
    o.listen = "localhost:80"; /* numeric addresses only */
    rt_status s = rt_server_start(&o, &server);
    cr_assert_eq(s.code, RT_ERR_USAGE);
    /* ports are digits only, as every number retrace reads */
    const char *bad_ports[] = {"127.0.0.1:99999", "127.0.0.1:+0", "127.0.0.1: 0", "127.0.0.1:-0",
                               "127.0.0.1:", "[::1]:0x1f", "+0"};
    for (size_t i = 0; i < sizeof bad_ports / sizeof *bad_ports; i++) {
        o.listen = bad_ports[i];
        rt_status_free(&s);
        s = rt_server_start(&o, &server);
        cr_assert_eq(s.code, RT_ERR_USAGE, "--listen %s: %s", bad_ports[i], s.msg);
        cr_assert_null(server);
    }
    o.listen = "127.0.0.1:0";
    o.token_file = "/nonexistent/token";
    rt_status_free(&s);
    s = rt_server_start(&o, &server);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert_null(server);
    rt_status_free(&s);
}

/* Clients that pipeline requests and read none of the answers hold them
 * in the server's buffers; each is let go after --timeout (1 s here), as
 * libmicrohttpd let go of one it held the socket of, so that as many as
 * the connection limit do not keep everyone else out. Bounded: 4000
 * requests each, a 3 s wait. */
Test(hostile, clients_that_read_no_answers_are_let_go)
{
    static const char request[] = "GET /api/runs HTTP/1.1\r\nHost: x\r\n\r\n";
    int held[MAX_CONNECTIONS];
    for (int c = 0; c < MAX_CONNECTIONS; c++) {
        cr_assert((held[c] = http_connect(&f)) >= 0);
        for (int i = 0; i < 4000; i++)
            if (send(held[c], request, sizeof request - 1, MSG_NOSIGNAL | MSG_DONTWAIT) !=
                (ssize_t)(sizeof request - 1))
                break; /* the server stopped taking them: its buffers are full */
    }
    sleep(3);
    still_serving(); /* 503 while the four held their places */
    for (int c = 0; c < MAX_CONNECTIONS; c++)
        close(held[c]);
}
