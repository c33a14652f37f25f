/*
 * server/front.c — the front door (see front.h). One thread, one epoll set,
 * edge-triggered: the listening socket, a wake-up eventfd, and for each
 * connection its client socket and the front's end of a socket pair whose
 * other end libmicrohttpd serves ("the pair"). Bytes go client -> in ->
 * pair only as far as a checked head and its declared body reach, and pair
 * -> out -> client as they come; a side stops reading while its buffer is
 * full, so a slow reader at either end holds two buffers and no more. A
 * refused head is answered once libmicrohttpd has answered every request
 * before it (rt_front_request_done counts them, on its threads). Answered
 * and closed connections linger a moment, drained, before their socket is
 * closed (closing with unread bytes sends a reset, which can destroy the
 * answer before the client reads it). Every 10 ms the deadlines are swept.
 * A connection's memory is freed on the front thread only, once both the
 * front and libmicrohttpd are done with it.
 */
#include "front.h"

#include "head.h"
#include "server_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* A connection's buffers: from the client (a head is at most RT_HEAD_MAX)
 * and towards it (most answers whole: the runs list is ~26 KB) */
#define IN_SIZE (16 * 1024)
#define OUT_SIZE (64 * 1024)
#define LINGER_MAX 64
#define LINGER_MS 2000
#define LINGER_DRAIN_MAX (64 * 1024)
#define SWEEP_MS 10
#define RETRY_AFTER_S 5
#define ANSWER_MAX 1024 /* an answer written by the front */
/* What a connection's sockets are watched for; EPOLLOUT only while a send
 * is blocked (arm_writes): watched always, each ACK from the client and
 * each read by libmicrohttpd would wake the front for nothing. */
#define WATCH (EPOLLIN | EPOLLRDHUP | EPOLLET)

enum phase {
    LIVE,   /* relaying */
    LINGER, /* answered and shut for writing: drained until its deadline */
    DONE,   /* closed; freed once libmicrohttpd has let go of it too */
};

struct conn;

/* epoll's data for one of a connection's two sockets */
struct end {
    struct conn *conn;
    bool client;
};

struct conn {
    struct rt_front *front;
    struct conn *prev, *next, *dead_next; /* front thread only */
    enum phase phase;
    struct end client_end, pair_end;
    int client_fd, pair_fd, mhd_fd; /* mhd_fd: libmicrohttpd's end, its to close */
    struct sockaddr_storage addr;
    bool counted; /* under the limits (a live connection) */
    bool client_readable, client_writable, pair_readable, pair_writable;
    bool client_eof, client_broken;
    /* the other side's end was seen (EPOLLRDHUP): a short read no longer
     * means all was read, as the end raises no second edge */
    bool client_hup, pair_hup;
    bool pair_shut, pair_eof; /* libmicrohttpd takes no more; its end has closed */
    bool client_armed, pair_armed; /* watched for EPOLLOUT */
    char *in;       /* from the client, not passed on yet */
    size_t in_len, in_checked; /* in_checked: in_len when the head was last found unfinished */
    uint64_t forward_left;     /* of the current request (head and body) still to pass on */
    /* a head refused (or the end of the connection, status 0): answered once
     * every request before it is; drained: the pair has been read to its end since */
    bool refusing, drained, closing;
    unsigned refuse_status;
    char refuse_message[160];
    char *out; /* towards the client */
    size_t out_len, out_sent;
    unsigned forwarded; /* requests passed on */
    bool any_head;      /* one was passed on: an idle keep-alive ends quietly, not 408 */
    int64_t deadline_ms; /* LINGER: when to close */
    int64_t stalled_ms;  /* since when the client reads none of its answers; 0: it does */
    size_t drained_bytes;
    /* shared with libmicrohttpd's threads */
    atomic_uint answered;       /* requests libmicrohttpd has answered */
    atomic_llong idle_since_ms; /* when the last one was (or the connection came) */
    atomic_bool wants_wake;     /* the front waits for answered == forwarded */
    /* under the front's lock */
    bool mhd_started, mhd_gone, queued;
    struct conn *wake_next;
};

