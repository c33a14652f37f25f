/* tests/server/fixture.c — see fixture.h. */
#include "fixture.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "png_io.h"
#include "store.h"

static void check(rt_status s)
{
    cr_assert(rt_ok(&s), "%s", s.msg);
}

static void write_file(const char *path, const char *text)
{
    FILE *out = fopen(path, "w");
    cr_assert(out, "cannot write %s", path);
    fputs(text, out);
    fclose(out);
}

/* A 16x16 PNG of one colour. */
static uint8_t *solid_png(uint8_t r, uint8_t g, size_t *size)
{
    struct rt_image img = {0};
    check(rt_image_init(&img, 16, 16));
    for (size_t i = 0; i < 16 * 16; i++)
        img.rgba[4 * i] = r, img.rgba[4 * i + 1] = g, img.rgba[4 * i + 3] = 255;
    uint8_t *png = NULL;
    check(rt_png_write_memory(&img, &png, size));
    rt_image_finish(&img);
    return png;
}

static int64_t add_run(struct rt_store *store, const char *label, const char *device,
                       const char *key, const char *outcome)
{
    struct rt_run_info info = {.host = "host", .device = device, .device_key = key,
                               .label = label, .version = "0.1.0"};
    int64_t id = 0;
    check(rt_store_run_begin(store, &info, &id));
    check(rt_store_run_finish(store, id, outcome));
    return id;
}

static void fill_store(struct fixture *f)
{
    struct rt_store *store = NULL;
    check(rt_store_open(f->db, RT_STORE_CREATE, &store));
    size_t golden_size = 0, actual_size = 0, diff_size = 0;
    uint8_t *golden = solid_png(200, 0, &golden_size);
    uint8_t *actual = solid_png(0, 200, &actual_size);
    uint8_t *diff = solid_png(255, 255, &diff_size);
    struct rt_golden_new g = {.trace = "cube", .frame = 1, .png = golden, .png_size = golden_size};
    check(rt_store_golden_put(store, &g, &f->golden, NULL));
    check(rt_store_expectation_set(store, "cube", "", RT_EXPECT_FLAKY, "sometimes"));
    f->older_run = add_run(store, "nightly", "llvmpipe", "10005:0000/1", "passed");
    struct rt_result pass = {.frame = 1, .status = RT_RESULT_PASS, .ssim = 1, .ssim_worst_tile = 1,
                             .psnr = NAN, .threshold = 0.99, .diff_pixels = 0, .replay_ms = 5,
                             .golden_id = f->golden};
    check(rt_store_record_trace_results(store, f->older_run, "cube", &pass, 1));
    f->newest_run = add_run(store, "nightly", "NVIDIA H200", "10de:2335/580", "failed");
    struct rt_result results[2] = {
        {.frame = 2, .status = RT_RESULT_PASS, .ssim = 1, .ssim_worst_tile = 1, .psnr = NAN,
         .threshold = 0.99, .replay_ms = 5},
        {.frame = 1, .status = RT_RESULT_FAIL, .ssim = 0.5, .ssim_worst_tile = 0.1, .psnr = 12,
         .threshold = 0.99, .diff_pixels = 256, .max_diff = 200, .replay_ms = 5,
         .golden_id = f->golden, .actual_png = actual, .actual_png_size = actual_size,
         .diff_png = diff, .diff_png_size = diff_size, .message = "below threshold"}};
    check(rt_store_record_trace_results(store, f->newest_run, "cube", results, 2));
    struct rt_result_rows rows = {0};
    check(rt_store_results_list(store, f->newest_run, &rows));
    f->failing_result = rows.items[0].id; /* failures first */
    f->passing_result = rows.items[1].id;
    rt_result_rows_finish(&rows);
    (void)add_run(store, "ci", "llvmpipe", "10005:0000/1", "passed");
    rt_store_close(store);
    free(golden), free(actual), free(diff);
}

