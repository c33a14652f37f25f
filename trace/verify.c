/* trace/verify.c — verification-point ranges: walking a verify packet's
 * ranges and the hash they use (FORMAT.md, packet type 7). */
#include <xxhash.h>

#include "trace_internal.h"

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

uint64_t rt_trace_hash(const void *bytes, size_t size) { return XXH3_64bits(bytes, size); }

uint64_t rt_trace_verify_piece_hash(const struct rt_trace_verify_range *range, uint32_t k)
{
    if (range->hashes)
        return range->hashes[k];
    return get64(range->raw + (size_t)k * 8);
}

void rt_trace_verify_begin(const struct rt_trace_packet *p, struct rt_trace_verify_cursor *c)
{
    *c = (struct rt_trace_verify_cursor){.pos = p->u.verify.ranges, .left = p->u.verify.size,
                                         .remaining = p->u.verify.count};
}

/* Reads one range at c; false when the bytes are not a whole, sane range. */
static bool parse_range(struct rt_trace_verify_cursor *c, struct rt_trace_verify_range *out)
{
    if (c->left < RT_FORMAT_VERIFY_RANGE_FIXED)
        return false;
    *out = (struct rt_trace_verify_range){.memory_id = get64(c->pos), .offset = get64(c->pos + 8),
                                          .size = get32(c->pos + 16), .piece_size = get32(c->pos + 20)};
    if (!out->size || !out->piece_size || out->offset + out->size < out->offset)
        return false;
    out->piece_count = (uint32_t)(((uint64_t)out->size + out->piece_size - 1) / out->piece_size);
    size_t need = RT_FORMAT_VERIFY_RANGE_FIXED + (size_t)out->piece_count * 8;
    if (c->left < need)
        return false;
    out->raw = c->pos + RT_FORMAT_VERIFY_RANGE_FIXED;
    c->pos += need;
    c->left -= need;
    return true;
}

bool rt_trace_verify_next(struct rt_trace_verify_cursor *c, struct rt_trace_verify_range *out)
{
    if (c->remaining == 0)
        return false;
    c->remaining--;
    return parse_range(c, out);
}

const char *rt_trace_verify_check(const uint8_t *body, size_t size)
{
    if (size < RT_FORMAT_VERIFY_FIXED)
        return "verify packet shorter than its fixed fields";
    struct rt_trace_verify_cursor c = {.pos = body + RT_FORMAT_VERIFY_FIXED, .left = size - RT_FORMAT_VERIFY_FIXED,
                                       .remaining = get32(body)};
    if (c.remaining > c.left / RT_FORMAT_VERIFY_RANGE_FIXED)
        return "verify packet: more ranges than bytes";
    struct rt_trace_verify_range range;
    while (c.remaining)
        if (!rt_trace_verify_next(&c, &range))
            return "verify packet: a malformed range";
    return c.left ? "verify packet: bytes after its last range" : NULL;
}