struct address {
    struct sockaddr_storage addr;
    unsigned count;
};

struct rt_front {
    struct rt_server *server;
    struct MHD_Daemon *daemon;
    int listen_fd, epoll_fd, wake_fd;
    pthread_t thread;
    bool started;
    atomic_bool stopping;
    int64_t last_sweep_ms;
    /* front thread only (and rt_front_stop/destroy once it has ended) */
    struct conn *conns, *dead;
    size_t live, lingering;
    struct address *addresses;
    size_t address_count, address_capacity;

    pthread_mutex_t lock; /* the fields below, and each conn's under-the-lock ones */
    struct conn **by_fd;  /* libmicrohttpd's end of a pair -> its connection */
    size_t by_fd_size;
    struct conn *wake_list;
};

/* epoll's data for the two descriptors that are no connection's */
static char listen_tag, wake_tag;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool would_block(void) { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

/* ---- counts per address ---------------------------------------------------- */

/* The address without its port: the key of the per-address count. */
static bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->ss_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
    return true;
}

static struct address *find_address(struct rt_front *front, const struct sockaddr_storage *addr)
{
    for (size_t i = 0; i < front->address_count; i++)
        if (same_host(&front->addresses[i].addr, addr))
            return &front->addresses[i];
    return NULL;
}

/* False when out of memory. */
static bool count_address(struct rt_front *front, const struct sockaddr_storage *addr, int delta)
{
    struct address *a = find_address(front, addr);
    if (!a && delta > 0) {
        if (front->address_count == front->address_capacity) {
            size_t capacity = front->address_capacity ? front->address_capacity * 2 : 64;
            struct address *grown = realloc(front->addresses, capacity * sizeof *grown);
            if (!grown)
                return false;
            front->addresses = grown;
            front->address_capacity = capacity;
        }
        a = &front->addresses[front->address_count++];
        *a = (struct address){.addr = *addr};
    }
    if (!a)
        return true;
    a->count = delta < 0 && a->count == 0 ? 0 : (unsigned)((int)a->count + delta);
    if (a->count == 0)
        *a = front->addresses[--front->address_count]; /* the last one fills the gap */
    return true;
}

static void uncount(struct conn *c)
{
    if (!c->counted)
        return;
    c->counted = false;
    count_address(c->front, &c->addr, -1);
    c->front->live--;
}

/* ---- answers written by the front ------------------------------------------ */

/* {"error": MESSAGE} as a complete HTTP answer with STATUS (Retry-After
 * when RETRY_AFTER_S > 0, Connection: close) in TEXT; its length, 0 when
 * it does not fit. */
