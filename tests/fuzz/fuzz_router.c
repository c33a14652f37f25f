/*
 * libFuzzer harness for the request router and everything behind it: a real
 * `retrace serve` (rt_server_start) in this process, on a loopback port, over
 * a small store (a golden, a passing and a failing run with images) with a
 * token and the pages of web/. Each input is sent as the raw bytes of one
 * connection (the front door's relay and head check, libmicrohttpd,
 * routes.c, the API handlers, static.c), the sending side shut, and the
 * answer read until the server closes. The server is a stepped one
 * (options.stepped): this thread runs it between its own sends and reads,
 * so an execution costs no hand-off between threads (with the server's
 * own threads, each one waited on the scheduler four times: 176 to 920
 * executions a second on a busy machine). The connections come from 250
 * loopback addresses in turn, so that millions of them do not run out of
 * ports (TIME_WAIT) and none hits the per-address cap. A server that
 * neither answers nor closes within 20 s is a finding, and so is an error
 * answer (4xx, 5xx) that is not JSON: every one must be the documented
 * {"error": ...}, libmicrohttpd's own HTML pages included.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "png_io.h"
#include "server.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rt_server *server;
static char dir[64];

static void check(rt_status s)
{
    if (!rt_ok(&s)) {
        fprintf(stderr, "fuzz_router: %s\n", s.msg);
        abort();
    }
}

static uint8_t *solid_png(uint8_t value, size_t *size)
{
    struct rt_image img = {0};
    check(rt_image_init(&img, 8, 8));
    memset(img.rgba, value, 8 * 8 * 4);
    uint8_t *png = NULL;
    check(rt_png_write_memory(&img, &png, size));
    rt_image_finish(&img);
    return png;
}

static void fill(const char *db)
{
    struct rt_store *store = NULL;
    check(rt_store_open(db, RT_STORE_CREATE, &store));
    size_t gs = 0, as = 0;
    uint8_t *golden = solid_png(200, &gs), *actual = solid_png(10, &as);
    int64_t golden_id = 0, run = 0;
    struct rt_golden_new g = {.trace = "cube", .frame = 1, .png = golden, .png_size = gs};
    check(rt_store_golden_put(store, &g, &golden_id, NULL));
    struct rt_run_info info = {.host = "h", .device = "dev", .device_key = "1:2/3",
                               .label = "nightly", .version = "0.1.0"};
    check(rt_store_run_begin(store, &info, &run));
    struct rt_result results[2] = {
        {.frame = 1, .status = RT_RESULT_PASS, .ssim = 1, .ssim_worst_tile = 1, .psnr = NAN,
         .threshold = 0.99, .golden_id = golden_id},
        {.frame = 2, .status = RT_RESULT_FAIL, .ssim = 0.5, .ssim_worst_tile = 0.1, .psnr = 9,
         .threshold = 0.99, .golden_id = golden_id, .actual_png = actual,
         .actual_png_size = as, .diff_png = actual, .diff_png_size = as, .message = "m"}};
    check(rt_store_record_trace_results(store, run, "cube", results, 2));
    check(rt_store_run_finish(store, run, "failed"));
    rt_store_close(store);
    free(golden);
    free(actual);
}

static void stop(void)
{
    rt_server_stop(server);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz_router: could not remove %s\n", dir);
}

static void start(void)
{
    snprintf(dir, sizeof dir, "/dev/shm/retrace-fuzz-router-%d", (int)getpid());
    mkdir(dir, 0700);
    char db[96], token[96];
    snprintf(db, sizeof db, "%s/store.db", dir);
    snprintf(token, sizeof token, "%s/token", dir);
    FILE *t = fopen(token, "w");
    fputs("fuzz-token\n", t);
    fclose(t);
    fill(db);
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.db_path = db;
    o.listen = "127.0.0.1:0";
    const char *web = getenv("RT_FUZZ_WEB_ROOT"); /* another machine's copy of web/ */
    o.web_root = web && *web ? web : RT_FUZZ_WEB_ROOT;
    o.token_file = token;
    o.stepped = true;
    o.header_timeout_s = 2;
    o.timeout_s = 2;
    o.max_body = 1 << 20;
    check(rt_server_start(&o, &server));
    atexit(stop);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A non-blocking connection to the server from the next loopback address. */
static int connect_next(void)
{
    static unsigned turn;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in local = {.sin_family = AF_INET};
    local.sin_addr.s_addr = htonl(0x7f000002u + turn++ % 250);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(rt_server_port(server))};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0 ||
        (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 && errno != EINPROGRESS)) {
        close(fd);
        return -1; /* out of ports for a moment: not the server's fault */
    }
    return fd;
}

/* Each answer in the stream (framed by its Content-Length): one with an
 * error status must be JSON. */
static void check_answers(const char *got, size_t size)
{
    for (size_t at = 0; at + 12 < size && !memcmp(got + at, "HTTP/1.", 7);) {
        const char *head = got + at;
        const char *end = memmem(head, size - at, "\r\n\r\n", 4);
        if (!end)
            return; /* cut short: a client-side limit, not the server's answer */
        int status = atoi(head + 9);
        size_t head_size = (size_t)(end + 4 - head);
        const char *length = memmem(head, head_size, "Content-Length: ", 16);
        bool json = memmem(head, head_size, "Content-Type: application/json", 30) != NULL;
        if (status >= 400 && !json) {
            fprintf(stderr, "fuzz_router: an error answer that is not JSON:\n%.*s\n",
                    (int)(size - at < 600 ? size - at : 600), head);
            abort();
        }
        if (!length)
            return;
        at += head_size + strtoul(length + 16, NULL, 10);
    }
}

static bool would_block(void) { return errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!server)
        start();
    int fd = connect_next();
    if (fd < 0)
        return 0;
    size_t sent = 0;
    bool shut = false;
    static char got[1 << 20];
    size_t got_size = 0;
    /* the server runs between the sends and reads: it never waits on this thread */
    for (double began = seconds();;) {
        rt_server_step(server, 0);
        if (sent < size) {
            ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
            if (n > 0)
                sent += (size_t)n;
            else if (n < 0 && !would_block())
                sent = size; /* the server may answer and close early */
        }
        if (sent == size && !shut)
            shut = shutdown(fd, SHUT_WR) == 0 || errno != ENOTCONN;
        char *into = got + (got_size < sizeof got - 65536 ? got_size : sizeof got - 65536);
        ssize_t n = recv(fd, into, 65536, 0);
        if (n > 0 && got_size < sizeof got - 65536)
            got_size += (size_t)n; /* beyond 1 MiB: read, not kept */
        if (n == 0 || (n < 0 && !would_block()))
            break; /* closed (a reset is a close) */
        if (n < 0 && seconds() - began > 20) {
            fprintf(stderr, "fuzz_router: no answer and no close within 20 s\n");
            abort();
        }
        if (n < 0)
            rt_server_step(server, 1); /* nothing moved: wait for the server's own timers */
    }
    close(fd);
    check_answers(got, got_size);
    return 0;
}
