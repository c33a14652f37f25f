/*
 * trace/writer.c — the thread-safe .rtrace writer (trace.h, FORMAT.md).
 *
 * Application threads encode packets into the in-progress block under one
 * mutex (which also hands out the global sequence number, so file order is
 * sequence order). A full block, or a frame end, is sealed into one of
 * RT_WRITER_SLOTS slots; the writer thread compresses and writes slots in
 * order. When every slot is busy, appends wait (back-pressure). Slot states
 * are atomics so crash.c can finish the file from a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "trace_internal.h"

#define DEFAULT_BLOCK_SIZE (1u << 20)
#define MIN_BLOCK_SIZE 4096u
#define DEFAULT_LEVEL 3

rt_status rt_writer_fail_locked(struct rt_trace_writer *w, rt_status s)
{
    if (!atomic_load(&w->failed)) {
        w->error = rt_status_copy(&s); /* kept for later calls; S goes to the caller */
        atomic_store(&w->failed, true);
    }
    return s;
}

/* ------------------------------------------------------------ writer thread */

bool rt_writer_pwrite_all(int fd, const void *data, size_t size, uint64_t offset)
{
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t n = pwrite(fd, p, size, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
        offset += (uint64_t)n;
    }
    return true;
}

/* Compresses a packets slot into w->zbuf (after room for the block header);
 * returns the stored payload, which is the raw data when zstd does not help. */
static const uint8_t *compress_slot(struct rt_trace_writer *w, const struct rt_writer_slot *slot,
                                    struct rt_block_header *h)
{
    h->compression = RT_FORMAT_COMPRESSION_NONE;
    h->stored_size = (uint32_t)slot->size;
    if (w->compression != RT_FORMAT_COMPRESSION_ZSTD || slot->size == 0)
        return slot->data;
    size_t bound = ZSTD_compressBound(slot->size);
    if (bound > w->zcap) {
        uint8_t *z = realloc(w->zbuf, bound);
        if (!z)
            return slot->data; /* stored raw: still a valid block */
        w->zbuf = z;
        w->zcap = bound;
    }
    size_t n = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zcap, slot->data, slot->size, w->level);
    if (ZSTD_isError(n) || n >= slot->size)
        return slot->data;
    h->compression = RT_FORMAT_COMPRESSION_ZSTD;
    h->stored_size = (uint32_t)n;
    return w->zbuf;
}

/* Writes one slot; false when the emergency flush owns the file now. */
static bool write_slot(struct rt_trace_writer *w, struct rt_writer_slot *slot,
                       uint64_t *raw_bytes_out)
{
    uint8_t head[RT_FORMAT_BLOCK_HEADER_SIZE];
    const uint8_t *payload = slot->data;
    size_t head_size = 0, payload_size = slot->size;
    if (slot->kind != RT_SLOT_HEADER) {
        struct rt_block_header h = {
            .type = slot->kind == RT_SLOT_END ? RT_FORMAT_BLOCK_END : RT_FORMAT_BLOCK_PACKETS,
            .raw_size = (uint32_t)slot->size, .packet_count = slot->packets,
            .call_count = slot->calls, .frame_count = slot->frames, .first_seq = slot->first_seq};
        payload = compress_slot(w, slot, &h);
        payload_size = h.stored_size;
        h.payload_checksum = rt_format_checksum(payload ? payload : head, payload_size);
        rt_format_block_header_pack(&h, head);
        head_size = sizeof head;
    }
    int queued = RT_SLOT_QUEUED;
    if (atomic_load(&w->emergency) ||
        !atomic_compare_exchange_strong(&slot->state, &queued, RT_SLOT_WRITING))
        return false;
    uint64_t off = atomic_load(&w->durable_end);
    atomic_store(&slot->offset, off);
    bool ok = !atomic_load(&w->failed) && rt_writer_pwrite_all(w->fd, head, head_size, off) &&
              rt_writer_pwrite_all(w->fd, payload, payload_size, off + head_size);
    if (ok)
        atomic_store(&w->durable_end, off + head_size + payload_size);
    atomic_store(&slot->state, RT_SLOT_WRITTEN);
    if (!ok && !atomic_load(&w->failed)) {
        pthread_mutex_lock(&w->lock);
        rt_writer_fail_locked(w, rt_errorf(RT_ERR_INTERNAL, "writing %s: %s", w->part_path,
                                         strerror(errno)));
        pthread_mutex_unlock(&w->lock);
    }
    *raw_bytes_out = head_size + slot->size;
    return true;
}