static size_t format_error(char *text, size_t size, unsigned status, const char *message,
                           unsigned retry_after_s)
{
    cJSON *json = cJSON_CreateObject();
    char *body = json && cJSON_AddStringToObject(json, "error", message)
                     ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    char retry[48] = "";
    if (retry_after_s)
        snprintf(retry, sizeof retry, "Retry-After: %u\r\n", retry_after_s);
    int n = snprintf(text, size,
                     "HTTP/1.1 %u %s\r\nContent-Type: application/json; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nCache-Control: no-cache\r\n"
                     "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\n"
                     "Referrer-Policy: no-referrer\r\n%sConnection: close\r\n\r\n%s",
                     status, rt_head_reason(status), body ? strlen(body) : 0, retry,
                     body ? body : "");
    free(body);
    return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* ---- a connection's life ---------------------------------------------------- */

static void free_buffers(struct conn *c)
{
    free(c->in);
    free(c->out);
    c->in = c->out = NULL;
    c->in_len = c->out_len = c->out_sent = 0;
}

static void close_pair(struct conn *c)
{
    if (c->pair_fd >= 0)
        close(c->pair_fd); /* libmicrohttpd sees its end close, and lets go */
    c->pair_fd = -1;
}

/* Closes every socket; the memory waits for reap(). */
static void close_conn(struct conn *c)
{
    if (c->phase == DONE)
        return;
    if (c->phase == LINGER)
        c->front->lingering--;
    close_pair(c);
    if (c->client_fd >= 0)
        close(c->client_fd);
    c->client_fd = -1;
    free_buffers(c);
    uncount(c);
    c->phase = DONE;
    c->dead_next = c->front->dead;
    c->front->dead = c;
}

static void drain(struct conn *c)
{
    char junk[4096];
    for (;;) {
        ssize_t n = recv(c->client_fd, junk, sizeof junk, MSG_DONTWAIT);
        if (n < 0 && would_block())
            return;
        if (n <= 0 || (c->drained_bytes += (size_t)n) > LINGER_DRAIN_MAX) {
            close_conn(c);
            return;
        }
    }
}

/* Answered: shut for writing, and kept a moment to drain what the client
 * still sends (closed at once when too many linger already). */
static void linger(struct conn *c)
{
    struct rt_front *front = c->front;
    close_pair(c);
    free_buffers(c);
    uncount(c);
    shutdown(c->client_fd, SHUT_WR);
    if (c->client_eof || front->lingering >= LINGER_MAX) {
        close_conn(c);
        return;
    }
    c->phase = LINGER;
    c->deadline_ms = now_ms() + LINGER_MS;
    front->lingering++;
    drain(c); /* what already arrived raises no new edge */
}

static struct conn *new_conn(struct rt_front *front, int fd, const struct sockaddr_storage *addr)
{
    struct conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = (struct conn){.front = front, .client_fd = fd, .pair_fd = -1, .mhd_fd = -1,
                       .addr = *addr, .client_readable = true, .client_writable = true,
                       .pair_writable = true};
    c->mhd_gone = true; /* until libmicrohttpd is given it (connect_pair) */
    c->client_end = (struct end){c, true};
    c->pair_end = (struct end){c, false};
    atomic_init(&c->answered, 0);
    atomic_init(&c->idle_since_ms, now_ms());
    atomic_init(&c->wants_wake, false);
    c->next = front->conns;
    if (c->next)
        c->next->prev = c;
    front->conns = c;
    return c;
}

/* Frees the connections that both sides are done with. */
static void reap(struct rt_front *front)
{
    for (struct conn **link = &front->dead; *link;) {
        struct conn *c = *link;
        pthread_mutex_lock(&front->lock);
        bool gone = c->mhd_gone && !c->queued;
        pthread_mutex_unlock(&front->lock);
        if (!gone) {
            link = &c->dead_next;
            continue;
        }
        *link = c->dead_next;
        if (c->prev)
            c->prev->next = c->next;
        else
            front->conns = c->next;
        if (c->next)
            c->next->prev = c->prev;
        free(c);
    }
}

/* ---- refusing at the door ---------------------------------------------------- */

/* Answers FD (not admitted) at once and lets it linger. */
static void refuse_at_door(struct rt_front *front, int fd, const struct sockaddr_storage *addr,
                           unsigned status, const char *message)
{
    char text[ANSWER_MAX];
    size_t n = format_error(text, sizeof text, status, message,
                            status == 503 || status == 429 ? RETRY_AFTER_S : 0);
    (void)!send(fd, text, n, MSG_NOSIGNAL | MSG_DONTWAIT); /* small: fits the socket buffer */
    struct conn *c = new_conn(front, fd, addr);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = c ? &c->client_end : NULL};
    if (!c || epoll_ctl(front->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        if (c)
            close_conn(c);
        else
            close(fd);
        return;
    }
    linger(c);
}

/* The connection counts, and whether it may come in (else what to answer). */
static unsigned admit(struct rt_front *front, const struct sockaddr_storage *addr,
                      char *message, size_t size)
{
    const struct rt_server_options *o = &front->server->options;
    struct address *a = find_address(front, addr);
    if (front->live >= o->max_connections)
        return snprintf(message, size, "the server has %zu connections open (at most %u)",
                        front->live, o->max_connections), 503;
    if (a && a->count >= o->max_per_address)
        return snprintf(message, size, "at most %u connections from one address",
                        o->max_per_address), 429;
    if (!count_address(front, addr, +1))
        return snprintf(message, size, "out of memory"), 503;
    front->live++;
    return 0;
}

/* ---- handing a connection to libmicrohttpd ----------------------------------- */

static bool remember_mhd_end(struct rt_front *front, struct conn *c)
{
    pthread_mutex_lock(&front->lock);
    size_t fd = (size_t)c->mhd_fd;
    if (fd >= front->by_fd_size) {
        size_t size = fd + 256;
        struct conn **grown = realloc(front->by_fd, size * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&front->lock);
            return false;
        }
        memset(grown + front->by_fd_size, 0, (size - front->by_fd_size) * sizeof *grown);
        front->by_fd = grown;
        front->by_fd_size = size;
    }
    front->by_fd[fd] = c;
    pthread_mutex_unlock(&front->lock);
    return true;
}

