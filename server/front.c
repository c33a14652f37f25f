/*
 * server/front.c — the front door (see front.h). One thread, one epoll set:
 * the listening socket, a wake-up eventfd, the connections whose first head
 * has not arrived yet ("pending", watched edge-triggered and read with
 * MSG_PEEK, so libmicrohttpd later reads the same bytes) and the refused
 * ones that are drained for a moment before they are closed ("lingering":
 * closing a socket with unread bytes sends a reset, which can destroy the
 * answer before the client reads it). Every 100 ms it also sweeps the
 * deadlines: pending heads (408), lingering sockets, and the heads of later
 * requests on connections libmicrohttpd holds (shut down, which
 * libmicrohttpd sees as the client leaving). Counts per address and in all
 * live under one mutex, shared with libmicrohttpd's worker threads through
 * the connection notifications; a connection's record is unlinked there
 * before libmicrohttpd closes its socket, so a shutdown never meets a
 * reused descriptor.
 */
#include "front.h"

#include "head.h"
#include "server_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <linux/tcp.h> /* struct tcp_info with tcpi_bytes_received (glibc's lacks it) */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LINGER_SLOTS 64
#define LINGER_MS 2000
#define LINGER_DRAIN_MAX (64 * 1024)
#define SWEEP_MS 10 /* deadlines and gone clients are looked at 100 times a second */
#define RETRY_AFTER_S 5

enum slot_kind { SLOT_FREE, SLOT_PENDING, SLOT_LINGER };

struct slot {
    enum slot_kind kind;
    int fd;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    int64_t deadline_ms;
};

/* A connection libmicrohttpd holds (its socket_context). */
struct record {
    struct record *prev, *next;
    struct rt_front *front;
    int fd;
    struct sockaddr_storage addr;
    atomic_bool in_head;        /* waiting for a request head */
    atomic_bool in_body;        /* taking a request body */
    atomic_llong head_since_ms; /* since when */
    bool cut;                   /* shut down once: no second time */
    /* under the front's lock: the libmicrohttpd thread that serves it (a
     * connection stays on one), and the bytes of the stream its answered
     * requests took (heads and bodies): what TCP_INFO says it received
     * beyond them belongs to the head being read (rt_front_library_error) */
    bool has_worker;
    pthread_t worker;
    uint64_t consumed;
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
    struct slot *slots;
    size_t slot_count, pending, lingering;
    int64_t last_sweep_ms;

    pthread_mutex_t lock; /* the fields below */
    struct address *addresses;
    size_t address_count, address_capacity;
    struct record *records;
    size_t held; /* connections libmicrohttpd holds */
    int adopted[LINGER_SLOTS]; /* answered by rt_front_library_error: to linger */
    size_t adopted_count;
};

/* epoll's data for the two descriptors that are no slot */
static char listen_tag, wake_tag;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

/* Call with the lock held. False when out of memory. */
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

/* ---- answers written by the front ------------------------------------------ */

