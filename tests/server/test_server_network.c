/*
 * tests/server/test_server_network.c — the server against a hostile
 * network, on loopback only: hostile clients connect from 127.0.0.2 (and
 * .3, .4, .5), so a per-address cap can be told from the global limit,
 * while ordinary requests from 127.0.0.1 must still be answered. Covers the
 * per-address cap (429), the global limit (503), both with Retry-After;
 * the header deadline, on a new connection (408) and on a kept-alive one;
 * the token checked before any body byte; every error libmicrohttpd would
 * answer itself (400, 413, 414, 431, 505, a malformed chunked body's 400:
 * chunked bodies are 411) answered as the documented JSON;
 * and the answer cache bounded in bytes and keyed on known arguments only.
 * Every loop is bounded in count; no assertion is about speed.
 */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "fixture.h"
#include "server_internal.h"

#define MAX_CONNECTIONS 8
#define PER_ADDRESS 3

static struct fixture f;

static void setup(void)
{
    fixture_make(&f);
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.threads = 1;
    o.max_connections = MAX_CONNECTIONS;
    o.max_per_address = PER_ADDRESS;
    o.timeout_s = 30;
    o.header_timeout_s = 1;
    o.max_body = 4096;
    o.token_file = f.token_file;
    fixture_start(&f, &o);
}

static void teardown(void) { fixture_finish(&f); }

TestSuite(network, .init = setup, .fini = teardown, .timeout = 60);

/* A connection to the server from SOURCE, another loopback address. */
static int connect_from(const char *source)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in local = {.sin_family = AF_INET};
    inet_pton(AF_INET, source, &local.sin_addr);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(rt_server_port(f.server))};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    cr_assert(bind(fd, (struct sockaddr *)&local, sizeof local) == 0, "bind %s", source);
    cr_assert(connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
    return fd;
}

static void send_text(int fd, const char *text)
{
    cr_assert(send(fd, text, strlen(text), MSG_NOSIGNAL) == (ssize_t)strlen(text));
}

/* An answer that is the documented JSON error. */
static void assert_json_error(const struct http_response *r, int status)
{
    cr_assert_eq(r->status, status, "answered %d (wanted %d): %s", r->status, status, r->body);
    const char *type = http_header(r, "Content-Type");
    cr_assert(type && strstr(type, "application/json"), "Content-Type %s", type ? type : "none");
    cJSON *json = cJSON_Parse(r->body);
    cr_assert(json, "not JSON: %s", r->body);
    cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(json, "error")), "%s", r->body);
    cJSON_Delete(json);
}

static void answered_as_json(int fd, int status)
{
    struct http_response r;
    http_read(fd, &r);
    assert_json_error(&r, status);
    http_response_finish(&r);
}

static void still_serving(void)
{
    struct http_response r;
    http_request(&f, "GET", "/api/runs", NULL, NULL, &r);
    cr_assert_eq(r.status, 200, "127.0.0.1 was answered %d", r.status);
    http_response_finish(&r);
}

/* Holds COUNT connections from SOURCE, each with half a head. */
static void hold(const char *source, int *fds, int count)
{
    for (int i = 0; i < count; i++) {
        fds[i] = connect_from(source);
        send_text(fds[i], "GET /api/runs HTTP/1.1\r\n");
    }
}

static void release(int *fds, int count)
{
    for (int i = 0; i < count; i++)
        close(fds[i]);
}

Test(network, one_address_is_capped_and_others_are_served)
{
    int held[PER_ADDRESS];
    hold("127.0.0.2", held, PER_ADDRESS);
    /* the front accepts in arrival order, so the held ones count first */
    int fd = connect_from("127.0.0.2");
    send_text(fd, "GET /api/runs HTTP/1.1\r\nHost: x\r\n\r\n");
    struct http_response r;
    http_read(fd, &r);
    close(fd);
    assert_json_error(&r, 429);
    cr_assert(http_header(&r, "Retry-After"));
    http_response_finish(&r);
    still_serving();
    release(held, PER_ADDRESS);
}

