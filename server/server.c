/*
 * server/server.c — starting and stopping the daemon, the listening socket,
 * and each request's first look: what can be answered before a body byte is
 * taken (a declared body over the limit, a write without the token, any
 * request that has no body to wait for), and gathering the body within its
 * declared length (a body without one is refused, 411: see head.h). New
 * connections come through the front door (front.c) first.
 */
#include "server_internal.h"

#include "front.h"
#include "head.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DEFAULT_LISTEN "127.0.0.1:8470"
#define CONNECTION_SLACK 64 /* libmicrohttpd's limit over the front's, which admits exactly */

void rt_server_options_init(struct rt_server_options *options)
{
    memset(options, 0, sizeof *options);
    options->listen = DEFAULT_LISTEN;
    options->threads = 4;
    options->max_connections = 256;
    options->max_per_address = 32;
    options->timeout_s = 15;
    options->header_timeout_s = 10;
    options->max_body = (size_t)64 << 20;
    options->busy_timeout_ms = 2000;
    options->cache_entries = 64;
    options->cache_bytes = (size_t)32 << 20;
}

/* ---- the listening socket ------------------------------------------------ */

/* Splits "HOST:PORT", "[V6]:PORT" or "PORT" into HOST_OUT and *PORT_OUT. */
static rt_status parse_listen(const char *spec, char *host_out, size_t host_size,
                              uint16_t *port_out)
{
    const char *port = spec;
    snprintf(host_out, host_size, "127.0.0.1");
    if (spec[0] == '[') {
        const char *end = strchr(spec, ']');
        if (!end || end[1] != ':' || (size_t)(end - spec) >= host_size)
            return rt_errorf(RT_ERR_USAGE, "--listen %s: expected [ADDRESS]:PORT", spec);
        snprintf(host_out, host_size, "%.*s", (int)(end - spec - 1), spec + 1);
        port = end + 2;
    } else if (strchr(spec, ':')) {
        const char *colon = strrchr(spec, ':');
        if ((size_t)(colon - spec) >= host_size)
            return rt_errorf(RT_ERR_USAGE, "--listen %s: address too long", spec);
        snprintf(host_out, host_size, "%.*s", (int)(colon - spec), spec);
        port = colon + 1;
    }
    /* digits only (strtol alone takes spaces and signs), at most 5 of them */
    size_t digits = strspn(port, "0123456789");
    long value = digits && digits <= 5 && !port[digits] ? strtol(port, NULL, 10) : -1;
    if (value < 0 || value > 65535)
        return rt_errorf(RT_ERR_USAGE, "--listen %s: the port must be 0..65535", spec);
    *port_out = (uint16_t)value;
    return rt_ok_status();
}

static rt_status bind_socket(struct rt_server *server, const char *spec)
{
    char host[64];
    uint16_t port = 0;
    RT_TRY(parse_listen(spec, host, sizeof host, &port));
    struct sockaddr_storage addr = {0};
    socklen_t len;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        len = sizeof *v6;
    } else {
        return rt_errorf(RT_ERR_USAGE, "--listen %s: '%s' is not a numeric IPv4 or IPv6 address",
                         spec, host);
    }
    /* non-blocking: the front accepts until EAGAIN */
    int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int on = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        bind(fd, (struct sockaddr *)&addr, len) != 0 || listen(fd, 512) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return rt_errorf(RT_ERR_INTERNAL, "cannot listen on %s: %s", spec, strerror(err));
    }
    if (getsockname(fd, (struct sockaddr *)&addr, &len) == 0)
        server->port = ntohs(addr.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
    server->listen_fd = fd;
    snprintf(server->url, sizeof server->url,
             addr.ss_family == AF_INET6 ? "http://[%s]:%u/" : "http://%s:%u/", host,
             (unsigned)server->port);
    return rt_ok_status();
}

/* ---- requests ------------------------------------------------------------- */

static bool wants_body(const char *method)
{
    return !strcmp(method, MHD_HTTP_METHOD_POST) || !strcmp(method, MHD_HTTP_METHOD_PUT) ||
           !strcmp(method, MHD_HTTP_METHOD_PATCH);
}

static bool is_api(const char *url) { return !strncmp(url, "/api/", 5); }