void rt_front_send_error(int fd, unsigned status, const char *message, unsigned retry_after_s)
{
    cJSON *json = cJSON_CreateObject();
    char *body = json && cJSON_AddStringToObject(json, "error", message)
                     ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    char retry[48] = "";
    if (retry_after_s)
        snprintf(retry, sizeof retry, "Retry-After: %u\r\n", retry_after_s);
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "HTTP/1.1 %u %s\r\nContent-Type: application/json; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nCache-Control: no-cache\r\n"
                     "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\n"
                     "Referrer-Policy: no-referrer\r\n%sConnection: close\r\n\r\n%s",
                     status, rt_head_reason(status), body ? strlen(body) : 0, retry,
                     body ? body : "");
    free(body);
    if (n > 0 && (size_t)n < sizeof text)
        (void)!send(fd, text, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void slot_free(struct rt_front *front, struct slot *slot, bool close_fd)
{
    epoll_ctl(front->epoll_fd, EPOLL_CTL_DEL, slot->fd, NULL);
    if (close_fd)
        close(slot->fd);
    if (slot->kind == SLOT_PENDING)
        front->pending--;
    else if (slot->kind == SLOT_LINGER)
        front->lingering--;
    slot->kind = SLOT_FREE;
    slot->fd = -1;
}

static struct slot *free_slot(struct rt_front *front)
{
    for (size_t i = 0; i < front->slot_count; i++)
        if (front->slots[i].kind == SLOT_FREE)
            return &front->slots[i];
    return NULL;
}

static void drain(struct rt_front *front, struct slot *slot);

/* Keeps FD, answered and shut for writing, a moment to drain what the client
 * still sends; closed at once when no slot is left. */
static void linger(struct rt_front *front, int fd)
{
    struct slot *slot = front->lingering < LINGER_SLOTS ? free_slot(front) : NULL;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = slot};
    if (!slot || epoll_ctl(front->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        close(fd);
        return;
    }
    *slot = (struct slot){.kind = SLOT_LINGER, .fd = fd, .deadline_ms = now_ms() + LINGER_MS};
    front->lingering++;
    drain(front, slot); /* what already arrived raises no new edge */
}

/* Answers FD, then keeps it a moment to drain: SLOT, its pending slot when it
 * has one, becomes the lingering one. Closed at once when no room is left. */
static void refuse(struct rt_front *front, struct slot *slot, int fd, unsigned status,
                   const char *message)
{
    unsigned retry = status == 503 || status == 429 ? RETRY_AFTER_S : 0;
    rt_front_send_error(fd, status, message, retry);
    shutdown(fd, SHUT_WR);
    bool room = front->lingering < LINGER_SLOTS;
    if (slot) {
        pthread_mutex_lock(&front->lock);
        count_address(front, &slot->addr, -1);
        pthread_mutex_unlock(&front->lock);
        if (!room) {
            slot_free(front, slot, true);
            return;
        }
        front->pending--; /* still watched: the same descriptor, now lingering */
    } else {
        linger(front, fd);
        return;
    }
    *slot = (struct slot){.kind = SLOT_LINGER, .fd = fd, .deadline_ms = now_ms() + LINGER_MS};
    front->lingering++;
    drain(front, slot); /* what already arrived raises no new edge */
}

/* ---- pending connections -------------------------------------------------- */

static void hand_over(struct rt_front *front, struct slot *slot)
{
    int fd = slot->fd;
    struct sockaddr_storage addr = slot->addr;
    socklen_t len = slot->addr_len;
    slot_free(front, slot, false);
    pthread_mutex_lock(&front->lock);
    count_address(front, &addr, -1); /* counted again when libmicrohttpd starts it */
    pthread_mutex_unlock(&front->lock);
    /* MHD_add_connection closes FD itself when it fails */
    if (MHD_add_connection(front->daemon, fd, (struct sockaddr *)&addr, len) != MHD_YES)
        fprintf(stderr, "retrace serve: a connection could not be added: %s\n", strerror(errno));
}

static void forget(struct rt_front *front, struct slot *slot)
{
    pthread_mutex_lock(&front->lock);
    count_address(front, &slot->addr, -1);
    pthread_mutex_unlock(&front->lock);
    slot_free(front, slot, true);
}

/* HUNG_UP: the client has shut its side, so an unfinished head never ends. */
static void examine(struct rt_front *front, struct slot *slot, bool hung_up)
{
    char buf[RT_HEAD_MAX];
    ssize_t n = recv(slot->fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) { /* gone before its head was complete */
        forget(front, slot);
        return;
    }
    struct rt_head_limits limits = {.max_body = front->server->options.max_body};
    struct rt_head_verdict verdict;
    if (rt_head_check(buf, (size_t)n, &limits, &verdict) == RT_HEAD_INCOMPLETE) {
        if (hung_up)
            forget(front, slot);
        return;
    }
    if (verdict.status == 0)
        hand_over(front, slot);
    else
        refuse(front, slot, slot->fd, verdict.status, verdict.message);
}

static void drain(struct rt_front *front, struct slot *slot)
{
    char junk[4096];
    size_t total = 0;
    for (;;) {
        ssize_t n = recv(slot->fd, junk, sizeof junk, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0 || (total += (size_t)n) > LINGER_DRAIN_MAX) {
            slot_free(front, slot, true);
            return;
        }
    }
}

/* The connection counts, and whether FD may come in (else what to answer). */
static unsigned admit(struct rt_front *front, const struct sockaddr_storage *addr,
                      char *message, size_t size)
{
    const struct rt_server_options *o = &front->server->options;
    pthread_mutex_lock(&front->lock);
    size_t open = front->held + front->pending;
    struct address *a = find_address(front, addr);
    unsigned status = 0;
    if (open >= o->max_connections || front->pending >= front->slot_count - LINGER_SLOTS)
        status = 503, snprintf(message, size, "the server has %zu connections open (at most %u)",
                               open, o->max_connections);
    else if (a && a->count >= o->max_per_address)
        status = 429, snprintf(message, size, "at most %u connections from one address",
                               o->max_per_address);
    else if (!count_address(front, addr, +1))
        status = 503, snprintf(message, size, "out of memory");
    pthread_mutex_unlock(&front->lock);
    return status;
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
        struct slot *slot = status ? NULL : free_slot(front);
        if (status) {
            refuse(front, NULL, fd, status, message);
            continue;
        }
        *slot = (struct slot){.kind = SLOT_PENDING, .fd = fd, .addr = addr, .addr_len = len,
                              .deadline_ms = now_ms() +
                                             1000 * (int64_t)front->server->options.header_timeout_s};
        front->pending++;
        /* edge-triggered: a MSG_PEEK leaves the bytes, so only new ones wake us */
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = slot};
        if (epoll_ctl(front->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0)
            forget(front, slot);
    }
}