/* The pair, watched, and libmicrohttpd given its end: made for a
 * connection's first head that passes, so that one that never sends one
 * holds no place in libmicrohttpd, nor its idle timer. */
static bool connect_pair(struct rt_front *front, struct conn *c)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0)
        return false;
    c->pair_fd = pair[0];
    c->mhd_fd = pair[1];
    struct epoll_event mine = {.events = WATCH,
                               .data.ptr = &c->pair_end};
    if (!remember_mhd_end(front, c) ||
        epoll_ctl(front->epoll_fd, EPOLL_CTL_ADD, c->pair_fd, &mine) != 0) {
        close(c->mhd_fd);
        return false;
    }
    pthread_mutex_lock(&front->lock);
    c->mhd_gone = false; /* from here, freed only once libmicrohttpd lets go */
    pthread_mutex_unlock(&front->lock);
    /* named as what it is, a local socket (libmicrohttpd does not read the
     * address); it closes the descriptor itself when it fails */
    struct sockaddr_un local = {.sun_family = AF_UNIX};
    if (MHD_add_connection(front->daemon, c->mhd_fd, (struct sockaddr *)&local,
                           sizeof(sa_family_t)) == MHD_YES)
        return true;
    fprintf(stderr, "retrace serve: a connection could not be added: %s\n", strerror(errno));
    pthread_mutex_lock(&front->lock);
    c->mhd_gone = c->mhd_gone || !c->mhd_started; /* libmicrohttpd never had it */
    pthread_mutex_unlock(&front->lock);
    return false;
}

static void open_conn(struct rt_front *front, int fd, const struct sockaddr_storage *addr)
{
    struct conn *c = new_conn(front, fd, addr);
    if (!c) {
        count_address(front, addr, -1);
        front->live--;
        close(fd);
        return;
    }
    c->counted = true;
    c->in = malloc(IN_SIZE);
    c->out = malloc(OUT_SIZE);
    int on = 1; /* the front's writes are whole answers or their ends: no Nagle wait */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    struct epoll_event client = {.events = WATCH,
                                 .data.ptr = &c->client_end};
    if (!c->in || !c->out || epoll_ctl(front->epoll_fd, EPOLL_CTL_ADD, fd, &client) != 0)
        close_conn(c);
}

