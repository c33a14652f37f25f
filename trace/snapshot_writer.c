/*
 * trace/snapshot_writer.c — appending the state snapshot packets
 * (trace_snapshot.h); snapshot.c decodes them (kept apart so the reader
 * builds without the writer, as the fuzz harness does).
 */
#include "trace_internal.h"
#include "trace_snapshot.h"

static rt_status append(struct rt_trace_writer *w, uint16_t type, struct rt_enc *enc)
{
    rt_status s = enc->failed ? rt_errorf(RT_ERR_INTERNAL, "out of memory")
                              : rt_trace_writer_raw_packet(w, type, enc->data, enc->size);
    rt_enc_finish(enc);
    return s;
}

rt_status rt_trace_writer_snapshot_begin(struct rt_trace_writer *w, const struct rt_trace_snapshot_begin *b)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_enc_u64(&enc, b->first_frame);
    rt_enc_u64(&enc, b->last_frame);
    rt_enc_u64(&enc, b->source_frames);
    rt_enc_bytes(&enc, b->source_sha256, RT_TRACE_SHA256_SIZE);
    rt_enc_u32(&enc, (uint32_t)b->source_length);
    rt_enc_bytes(&enc, b->source, b->source_length);
    return append(w, RT_FORMAT_PACKET_SNAPSHOT_BEGIN, &enc);
}

rt_status rt_trace_writer_snapshot_end(struct rt_trace_writer *w, const struct rt_trace_snapshot_end *e)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_enc_u64(&enc, e->packet_count);
    rt_enc_u64(&enc, e->bytes);
    return append(w, RT_FORMAT_PACKET_SNAPSHOT_END, &enc);
}

rt_status rt_trace_writer_buffer_content(struct rt_trace_writer *w, const struct rt_trace_buffer_content *c)
{
    if (c->size > rt_trace_snapshot_max_data())
        return rt_errorf(RT_ERR_INTERNAL, "buffer content of %zu bytes exceeds a packet", c->size);
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_enc_u64(&enc, c->buffer_id);
    rt_enc_u64(&enc, c->offset);
    rt_enc_bytes(&enc, c->data, c->size);
    return append(w, RT_FORMAT_PACKET_BUFFER_CONTENT, &enc);
}

rt_status rt_trace_writer_image_content(struct rt_trace_writer *w, const struct rt_trace_image_content *c)
{
    if (c->size > rt_trace_snapshot_max_data())
        return rt_errorf(RT_ERR_INTERNAL, "image content of %zu bytes exceeds a packet", c->size);
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_enc_u64(&enc, c->image_id);
    const uint32_t fields[] = {c->aspect, c->mip, c->layer, c->layout, c->x, c->y, c->z,
                               c->width, c->height, c->depth};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        rt_enc_u32(&enc, fields[i]);
    rt_enc_bytes(&enc, c->data, c->size);
    return append(w, RT_FORMAT_PACKET_IMAGE_CONTENT, &enc);
}

rt_status rt_trace_writer_sync_state(struct rt_trace_writer *w, const struct rt_trace_sync_state *s)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_enc_u32(&enc, s->object_type);
    rt_enc_u32(&enc, s->timeline);
    rt_enc_u64(&enc, s->object_id);
    rt_enc_u64(&enc, s->value);
    return append(w, RT_FORMAT_PACKET_SYNC_STATE, &enc);
}

rt_status rt_trace_writer_query_state(struct rt_trace_writer *w, const struct rt_trace_query_state *q)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_enc_u64(&enc, q->pool_id);
    rt_enc_u32(&enc, q->query_type);
    rt_enc_u32(&enc, q->count);
    rt_enc_bytes(&enc, q->available, q->count);
    return append(w, RT_FORMAT_PACKET_QUERY_STATE, &enc);
}

rt_status rt_trace_writer_image_samples(struct rt_trace_writer *w, const struct rt_trace_image_samples *c)
{
    if (c->size > rt_trace_snapshot_max_data())
        return rt_errorf(RT_ERR_INTERNAL, "image samples of %zu bytes exceed a packet", c->size);
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_enc_u64(&enc, c->image_id);
    const uint32_t fields[] = {c->aspect, c->layer, c->layout, c->samples, c->kind, c->x, c->y, c->width, c->height};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        rt_enc_u32(&enc, fields[i]);
    rt_enc_bytes(&enc, c->data, c->size);
    return append(w, RT_FORMAT_PACKET_IMAGE_SAMPLES, &enc);
}
