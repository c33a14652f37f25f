/*
 * trace/snapshot.c — encoding and decoding the state snapshot packets
 * (trace_snapshot.h), and the rules of where they may come in a trace.
 */
#include <string.h>

#include "trace_internal.h"
#include "trace_snapshot.h"

enum { STAGE_NONE, STAGE_INSIDE, STAGE_ENDED };

const char rt_trace_snapshot_guard[] = RT_FORMAT_SNAPSHOT_GUARD;
const char rt_trace_snapshot_samples_guard[] = RT_FORMAT_SNAPSHOT_SAMPLES_GUARD;

size_t rt_trace_snapshot_max_data(void)
{
    /* a quarter of a block: content packets stay small enough to stream */
    return RT_FORMAT_MAX_RAW_BLOCK / 4;
}

/* ------------------------------------------------------------------ decode */

static bool begin_body(const uint8_t *b, size_t size, struct rt_trace_snapshot_begin *out)
{
    struct rt_dec dec;
    rt_dec_init(&dec, b, size, NULL);
    out->first_frame = rt_dec_u64(&dec);
    out->last_frame = rt_dec_u64(&dec);
    out->source_frames = rt_dec_u64(&dec);
    const uint8_t *sha = rt_dec_bytes(&dec, RT_TRACE_SHA256_SIZE);
    uint32_t n = rt_dec_u32(&dec);
    if (dec.failed || rt_dec_left(&dec) != n)
        return false;
    memcpy(out->source_sha256, sha, RT_TRACE_SHA256_SIZE);
    out->source = (const char *)dec.pos;
    out->source_length = n;
    return out->first_frame >= 1 && out->last_frame >= out->first_frame;
}

static bool image_body(const uint8_t *b, size_t size, struct rt_trace_image_content *out)
{
    struct rt_dec dec;
    rt_dec_init(&dec, b, size, NULL);
    out->image_id = rt_dec_u64(&dec);
    uint32_t *fields[] = {&out->aspect, &out->mip, &out->layer, &out->layout, &out->x, &out->y, &out->z,
                          &out->width, &out->height, &out->depth};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = rt_dec_u32(&dec);
    out->data = dec.pos;
    out->size = rt_dec_left(&dec);
    return !dec.failed && out->width && out->height && out->depth && out->size;
}

bool rt_trace_snapshot_begin_decode(const struct rt_trace_packet *p, struct rt_trace_snapshot_begin *out)
{
    return p->type == RT_TRACE_PACKET_SNAPSHOT_BEGIN && begin_body(p->u.snapshot.body, p->u.snapshot.size, out);
}

bool rt_trace_snapshot_end_decode(const struct rt_trace_packet *p, struct rt_trace_snapshot_end *out)
{
    if (p->type != RT_TRACE_PACKET_SNAPSHOT_END || p->u.snapshot.size != RT_FORMAT_SNAPSHOT_END_FIXED)
        return false;
    struct rt_dec dec;
    rt_dec_init(&dec, p->u.snapshot.body, p->u.snapshot.size, NULL);
    out->packet_count = rt_dec_u64(&dec);
    out->bytes = rt_dec_u64(&dec);
    return !dec.failed;
}

bool rt_trace_buffer_content_decode(const struct rt_trace_packet *p, struct rt_trace_buffer_content *out)
{
    if (p->type != RT_TRACE_PACKET_BUFFER_CONTENT || p->u.snapshot.size < RT_FORMAT_BUFFER_CONTENT_FIXED)
        return false;
    struct rt_dec dec;
    rt_dec_init(&dec, p->u.snapshot.body, p->u.snapshot.size, NULL);
    out->buffer_id = rt_dec_u64(&dec);
    out->offset = rt_dec_u64(&dec);
    out->data = dec.pos;
    out->size = rt_dec_left(&dec);
    return !dec.failed;
}

bool rt_trace_image_content_decode(const struct rt_trace_packet *p, struct rt_trace_image_content *out)
{
    return p->type == RT_TRACE_PACKET_IMAGE_CONTENT && image_body(p->u.snapshot.body, p->u.snapshot.size, out);
}

bool rt_trace_sync_state_decode(const struct rt_trace_packet *p, struct rt_trace_sync_state *out)
{
    if (p->type != RT_TRACE_PACKET_SYNC_STATE || p->u.snapshot.size != RT_FORMAT_SYNC_STATE_FIXED)
        return false;
    struct rt_dec dec;
    rt_dec_init(&dec, p->u.snapshot.body, p->u.snapshot.size, NULL);
    out->object_type = rt_dec_u32(&dec);
    out->timeline = rt_dec_u32(&dec);
    out->object_id = rt_dec_u64(&dec);
    out->value = rt_dec_u64(&dec);
    return !dec.failed;
}

