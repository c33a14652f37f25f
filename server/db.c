/*
 * server/db.c — what each worker thread keeps: its own read-only store
 * connection, opened on first use, and its cache of JSON answers. A worker
 * finds its state in thread-local storage (libmicrohttpd runs each of its
 * connections on one pool thread, so nothing here is shared between
 * threads); the server keeps a list of them to free once the workers stop.
 */
#include "server_internal.h"

#include <stdlib.h>
#include <string.h>

#define READ_BUSY_TIMEOUT_MS 1000
#define ENTRY_OVERHEAD 256 /* what libmicrohttpd keeps per response, about */

static _Thread_local struct {
    struct rt_server *server;
    struct rt_worker *worker;
} self;

static void worker_destroy(struct rt_worker *worker)
{
    if (!worker)
        return;
    for (size_t i = 0; i < worker->cache_size; i++) {
        free(worker->cache[i].key);
        if (worker->cache[i].response)
            MHD_destroy_response(worker->cache[i].response);
    }
    free(worker->cache);
    rt_store_close(worker->reader);
    free(worker);
}

static rt_status remember(struct rt_server *server, struct rt_worker *worker)
{
    pthread_mutex_lock(&server->workers_lock);
    bool ok = true;
    if (server->worker_count == server->worker_capacity) {
        size_t capacity = server->worker_capacity ? server->worker_capacity * 2 : 8;
        struct rt_worker **grown = realloc(server->workers, capacity * sizeof *grown);
        if ((ok = grown != NULL)) {
            server->workers = grown;
            server->worker_capacity = capacity;
        }
    }
    if (ok)
        server->workers[server->worker_count++] = worker;
    pthread_mutex_unlock(&server->workers_lock);
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

static rt_status worker_create(struct rt_server *server, struct rt_worker **worker_out)
{
    struct rt_worker *worker = calloc(1, sizeof *worker);
    size_t entries = server->options.cache_entries;
    if (!worker || (entries && !(worker->cache = calloc(entries, sizeof *worker->cache)))) {
        free(worker);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    worker->cache_size = entries;
    unsigned threads = server->options.threads ? server->options.threads : 1;
    worker->cache_budget = server->options.cache_bytes / threads;
    rt_status s = rt_store_open(server->db_path, RT_STORE_READ_ONLY, &worker->reader);
    if (rt_ok(&s)) {
        rt_store_set_busy_timeout(worker->reader, READ_BUSY_TIMEOUT_MS);
        s = remember(server, worker);
    }
    if (!rt_ok(&s)) {
        worker_destroy(worker);
        return s;
    }
    *worker_out = worker;
    return s;
}

rt_status rt_server_worker(struct rt_server *server, struct rt_worker **worker_out)
{
    if (self.server != server || !self.worker) {
        RT_TRY(worker_create(server, &self.worker));
        self.server = server;
    }
    *worker_out = self.worker;
    return rt_ok_status();
}

rt_status rt_server_reader(struct rt_server *server, struct rt_store **store_out)
{
    struct rt_worker *worker = NULL;
    RT_TRY(rt_server_worker(server, &worker));
    *store_out = worker->reader;
    return rt_ok_status();
}

void rt_server_close_workers(struct rt_server *server)
{
    for (size_t i = 0; i < server->worker_count; i++)
        worker_destroy(server->workers[i]);
    free(server->workers);
    server->workers = NULL;
    server->worker_count = server->worker_capacity = 0;
}

/* ---- the answer cache -------------------------------------------------------- */

static uint64_t hash(const char *key)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

struct MHD_Response *rt_cache_get(struct rt_worker *worker, const char *key, int64_t version)
{
    if (!worker->cache_size)
        return NULL;
    struct rt_cache_entry *e = &worker->cache[hash(key) % worker->cache_size];
    return e->response && e->version == version && !strcmp(e->key, key) ? e->response : NULL;
}

static void evict(struct rt_worker *worker, struct rt_cache_entry *e)
{
    free(e->key);
    if (e->response)
        MHD_destroy_response(e->response); /* one still being sent lives on */
    worker->cache_bytes -= e->bytes;
    *e = (struct rt_cache_entry){0};
}

void rt_cache_put(struct rt_worker *worker, const char *key, int64_t version,
                  struct MHD_Response *response, size_t size)
{
    struct rt_cache_entry *e = &worker->cache[hash(key) % worker->cache_size];
    size_t bytes = size + strlen(key) + 1 + ENTRY_OVERHEAD;
    char *copy = bytes <= worker->cache_budget / 8 ? strdup(key) : NULL;
    if (!copy) { /* out of memory, or too large to keep */
        MHD_destroy_response(response);
        return;
    }
    evict(worker, e);
    /* a clock hand over the table frees others until this one fits */
    for (size_t i = 0; worker->cache_bytes + bytes > worker->cache_budget &&
                       i < worker->cache_size; i++) {
        evict(worker, &worker->cache[worker->cache_hand]);
        worker->cache_hand = (worker->cache_hand + 1) % worker->cache_size;
    }
    *e = (struct rt_cache_entry){.key = copy, .version = version, .response = response,
                                 .bytes = bytes};
    worker->cache_bytes += bytes;
}