static void accept_all(struct rt_front *front)
{
    for (;;) {
        struct sockaddr_storage addr;
        socklen_t len = sizeof addr;
        int fd = accept4(front->listen_fd, (struct sockaddr *)&addr, &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN, or out of descriptors: the next round tries again */
        char message[128];
        unsigned status = admit(front, &addr, message, sizeof message);
        if (status)
            refuse_at_door(front, fd, &addr, status, message);
        else
            open_conn(front, fd, &addr);
    }
}

/* ---- relaying ------------------------------------------------------------------ */

/* The head or the end (STATUS 0) to answer once the requests before it are. */
static void refuse_later(struct conn *c, unsigned status, const char *message)
{
    if (c->refusing)
        return;
    c->refusing = true;
    c->refuse_status = status;
    snprintf(c->refuse_message, sizeof c->refuse_message, "%s", message ? message : "");
}

/* client -> in */
static bool client_in(struct conn *c)
{
    if (!c->client_readable || c->client_eof || c->refusing || c->in_len == IN_SIZE)
        return false;
    size_t room = IN_SIZE - c->in_len;
    ssize_t n = recv(c->client_fd, c->in + c->in_len, room, 0);
    if (n < 0 && would_block()) {
        c->client_readable = false;
        return false;
    }
    if (n <= 0) {
        c->client_eof = true;
        c->client_broken = n < 0;
        return true;
    }
    c->in_len += (size_t)n;
    c->client_readable = (size_t)n == room || c->client_hup; /* a short read took all there was */
    return true;
}

/* The next request's head, at the start of in: passed on when it is fine,
 * else answered later. False while it is unfinished. */
static bool next_head(struct conn *c)
{
    if (c->in_len == 0 || c->in_len == c->in_checked)
        return false;
    struct rt_head_limits limits = {.max_body = c->front->server->options.max_body};
    struct rt_head_verdict v;
    if (rt_head_check(c->in, c->in_len, &limits, &v) == RT_HEAD_INCOMPLETE) {
        c->in_checked = c->in_len;
        return false;
    }
    c->in_checked = 0;
    if (v.status) {
        refuse_later(c, v.status, v.message);
        return false;
    }
    if (c->pair_fd < 0 && !connect_pair(c->front, c)) {
        refuse_later(c, 503, "the server cannot take a connection now");
        return false;
    }
    c->forward_left = v.head_size + v.body_size;
    c->forwarded++;
    c->any_head = true;
    return true;
}

/* in -> the pair: checked heads and their bodies, nothing beyond. */
static bool pair_out(struct conn *c)
{
    bool moved = false;
    while (!c->pair_shut && c->in_len) {
        /* refusing: the request under way still goes on whole, no new one */
        if (c->forward_left == 0 && (c->refusing || !next_head(c)))
            return moved;
        if (!c->pair_writable)
            return moved;
        size_t k = c->forward_left < c->in_len ? (size_t)c->forward_left : c->in_len;
        ssize_t n = send(c->pair_fd, c->in, k, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && would_block()) {
            c->pair_writable = false;
            return moved;
        }
        if (n <= 0) { /* libmicrohttpd closed its end: what it wrote is still to read */
            c->pair_shut = true;
            c->pair_readable = true;
            return true;
        }
        memmove(c->in, c->in + n, c->in_len - (size_t)n);
        c->in_len -= (size_t)n;
        c->forward_left -= (uint64_t)n;
        c->pair_writable = (size_t)n == k;
        moved = true;
    }
    return moved;
}

/* the pair -> out */
static bool pair_in(struct conn *c)
{
    if (c->pair_fd < 0 || !c->pair_readable || c->pair_eof)
        return false;
    if (c->out_sent == c->out_len)
        c->out_sent = c->out_len = 0;
    else if (c->out_len == OUT_SIZE) {
        memmove(c->out, c->out + c->out_sent, c->out_len - c->out_sent);
        c->out_len -= c->out_sent;
        c->out_sent = 0;
    }
    size_t room = OUT_SIZE - c->out_len;
    if (!room)
        return false;
    ssize_t n = recv(c->pair_fd, c->out + c->out_len, room, 0);
    if (n < 0 && would_block()) {
        c->pair_readable = false;
        return false;
    }
    if (n <= 0) {
        c->pair_eof = true;
        return true;
    }
    c->out_len += (size_t)n;
    c->pair_readable = (size_t)n == room || c->pair_hup;
    return true;
}

/* out -> client */
static bool client_out(struct conn *c)
{
    if (!c->client_writable || c->client_broken || c->out_sent == c->out_len)
        return false;
    ssize_t n = send(c->client_fd, c->out + c->out_sent, c->out_len - c->out_sent,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && would_block()) {
        c->client_writable = false;
        c->stalled_ms = c->stalled_ms ? c->stalled_ms : now_ms();
        return false;
    }
    if (n <= 0) {
        c->client_broken = true;
        return true;
    }
    c->out_sent += (size_t)n;
    c->client_writable = c->out_sent == c->out_len;
    c->stalled_ms = c->client_writable ? 0 : now_ms();
    return true;
}

static bool all_answered(struct conn *c)
{
    if (atomic_load(&c->answered) == c->forwarded)
        return true;
    atomic_store(&c->wants_wake, true); /* then looked at again: one of us sees the other */
    return atomic_load(&c->answered) == c->forwarded;
}

/* A refused head (or the connection's end) once every earlier request is
 * answered and its answer relayed: the refusal goes out last. True when
 * something changed that the relay must act on. */
static bool finish_refusal(struct conn *c)
{
    if (!all_answered(c))
        return false; /* rt_front_request_done wakes us */
    if (!c->drained && c->pair_fd >= 0) { /* the last answers may still sit in the pair */
        c->drained = true;
        c->pair_readable = true;
        return true;
    }
    if (c->pair_readable || c->out_sent < c->out_len)
        return false;
    if (!c->refuse_status) {
        close_conn(c);
        return false;
    }
    close_pair(c);
    c->pair_shut = c->pair_eof = true;
    c->out_sent = 0;
    c->out_len = format_error(c->out, OUT_SIZE, c->refuse_status, c->refuse_message,
                              c->refuse_status == 503 ? RETRY_AFTER_S : 0);
    c->closing = true;
    return true;
}

/* After the bytes have moved: whether the connection ends, or answers. */
static bool settle(struct conn *c)
{
    if (c->client_broken) { /* a reset: nothing can reach the client any more */
        close_conn(c);
        return false;
    }
    if (c->closing || c->pair_eof) { /* the last answer; libmicrohttpd's said close */
        if (c->out_sent == c->out_len)
            linger(c);
        return false;
    }
    if (c->client_eof && c->forward_left > c->in_len) {
        close_conn(c); /* a request the client can no longer complete */
        return false;
    }
    if (c->client_eof)
        refuse_later(c, 0, NULL); /* nothing more comes: end after the answers */
    return c->refusing && finish_refusal(c);
}

/* Watches FD (E) for EPOLLOUT, or stops, as WANTED says; ARMED: whether it is. */
static void arm(struct conn *c, struct end *e, int fd, bool *armed, bool wanted)
{
    if (fd < 0 || *armed == wanted)
        return;
    struct epoll_event ev = {.events = WATCH | (wanted ? EPOLLOUT : 0), .data.ptr = e};
    if (epoll_ctl(c->front->epoll_fd, EPOLL_CTL_MOD, fd, &ev) == 0)
        *armed = wanted; /* arming a socket that has room raises the edge at once */
}

static void arm_writes(struct conn *c)
{
    arm(c, &c->client_end, c->client_fd, &c->client_armed, !c->client_writable);
    arm(c, &c->pair_end, c->pair_fd, &c->pair_armed, !c->pair_writable);
}

static void service(struct conn *c)
{
    while (c->phase == LIVE) {
        for (bool moved = true; moved;) {
            moved = client_in(c);
            moved |= pair_out(c);
            moved |= pair_in(c);
            moved |= client_out(c);
        }
        if (!settle(c)) {
            if (c->phase == LIVE)
                arm_writes(c);
            return;
        }
    }
}

static void on_event(struct end *e, uint32_t events)
{
    struct conn *c = e->conn;
    bool in = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
    bool out = events & (EPOLLOUT | EPOLLHUP | EPOLLERR);
    if (c->phase == LINGER) {
        if (in)
            drain(c);
        return;
    }
    if (c->phase != LIVE)
        return;
    bool hup = events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR);
    if (e->client) {
        c->client_hup |= hup;
        c->client_readable |= in;
        c->client_writable |= out;
    } else {
        c->pair_hup |= hup;
        c->pair_readable |= in;
        c->pair_writable |= out;
    }
    service(c);
}

