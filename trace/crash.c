/*
 * trace/crash.c — finishing a trace when the process dies without closing it.
 *
 * Owns: the emergency flush and the flush at exit() without close. Must not
 * touch: signal dispositions; whoever owns the process's handlers (the
 * capture layer's capture/signals.c) calls the flush from them.
 *
 * The emergency flush runs inside signal handlers, so it only uses
 * async-signal-safe calls (pwrite, ftruncate, fsync, rename, nanosleep) and
 * atomics: no locks, no malloc, no zstd. Blocks the writer thread has not
 * taken yet are written uncompressed; the block it is writing is waited for
 * (or redone, when the fault interrupted the writer thread itself).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace_internal.h"

#define MAX_WRITERS 8
#define WAIT_STEP_NS 1000000L /* 1 ms */
#define WAIT_STEPS 5000       /* give a stuck write 5 s, then take over */

static void sleep_step(void)
{
    struct timespec ts = {0, WAIT_STEP_NS};
    nanosleep(&ts, NULL);
}

/*
 * Takes block i for the emergency flush. False means the writer thread wrote
 * it. A block the writer thread is writing is waited for, unless we
 * interrupted that very thread (then its write never finishes: redo it).
 */
enum claim { CLAIM_SKIP, CLAIM_QUEUED, CLAIM_TAKEN_OVER };

static enum claim claim(struct rt_writer_slot *slot, uint64_t i, bool on_writer_thread)
{
    for (int step = 0;; step++) {
        if (atomic_load(&slot->index) != i)
            return CLAIM_SKIP; /* recycled for a later block: i was written */
        int state = atomic_load(&slot->state);
        if (state == RT_SLOT_QUEUED) {
            int queued = RT_SLOT_QUEUED;
            if (!atomic_compare_exchange_strong(&slot->state, &queued, RT_SLOT_EMERGENCY))
                continue;
            if (atomic_load(&slot->index) == i)
                return CLAIM_QUEUED;
            /* A block sealed after the flush began: nobody writes it. */
            atomic_store(&slot->state, RT_SLOT_QUEUED);
            return CLAIM_SKIP;
        }
        if (state != RT_SLOT_WRITING)
            return CLAIM_SKIP; /* written (or freed after writing) */
        if (on_writer_thread || step >= WAIT_STEPS)
            return CLAIM_TAKEN_OVER;
        sleep_step();
    }
}

/* Writes one claimed slot at *off, uncompressed. */
static bool write_claimed(struct rt_trace_writer *w, const struct rt_writer_slot *slot,
                          uint64_t *off)
{
    if (slot->kind == RT_SLOT_END)
        return true; /* a clean close was under way; our end block replaces it */
    if (slot->kind == RT_SLOT_HEADER) {
        if (!rt_writer_pwrite_all(w->fd, slot->data, slot->size, *off))
            return false;
        *off += slot->size;
        return true;
    }
    struct rt_block_header h = {
        .type = RT_FORMAT_BLOCK_PACKETS, .compression = RT_FORMAT_COMPRESSION_NONE,
        .stored_size = (uint32_t)slot->size, .raw_size = (uint32_t)slot->size,
        .packet_count = slot->packets, .call_count = slot->calls, .frame_count = slot->frames,
        .first_seq = slot->first_seq,
        .payload_checksum = rt_format_checksum(slot->data, slot->size)};
    uint8_t head[RT_FORMAT_BLOCK_HEADER_SIZE];
    rt_format_block_header_pack(&h, head);
    if (!rt_writer_pwrite_all(w->fd, head, sizeof head, *off) ||
        !rt_writer_pwrite_all(w->fd, slot->data, slot->size, *off + sizeof head))
        return false;
    *off += sizeof head + slot->size;
    return true;
}

