/*
 * server/server_internal.h — what the server's own files share: the server
 * and request structs, response helpers and the store connections. Nothing
 * outside server/ includes it.
 */
#ifndef RT_SERVER_INTERNAL_H
#define RT_SERVER_INTERNAL_H

#include "server.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "store.h"

struct cJSON;

#define RT_SERVER_TOKEN_MAX 512
#define RT_SERVER_TOKEN_NAME_MAX 64
#define RT_SERVER_TOKENS 256

/** A write token and whose it is (auth.c). */
struct rt_server_token {
    char name[RT_SERVER_TOKEN_NAME_MAX + 1];
    char token[RT_SERVER_TOKEN_MAX];
    size_t len;
};

struct rt_server {
    struct rt_server_options options; /* strings below are our own copies */
    char *db_path;
    char *web_root;  /* realpath of the web root, NULL = API only */
    struct rt_server_token tokens[RT_SERVER_TOKENS];
    size_t token_count; /* 0 = writes refused */
    struct MHD_Daemon *daemon;
    int listen_fd;
    uint16_t port;
    char url[96];
    struct rt_front *front; /* accepts, admits, checks every head and relays (front.c) */

    pthread_mutex_t write_lock; /* serialises every write through WRITER */
    struct rt_store *writer;

    pthread_mutex_t workers_lock; /* guards the list of worker states */
    struct rt_worker **workers;
    size_t worker_count, worker_capacity;

    atomic_llong last_sweep; /* time() of the last rt_server_sweep_stale */

    /* --keep-runs (gc.c): the thread that removes old runs, woken to stop */
    pthread_t gc_thread;
    bool gc_running;
    atomic_bool gc_stop;
    pthread_mutex_t gc_lock;
    pthread_cond_t gc_wake;
};

/** A cached JSON answer: the response, queued again while the database's
 * data_version is unchanged. */
struct rt_cache_entry {
    char *key; /* path and the known query arguments (api_read.c) */
    int64_t version;
    size_t bytes; /* the body's and the key's */
    struct MHD_Response *response; /* the cache holds one reference */
};

/** What one worker thread keeps (db.c). */
struct rt_worker {
    struct rt_store *reader; /* read-only, this thread's alone */
    struct rt_cache_entry *cache;
    size_t cache_size;
    size_t cache_bytes, cache_budget; /* held, and at most (the server's share per worker) */
    size_t cache_hand;                /* the next entry to evict for room */
};

/** One HTTP request: its body is gathered here across libmicrohttpd's calls. */
struct rt_request {
    struct rt_server *server;
    struct MHD_Connection *conn;
    const char *url, *method;
    char *body; /* NUL-terminated once complete */
    size_t body_size, body_capacity;
    bool too_large;
    bool answered; /* a response was queued early (too large) */
};

/* ---- responses (http.c) ------------------------------------------------ */

/** Sends JSON (taking ownership of it) with STATUS and `Cache-Control: no-cache`. */
enum MHD_Result rt_http_json(struct rt_request *req, unsigned status, struct cJSON *json);

/** A 200 JSON response of JSON (taken over), not yet queued; NULL when out of memory. */
struct MHD_Response *rt_http_json_response(struct cJSON *json);

/** A 200 JSON response of TEXT (malloc'd JSON, taken over; bytes that are no
 * UTF-8 become '?'), its size in *SIZE_OUT unless NULL; NULL when out of memory. */
struct MHD_Response *rt_http_json_text_response(char *text, size_t *size_out);

/** rt_http_json_response, and the body's size in *SIZE_OUT. */
struct MHD_Response *rt_http_json_response_sized(struct cJSON *json, size_t *size_out);

