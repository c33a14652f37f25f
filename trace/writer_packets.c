/*
 * trace/writer_packets.c — appending packets to the in-progress block.
 * Every function takes the writer's lock for the whole packet, so a packet's
 * sequence number and its place in the file agree.
 */
#include <string.h>
#include <time.h>

#include "trace_internal.h"

#define MAX_PACKET_BODY (RT_FORMAT_MAX_RAW_BLOCK - RT_FORMAT_PACKET_HEADER_SIZE)

/* A coarse clock (no system call): block ages are tens of milliseconds. */
static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A FRAME_END seals the block when it has been open frame_seal_ms (lock held). */
static bool frame_seal_due(const struct rt_trace_writer *w)
{
    return !w->frame_seal_ms || now_ms() - w->block_opened_ms >= w->frame_seal_ms;
}

/* A packet's sequence number, counted (lock held). */
static uint64_t count_packet(struct rt_trace_writer *w)
{
    w->packets++;
    w->stats.packets++;
    return w->next_seq++;
}

/* The usual packet, in one test: the block is open (its first packet set
 * first_seq), has the room, and the writer is neither closing, stopped nor
 * failed. Writes the header and returns room for the body; NULL: not the
 * usual packet, for packet_begin to decide. Lock held. */
static uint8_t *packet_begin_open(struct rt_trace_writer *w, uint16_t type, size_t body_size,
                                  uint64_t *seq_out)
{
    size_t need = RT_FORMAT_PACKET_HEADER_SIZE + body_size;
    if (w->packets == 0 || body_size > MAX_PACKET_BODY || w->block.size + need > w->block_size ||
        w->block.failed || w->block.capacity - w->block.size < need || w->closing ||
        atomic_load(&w->emergency) || atomic_load(&w->failed))
        return NULL;
    *seq_out = count_packet(w);
    uint8_t *head = w->block.data + w->block.size;
    w->block.size += need;
    return rt_put_le(rt_put_le(head, type, 2), body_size, 4);
}

/* Checks the writer can take a packet of body_size bytes, seals the block if
 * the packet would overflow it, and writes the packet header. Lock held. */
static rt_status packet_begin(struct rt_trace_writer *w, uint16_t type, size_t body_size,
                              uint64_t *seq_out)
{
    if (body_size > MAX_PACKET_BODY)
        return rt_errorf(RT_ERR_INTERNAL, "trace packet of %zu bytes exceeds the %u-byte limit",
                         body_size, MAX_PACKET_BODY);
    if (w->closing) /* before sealing: nothing goes after the end block */
        return rt_errorf(RT_ERR_INTERNAL, "trace writer is closing");
    size_t need = RT_FORMAT_PACKET_HEADER_SIZE + body_size;
    while (w->block.size > 0 && w->block.size + need > w->block_size && !atomic_load(&w->emergency))
        rt_writer_seal_locked(w);
    if (atomic_load(&w->emergency))
        return rt_errorf(RT_ERR_INTERNAL, "trace writer stopped by the emergency flush");
    if (atomic_load(&w->failed))
        return rt_status_copy(&w->error);
    bool opens_block = w->packets == 0;
    *seq_out = count_packet(w);
    if (opens_block) {
        w->first_seq = *seq_out;
        if (w->frame_seal_ms)
            w->block_opened_ms = now_ms();
    }
    uint8_t *head = rt_enc_room(&w->block, RT_FORMAT_PACKET_HEADER_SIZE);
    if (head) /* NULL: block.failed is set, and packet_end drops the packet */
        rt_put_le(rt_put_le(head, type, 2), body_size, 4);
    return rt_ok_status();
}

/* Checks the encoding succeeded; seals the block when full or when asked. */
static rt_status packet_end(struct rt_trace_writer *w, bool seal)
{
    if (w->block.failed) {
        /* The block now holds a torn packet: drop it rather than write it. */
        rt_enc_reset(&w->block);
        w->packets = w->calls = w->frames = 0;
        return rt_writer_fail_locked(w, rt_errorf(RT_ERR_INTERNAL, "trace writer: out of memory"));
    }
    if (seal || w->block.size >= w->block_size)
        rt_writer_seal_locked(w);
    return rt_ok_status();
}

static rt_status check_command(const struct rt_trace_writer *w, uint32_t command_id)
{
    if (command_id >= w->header.command_count)
        return rt_errorf(RT_ERR_INTERNAL, "command id %u is outside the trace's table of %u",
                         command_id, w->header.command_count);
    return rt_ok_status();
}