/* Asynchronous signals go to application threads: the writer thread must not
 * be the one interrupted mid-write by SIGTERM. Faults cannot be blocked. */
static void block_async_signals(void)
{
    sigset_t set;
    sigfillset(&set);
    int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&set, faults[i]);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *writer_main(void *arg)
{
    struct rt_trace_writer *w = arg;
    atomic_store(&w->writer_tid, gettid());
    /* In a captured program's process: its threads' names say whose it is
     * (profiles, top -H). */
    pthread_setname_np(pthread_self(), "retrace-writer");
    block_async_signals();
    for (;;) {
        pthread_mutex_lock(&w->lock);
        while (atomic_load(&w->write_index) == atomic_load(&w->seal_index) && !w->closing &&
               !atomic_load(&w->emergency))
            pthread_cond_wait(&w->wake_writer, &w->lock);
        uint64_t i = atomic_load(&w->write_index);
        if (atomic_load(&w->emergency) || i == atomic_load(&w->seal_index)) {
            pthread_mutex_unlock(&w->lock);
            break;
        }
        struct rt_writer_slot *slot = &w->slots[i % RT_WRITER_SLOTS];
        pthread_mutex_unlock(&w->lock);
        uint64_t raw = 0;
        bool written = write_slot(w, slot, &raw);
        pthread_mutex_lock(&w->lock);
        if (written) {
            atomic_store(&slot->state, RT_SLOT_FREE);
            atomic_store(&w->write_index, i + 1);
            w->stats.blocks += slot->kind == RT_SLOT_PACKETS;
            w->stats.raw_bytes += raw;
            w->stats.file_bytes = atomic_load(&w->durable_end);
            pthread_cond_broadcast(&w->slot_freed);
        }
        pthread_mutex_unlock(&w->lock);
        if (!written)
            break;
    }
    return NULL;
}

/* --------------------------------------------------------- sealing (locked) */

/* The next slot in order, waiting while the writer thread is behind. NULL
 * once the emergency flush has started (its slots are never freed). */
static struct rt_writer_slot *acquire_slot(struct rt_trace_writer *w)
{
    for (;;) {
        if (atomic_load(&w->emergency))
            return NULL;
        uint64_t i = atomic_load(&w->seal_index);
        struct rt_writer_slot *slot = &w->slots[i % RT_WRITER_SLOTS];
        if (atomic_load(&slot->state) == RT_SLOT_FREE)
            return slot;
        pthread_cond_wait(&w->slot_freed, &w->lock);
    }
}

static void publish_slot(struct rt_trace_writer *w, struct rt_writer_slot *slot)
{
    uint64_t i = atomic_load(&w->seal_index);
    atomic_store(&slot->index, i);
    atomic_store(&slot->state, RT_SLOT_QUEUED);
    atomic_store(&w->seal_index, i + 1);
    pthread_cond_signal(&w->wake_writer);
}

/* Moves enc's bytes into the slot, giving the slot's old buffer back to enc. */
static void swap_into_slot(struct rt_writer_slot *slot, struct rt_enc *enc)
{
    uint8_t *data = slot->data;
    size_t capacity = slot->capacity;
    slot->data = enc->data;
    slot->size = enc->size;
    slot->capacity = enc->capacity;
    enc->data = data;
    enc->capacity = capacity;
    enc->size = 0;
    enc->failed = false;
}