void fixture_make(struct fixture *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/rt-server-test-XXXXXX");
    cr_assert(mkdtemp(f->dir));
    snprintf(f->db, sizeof f->db, "%s/store.db", f->dir);
    snprintf(f->token_file, sizeof f->token_file, "%s/token", f->dir);
    snprintf(f->web, sizeof f->web, "%s/web", f->dir);
    snprintf(f->outside, sizeof f->outside, "%s/secret.txt", f->dir);
    write_file(f->token_file, TEST_TOKEN "\n");
    write_file(f->outside, "SECRET outside the web root\n");
    cr_assert(mkdir(f->web, 0755) == 0);
    char path[400];
    snprintf(path, sizeof path, "%s/index.html", f->web);
    write_file(path, "<!doctype html><title>runs</title>\n");
    snprintf(path, sizeof path, "%s/app.js", f->web);
    write_file(path, "export const x = 1;\n");
    snprintf(path, sizeof path, "%s/.hidden", f->web);
    write_file(path, "hidden\n");
    snprintf(path, sizeof path, "%s/link.txt", f->web);
    cr_assert(symlink(f->outside, path) == 0);
    fill_store(f);
}

void fixture_start(struct fixture *f, struct rt_server_options *o)
{
    o->db_path = f->db;
    o->listen = "127.0.0.1:0";
    o->web_root = f->web;
    rt_status s = rt_server_start(o, &f->server);
    cr_assert(rt_ok(&s), "%s", s.msg);
}

void fixture_finish(struct fixture *f)
{
    rt_server_stop(f->server);
    f->server = NULL;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", f->dir);
}

/* ---- the client --------------------------------------------------------- */

int http_connect(const struct fixture *f)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(rt_server_port(f->server))};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void parse(char *data, size_t size, struct http_response *out)
{
    char *end = strstr(data, "\r\n\r\n");
    if (strncmp(data, "HTTP/1.", 7) != 0 || !end)
        return;
    out->status = atoi(data + 9);
    size_t head = (size_t)(end - data);
    snprintf(out->headers, sizeof out->headers, "%.*s", (int)head, data);
    out->body_size = size - head - 4;
    memmove(data, end + 4, out->body_size + 1);
    out->body = data;
}

void http_read(int fd, struct http_response *out)
{
    memset(out, 0, sizeof *out);
    size_t size = 0, capacity = 65536;
    char *data = malloc(capacity + 1);
    ssize_t n;
    while ((n = recv(fd, data + size, capacity - size, 0)) > 0) {
        size += (size_t)n;
        if (size == capacity)
            data = realloc(data, (capacity *= 2) + 1);
    }
    data[size] = '\0';
    parse(data, size, out);
    if (!out->body) {
        data[0] = '\0';
        out->body = data;
    }
}

void http_raw(const struct fixture *f, const char *raw, size_t size, struct http_response *out)
{
    int fd = http_connect(f);
    cr_assert(fd >= 0);
    for (size_t sent = 0; sent < size;) {
        ssize_t n = send(fd, raw + sent, size - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break; /* the server may close early (413): read its answer */
        sent += (size_t)n;
    }
    http_read(fd, out);
    close(fd);
}

void http_request(const struct fixture *f, const char *method, const char *path,
                  const char *headers, const char *body, struct http_response *out)
{
    size_t body_size = body ? strlen(body) : 0;
    size_t cap = strlen(path) + (headers ? strlen(headers) : 0) + body_size + 256;
    char *raw = malloc(cap);
    int n = snprintf(raw, cap,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s"
                     "Content-Length: %zu\r\n\r\n%s",
                     method, path, headers ? headers : "", body_size, body ? body : "");
    http_raw(f, raw, (size_t)n, out);
    free(raw);
}

const char *http_header(const struct http_response *r, const char *name)
{
    static char value[512];
    size_t n = strlen(name);
    for (const char *line = r->headers; line && *line;) {
        if (!strncasecmp(line, name, n) && line[n] == ':') {
            const char *v = line + n + 1;
            while (*v == ' ')
                v++;
            size_t len = strcspn(v, "\r\n");
            snprintf(value, sizeof value, "%.*s", (int)len, v);
            return value;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return NULL;
}

void http_response_finish(struct http_response *r)
{
    free(r->body);
    r->body = NULL;
}