rt_status rt_trace_writer_call(struct rt_trace_writer *w, uint32_t command_id, uint32_t thread_id,
                               uint64_t return_value, const void *params, size_t size,
                               uint64_t *seq_out)
{
    if (size && !params)
        return rt_errorf(RT_ERR_INTERNAL, "trace writer: %zu parameter bytes at NULL", size);
    RT_TRY(check_command(w, command_id));
    uint64_t seq = 0;
    size_t body_size = RT_FORMAT_CALL_COMPACT_FIXED + size;
    pthread_mutex_lock(&w->lock);
    rt_status s = rt_ok_status();
    uint8_t *out = packet_begin_open(w, RT_FORMAT_PACKET_CALL_COMPACT, body_size, &seq);
    if (!out) {
        s = packet_begin(w, RT_FORMAT_PACKET_CALL_COMPACT, body_size, &seq);
        out = rt_ok(&s) ? rt_enc_room(&w->block, body_size) : NULL;
    }
    if (out) { /* NULL: block.failed is set, and packet_end drops the packet */
        out = rt_put_le(rt_put_le(rt_put_le(out, command_id, 4), thread_id, 4), return_value, 8);
        if (size)
            memcpy(out, params, size);
    }
    if (rt_ok(&s)) {
        w->calls++;
        w->stats.calls++;
        s = packet_end(w, false);
    }
    pthread_mutex_unlock(&w->lock);
    if (rt_ok(&s) && seq_out)
        *seq_out = seq;
    return s;
}

rt_status rt_trace_writer_memory_update(struct rt_trace_writer *w, uint64_t memory_id,
                                        uint64_t offset, const void *data, size_t size)
{
    if (size && !data)
        return rt_errorf(RT_ERR_INTERNAL, "trace writer: %zu memory bytes at NULL", size);
    /* Chunks fit one block each, so no block outgrows block_size by much. */
    size_t chunk_max = w->block_size - RT_FORMAT_PACKET_HEADER_SIZE - RT_FORMAT_MEMORY_FIXED;
    const uint8_t *p = data;
    rt_status s = rt_ok_status();
    pthread_mutex_lock(&w->lock);
    do {
        size_t chunk = size < chunk_max ? size : chunk_max;
        uint64_t seq;
        s = packet_begin(w, RT_FORMAT_PACKET_MEMORY_UPDATE, RT_FORMAT_MEMORY_FIXED + chunk, &seq);
        if (!rt_ok(&s))
            break;
        rt_enc_u64(&w->block, memory_id);
        rt_enc_u64(&w->block, offset);
        rt_enc_bytes(&w->block, p, chunk);
        w->stats.memory_bytes += chunk;
        s = packet_end(w, false);
        p = chunk ? p + chunk : p;
        offset += chunk;
        size -= chunk;
    } while (rt_ok(&s) && size > 0);
    pthread_mutex_unlock(&w->lock);
    return s;
}

rt_status rt_trace_writer_frame_end(struct rt_trace_writer *w)
{
    uint64_t seq;
    pthread_mutex_lock(&w->lock);
    rt_status s = packet_begin(w, RT_FORMAT_PACKET_FRAME_END, RT_FORMAT_FRAME_FIXED, &seq);
    if (rt_ok(&s)) {
        rt_enc_u64(&w->block, ++w->frame_number);
        w->frames++;
        w->stats.frames++;
        s = packet_end(w, frame_seal_due(w));
    }
    pthread_mutex_unlock(&w->lock);
    return s;
}

rt_status rt_trace_writer_annotation(struct rt_trace_writer *w, enum rt_trace_annotation_kind kind,
                                     const char *text)
{
    size_t n = text ? strlen(text) : 0;
    uint64_t seq;
    pthread_mutex_lock(&w->lock);
    rt_status s = packet_begin(w, RT_FORMAT_PACKET_ANNOTATION, RT_FORMAT_ANNOTATION_FIXED + n, &seq);
    if (rt_ok(&s)) {
        rt_enc_u32(&w->block, (uint32_t)kind);
        rt_enc_bytes(&w->block, text, n);
        s = packet_end(w, false);
    }
    pthread_mutex_unlock(&w->lock);
    return s;
}

rt_status rt_trace_writer_unsupported(struct rt_trace_writer *w, uint32_t command_id,
                                      uint32_t thread_id, const char *reason)
{
    RT_TRY(check_command(w, command_id));
    size_t n = reason ? strlen(reason) : 0;
    uint64_t seq;
    pthread_mutex_lock(&w->lock);
    rt_status s = packet_begin(w, RT_FORMAT_PACKET_UNSUPPORTED, RT_FORMAT_UNSUPPORTED_FIXED + n, &seq);
    if (rt_ok(&s)) {
        rt_enc_u32(&w->block, command_id);
        rt_enc_u32(&w->block, thread_id);
        rt_enc_u64(&w->block, seq);
        rt_enc_bytes(&w->block, reason, n);
        s = packet_end(w, false);
    }
    pthread_mutex_unlock(&w->lock);
    return s;
}