/* ---- deadlines --------------------------------------------------------------- */

/* A connection with no request outstanding whose head has not come within
 * the deadline: 408 when part of one came (or none ever did), else (an idle
 * kept-alive one) a quiet close. */
static void check_head_deadline(struct conn *c, int64_t now, int64_t limit)
{
    if (c->refusing || c->forward_left || atomic_load(&c->answered) != c->forwarded ||
        now - atomic_load(&c->idle_since_ms) <= limit)
        return;
    if (c->in_len || !c->any_head)
        refuse_later(c, 408, "the request head did not arrive in time");
    else
        refuse_later(c, 0, NULL);
    service(c);
}

static void sweep(struct rt_front *front)
{
    int64_t now = now_ms();
    if (now - front->last_sweep_ms < SWEEP_MS)
        return;
    front->last_sweep_ms = now;
    int64_t limit = 1000 * (int64_t)front->server->options.header_timeout_s;
    int64_t idle = 1000 * (int64_t)front->server->options.timeout_s;
    for (struct conn *c = front->conns; c; c = c->next) {
        if (c->phase == LINGER && now >= c->deadline_ms)
            close_conn(c);
        else if (c->phase == LIVE && c->stalled_ms && now - c->stalled_ms > idle)
            close_conn(c); /* reads none of its answers: --timeout, as libmicrohttpd's idle */
        else if (c->phase == LIVE)
            check_head_deadline(c, now, limit);
    }
}