/** Sends {"error": MESSAGE} with STATUS (a 4xx or 5xx; a 503 carries Retry-After). */
enum MHD_Result rt_http_error(struct rt_request *req, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** rt_http_error with one more header: Allow for a 405, WWW-Authenticate for a 401. */
enum MHD_Result rt_http_error_with_header(struct rt_request *req, unsigned status,
                                          const char *header, const char *value,
                                          const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/** The answer for a store error: 503 when busy, 400 bad input, else 500. Frees *S. */
enum MHD_Result rt_http_store_error(struct rt_request *req, rt_status *s);

/** Adds the headers every answer carries (nosniff, no framing, no referrer). */
void rt_http_common_headers(struct MHD_Response *response);

/** A query-string argument, NULL when absent or empty. */
const char *rt_http_arg(struct rt_request *req, const char *name);

/** Parses a positive decimal id (no sign, no spaces, < 2^53); false otherwise. */
bool rt_http_parse_id(const char *text, int64_t *id_out);

/* ---- worker state (db.c) ------------------------------------------------ */

/** The calling worker thread's state, made (and its connection opened) on first use. */
RT_MUST_CHECK rt_status rt_server_worker(struct rt_server *server, struct rt_worker **worker_out);

/** The calling worker thread's read-only connection. */
RT_MUST_CHECK rt_status rt_server_reader(struct rt_server *server, struct rt_store **store_out);

/** Frees every worker's state (after the workers have stopped). */
void rt_server_close_workers(struct rt_server *server);

/** The cached answer for KEY at data VERSION, or NULL. */
struct MHD_Response *rt_cache_get(struct rt_worker *worker, const char *key, int64_t version);

/** Keeps RESPONSE (a body of SIZE bytes) for KEY at VERSION, taking over the
 * caller's reference; evicts others to stay within the worker's byte budget,
 * and keeps nothing over an eighth of it. */
void rt_cache_put(struct rt_worker *worker, const char *key, int64_t version,
                  struct MHD_Response *response, size_t size);

/* ---- handlers ---------------------------------------------------------- */

/** Routes a complete request to the API or the static files. */
enum MHD_Result rt_server_route(struct rt_request *req);

/** GET /api/... (api_read.c). False when PATH is no read route. */
bool rt_api_read(struct rt_request *req, char **segments, int count, enum MHD_Result *result);

/** GET /api/sync (api_sync.c, docs/FORMATS.md section 5.1). */
enum MHD_Result rt_api_sync(struct rt_request *req);

/** GET /api/images/... (api_images.c). */
enum MHD_Result rt_api_image(struct rt_request *req, char **segments, int count);

/** POST /api/... (api_write.c): checks the token first. */
enum MHD_Result rt_api_write(struct rt_request *req, char **segments, int count);

/** POST /api/runs (api_upload.c): BODY is the parsed upload of docs/FORMATS.md §2. */
enum MHD_Result rt_api_upload(struct rt_request *req, struct cJSON *body);

typedef rt_status (*rt_server_write_fn)(struct rt_store *store, void *ctx);

/** Runs FN on the write connection under the write lock, retrying while busy. */
/** Marks this host's unfinished runs whose runner is gone "aborted" (server/stale.c);
 * at most once a second, errors ignored. */
void rt_server_sweep_stale(struct rt_server *server);

RT_MUST_CHECK rt_status rt_server_write(struct rt_server *server, rt_server_write_fn fn,
                                        void *ctx);

/** Starts the thread of --keep-runs (gc.c) when asked for; stop joins it. */
RT_MUST_CHECK rt_status rt_server_gc_start(struct rt_server *server);
void rt_server_gc_stop(struct rt_server *server);

/** GET of a file under the web root (static.c). */
enum MHD_Result rt_static_serve(struct rt_request *req);

/* ---- tokens (auth.c) ---------------------------------------------------- */

/** Reads --token-file and --tokens into SERVER; a file without a token, a bad
 * line or a name or token given twice is RT_ERR_BAD_INPUT naming the line. */
RT_MUST_CHECK rt_status rt_auth_load(struct rt_server *server,
                                     const struct rt_server_options *options);

/** The name of the token the request carries (`Authorization: Bearer TOKEN`),
 * NULL when it carries none of ours. */
const char *rt_auth_check(struct rt_request *req);

/** Compares two byte strings in time that depends only on EXPECTED_LEN. */
bool rt_auth_equal(const char *given, size_t given_len, const char *expected,
                   size_t expected_len);

#endif