rt_status rt_trace_writer_set_device_info(struct rt_trace_writer *w,
                                          const struct rt_trace_device_info *dev)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_format_encode_device(&enc, dev);
    if (enc.failed) {
        rt_enc_finish(&enc);
        return rt_errorf(RT_ERR_INTERNAL, "trace writer: out of memory");
    }
    rt_status s = rt_ok_status();
    uint64_t seq;
    pthread_mutex_lock(&w->lock);
    if (!w->header_sealed) {
        w->header.device = *dev; /* the header is still to be written: it goes there */
        w->header.has_device = true;
        rt_writer_encode_header_locked(w);
    } else {
        s = packet_begin(w, RT_FORMAT_PACKET_DEVICE_INFO, enc.size, &seq);
        if (rt_ok(&s)) {
            rt_enc_bytes(&w->block, enc.data, enc.size);
            s = packet_end(w, false);
        }
    }
    pthread_mutex_unlock(&w->lock);
    rt_enc_finish(&enc);
    return s;
}

static size_t verify_range_size(const struct rt_trace_verify_range *range)
{
    return RT_FORMAT_VERIFY_RANGE_FIXED + (size_t)range->piece_count * 8;
}

/* Writes ranges [first, first + n) as one verify packet. Lock held. */
static rt_status verify_packet_locked(struct rt_trace_writer *w, const struct rt_trace_verify_range *ranges,
                                      size_t n, size_t body_size)
{
    uint64_t seq;
    RT_TRY(packet_begin(w, RT_FORMAT_PACKET_VERIFY, body_size, &seq));
    rt_enc_u32(&w->block, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        rt_enc_u64(&w->block, ranges[i].memory_id);
        rt_enc_u64(&w->block, ranges[i].offset);
        rt_enc_u32(&w->block, ranges[i].size);
        rt_enc_u32(&w->block, ranges[i].piece_size);
        for (uint32_t k = 0; k < ranges[i].piece_count; k++)
            rt_enc_u64(&w->block, ranges[i].hashes[k]);
    }
    return packet_end(w, false);
}

rt_status rt_trace_writer_verify(struct rt_trace_writer *w, const struct rt_trace_verify_range *ranges,
                                 size_t count)
{
    size_t limit = w->block_size - RT_FORMAT_PACKET_HEADER_SIZE;
    for (size_t i = 0; i < count; i++) {
        const struct rt_trace_verify_range *g = &ranges[i];
        if (!g->size || !g->piece_size || g->piece_count != (g->size + g->piece_size - 1) / g->piece_size ||
            RT_FORMAT_VERIFY_FIXED + verify_range_size(g) > limit)
            return rt_errorf(RT_ERR_INTERNAL, "trace writer: a malformed verification range");
    }
    rt_status s = rt_ok_status();
    pthread_mutex_lock(&w->lock);
    size_t first = 0;
    while (rt_ok(&s) && first < count) {
        size_t n = 0, body = RT_FORMAT_VERIFY_FIXED;
        while (first + n < count && body + verify_range_size(&ranges[first + n]) <= limit)
            body += verify_range_size(&ranges[first + n++]);
        s = verify_packet_locked(w, ranges + first, n, body);
        first += n;
    }
    pthread_mutex_unlock(&w->lock);
    return s;
}

rt_status rt_trace_writer_raw_packet(struct rt_trace_writer *w, uint16_t type, const void *body, size_t size)
{
    /* These carry a sequence or frame number the writer must assign itself. */
    if (type == RT_FORMAT_PACKET_CALL || type == RT_FORMAT_PACKET_CALL_COMPACT ||
        type == RT_FORMAT_PACKET_UNSUPPORTED || type == RT_FORMAT_PACKET_FRAME_END)
        return rt_errorf(RT_ERR_INTERNAL, "trace writer: packet type %u cannot be written raw", type);
    uint64_t seq;
    pthread_mutex_lock(&w->lock);
    rt_status s = packet_begin(w, type, size, &seq);
    if (rt_ok(&s)) {
        rt_enc_bytes(&w->block, body, size);
        s = packet_end(w, false);
    }
    pthread_mutex_unlock(&w->lock);
    return s;
}