void rt_writer_encode_header_locked(struct rt_trace_writer *w)
{
    rt_enc_reset(&w->header_bytes);
    rt_format_encode_file_header(&w->header_bytes, &w->header);
}

static void seal_header_locked(struct rt_trace_writer *w)
{
    w->header_sealed = true;
    if (w->header_bytes.failed) {
        rt_writer_fail_locked(w, rt_errorf(RT_ERR_INTERNAL, "out of memory encoding the header"));
        return;
    }
    struct rt_writer_slot *slot = acquire_slot(w);
    if (!slot)
        return;
    /* The slot takes the bytes; header_bytes keeps the slot's old buffer. */
    swap_into_slot(slot, &w->header_bytes);
    slot->kind = RT_SLOT_HEADER;
    publish_slot(w, slot);
}

/* The next block fills the roomiest buffer no slot is using. swap_into_slot
 * hands back the buffer of the slot just taken, which last held the block
 * RT_WRITER_SLOTS seals ago: in a capture of a few dozen blocks that is
 * nearly always none, so every block grew a new buffer from nothing, each
 * doubling copied it, and every byte of the trace went into fresh pages (a
 * page fault per 4 KiB: ~5,000 of the ~9,400 page faults capture added to
 * glxgears through zink, bench/README.md). A free slot's buffer is nobody's
 * under the lock: the writer thread frees a slot under it, only
 * publish_slot (under it) takes one again, and the emergency flush skips
 * free slots (crash.c, claim). */
static void reuse_free_buffer(struct rt_trace_writer *w)
{
    struct rt_writer_slot *roomiest = NULL;
    size_t capacity = w->block.capacity;
    for (size_t k = 0; k < RT_WRITER_SLOTS; k++) {
        struct rt_writer_slot *s = &w->slots[k];
        if (atomic_load(&s->state) == RT_SLOT_FREE && s->capacity > capacity) {
            roomiest = s;
            capacity = s->capacity;
        }
    }
    if (!roomiest)
        return;
    uint8_t *data = roomiest->data;
    roomiest->data = w->block.data;
    roomiest->capacity = w->block.capacity;
    roomiest->size = 0;
    w->block.data = data;
    w->block.capacity = capacity;
}

void rt_writer_seal_locked(struct rt_trace_writer *w)
{
    if (!w->header_sealed)
        seal_header_locked(w);
    if (w->block.size == 0)
        return;
    struct rt_writer_slot *slot = acquire_slot(w);
    /* acquire_slot may have waited, and another thread sealed meanwhile. */
    if (!slot || w->block.size == 0)
        return;
    swap_into_slot(slot, &w->block);
    slot->kind = RT_SLOT_PACKETS;
    slot->packets = w->packets;
    slot->calls = w->calls;
    slot->frames = w->frames;
    slot->first_seq = w->first_seq;
    w->packets = w->calls = w->frames = 0;
    publish_slot(w, slot);
    reuse_free_buffer(w);
}

static void publish_end_locked(struct rt_trace_writer *w)
{
    struct rt_writer_slot *slot = acquire_slot(w);
    if (!slot)
        return;
    slot->kind = RT_SLOT_END;
    slot->size = 0;
    slot->packets = slot->calls = slot->frames = 0;
    slot->first_seq = w->next_seq;
    publish_slot(w, slot);
}

/* ------------------------------------------------------- create and close */

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

static void free_header(struct rt_trace_header *h)
{
    free((char *)h->application_name);
    free((char *)h->engine_name);
    free((char *)h->settings);
    for (uint32_t i = 0; h->command_names && i < h->command_count; i++)
        free((char *)h->command_names[i]);
    free((void *)h->command_names);
}