Test(network, beyond_the_global_limit_is_503_with_retry_after)
{
    int a[PER_ADDRESS], b[PER_ADDRESS], c[2];
    hold("127.0.0.2", a, PER_ADDRESS);
    hold("127.0.0.3", b, PER_ADDRESS);
    hold("127.0.0.4", c, 2); /* 8: the limit */
    int fd = connect_from("127.0.0.5");
    send_text(fd, "GET /api/runs HTTP/1.1\r\nHost: x\r\n\r\n");
    struct http_response r;
    http_read(fd, &r);
    close(fd);
    assert_json_error(&r, 503);
    cr_assert(http_header(&r, "Retry-After"));
    http_response_finish(&r);
    release(a, PER_ADDRESS);
    release(b, PER_ADDRESS);
    release(c, 2);
    for (int attempt = 0; attempt < 100; attempt++) { /* closing is seen asynchronously */
        http_request(&f, "GET", "/api/runs", NULL, NULL, &r);
        int status = r.status;
        http_response_finish(&r);
        if (status == 200)
            return;
        usleep(20000);
    }
    cr_assert_fail("not served again after the held connections closed");
}

/* Sends a header line every 200 ms (the 2026 attack: one every 5 s kept a
 * server busy for a minute) until the server answers or closes, at most 50
 * lines. Returns the number of lines sent. */
static int trickle(int fd)
{
    for (int i = 0; i < 50; i++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 200) > 0)
            return i;
        char line[32];
        snprintf(line, sizeof line, "X-Slow-%d: y\r\n", i);
        if (send(fd, line, strlen(line), MSG_NOSIGNAL) <= 0)
            return i;
    }
    return 50;
}

Test(network, a_head_that_trickles_in_is_cut_at_the_deadline)
{
    int fd = connect_from("127.0.0.2");
    send_text(fd, "GET /api/runs HTTP/1.1\r\nHost: x\r\n");
    int lines = trickle(fd);
    cr_assert_lt(lines, 50, "a trickling head was never cut off");
    struct http_response r;
    http_read(fd, &r);
    close(fd);
    assert_json_error(&r, 408);
    http_response_finish(&r);
    still_serving();
}