static bool write_end(int fd, uint64_t off_in, uint64_t *off)
{
    static const uint8_t empty[1];
    struct rt_block_header h = {.type = RT_FORMAT_BLOCK_END, .flags = RT_FORMAT_END_EMERGENCY,
                                .payload_checksum = rt_format_checksum(empty, 0)};
    uint8_t head[RT_FORMAT_BLOCK_HEADER_SIZE];
    rt_format_block_header_pack(&h, head);
    *off = off_in + sizeof head;
    return rt_writer_pwrite_all(fd, head, sizeof head, off_in);
}

/*
 * The in-progress block, when no thread is appending to it. trylock is not on
 * POSIX's async-signal-safe list, but glibc's is a single atomic operation;
 * if the interrupted thread holds the lock (a fault inside an append), the
 * block may be torn and is left out.
 */
static bool write_in_progress(struct rt_trace_writer *w, uint64_t *off)
{
    bool ok = true;
    if (!w->header_sealed && !w->header_bytes.failed) {
        ok = rt_writer_pwrite_all(w->fd, w->header_bytes.data, w->header_bytes.size, *off);
        *off += w->header_bytes.size;
    }
    if (ok && w->block.size > 0 && !w->block.failed) {
        struct rt_writer_slot open_block = {
            .kind = RT_SLOT_PACKETS, .data = w->block.data, .size = w->block.size,
            .packets = w->packets, .calls = w->calls, .frames = w->frames,
            .first_seq = w->first_seq};
        ok = write_claimed(w, &open_block, off);
    }
    return ok;
}

/* The writer's lock, once another thread's append lets go of it: other
 * threads run on while a signal's flush runs, and an append holds the lock
 * only briefly. Given up after LOCK_WAIT_STEPS, as when the interrupted
 * thread itself holds it (a fault inside an append). Before any block was
 * sealed, the header is written only with the lock: without it the .part
 * stayed unnamed (killed-threads-50, session 7). */
#define LOCK_WAIT_STEPS 100
static bool lock_soon(struct rt_trace_writer *w)
{
    for (int step = 0; step < LOCK_WAIT_STEPS; step++) {
        if (pthread_mutex_trylock(&w->lock) == 0)
            return true;
        sleep_step();
    }
    return false;
}

bool rt_trace_writer_emergency_flush(struct rt_trace_writer *w)
{
    bool expected = false;
    if (!w || !atomic_compare_exchange_strong(&w->emergency, &expected, true))
        return false;
    atomic_store(&w->emergency_tid, gettid());
    bool on_writer = gettid() == atomic_load(&w->writer_tid);
    /* Seal index first: every block below it was published before we looked. */
    uint64_t sealed = atomic_load(&w->seal_index);
    uint64_t i = atomic_load(&w->write_index);
    bool own = false, ok = true;
    uint64_t off = 0;
    for (; i < sealed && ok; i++) {
        struct rt_writer_slot *slot = &w->slots[i % RT_WRITER_SLOTS];
        enum claim c = claim(slot, i, on_writer);
        if (c == CLAIM_SKIP)
            continue;
        if (!own) {
            /* The writer thread stops at a claimed block, so the file is
             * ours from here. A block taken over mid-write starts where the
             * writer thread put it; otherwise everything written so far
             * ends at durable_end. */
            off = c == CLAIM_TAKEN_OVER ? atomic_load(&slot->offset)
                                        : atomic_load(&w->durable_end);
            own = true;
        }
        ok = write_claimed(w, slot, &off);
    }
    if (!own)
        off = atomic_load(&w->durable_end);
    bool locked = !on_writer && lock_soon(w);
    if (locked && ok)
        ok = write_in_progress(w, &off);
    bool have_header = sealed > 0 || locked;
    if (ok && have_header && write_end(w->fd, off, &off) && ftruncate(w->fd, (off_t)off) == 0) {
        fsync(w->fd);
        rename(w->part_path, w->path);
    }
    if (locked)
        pthread_mutex_unlock(&w->lock);
    atomic_store(&w->emergency_done, true);
    return true;
}

/* ------------------------------------------- for the owner of the handlers */