static rt_status copy_header(struct rt_trace_writer *w, const struct rt_trace_writer_options *o)
{
    struct rt_trace_header *h = &w->header;
    h->version_major = RT_FORMAT_VERSION_MAJOR;
    h->version_minor = RT_FORMAT_VERSION_MINOR;
    h->flags = o->header_flags | RT_FORMAT_FLAG_COMPACT_CALLS; /* every call is written compact */
    h->vk_header_version = o->vk_header_version;
    h->pointer_size = (uint8_t)sizeof(void *);
    h->compression = (uint8_t)w->compression;
    h->application_version = o->application_version;
    h->engine_version = o->engine_version;
    h->api_version = o->api_version;
    h->application_name = dup_or_empty(o->application_name);
    h->engine_name = dup_or_empty(o->engine_name);
    h->settings = dup_or_empty(o->settings);
    h->has_device = o->device != NULL;
    if (o->device)
        h->device = *o->device;
    const char **names = calloc(o->command_count ? o->command_count : 1, sizeof *names);
    h->command_names = names;
    if (!names || !h->application_name || !h->engine_name || !h->settings)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (uint32_t i = 0; i < o->command_count; i++) {
        if (!o->command_names[i])
            return rt_errorf(RT_ERR_INTERNAL, "command name %u is NULL", i);
        if (!(names[i] = strdup(o->command_names[i])))
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        h->command_count = i + 1;
    }
    return rt_ok_status();
}

static void writer_free(struct rt_trace_writer *w)
{
    free_header(&w->header);
    for (int i = 0; i < RT_WRITER_SLOTS; i++)
        free(w->slots[i].data);
    rt_enc_finish(&w->block);
    rt_enc_finish(&w->header_bytes);
    ZSTD_freeCCtx(w->cctx);
    free(w->zbuf);
    free(w->path);
    free(w->part_path);
    rt_status_free(&w->error);
    free(w);
}