/* Reads one answer (head and Content-Length bytes) from a kept-alive FD. */
static int read_one(int fd, char *buf, size_t size)
{
    size_t got = 0;
    while (got < size - 1) {
        ssize_t n = recv(fd, buf + got, size - 1 - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
        buf[got] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        char *length = strcasestr(buf, "Content-Length:");
        if (end && length && got >= (size_t)(end + 4 - buf) + strtoul(length + 15, NULL, 10))
            break;
    }
    buf[got] = '\0';
    return got > 12 && !strncmp(buf, "HTTP/1.1 ", 9) ? atoi(buf + 9) : 0;
}

Test(network, a_kept_alive_connection_is_held_to_the_deadline_too)
{
    int fd = connect_from("127.0.0.2");
    char buf[8192];
    send_text(fd, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n");
    cr_assert_eq(read_one(fd, buf, sizeof buf), 200);
    send_text(fd, "GET /api/runs HTTP/1.1\r\nHost: x\r\n");
    cr_assert_lt(trickle(fd), 50, "a trickling second head was never cut off");
    answered_as_json(fd, 408); /* as a first head is: the front reads every one */
    close(fd);
    still_serving();
}

Test(network, a_write_without_the_token_is_refused_before_its_body)
{
    int fd = connect_from("127.0.0.2");
    /* a body announced and never sent: only the token can refuse it */
    send_text(fd, "POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 3000\r\n\r\n");
    struct pollfd p = {.fd = fd, .events = POLLIN};
    cr_assert_eq(poll(&p, 1, 10000), 1, "no answer before the body");
    struct http_response r;
    http_read(fd, &r);
    close(fd);
    assert_json_error(&r, 401);
    cr_assert(http_header(&r, "WWW-Authenticate"));
    http_response_finish(&r);
    still_serving();
}

static void raw_is_json_error(const char *raw, size_t size, int status)
{
    int fd = connect_from("127.0.0.2");
    cr_assert(send(fd, raw, size, MSG_NOSIGNAL) == (ssize_t)size);
    struct http_response r;
    http_read(fd, &r);
    close(fd);
    assert_json_error(&r, status);
    http_response_finish(&r);
}

static char *repeat(const char *prefix, char c, size_t n, const char *suffix)
{
    size_t p = strlen(prefix), s = strlen(suffix);
    char *text = malloc(p + n + s + 1);
    memcpy(text, prefix, p);
    memset(text + p, c, n);
    memcpy(text + p + n, suffix, s + 1);
    return text;
}

Test(network, what_libmicrohttpd_would_refuse_is_answered_as_json)
{
    static const struct {
        const char *raw;
        int status;
    } cases[] = {
        {"GET /api/runs HTTP/1.1\r\n\r\n", 400},                    /* no Host */
        {"GET /api/runs HTTP/1.1\nHost: x\n\n", 400},               /* bare LF */
        {"G(T /api/runs HTTP/1.1\r\nHost: x\r\n\r\n", 400},         /* not a method */
        {"GET api/runs HTTP/1.1\r\nHost: x\r\n\r\n", 400},          /* not a path */
        {"GET /api/runs HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400},
        {"GET /api/runs HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n", 400},
        {"GET /api/runs HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
        {"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400}, /* a TLS hello */
        {"GET /api/runs HTTP/2.0\r\nHost: x\r\n\r\n", 505},
        {"POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", 400},
        /* trailing white space: libmicrohttpd's own page (fuzz_router found it) */
        {"POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 2 \r\n\r\n{}", 400},
        {"POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\t\r\n\r\n{}", 400},
        {"POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
         400},
        {"POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999999999999999999\r\n\r\n",
         413},
        {"POST /api/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 411},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        raw_is_json_error(cases[i].raw, strlen(cases[i].raw), cases[i].status);
    char *long_target = repeat("GET /", 'a', 5000, " HTTP/1.1\r\nHost: x\r\n\r\n");
    raw_is_json_error(long_target, strlen(long_target), 414);
    char *long_head = repeat("GET / HTTP/1.1\r\nHost: x\r\nX-Big: ", 'b', 9000, "\r\n\r\n");
    raw_is_json_error(long_head, strlen(long_head), 431);
    free(long_head);
    /* the same on a kept-alive connection's second request */
    int fd = connect_from("127.0.0.2");
    char buf[8192];
    send_text(fd, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n");
    cr_assert_eq(read_one(fd, buf, sizeof buf), 200);
    send_text(fd, long_target);
    struct http_response r;
    http_read(fd, &r);
    close(fd);
    assert_json_error(&r, 414);
    http_response_finish(&r);
    free(long_target);
    still_serving();
}

/* Within 8192 bytes, but more fields than libmicrohttpd's 64 KiB keeps
 * records of (it answered its own HTML 431). */
Test(network, a_head_of_a_thousand_fields_is_answered_as_json)
{
    char many[8192] = "GET /api/health HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 1000; i++)
        strcat(many, "a:\r\n");
    strcat(many, "\r\n");
    raw_is_json_error(many, strlen(many), 431);
    still_serving();
}

/* A kept-alive connection's later heads are libmicrohttpd's to read, and
 * one over its buffer (64 KiB) it refuses before any callback of ours, with
 * an HTML page: 431 for the fields, 414 for the target; so is a
 * Content-Length it cannot parse (400). Each must still be our JSON. */
Test(network, a_kept_alive_head_over_libmicrohttpds_buffer_is_answered_as_json)
{
    char *big_field = repeat("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ", 'b', 70000,
                             "\r\n\r\n");
    char *big_target = repeat("GET /", 'a', 70000, " HTTP/1.1\r\nHost: x\r\n\r\n");
    static const char bad_length[] =
        "GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n";
    const struct {
        const char *raw;
        int status;
    } cases[] = {{big_field, 431}, {big_target, 414}, {bad_length, 400}};
    /* another kept-alive connection, idle on the same (only) worker: the
     * refused one must still be told from it */
    int idle = connect_from("127.0.0.3");
    char idle_buf[8192];
    send_text(idle, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n");
    cr_assert_eq(read_one(idle, idle_buf, sizeof idle_buf), 200);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int fd = connect_from("127.0.0.2");
        char buf[8192];
        send_text(fd, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n");
        cr_assert_eq(read_one(fd, buf, sizeof buf), 200);
        send_text(fd, cases[i].raw);
        struct http_response r;
        http_read(fd, &r);
        close(fd);
        assert_json_error(&r, cases[i].status);
        http_response_finish(&r);
    }
    send_text(idle, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n");
    cr_assert_eq(read_one(idle, idle_buf, sizeof idle_buf), 200, "the idle connection was cut");
    close(idle);
    free(big_field);
    free(big_target);
    still_serving();
}

/* libmicrohttpd decodes a chunked body itself and answers a malformed one
 * with an HTML page of its own, so a body must come with its length: any
 * Transfer-Encoding is 411, as JSON, on a new connection (the front) and
 * on a kept-alive one (server.c), before a byte of the body is read. */
Test(network, a_chunked_body_is_refused_as_json_even_a_malformed_one)
{
    static const char malformed[] =
        "POST /api/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN "\r\n"
        "Transfer-Encoding: chunked\r\n\r\nzz; not a size\r\n{}\r\n0\r\n\r\n";
    raw_is_json_error(malformed, sizeof malformed - 1, 411);
    int fd = connect_from("127.0.0.2");
    char buf[8192];
    send_text(fd, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n");
    cr_assert_eq(read_one(fd, buf, sizeof buf), 200);
    send_text(fd, malformed);
    struct http_response r;
    http_read(fd, &r);
    close(fd);
    assert_json_error(&r, 411);
    cr_assert(strstr(r.body, "Content-Length"), "%s", r.body);
    http_response_finish(&r);
    still_serving();
}

static size_t cached_entries(void)
{
    cr_assert_eq(f.server->worker_count, 1);
    struct rt_worker *w = f.server->workers[0];
    size_t n = 0;
    for (size_t i = 0; i < w->cache_size; i++)
        n += w->cache[i].response != NULL;
    return n;
}

Test(network, junk_arguments_make_no_cache_entries)
{
    still_serving();
    size_t before = cached_entries();
    for (int i = 0; i < 200; i++) {
        char path[64];
        snprintf(path, sizeof path, "/api/runs?junk%d=%d", i, i);
        struct http_response r;
        http_request(&f, "GET", path, NULL, NULL, &r);
        cr_assert_eq(r.status, 200);
        http_response_finish(&r);
    }
    cr_assert_eq(cached_entries(), before, "junk arguments made cache entries");
}

Test(network, the_cache_stays_within_its_bytes)
{
    struct rt_cache_entry entries[64] = {{0}};
    struct rt_worker w = {.cache = entries, .cache_size = 64, .cache_budget = 64 * 1024};
    static char body[4000];
    memset(body, 'x', sizeof body);
    for (int i = 0; i < 1000; i++) {
        char key[32];
        snprintf(key, sizeof key, "/api/runs/%d?", i);
        struct MHD_Response *response =
            MHD_create_response_from_buffer(sizeof body, body, MHD_RESPMEM_PERSISTENT);
        rt_cache_put(&w, key, 1, response, sizeof body);
        cr_assert_leq(w.cache_bytes, w.cache_budget, "after %d answers: %zu bytes", i,
                      w.cache_bytes);
        cr_assert(rt_cache_get(&w, key, 1), "the newest answer was not kept");
    }
    /* an answer over an eighth of the budget is not kept at all */
    static char big[16 * 1024];
    rt_cache_put(&w, "/big?", 1,
                 MHD_create_response_from_buffer(sizeof big, big, MHD_RESPMEM_PERSISTENT),
                 sizeof big);
    cr_assert_null(rt_cache_get(&w, "/big?", 1));
    for (size_t i = 0; i < 64; i++) {
        free(entries[i].key);
        if (entries[i].response)
            MHD_destroy_response(entries[i].response);
    }
}

/* A client that shut its side after one request sends no other: the server
 * closes at once, not after its deadlines (30 s here), so that it does not
 * hold a place under the connection limits meanwhile. */
Test(network, a_client_that_hung_up_is_let_go_at_once)
{
    rt_server_stop(f.server);
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.threads = 1;
    o.timeout_s = 30;
    o.header_timeout_s = 30;
    o.token_file = f.token_file;
    fixture_start(&f, &o);
    int fd = connect_from("127.0.0.2"); /* a 10 s receive timeout */
    send_text(fd, "GET /api/runs?limit=5 HTTP/1.1\r\nHost: x\r\n\r\n");
    shutdown(fd, SHUT_WR);
    struct http_response r;
    http_read(fd, &r); /* until the server closes, or the receive timeout */
    close(fd);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "\"runs\""), "the answer was cut: %s", r.body);
    http_response_finish(&r);
    /* a body cut short by the client's end can never be complete either
     * (libmicrohttpd alone waited for its idle timeout) */
    fd = connect_from("127.0.0.3");
    send_text(fd, "POST /api/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN
                  "\r\nContent-Length: 900\r\n\r\n{\"format\"");
    shutdown(fd, SHUT_WR);
    char buf[256];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    close(fd);
    cr_assert_geq(n, 0, "the server held a connection whose body can never arrive");
}

static const char health[] = "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n";
static const char bad_length[] = "GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n";

/* A kept-alive connection FROM SOURCE that has had one request answered. */
static int kept_alive(const char *source)
{
    int fd = connect_from(source);
    char buf[8192];
    send_text(fd, health);
    cr_assert_eq(read_one(fd, buf, sizeof buf), 200);
    return fd;
}


/* Two kept-alive connections on the one worker, both part-way through a
 * later head and neither far in: the one whose head would be refused (a
 * Content-Length that is no number) is answered as JSON, and the other,
 * still sending its head, is answered once it is complete. */
Test(network, a_later_head_refused_beside_another_unfinished_head_is_json)
{
    int slow = kept_alive("127.0.0.3"), bad = kept_alive("127.0.0.2");
    send_text(slow, "GET /api/health HTTP/1.1\r\nHost: x\r\n");
    send_text(bad, bad_length);
    answered_as_json(bad, 400);
    close(bad);
    send_text(slow, "\r\n");
    char buf[8192];
    cr_assert_eq(read_one(slow, buf, sizeof buf), 200, "the unfinished head was cut: %s", buf);
    close(slow);
    still_serving();
}

/* A later head refused while another connection is 40 KiB into a head of
 * its own: each is answered for itself, as JSON (the long one 431). */
Test(network, a_later_head_refused_beside_a_long_unfinished_head_is_json)
{
    int big = kept_alive("127.0.0.3"), bad = kept_alive("127.0.0.2");
    char *part = repeat("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ", 'b', 40000, "");
    cr_assert(send(big, part, strlen(part), MSG_NOSIGNAL) == (ssize_t)strlen(part));
    free(part);
    send_text(bad, bad_length);
    answered_as_json(bad, 400);
    close(bad);
    answered_as_json(big, 431);
    close(big);
    still_serving();
}

/* 32 KiB of requests pipelined behind one that is refused, behind one that
 * is answered: the first answer, then the refusal as JSON, then the end. */
Test(network, requests_pipelined_behind_a_refused_one_are_not_answered_for_it)
{
    size_t each = strlen(health), count = 32 * 1024 / each + 1;
    size_t size = each + strlen(bad_length) + count * each;
    char *text = malloc(size + 1), *at = text;
    at += sprintf(at, "%s%s", health, bad_length);
    for (size_t i = 0; i < count; i++)
        at += sprintf(at, "%s", health);
    int fd = connect_from("127.0.0.2");
    cr_assert(send(fd, text, size, MSG_NOSIGNAL) == (ssize_t)size);
    free(text);
    static char got[65536];
    size_t n = 0;
    for (ssize_t k; n < sizeof got - 1 && (k = recv(fd, got + n, sizeof got - 1 - n, 0)) > 0;)
        n += (size_t)k;
    got[n] = '\0';
    close(fd);
    cr_assert(!strncmp(got, "HTTP/1.1 200 ", 13), "first: %.80s", got);
    char *second = strstr(got, "\r\n\r\n");
    cr_assert(second);
    second += 4 + strtoul(strcasestr(got, "Content-Length:") + 15, NULL, 10);
    cr_assert(!strncmp(second, "HTTP/1.1 400 ", 13), "second: %.300s", second);
    char *type = strcasestr(second, "Content-Type:"), *body = strstr(second, "\r\n\r\n");
    cr_assert(type && body && type < body && !strncmp(type + 14, "application/json", 16),
              "not JSON: %s", second);
    body += 4;
    cr_assert_eq(strlen(body), strtoul(strcasestr(second, "Content-Length:") + 15, NULL, 10),
                 "something after the refusal: %s", body);
    cJSON *json = cJSON_Parse(body);
    cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(json, "error")), "%s", body);
    cJSON_Delete(json);
    still_serving();
}

/* A stepped server (tests/fuzz/fuzz_router.c) has no thread of its own: it
 * answers, pipelined requests and a refused one too, only while its
 * caller runs it. Bounded in steps, not time. */
Test(network, a_stepped_server_answers_on_its_callers_thread)
{
    rt_server_stop(f.server);
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.stepped = true;
    fixture_start(&f, &o);
    int fd = connect_from("127.0.0.2");
    char text[256];
    snprintf(text, sizeof text, "%s%s%s", health, health, bad_length);
    send_text(fd, text);
    static char got[16384];
    size_t n = 0;
    for (int step = 0; step < 10000; step++) {
        rt_server_step(f.server, 1);
        ssize_t k = recv(fd, got + n, sizeof got - 1 - n, MSG_DONTWAIT);
        if (k == 0)
            break;
        if (k > 0)
            n += (size_t)k;
    }
    got[n] = '\0';
    close(fd);
    char *second = strstr(got + 1, "HTTP/1.1 200 "), *third = strstr(got, "HTTP/1.1 400 ");
    cr_assert(!strncmp(got, "HTTP/1.1 200 ", 13) && second && third && second < third,
              "answers: %s", got);
    cr_assert(strstr(third, "application/json"), "%s", third);
}