/* ---- deadlines --------------------------------------------------------------- */

/* True when the client has shut its side and nothing of it is left unread. */
static bool hung_up(int fd)
{
    char c;
    return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* A head over the deadline, or a body whose client has gone (libmicrohttpd
 * 0.9.75 notices that end only at the idle timeout): the connection is shut
 * down, which libmicrohttpd sees and closes. */
static void sweep_records(struct rt_front *front, int64_t now)
{
    int64_t limit = 1000 * (int64_t)front->server->options.header_timeout_s;
    pthread_mutex_lock(&front->lock);
    for (struct record *r = front->records; r; r = r->next) {
        bool late = atomic_load(&r->in_head) && now - atomic_load(&r->head_since_ms) > limit;
        if (!r->cut && (late || (atomic_load(&r->in_body) && hung_up(r->fd)))) {
            shutdown(r->fd, SHUT_RDWR);
            r->cut = true;
        }
    }
    pthread_mutex_unlock(&front->lock);
}

static void sweep(struct rt_front *front)
{
    int64_t now = now_ms();
    if (now - front->last_sweep_ms < SWEEP_MS)
        return;
    front->last_sweep_ms = now;
    for (size_t i = 0; i < front->slot_count; i++) {
        struct slot *s = &front->slots[i];
        if (s->kind == SLOT_PENDING && now >= s->deadline_ms)
            refuse(front, s, s->fd, 408, "the request head did not arrive in time");
        else if (s->kind == SLOT_LINGER && now >= s->deadline_ms)
            slot_free(front, s, true);
    }
    sweep_records(front, now);
}

/* The descriptors rt_front_library_error answered, taken into lingering. */
static void adopt(struct rt_front *front)
{
    uint64_t count;
    (void)!read(front->wake_fd, &count, sizeof count);
    int fds[LINGER_SLOTS];
    pthread_mutex_lock(&front->lock);
    size_t n = front->adopted_count;
    memcpy(fds, front->adopted, n * sizeof *fds);
    front->adopted_count = 0;
    pthread_mutex_unlock(&front->lock);
    for (size_t i = 0; i < n; i++)
        linger(front, fds[i]);
}

static void *front_main(void *arg)
{
    struct rt_front *front = arg;
    struct epoll_event events[64];
    while (!atomic_load(&front->stopping)) {
        int n = epoll_wait(front->epoll_fd, events, 64, SWEEP_MS);
        for (int i = 0; i < n; i++) {
            void *tag = events[i].data.ptr;
            if (tag == &listen_tag)
                accept_all(front);
            else if (tag == &wake_tag)
                adopt(front);
            else {
                struct slot *slot = tag;
                if (slot->kind == SLOT_PENDING)
                    examine(front, slot, events[i].events & (EPOLLRDHUP | EPOLLHUP));
                else if (slot->kind == SLOT_LINGER)
                    drain(front, slot);
            }
        }
        sweep(front);
    }
    return NULL;
}

/* ---- libmicrohttpd's side -------------------------------------------------- */

static struct record *record_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

static void connection_started(struct rt_front *front, struct MHD_Connection *conn,
                               void **socket_context)
{
    const union MHD_ConnectionInfo *fd = MHD_get_connection_info(conn,
                                                                 MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *addr =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    struct record *r = calloc(1, sizeof *r);
    if (!r || !fd || !addr) {
        free(r);
        return; /* not counted: it only escapes the deadline of later heads */
    }
    r->front = front;
    r->fd = fd->connect_fd;
    memcpy(&r->addr, addr->client_addr,
           addr->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                    : sizeof(struct sockaddr_in));
    atomic_store(&r->in_head, true);
    atomic_store(&r->head_since_ms, now_ms());
    pthread_mutex_lock(&front->lock);
    count_address(front, &r->addr, +1);
    r->next = front->records;
    if (r->next)
        r->next->prev = r;
    front->records = r;
    front->held++;
    pthread_mutex_unlock(&front->lock);
    *socket_context = r;
}

static void connection_closed(struct rt_front *front, void **socket_context)
{
    struct record *r = *socket_context;
    if (!r)
        return;
    pthread_mutex_lock(&front->lock);
    count_address(front, &r->addr, -1);
    if (r->prev)
        r->prev->next = r->next;
    else
        front->records = r->next;
    if (r->next)
        r->next->prev = r->prev;
    front->held--;
    pthread_mutex_unlock(&front->lock);
    free(r);
    *socket_context = NULL;
}

void rt_front_on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                            enum MHD_ConnectionNotificationCode code)
{
    struct rt_server *server = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        connection_started(server->front, conn, socket_context);
    else
        connection_closed(server->front, socket_context);
}

/* The bytes the connection on FD has received so far; 0 when unknown. */
static uint64_t bytes_received(int fd)
{
    struct tcp_info info;
    socklen_t len = sizeof info;
    memset(&info, 0, sizeof info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0 ||
        len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
        return 0;
    return info.tcpi_bytes_received;
}

/* Called on the libmicrohttpd thread that serves R: that thread, and the
 * bytes of the request that just ended (CONSUMED, 0 at a head). Counted
 * from the requests themselves, not read from TCP_INFO when one ends: the
 * client may have sent its next head before libmicrohttpd says so. */
static void note_worker(struct record *r, uint64_t consumed)
{
    pthread_mutex_lock(&r->front->lock);
    r->worker = pthread_self();
    r->has_worker = true;
    r->consumed += consumed;
    pthread_mutex_unlock(&r->front->lock);
}

void rt_front_head_arrived(struct MHD_Connection *conn)
{
    struct record *r = record_of(conn);
    if (!r)
        return;
    atomic_store(&r->in_head, false);
    note_worker(r, 0);
}

void rt_front_request_done(struct MHD_Connection *conn, uint64_t request_bytes)
{
    struct record *r = record_of(conn);
    if (!r)
        return;
    note_worker(r, request_bytes);
    atomic_store(&r->head_since_ms, now_ms());
    atomic_store(&r->in_head, true);
    atomic_store(&r->in_body, false);
    /* A client that has shut its side sends no next request, but
     * libmicrohttpd can miss an end that came with the request and hold the
     * connection (and its place under the limits) until the idle timeout. */
    if (hung_up(r->fd))
        shutdown(r->fd, SHUT_RDWR);
}

/* A head over libmicrohttpd's buffer has had at least this many bytes (half
 * its 64 KiB: the rest holds the connection's other state) since it began. */
#define OVERFLOW_BYTES (RT_SERVER_MHD_MEMORY / 2)

/* Answers R (lock held) with STATUS as JSON and shuts its write side, so
 * libmicrohttpd's own answer, queued next, is never sent: its send fails
 * and it closes the connection. A second descriptor of the socket lingers
 * in the front, so that close sends no reset over the unread head, which
 * could destroy the answer before the client reads it. */
static void answer_instead(struct rt_front *front, struct record *r, unsigned status)
{
    char message[96];
    if (status == 431)
        snprintf(message, sizeof message, "request head over %d bytes", RT_HEAD_MAX);
    else if (status == 414)
        snprintf(message, sizeof message, "request target over %d bytes", RT_HEAD_MAX_TARGET);
    else
        snprintf(message, sizeof message, "malformed request head (%u %s)", status,
                 rt_head_reason(status));
    rt_front_send_error(r->fd, status, message, 0);
    shutdown(r->fd, SHUT_WR);
    r->cut = true;
    int copy = front->adopted_count < LINGER_SLOTS ? fcntl(r->fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (copy >= 0) {
        front->adopted[front->adopted_count++] = copy;
        uint64_t one = 1;
        (void)!write(front->wake_fd, &one, sizeof one);
    }
}

size_t rt_front_library_error(struct rt_front *front, unsigned status)
{
    pthread_t self = pthread_self();
    struct record *only = NULL;
    size_t candidates = 0, answered = 0;
    pthread_mutex_lock(&front->lock);
    for (struct record *r = front->records; r; r = r->next) {
        if (r->cut || !r->has_worker || !pthread_equal(r->worker, self) ||
            !atomic_load(&r->in_head))
            continue;
        uint64_t received = bytes_received(r->fd); /* 0 when unknown: never a candidate */
        if (received <= r->consumed)
            continue; /* nothing beyond its answered requests: an idle kept-alive connection */
        candidates++;
        only = r;
        if (received - r->consumed >= OVERFLOW_BYTES) {
            answer_instead(front, r, status);
            answered++;
        }
    }
    if (!answered && candidates == 1) {
        answer_instead(front, only, status);
        answered = 1;
    }
    pthread_mutex_unlock(&front->lock);
    return answered;
}

void rt_front_body_expected(struct MHD_Connection *conn, bool expected)
{
    struct record *r = record_of(conn);
    if (r)
        atomic_store(&r->in_body, expected);
}

/* ---- life ---------------------------------------------------------------------- */

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
    front->slot_count = server->options.max_connections + LINGER_SLOTS;
    front->slots = calloc(front->slot_count, sizeof *front->slots);
    if (!front->slots || front->wake_fd < 0 || front->epoll_fd < 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot set up the accept loop: %s", strerror(errno));
    for (size_t i = 0; i < front->slot_count; i++)
        front->slots[i].fd = -1;
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
    int err = pthread_create(&front->thread, NULL, front_main, front);
    if (err)
        return rt_errorf(RT_ERR_INTERNAL, "cannot start the accept thread: %s", strerror(err));
    front->started = true;
    return rt_ok_status();
}

void rt_front_stop(struct rt_front *front)
{
    if (!front || !front->started)
        return;
    atomic_store(&front->stopping, true);
    uint64_t one = 1;
    (void)!write(front->wake_fd, &one, sizeof one);
    pthread_join(front->thread, NULL);
    front->started = false;
    for (size_t i = 0; i < front->slot_count; i++)
        if (front->slots[i].kind != SLOT_FREE)
            slot_free(front, &front->slots[i], true);
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
    for (struct record *r = front->records, *next; r; r = next) {
        next = r->next;
        free(r);
    }
    pthread_mutex_destroy(&front->lock);
    free(front->addresses);
    free(front->slots);
    free(front);
}
