/*
 * server/gc.c — `retrace serve --keep-runs DAYS`: a thread that removes the
 * runs older than DAYS (rt_store_gc: their results and the images no kept
 * result names; never goldens) when the server starts and then every hour,
 * through the server's one writer (rt_server_write: the write lock, busy
 * retries), at most GC_BATCH runs per hold of the lock so that uploads and
 * approvals wait for one batch at most. What it freed goes to stderr.
 */
#include "server_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#define GC_BATCH 20
#define GC_PERIOD_S 3600

struct gc_pass {
    uint32_t days;
    struct rt_store_gc_counts counts;
};

static rt_status gc_batch(struct rt_store *writer, void *ctx)
{
    struct gc_pass *p = ctx;
    return rt_store_gc(writer, p->days, GC_BATCH, &p->counts);
}

/* One collection, batch by batch; false when the server is stopping. */
static bool collect(struct rt_server *server)
{
    struct rt_store_gc_counts total = {0};
    struct gc_pass pass = {.days = server->options.keep_runs_days};
    do {
        rt_status s = rt_server_write(server, gc_batch, &pass);
        if (!rt_ok(&s)) {
            fprintf(stderr, "retrace serve: removing old runs: %s (trying again in an hour)\n", s.msg);
            rt_status_free(&s);
            return true;
        }
        total.runs += pass.counts.runs, total.results += pass.counts.results;
        total.images += pass.counts.images, total.image_bytes += pass.counts.image_bytes;
        total.free_bytes = pass.counts.free_bytes;
        if (atomic_load(&server->gc_stop))
            return false;
    } while (pass.counts.more);
    if (total.runs)
        fprintf(stderr,
                "retrace serve: removed %" PRIu64 " runs older than %u days, %" PRIu64
                " results and %" PRIu64 " images (%.1f MiB of PNGs); %.1f MiB of the store free"
                " for new rows\n",
                total.runs, pass.days, total.results, total.images,
                (double)total.image_bytes / 1048576.0, (double)total.free_bytes / 1048576.0);
    return true;
}

static void *gc_main(void *arg)
{
    struct rt_server *server = arg;
    pthread_mutex_lock(&server->gc_lock);
    while (!atomic_load(&server->gc_stop)) {
        pthread_mutex_unlock(&server->gc_lock);
        bool go_on = collect(server);
        pthread_mutex_lock(&server->gc_lock);
        if (!go_on)
            break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += GC_PERIOD_S;
        while (!atomic_load(&server->gc_stop) &&
               pthread_cond_timedwait(&server->gc_wake, &server->gc_lock, &until) != ETIMEDOUT) {
        }
    }
    pthread_mutex_unlock(&server->gc_lock);
    return NULL;
}

rt_status rt_server_gc_start(struct rt_server *server)
{
    if (!server->options.keep_runs_days)
        return rt_ok_status();
    if (pthread_create(&server->gc_thread, NULL, gc_main, server) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot start the thread that removes old runs");
    server->gc_running = true;
    return rt_ok_status();
}

void rt_server_gc_stop(struct rt_server *server)
{
    if (!server->gc_running)
        return;
    pthread_mutex_lock(&server->gc_lock);
    atomic_store(&server->gc_stop, true);
    pthread_cond_signal(&server->gc_wake);
    pthread_mutex_unlock(&server->gc_lock);
    pthread_join(server->gc_thread, NULL);
    server->gc_running = false;
}