static rt_status open_writer(struct rt_trace_writer *w, const struct rt_trace_writer_options *o)
{
    RT_TRY(copy_header(w, o));
    rt_writer_encode_header_locked(w); /* no other thread knows w yet */
    if (w->header_bytes.failed)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    size_t n = strlen(o->path);
    w->path = strdup(o->path);
    w->part_path = malloc(n + sizeof ".part");
    w->cctx = ZSTD_createCCtx();
    if (!w->path || !w->part_path || !w->cctx)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    memcpy(w->part_path, o->path, n);
    memcpy(w->part_path + n, ".part", sizeof ".part");
    w->fd = open(w->part_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot create %s: %s", w->part_path, strerror(errno));
    /* Held until the process ends, however it ends: whoever finishes a
     * left-over .part (rt_trace_finish_part) knows nobody writes it now. */
    flock(w->fd, LOCK_EX | LOCK_NB);
    return rt_ok_status();
}

rt_status rt_trace_writer_create(const struct rt_trace_writer_options *o,
                                 struct rt_trace_writer **writer_out)
{
    *writer_out = NULL;
    if (!o || !o->path || !o->path[0] || (o->command_count && !o->command_names))
        return rt_errorf(RT_ERR_USAGE, "trace writer: a path and a command table are required");
    struct rt_trace_writer *w = calloc(1, sizeof *w);
    if (!w)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    w->fd = -1;
    w->compression = o->compression == RT_TRACE_COMPRESSION_NONE ? RT_FORMAT_COMPRESSION_NONE
                                                                  : RT_FORMAT_COMPRESSION_ZSTD;
    w->level = o->compression_level ? o->compression_level : DEFAULT_LEVEL;
    w->frame_seal_ms = o->frame_seal_ms;
    size_t bs = o->block_size ? o->block_size : DEFAULT_BLOCK_SIZE;
    w->block_size = bs < MIN_BLOCK_SIZE ? MIN_BLOCK_SIZE
                    : bs > RT_FORMAT_MAX_RAW_BLOCK ? RT_FORMAT_MAX_RAW_BLOCK : bs;
    rt_enc_init(&w->block);
    rt_enc_init(&w->header_bytes);
    rt_status s = open_writer(w, o);
    if (!rt_ok(&s)) {
        if (w->fd >= 0) {
            close(w->fd);
            unlink(w->part_path);
        }
        writer_free(w);
        return s;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake_writer, NULL);
    pthread_cond_init(&w->slot_freed, NULL);
    int err = pthread_create(&w->thread, NULL, writer_main, w);
    if (err) {
        close(w->fd);
        unlink(w->part_path);
        writer_free(w);
        return rt_errorf(RT_ERR_INTERNAL, "cannot start the trace writer thread: %s", strerror(err));
    }
    *writer_out = w;
    return rt_ok_status();
}

/* Fsyncs, closes and renames: the last steps of a clean close. */
static rt_status finish_file(struct rt_trace_writer *w)
{
    rt_status s = atomic_load(&w->failed) ? rt_status_copy(&w->error) : rt_ok_status();
    if (rt_ok(&s) && fsync(w->fd) != 0)
        s = rt_errorf(RT_ERR_INTERNAL, "fsync %s: %s", w->part_path, strerror(errno));
    if (close(w->fd) != 0 && rt_ok(&s))
        s = rt_errorf(RT_ERR_INTERNAL, "closing %s: %s", w->part_path, strerror(errno));
    if (rt_ok(&s) && rename(w->part_path, w->path) != 0)
        s = rt_errorf(RT_ERR_INTERNAL, "renaming %s to %s: %s", w->part_path, w->path,
                      strerror(errno));
    return s;
}

/* The emergency flush runs on another thread (a signal there): the file and
 * the slots are its until it is done. */
static void wait_for_emergency(struct rt_trace_writer *w)
{
    for (int step = 0; step < 10000 && !atomic_load(&w->emergency_done); step++)
        usleep(1000);
}

rt_status rt_trace_writer_finish(struct rt_trace_writer *w, struct rt_trace_writer_stats *stats_out)
{
    if (!w)
        return rt_errorf(RT_ERR_USAGE, "trace writer: finish of NULL");
    pthread_mutex_lock(&w->lock);
    if (w->finished) {
        pthread_mutex_unlock(&w->lock);
        return rt_errorf(RT_ERR_USAGE, "trace writer: %s is finished already", w->path);
    }
    w->finished = true;
    bool emergency = atomic_load(&w->emergency);
    if (!emergency) {
        rt_writer_seal_locked(w);
        publish_end_locked(w);
    }
    w->closing = true; /* later appends fail, under the lock */
    pthread_cond_broadcast(&w->wake_writer);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    /* A fatal signal before the rename may still finish the file itself (the
     * handlers' owner calls the flush); then it owns the file. */
    rt_status s;
    if (emergency || atomic_load(&w->emergency)) {
        wait_for_emergency(w);
        close(w->fd);
        s = rt_errorf(RT_ERR_INTERNAL, "%s was already finished by the emergency flush", w->path);
    } else {
        s = finish_file(w);
    }
    if (stats_out)
        *stats_out = w->stats;
    return s;
}

rt_status rt_trace_writer_close(struct rt_trace_writer *w, struct rt_trace_writer_stats *stats_out)
{
    if (!w)
        return rt_errorf(RT_ERR_USAGE, "trace writer: close of NULL");
    pthread_mutex_lock(&w->lock);
    bool finished = w->finished;
    pthread_mutex_unlock(&w->lock);
    rt_status s = rt_ok_status();
    if (!finished)
        s = rt_trace_writer_finish(w, stats_out);
    else if (stats_out)
        *stats_out = w->stats;
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake_writer);
    pthread_cond_destroy(&w->slot_freed);
    writer_free(w);
    return s;
}

bool rt_trace_writer_flushed_in_emergency(struct rt_trace_writer *w)
{
    return atomic_load(&w->emergency);
}