static bool query_body(const uint8_t *b, size_t size, struct rt_trace_query_state *out)
{
    struct rt_dec dec;
    rt_dec_init(&dec, b, size, NULL);
    out->pool_id = rt_dec_u64(&dec);
    out->query_type = rt_dec_u32(&dec);
    out->count = rt_dec_u32(&dec);
    out->available = dec.pos;
    return !dec.failed && rt_dec_left(&dec) == out->count;
}

bool rt_trace_query_state_decode(const struct rt_trace_packet *p, struct rt_trace_query_state *out)
{
    return p->type == RT_TRACE_PACKET_QUERY_STATE && query_body(p->u.snapshot.body, p->u.snapshot.size, out);
}

/* The size must be exactly the samples' (a power of two from 2 to 64) and
 * the kind one of enum rt_trace_sample_kind. */
static bool samples_body(const uint8_t *b, size_t size, struct rt_trace_image_samples *out)
{
    struct rt_dec dec;
    rt_dec_init(&dec, b, size, NULL);
    out->image_id = rt_dec_u64(&dec);
    uint32_t *fields[] = {&out->aspect, &out->layer, &out->layout, &out->samples, &out->kind,
                          &out->x, &out->y, &out->width, &out->height};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = rt_dec_u32(&dec);
    out->data = dec.pos;
    out->size = rt_dec_left(&dec);
    bool samples = out->samples >= 2 && out->samples <= 64 && !(out->samples & (out->samples - 1));
    if (dec.failed || !samples || out->kind > RT_TRACE_SAMPLES_DEPTH || !out->width || !out->height)
        return false;
    /* divided, not multiplied: width * height * samples * 16 may not fit 64 bits */
    size_t per_texel = (size_t)out->samples * RT_TRACE_SAMPLE_BYTES, texels = out->size / per_texel;
    return out->size % per_texel == 0 && texels % out->width == 0 && texels / out->width == out->height;
}

bool rt_trace_image_samples_decode(const struct rt_trace_packet *p, struct rt_trace_image_samples *out)
{
    return p->type == RT_TRACE_PACKET_IMAGE_SAMPLES && samples_body(p->u.snapshot.body, p->u.snapshot.size, out);
}

bool rt_trace_packet_is_snapshot(enum rt_trace_packet_type type)
{
    return type >= RT_TRACE_PACKET_SNAPSHOT_BEGIN && type <= RT_TRACE_PACKET_IMAGE_SAMPLES;
}

/* -------------------------------------------------------------- the rules */

static const char *check_body(uint16_t type, const uint8_t *body, size_t size)
{
    struct rt_trace_snapshot_begin begin;
    struct rt_trace_image_content image;
    struct rt_trace_query_state query;
    struct rt_trace_image_samples samples;
    switch (type) {
    case RT_FORMAT_PACKET_SNAPSHOT_BEGIN:
        return begin_body(body, size, &begin) ? NULL : "malformed snapshot begin";
    case RT_FORMAT_PACKET_SNAPSHOT_END:
        return size == RT_FORMAT_SNAPSHOT_END_FIXED ? NULL : "malformed snapshot end";
    case RT_FORMAT_PACKET_IMAGE_CONTENT:
        return image_body(body, size, &image) ? NULL : "image content with an empty region or no data";
    case RT_FORMAT_PACKET_SYNC_STATE:
        return size == RT_FORMAT_SYNC_STATE_FIXED ? NULL : "malformed sync state";
    case RT_FORMAT_PACKET_QUERY_STATE:
        return query_body(body, size, &query) ? NULL : "query state whose size is not its query count";
    case RT_FORMAT_PACKET_IMAGE_SAMPLES:
        return samples_body(body, size, &samples) ? NULL : "image samples whose size is not its region's samples";
    default:
        return NULL;
    }
}

const char *rt_trace_snapshot_check(uint16_t type, const uint8_t *body, size_t size, uint64_t frames_before,
                                    uint8_t *stage)
{
    if (type < RT_FORMAT_PACKET_SNAPSHOT_BEGIN || type > RT_FORMAT_PACKET_IMAGE_SAMPLES)
        return NULL; /* not a snapshot packet */
    const char *why = check_body(type, body, size);
    if (why)
        return why;
    if (frames_before > 0)
        return "snapshot packet after the first frame";
    if (type == RT_FORMAT_PACKET_SNAPSHOT_BEGIN) {
        if (*stage != STAGE_NONE)
            return "a second snapshot";
        *stage = STAGE_INSIDE;
        return NULL;
    }
    if (*stage != STAGE_INSIDE)
        return "snapshot packet outside a snapshot";
    if (type == RT_FORMAT_PACKET_SNAPSHOT_END)
        *stage = STAGE_ENDED;
    return NULL;
}