static bool has_body(struct rt_request *req)
{
    const char *length = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
    return (length && strcmp(length, "0")) ||
           MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                       MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/* Routes REQ now, before any body byte is taken: libmicrohttpd closes the
 * connection after the answer instead of reading a body nobody wants. */
static enum MHD_Result answer_now(struct rt_request *req)
{
    req->answered = true;
    return rt_server_route(req);
}

/* First call for a request (its head is complete, no body byte taken yet).
 * The front (front.c) has checked the head already, every one of a
 * connection's (head.h): its size, target, framing and declared length. */
static enum MHD_Result begin_request(struct rt_request *req)
{
    if (!wants_body(req->method))
        /* a read is answered once libmicrohttpd has the whole request (an
         * earlier answer closes the connection); one that comes with a body
         * is answered now, and the body never read */
        return has_body(req) ? answer_now(req) : MHD_YES;
    if (!is_api(req->url) || !rt_auth_check(req))
        return answer_now(req); /* 405, or 401 or 403: no body is taken */
    const char *length = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (length && strtoull(length, NULL, 10) > req->server->options.max_body) {
        req->too_large = true;
        req->answered = true;
        return rt_http_error(req, MHD_HTTP_CONTENT_TOO_LARGE, "request body over %zu bytes",
                             req->server->options.max_body);
    }
    return MHD_YES;
}

static void take_body(struct rt_request *req, const char *data, size_t size)
{
    size_t max = req->server->options.max_body;
    if (req->too_large || size > max - req->body_size) {
        req->too_large = true;
        free(req->body);
        req->body = NULL;
        return;
    }
    if (req->body_size + size + 1 > req->body_capacity) {
        /* grow geometrically: a 64 MiB upload arrives in thousands of pieces */
        size_t capacity = req->body_capacity ? req->body_capacity : 4096;
        while (capacity < req->body_size + size + 1)
            capacity *= 2;
        char *grown = realloc(req->body, capacity);
        if (!grown) {
            req->too_large = true;
            return;
        }
        req->body = grown;
        req->body_capacity = capacity;
    }
    memcpy(req->body + req->body_size, data, size);
    req->body_size += size;
    req->body[req->body_size] = '\0';
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    struct rt_request *req = *con_cls;
    if (!req) {
        if (!(req = calloc(1, sizeof *req)))
            return MHD_NO;
        *req = (struct rt_request){.server = cls, .conn = conn, .url = url, .method = method};
        *con_cls = req;
        return begin_request(req);
    }
    if (*upload_data_size) {
        if (!req->answered)
            take_body(req, upload_data, *upload_data_size);
        *upload_data_size = 0;
        /* a declared length is at most max_body: more cannot come, but if
         * it did, the connection is closed rather than read on */
        return req->too_large && !req->answered ? MHD_NO : MHD_YES;
    }
    if (req->answered)
        return MHD_YES;
    if (req->too_large)
        return rt_http_error(req, MHD_HTTP_CONTENT_TOO_LARGE, "request body over %zu bytes",
                             req->server->options.max_body);
    req->answered = true;
    return rt_server_route(req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls, (void)code;
    struct rt_request *req = *con_cls;
    rt_front_request_done(conn);
    if (req) {
        free(req->body);
        free(req);
        *con_cls = NULL;
    }
}

/* %XX decoding for the path and query, except %00: a NUL would cut the path
 * short ("/index.html%00.png"), so it stays as the three characters, which
 * no static path or id accepts. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls, (void)conn;
    char *out = s;
    for (const char *in = s; *in; in++) {
        unsigned value;
        if (in[0] == '%' && isxdigit((unsigned char)in[1]) && isxdigit((unsigned char)in[2]) &&
            sscanf(in + 1, "%2x", &value) == 1 && value != 0) {
            *out++ = (char)value;
            in += 2;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

/* What libmicrohttpd 0.9.75 says on every answer over the front's socket
 * pair (front.c), a local socket that has no TCP options to set: true, and
 * harmless (nothing waits to be pushed there; the front sets the client's
 * TCP_NODELAY itself). It tells only EINVAL, ENOPROTOOPT and ENOTSOCK from a
 * TCP socket, not the EOPNOTSUPP a local socket answers. */
static bool tcp_option_noise(const char *fmt)
{
    static const char option[] = "Setting %s option to %s state failed";
    static const char push[] = "Failed to push the data from buffers to the network.";
    return !strncmp(fmt, option, sizeof option - 1) || !strncmp(fmt, push, sizeof push - 1);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    if (tcp_option_noise(fmt))
        return;
    fputs("retrace serve: ", stderr);
    vfprintf(stderr, fmt, ap);
}

/* ---- start / stop ----------------------------------------------------------- */

static rt_status start_daemon(struct rt_server *server)
{
    const struct rt_server_options *o = &server->options;
    /* libmicrohttpd only ever sees the front's local sockets (front.c) */
    unsigned threads = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC;
    server->daemon = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET | (o->stepped ? 0 : threads),
        0, NULL, NULL, on_request, server,
        MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, server,
        MHD_OPTION_THREAD_POOL_SIZE, o->stepped ? 0u : (unsigned)(o->threads ? o->threads : 1),
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections + CONNECTION_SLACK,
        MHD_OPTION_NOTIFY_CONNECTION, rt_front_on_connection, server,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, server,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->timeout_s,
        /* room for a head eight times the front's limit (front.h) */
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)RT_SERVER_MHD_MEMORY,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, server,
        MHD_OPTION_END);
    if (!server->daemon)
        return rt_errorf(RT_ERR_INTERNAL, "libmicrohttpd could not start on %s", server->url);
    return rt_front_start(server->front, server->daemon);
}

