/*
 * server/stale.c — an unfinished run is shown "running" only while its
 * runner lives. A runner killed with SIGKILL never finishes its run; the next
 * `retrace run` on its host marks it aborted (runner/stale.c), and so does
 * the server when it runs on that same host: before answering a read, at
 * most once a second, it marks this host's unfinished runs whose runner
 * process is gone (common/process.h) "aborted". Other hosts' runs are never
 * judged: their processes cannot be seen from here.
 */
#include "server_internal.h"

#include <time.h>
#include <unistd.h>

#include "process.h"

static bool alive(int64_t pid, const char *start, void *ctx)
{
    (void)ctx;
    return rt_process_alive(pid, start);
}

static rt_status abort_gone(struct rt_store *writer, void *host)
{
    return rt_store_runs_abort_gone(writer, host, alive, NULL, NULL);
}

void rt_server_sweep_stale(struct rt_server *server)
{
    long long now = (long long)time(NULL);
    long long last = atomic_load(&server->last_sweep);
    if (now == last || !atomic_compare_exchange_strong(&server->last_sweep, &last, now))
        return; /* swept this second, or another worker is sweeping */
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        return;
    host[sizeof host - 1] = 0;
    /* A store kept busy by another process: the next read tries again. */
    rt_status s = rt_server_write(server, abort_gone, host);
    rt_status_free(&s);
}
