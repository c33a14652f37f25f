/*
 * server/db.c — one read-only store connection per worker thread. A worker
 * keeps its connection in thread-local storage (libmicrohttpd runs each of
 * its connections on one pool thread, so a connection's statements are never
 * shared between threads) and the server keeps a list of them to close them
 * once the workers have stopped.
 */
#include "server_internal.h"

#include <stdlib.h>

#define READ_BUSY_TIMEOUT_MS 1000

static _Thread_local struct {
    struct rt_server *server;
    struct rt_store *store;
} worker;

static rt_status remember(struct rt_server *server, struct rt_store *store)
{
    pthread_mutex_lock(&server->readers_lock);
    bool ok = true;
    if (server->reader_count == server->reader_capacity) {
        size_t capacity = server->reader_capacity ? server->reader_capacity * 2 : 8;
        struct rt_store **grown = realloc(server->readers, capacity * sizeof *grown);
        if ((ok = grown != NULL)) {
            server->readers = grown;
            server->reader_capacity = capacity;
        }
    }
    if (ok)
        server->readers[server->reader_count++] = store;
    pthread_mutex_unlock(&server->readers_lock);
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

rt_status rt_server_reader(struct rt_server *server, struct rt_store **store_out)
{
    if (worker.server == server && worker.store) {
        *store_out = worker.store;
        return rt_ok_status();
    }
    struct rt_store *store = NULL;
    RT_TRY(rt_store_open(server->db_path, RT_STORE_READ_ONLY, &store));
    rt_store_set_busy_timeout(store, READ_BUSY_TIMEOUT_MS);
    rt_status s = remember(server, store);
    if (!rt_ok(&s)) {
        rt_store_close(store);
        return s;
    }
    worker.server = server;
    worker.store = store;
    *store_out = store;
    return s;
}

void rt_server_close_readers(struct rt_server *server)
{
    for (size_t i = 0; i < server->reader_count; i++)
        rt_store_close(server->readers[i]);
    free(server->readers);
    server->readers = NULL;
    server->reader_count = server->reader_capacity = 0;
}