bool rt_trace_writer_emergency_flush_or_wait(struct rt_trace_writer *w)
{
    if (rt_trace_writer_emergency_flush(w))
        return true;
    if (atomic_load(&w->emergency_tid) == gettid())
        return false; /* a fault inside our own flush */
    for (int step = 0; step < 2 * WAIT_STEPS && !atomic_load(&w->emergency_done); step++)
        sleep_step();
    return false;
}

void rt_trace_writer_exit_flush(struct rt_trace_writer *w)
{
    if (atomic_load(&w->emergency)) {
        rt_trace_writer_emergency_flush_or_wait(w); /* a signal's flush on another thread */
        return;
    }
    pthread_mutex_lock(&w->lock);
    bool finished = w->finished;
    pthread_mutex_unlock(&w->lock);
    if (finished)
        return; /* closed cleanly: nothing left to do */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    if (pthread_mutex_timedlock(&w->lock, &deadline) == 0) {
        rt_writer_seal_locked(w);
        pthread_mutex_unlock(&w->lock);
    }
    for (int step = 0; step < 2000 && atomic_load(&w->write_index) < atomic_load(&w->seal_index); step++)
        sleep_step();
    rt_trace_writer_emergency_flush_or_wait(w);
}

/* ------------------------------------------- a .part a dead process left */

/* How far PATH is good: whole blocks, and whether the end block is there. */
static rt_status read_progress(const char *path, struct rt_trace_progress *p)
{
    struct rt_trace_reader *r;
    RT_TRY(rt_trace_reader_open(path, &r));
    struct rt_trace_packet packet;
    rt_status s;
    do {
        s = rt_trace_reader_next(r, &packet);
    } while (rt_ok(&s) && packet.type != RT_TRACE_PACKET_END);
    rt_status_free(&s); /* where reading stopped is in the progress */
    rt_trace_reader_progress(r, p);
    rt_trace_reader_destroy(r);
    return rt_ok_status();
}

/* Cuts the file after its last whole block and ends it there. */
static rt_status end_at_good_bytes(int fd, const char *part, struct rt_trace_progress *p)
{
    uint64_t end = 0;
    if (ftruncate(fd, (off_t)p->good_bytes) != 0 || !write_end(fd, p->good_bytes, &end) ||
        fsync(fd) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot finish %s: %s", part, strerror(errno));
    p->good_bytes = end;
    p->ended = p->emergency = true;
    return rt_ok_status();
}

static rt_status finish_locked(int fd, const char *path, const char *part,
                               struct rt_trace_progress *p)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size == 0) {
        unlink(part);
        return rt_errorf(RT_ERR_BAD_INPUT, "%s was empty: the program died before it recorded "
                         "anything (removed)", part);
    }
    rt_status s = read_progress(part, p);
    if (!rt_ok(&s)) {
        rt_status e = rt_errorf(RT_ERR_BAD_INPUT, "%s holds no whole trace header (%s); left as it is",
                                part, s.msg);
        rt_status_free(&s);
        return e;
    }
    if (!p->ended)
        RT_TRY(end_at_good_bytes(fd, part, p));
    if (access(path, F_OK) == 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot rename %s: %s exists", part, path);
    if (rename(part, path) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "renaming %s to %s: %s", part, path, strerror(errno));
    return rt_ok_status();
}

rt_status rt_trace_finish_part(const char *path, struct rt_trace_progress *progress_out)
{
    char part[PATH_MAX];
    if ((size_t)snprintf(part, sizeof part, "%s.part", path) >= sizeof part)
        return rt_errorf(RT_ERR_USAGE, "path too long: %s", path);
    int fd = open(part, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot open %s: %s", part, strerror(errno));
    rt_status s;
    struct rt_trace_progress p = {0};
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s is still being written by a running process", part);
    else
        s = finish_locked(fd, path, part, &p);
    close(fd);
    if (progress_out)
        *progress_out = p;
    return s;
}