/* The connections libmicrohttpd's threads woke us for. */
static void wake_up(struct rt_front *front)
{
    uint64_t count;
    (void)!read(front->wake_fd, &count, sizeof count);
    pthread_mutex_lock(&front->lock);
    struct conn *list = front->wake_list;
    front->wake_list = NULL;
    for (struct conn *c = list; c; c = c->wake_next)
        c->queued = false;
    pthread_mutex_unlock(&front->lock);
    /* none is freed before reap(), after this */
    for (struct conn *c = list, *next; c; c = next) {
        next = c->wake_next;
        if (c->phase == LIVE)
            service(c);
    }
}

void rt_front_step(struct rt_front *front, int timeout_ms)
{
    struct epoll_event events[64];
    int n = epoll_wait(front->epoll_fd, events, 64, timeout_ms);
    for (int i = 0; i < n; i++) {
        void *tag = events[i].data.ptr;
        if (tag == &listen_tag)
            accept_all(front);
        else if (tag == &wake_tag)
            wake_up(front);
        else
            on_event(tag, events[i].events);
    }
    sweep(front);
    reap(front); /* after the batch: its events may name a connection closed in it */
}

static void *front_main(void *arg)
{
    struct rt_front *front = arg;
    while (!atomic_load(&front->stopping))
        rt_front_step(front, SWEEP_MS);
    return NULL;
}

/* ---- libmicrohttpd's side -------------------------------------------------- */

/* Queues C for the front (lock held). */
static void queue_wake(struct rt_front *front, struct conn *c)
{
    if (!c->queued) {
        c->queued = true;
        c->wake_next = front->wake_list;
        front->wake_list = c;
    }
}

static void ring(struct rt_front *front)
{
    uint64_t one = 1;
    (void)!write(front->wake_fd, &one, sizeof one);
}

