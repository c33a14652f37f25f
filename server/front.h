/*
 * server/front.h — the front door (front.c): the thread that accepts every
 * connection before libmicrohttpd does. It admits a connection only within
 * the global and the per-address limits (beyond them it answers 503 or 429
 * with Retry-After, never silence), waits for the first request head within
 * the header deadline (408), checks it (head.h: 400, 413, 414, 431, 505 as
 * JSON) and only then hands the socket to libmicrohttpd. Later requests on
 * a kept-alive connection are libmicrohttpd's to read; the front still
 * holds them to the header deadline (the connection is shut down when a
 * head takes longer) and counts them against the limits.
 */
#ifndef RT_SERVER_FRONT_H
#define RT_SERVER_FRONT_H

#include <microhttpd.h>
#include <stdbool.h>

#include "status.h"

struct rt_server;
struct rt_front;

/** Creates the front for SERVER on its bound socket LISTEN_FD (taken over). */
RT_MUST_CHECK rt_status rt_front_create(struct rt_server *server, int listen_fd,
                                        struct rt_front **front_out);

/** Starts accepting into DAEMON (which must have MHD_USE_NO_LISTEN_SOCKET). */
RT_MUST_CHECK rt_status rt_front_start(struct rt_front *front, struct MHD_Daemon *daemon);

/** Stops accepting and closes the connections not yet handed over. The
 * front must outlive the daemon (its callbacks below use it): stop the
 * front, then the daemon, then destroy the front. */
void rt_front_stop(struct rt_front *front);

/** Frees the front (after the daemon has stopped). NULL is a no-op. */
void rt_front_destroy(struct rt_front *front);

/** libmicrohttpd's connection notifications (MHD_OPTION_NOTIFY_CONNECTION). */
void rt_front_on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                            enum MHD_ConnectionNotificationCode code);

/** A request head on CONN has arrived (the first call of the access handler). */
void rt_front_head_arrived(struct MHD_Connection *conn);

/** Whether CONN's request body is being taken: while it is, a client that
 * has shut its side (the body can never be complete) is let go at once. */
void rt_front_body_expected(struct MHD_Connection *conn, bool expected);

/** CONN's request, REQUEST_BYTES of the stream (its head and the body
 * taken), is answered: its next head is held to the deadline from now. */
void rt_front_request_done(struct MHD_Connection *conn, uint64_t request_bytes);

/* libmicrohttpd's memory for one connection (MHD_OPTION_CONNECTION_MEMORY_LIMIT):
 * a head that does not fit it is refused by libmicrohttpd itself. */
#define RT_SERVER_MHD_MEMORY (64 * 1024)

/**
 * libmicrohttpd, on the thread calling this (its error log, server.c), is
 * about to answer a request head with an error page of its own (STATUS:
 * 431 or 414 for a head over its buffer, 400 for a Content-Length it cannot
 * parse), which only happens on a kept-alive connection's later heads (the
 * first is checked by the front). The connection is the one that thread
 * serves which is waiting for a head and has received at least half the
 * buffer beyond its answered requests, or, when none has, the only one waiting for
 * a head there that has received anything since its last answer (an idle
 * kept-alive connection has not): it is answered with STATUS as JSON now, and libmicrohttpd's
 * page is never sent. Connections it cannot tell apart keep libmicrohttpd's
 * answer (docs: server/README.md). Returns how many were answered.
 */
size_t rt_front_library_error(struct rt_front *front, unsigned status);

/** Writes {"error": MESSAGE} as a complete HTTP answer with STATUS straight to
 * FD (a small write that fits the socket buffer; the caller closes), with
 * Retry-After when RETRY_AFTER_S > 0 and Connection: close. */
void rt_front_send_error(int fd, unsigned status, const char *message, unsigned retry_after_s);

#endif
