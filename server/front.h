/*
 * server/front.h — the front door (front.c): the thread that owns every
 * client connection; libmicrohttpd never reads a client socket itself. It
 * admits a connection only within the global and the per-address limits
 * (beyond them it answers 503 or 429 with Retry-After, never silence),
 * then relays it: each request head, the first and every later one on a
 * kept-alive or pipelining connection, is read and checked (head.h) before
 * a byte of it goes on, over a socket pair, to libmicrohttpd, which writes
 * its answers back the same way. A head that would be refused (400, 408,
 * 411, 413, 414, 431, 505) is answered by the front as the documented JSON,
 * after the answers to the requests before it, and the connection closed;
 * a body goes on only as far as its checked Content-Length. Owns: the
 * client sockets, the limits, the header deadline. Must not touch: the
 * store, routes, or anything libmicrohttpd parses.
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

/** One turn of the front's loop, on the caller's thread (a stepped server,
 * whose front has no thread: rt_server_step): what is ready, waiting at
 * most TIMEOUT_MS for something to be. */
void rt_front_step(struct rt_front *front, int timeout_ms);

/** Stops accepting and closes every client connection. The front must
 * outlive the daemon (its callbacks below use it): stop the front, then the
 * daemon, then destroy the front. */
void rt_front_stop(struct rt_front *front);

/** Frees the front (after the daemon has stopped). NULL is a no-op. */
void rt_front_destroy(struct rt_front *front);

/** libmicrohttpd's connection notifications (MHD_OPTION_NOTIFY_CONNECTION). */
void rt_front_on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                            enum MHD_ConnectionNotificationCode code);

/** CONN's request is answered (MHD_OPTION_NOTIFY_COMPLETED): every byte of
 * the answer has been written towards the front. */
void rt_front_request_done(struct MHD_Connection *conn);

/* libmicrohttpd's memory for one connection (MHD_OPTION_CONNECTION_MEMORY_LIMIT):
 * eight times the largest head the front passes on. */
#define RT_SERVER_MHD_MEMORY (64 * 1024)

#endif