static rt_status open_store(struct rt_server *server)
{
    RT_TRY(rt_store_open(server->db_path, RT_STORE_CREATE, &server->writer));
    rt_store_set_busy_timeout(server->writer, server->options.busy_timeout_ms);
    return rt_ok_status();
}

static rt_status set_web_root(struct rt_server *server, const char *root)
{
    if (!root)
        return rt_ok_status();
    server->web_root = realpath(root, NULL);
    if (!server->web_root)
        return rt_errorf(RT_ERR_BAD_INPUT, "web root %s: %s", root, strerror(errno));
    return rt_ok_status();
}

static rt_status start(struct rt_server *server, const struct rt_server_options *options)
{
    server->options = *options;
    if (!options->db_path)
        return rt_errorf(RT_ERR_USAGE, "no database given (--db FILE)");
    if (options->max_connections == 0 || options->timeout_s == 0 || options->max_body == 0 ||
        options->max_per_address == 0 || options->header_timeout_s == 0)
        return rt_errorf(RT_ERR_USAGE, "limits must be at least 1");
    if (!(server->db_path = strdup(options->db_path)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    RT_TRY(set_web_root(server, options->web_root));
    RT_TRY(rt_auth_load(server, options));
    RT_TRY(open_store(server));
    RT_TRY(rt_server_gc_start(server));
    RT_TRY(bind_socket(server, options->listen ? options->listen : DEFAULT_LISTEN));
    int fd = server->listen_fd;
    server->listen_fd = -1; /* the front owns it now */
    RT_TRY(rt_front_create(server, fd, &server->front));
    return start_daemon(server);
}

rt_status rt_server_start(const struct rt_server_options *options, struct rt_server **server_out)
{
    *server_out = NULL;
    struct rt_server *server = calloc(1, sizeof *server);
    if (!server)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    server->listen_fd = -1;
    pthread_mutex_init(&server->write_lock, NULL);
    pthread_mutex_init(&server->workers_lock, NULL);
    pthread_mutex_init(&server->gc_lock, NULL);
    pthread_cond_init(&server->gc_wake, NULL);
    rt_status s = start(server, options);
    if (!rt_ok(&s)) {
        rt_server_stop(server);
        return s;
    }
    *server_out = server;
    return s;
}

void rt_server_step(struct rt_server *server, int timeout_ms)
{
    rt_front_step(server->front, timeout_ms);
    MHD_run(server->daemon);
}

const char *rt_server_url(const struct rt_server *server) { return server->url; }

uint16_t rt_server_port(const struct rt_server *server) { return server->port; }

void rt_server_stop(struct rt_server *server)
{
    if (!server)
        return;
    rt_front_stop(server->front); /* no new connections */
    if (server->daemon)
        MHD_stop_daemon(server->daemon); /* waits for the workers */
    rt_front_destroy(server->front);
    if (server->listen_fd >= 0)
        close(server->listen_fd);
    rt_server_gc_stop(server); /* before the writer it uses is closed */
    rt_server_close_workers(server);
    rt_store_close(server->writer);
    pthread_mutex_destroy(&server->write_lock);
    pthread_mutex_destroy(&server->workers_lock);
    pthread_mutex_destroy(&server->gc_lock);
    pthread_cond_destroy(&server->gc_wake);
    explicit_bzero(server->tokens, sizeof server->tokens);
    free(server->web_root);
    free(server->db_path);
    free(server);
}
