/*
 * server/include/server.h — the dashboard server behind `retrace serve`: a JSON API
 * over the golden store and the static pages of web/, on libmicrohttpd.
 *
 * Owns: HTTP (routing, limits, tokens, caching headers), the static files and
 * the JSON API of server/README.md. Must not touch: Vulkan, replay, SSIM or
 * any image metric; it reads and writes the store through store/store.h only
 * (and SQL never appears here). A front thread owns every client socket and
 * checks every request head before relaying it (front.h); libmicrohttpd
 * runs its own thread pool on the other ends of the front's socket pairs; each
 * worker thread opens one read-only store connection of its own on first use,
 * and every write goes through one read-write connection behind a mutex, so
 * writes are serialised while reads never wait for each other. Each worker
 * keeps its recent JSON answers and sends them again while the database's
 * data_version says nothing was committed since. A database
 * another process keeps busy is retried, then answered 503, never 400.
 * Safe by default: loopback only unless told, static files only from the web
 * root (no "..", no symlinks out), bounded body, connections and time per
 * connection, writes only with the bearer token, constant-time comparison.
 * Entry points: rt_server_options_init, rt_server_start, rt_server_url,
 * rt_server_stop (and rt_server_step for a stepped server).
 */
#ifndef RT_SERVER_H
#define RT_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct rt_server;

struct rt_server_options {
    const char *db_path;      /* the store; created when missing */
    const char *listen;       /* "HOST:PORT", "[V6]:PORT" or "PORT"; default 127.0.0.1:8470 */
    const char *web_root;     /* folder of the pages; NULL = API only */
    const char *token_file;   /* one token, named "token"; NULL = none */
    const char *tokens_file;  /* "NAME TOKEN" per line; with neither, every write is 403 */
    unsigned threads;         /* worker threads (default 4) */
    unsigned max_connections; /* open connections at once (default 256); more get 503 */
    unsigned max_per_address; /* of them from one client address (default 32); more get 429 */
    unsigned timeout_s;       /* a connection idle this long is closed (default 15) */
    unsigned header_timeout_s; /* a request head must arrive within this (default 10) */
    size_t max_body;          /* largest request body (default 64 MiB, FORMATS.md) */
    int busy_timeout_ms;      /* how long a write waits for the database (default 2000) */
    unsigned cache_entries;   /* JSON answers kept per worker until the data changes (64; 0 = off) */
    size_t cache_bytes;       /* their bytes, all workers together (default 32 MiB) */
    unsigned keep_runs_days;  /* remove runs older than this, at start and hourly (0 = keep all) */
    bool stepped;             /* no threads of its own: the caller runs it by rt_server_step
                               * (tests/fuzz: one thread, no hand-offs between threads) */
};

/** Fills OPTIONS with the defaults above (db_path and web_root NULL). */
void rt_server_options_init(struct rt_server_options *options);

/**
 * Opens the store (creating it if missing), reads the token, binds the
 * socket and starts the worker threads. Errors: RT_ERR_USAGE for a bad
 * --listen or an empty token file, RT_ERR_BAD_INPUT for a store that cannot
 * be opened or a token file that cannot be read, RT_ERR_INTERNAL when the
 * address is taken or the daemon cannot start.
 */
RT_MUST_CHECK rt_status rt_server_start(const struct rt_server_options *options,
                                        struct rt_server **server_out);

/** "http://127.0.0.1:8470/": where the dashboard is (the bound port when 0 was asked). */
const char *rt_server_url(const struct rt_server *server);

/** The port actually bound. */
uint16_t rt_server_port(const struct rt_server *server);

/** A stepped server (options.stepped) does what is ready: the front's
 * connections (waiting at most TIMEOUT_MS for one to be), then
 * libmicrohttpd's. Answers are written from inside the calls. */
void rt_server_step(struct rt_server *server, int timeout_ms);

/** Stops accepting, lets running requests finish, closes every connection and
 * the store. NULL is a no-op. */
void rt_server_stop(struct rt_server *server);

#endif