void rt_front_on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                            enum MHD_ConnectionNotificationCode code)
{
    struct rt_front *front = ((struct rt_server *)cls)->front;
    pthread_mutex_lock(&front->lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        size_t i = fd ? (size_t)fd->connect_fd : SIZE_MAX;
        struct conn *c = i < front->by_fd_size ? front->by_fd[i] : NULL;
        if (c)
            c->mhd_started = true;
        *socket_context = c;
    } else if (*socket_context) {
        struct conn *c = *socket_context;
        c->mhd_gone = true; /* from here the front may free it */
        queue_wake(front, c);
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&front->lock);
    if (code != MHD_CONNECTION_NOTIFY_STARTED)
        ring(front);
}

void rt_front_request_done(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *c = info ? info->socket_context : NULL;
    if (!c)
        return;
    atomic_store(&c->idle_since_ms, now_ms());
    atomic_fetch_add(&c->answered, 1);
    if (!atomic_load(&c->wants_wake))
        return;
    pthread_mutex_lock(&c->front->lock);
    queue_wake(c->front, c);
    pthread_mutex_unlock(&c->front->lock);
    ring(c->front);
}

/* ---- life ---------------------------------------------------------------------- */

/* Each connection takes three descriptors (the client's and the pair): the
 * soft limit is raised towards the hard one when the default 1024 is short. */
static void raise_descriptor_limit(unsigned max_connections)
{
    struct rlimit l;
    rlim_t wanted = (rlim_t)max_connections * 3 + LINGER_MAX + 256;
    if (getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur >= wanted)
        return;
    l.rlim_cur = l.rlim_max == RLIM_INFINITY || l.rlim_max > wanted ? wanted : l.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &l) != 0)
        fprintf(stderr, "retrace serve: cannot raise the descriptor limit: %s\n", strerror(errno));
}

rt_status rt_front_create(struct rt_server *server, int listen_fd, struct rt_front **front_out)
{
    struct rt_front *front = calloc(1, sizeof *front);
    if (!front) {
        close(listen_fd);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    *front_out = front;
    front->server = server;
    front->listen_fd = listen_fd;
    front->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    front->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    pthread_mutex_init(&front->lock, NULL);
    if (front->wake_fd < 0 || front->epoll_fd < 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot set up the accept loop: %s", strerror(errno));
    raise_descriptor_limit(server->options.max_connections);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &listen_tag};
    struct epoll_event wake = {.events = EPOLLIN, .data.ptr = &wake_tag};
    if (epoll_ctl(front->epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev) != 0 ||
        epoll_ctl(front->epoll_fd, EPOLL_CTL_ADD, front->wake_fd, &wake) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot watch the listening socket: %s",
                         strerror(errno));
    return rt_ok_status();
}

rt_status rt_front_start(struct rt_front *front, struct MHD_Daemon *daemon)
{
    front->daemon = daemon;
    if (front->server->options.stepped)
        return rt_ok_status(); /* rt_front_step runs it */
    int err = pthread_create(&front->thread, NULL, front_main, front);
    if (err)
        return rt_errorf(RT_ERR_INTERNAL, "cannot start the accept thread: %s", strerror(err));
    front->started = true;
    return rt_ok_status();
}

void rt_front_stop(struct rt_front *front)
{
    if (!front || atomic_load(&front->stopping))
        return;
    atomic_store(&front->stopping, true);
    if (front->started) {
        ring(front);
        pthread_join(front->thread, NULL);
        front->started = false;
    }
    for (struct conn *c = front->conns; c; c = c->next)
        close_conn(c);
}

void rt_front_destroy(struct rt_front *front)
{
    if (!front)
        return;
    rt_front_stop(front);
    if (front->listen_fd >= 0)
        close(front->listen_fd);
    if (front->epoll_fd >= 0)
        close(front->epoll_fd);
    if (front->wake_fd >= 0)
        close(front->wake_fd);
    for (struct conn *c = front->conns, *next; c; c = next) {
        next = c->next;
        free_buffers(c);
        free(c);
    }
    pthread_mutex_destroy(&front->lock);
    free(front->by_fd);
    free(front->addresses);
    free(front);
}
