/* readback/convert.c — texels of plain (uncompressed) formats to samples, and
 * the plan for every format (convert.h documents the mapping). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"
#include "convert.h"
#include "formats.h"

static bool is_integer(uint8_t numeric)
{
    return numeric == RT_NUMERIC_UINT || numeric == RT_NUMERIC_SINT || numeric == RT_NUMERIC_USCALED ||
           numeric == RT_NUMERIC_SSCALED;
}

static bool is_float(uint8_t numeric) { return numeric == RT_NUMERIC_UFLOAT || numeric == RT_NUMERIC_SFLOAT; }

static bool has_channel(const struct rt_format_info *f, char channel)
{
    for (uint8_t i = 0; i < f->component_count; i++)
        if (f->components[i].channel == channel)
            return true;
    return false;
}

static bool plain_plan(const struct rt_format_info *f, struct rt_convert_plan *p)
{
    p->channels = f->chroma == 422 && f->block_width == 2 ? 3 : f->component_count;
    p->depth = 8;
    for (uint8_t i = 0; i < f->component_count; i++) {
        const struct rt_format_component *c = &f->components[i];
        if (is_integer(c->numeric) && c->bits > 16) {
            p->raw = true;
            p->why_raw = "integers wider than 16 bits do not fit a PNG sample";
            return true;
        }
        if (c->bits > 8 || is_float(c->numeric))
            p->depth = 16;
    }
    return true;
}

bool rt_convert_plan_for(VkFormat format, struct rt_convert_plan *p)
{
    const struct rt_format_info *f = rt_format_find(format);
    *p = (struct rt_convert_plan){0};
    if (!f)
        return false;
    if (f->plane_count)
        p->why_raw = "a multi-planar image is copied one plane (aspect) at a time";
    else if (has_channel(f, 'D') && has_channel(f, 'S'))
        p->why_raw = "a depth/stencil image is copied one aspect at a time";
    else if (f->compression == RT_COMPRESSION_BC)
        return rt_bc_plan(f, p);
    else if (f->compression != RT_COMPRESSION_NONE)
        p->why_raw = "ETC2, EAC, ASTC and PVRTC blocks are saved undecoded";
    if (p->why_raw) {
        p->raw = true;
        return true;
    }
    return plain_plan(f, p);
}

/* --- reading components ------------------------------------------------------ */

/* BITS (<= 64) bits from bit OFFSET of a block, little-endian. */
static uint64_t read_bits(const uint8_t *block, size_t block_size, unsigned offset, unsigned bits)
{
    uint8_t padded[48] = {0};
    memcpy(padded, block, block_size < 40 ? block_size : 40);
    uint64_t v;
    memcpy(&v, padded + offset / 8, sizeof v);
    if (bits == 64)
        return v;
    v >>= offset % 8;
    if (offset % 8 + bits > 64) /* never for vk.xml's formats: every wide component is byte-aligned */
        v |= (uint64_t)padded[offset / 8 + 8] << (64 - offset % 8);
    return v & (((uint64_t)1 << bits) - 1);
}

static double half_to_double(uint64_t h)
{
    int exponent = (int)((h >> 10) & 0x1f), mantissa = (int)(h & 0x3ff);
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0)
        return sign * ldexp(mantissa, -24);
    if (exponent == 31)
        return mantissa ? NAN : sign * INFINITY;
    return sign * ldexp(mantissa | 0x400, exponent - 25);
}

/* Unsigned 10- and 11-bit floats (B10G11R11): 5 exponent bits, no sign. */
static double small_float(uint64_t v, unsigned bits)
{
    unsigned mantissa_bits = bits - 5;
    int exponent = (int)(v >> mantissa_bits), mantissa = (int)(v & ((1u << mantissa_bits) - 1));
    if (exponent == 0)
        return ldexp(mantissa, -14 - (int)mantissa_bits);
    if (exponent == 31)
        return mantissa ? NAN : INFINITY;
    return ldexp(mantissa | (1 << mantissa_bits), exponent - 15 - (int)mantissa_bits);
}

static double to_double(uint64_t v, unsigned bits)
{
    if (bits == 16)
        return half_to_double(v);
    if (bits == 32) {
        uint32_t w = (uint32_t)v;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    if (bits == 64) {
        double d;
        memcpy(&d, &v, sizeof d);
        return d;
    }
    return small_float(v, bits);
}

uint16_t rt_sample_from_unit(double f, unsigned depth)
{
    double max = (double)((1u << depth) - 1);
    if (!(f > 0.0)) /* also NaN */
        return 0;
    return f >= 1.0 ? (uint16_t)max : (uint16_t)lrint(f * max);
}

/* V of BITS bits as UNORM, rounded to DEPTH bits. */
static uint16_t scale(uint64_t v, unsigned bits, unsigned depth)
{
    uint64_t in = ((uint64_t)1 << bits) - 1, out = ((uint64_t)1 << depth) - 1;
    return bits == depth ? (uint16_t)v : (uint16_t)((v * out + in / 2) / in);
}

static uint16_t sample(const struct rt_format_component *c, uint64_t v, unsigned depth)
{
    uint64_t half = (uint64_t)1 << (c->bits - 1), mask = half * 2 - 1;
    switch (c->numeric) {
    case RT_NUMERIC_UNORM:
    case RT_NUMERIC_SRGB: return scale(v, c->bits, depth);
    case RT_NUMERIC_SNORM: return scale((v + half) & mask, c->bits, depth); /* offset binary: 0 -> mid-grey */
    case RT_NUMERIC_UINT:
    case RT_NUMERIC_USCALED: return (uint16_t)v;
    case RT_NUMERIC_SINT:
    case RT_NUMERIC_SSCALED: return (uint16_t)((v + half) & mask);
    default: return rt_sample_from_unit(to_double(v, c->bits), depth);
    }
}

/* --- texel layouts --------------------------------------------------------------- */

/* Component indices in output order: R, G, B, A (depth and stencil alone). */
static void output_order(const struct rt_format_info *f, uint8_t order[4])
{
    static const char ranks[] = "RGBADS";
    uint8_t n = 0;
    for (const char *ch = ranks; *ch; ch++)
        for (uint8_t i = 0; i < f->component_count; i++)
            if (f->components[i].channel == *ch && n < 4)
                order[n++] = i;
}

static void plain_texel(const struct rt_format_info *f, const uint8_t *block, const uint8_t order[4], uint8_t depth,
                        uint16_t *out)
{
    for (uint8_t c = 0; c < f->component_count; c++) {
        const struct rt_format_component *comp = &f->components[order[c]];
        uint64_t v = read_bits(block, f->block_size, comp->offset, comp->bits);
        if (f->exponent >= 0) { /* E5B9G9R9: value = mantissa * 2^(exponent - 15 - 9) */
            int e = (int)read_bits(block, f->block_size, (unsigned)f->exponent, 5);
            out[c] = rt_sample_from_unit(ldexp((double)v, e - 24), depth);
        } else {
            out[c] = sample(comp, v, depth);
        }
    }
}

/* 4:2:2 blocks hold two texels: G0 B G1 R (or B G0 R G1): R G B out, chroma shared. */
static void chroma_texel(const struct rt_format_info *f, const uint8_t *block, unsigned second, uint8_t depth,
                         uint16_t *out)
{
    int r = 0, b = 0, g[2] = {0, 0}, greens = 0;
    for (uint8_t i = 0; i < f->component_count; i++) {
        char ch = f->components[i].channel;
        if (ch == 'G' && greens < 2)
            g[greens++] = i;
        else if (ch == 'R')
            r = i;
        else if (ch == 'B')
            b = i;
    }
    const int pick[3] = {r, g[second], b};
    for (int c = 0; c < 3; c++) {
        const struct rt_format_component *comp = &f->components[pick[c]];
        out[c] = sample(comp, read_bits(block, f->block_size, comp->offset, comp->bits), depth);
    }
}

size_t rt_convert_blocks_size(const struct rt_format_info *f, uint32_t width, uint32_t height, size_t row_pitch)
{
    size_t blocks_wide = (width + f->block_width - 1) / f->block_width;
    size_t blocks_high = (height + f->block_height - 1) / f->block_height;
    return blocks_high ? (blocks_high - 1) * row_pitch + blocks_wide * f->block_size : 0;
}

rt_status rt_convert_texels(VkFormat format, const void *bytes, size_t size, uint32_t width, uint32_t height,
                            size_t row_pitch, struct rt_texels *out)
{
    *out = (struct rt_texels){0};
    struct rt_convert_plan plan;
    const struct rt_format_info *f = rt_format_find(format);
    if (!f || !rt_convert_plan_for(format, &plan) || plan.raw)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "format %d has no PNG form", (int)format);
    if (width == 0 || height == 0 || rt_convert_blocks_size(f, width, height, row_pitch) > size)
        return rt_errorf(RT_ERR_BAD_INPUT, "%ux%u texels of %s need more than the %zu bytes given", width, height,
                         f->name, size);
    out->samples = calloc((size_t)width * height * plan.channels, sizeof *out->samples);
    if (!out->samples)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory for %ux%u texels", width, height);
    *out = (struct rt_texels){width, height, plan.channels, plan.depth, out->samples};
    if (f->compression == RT_COMPRESSION_BC)
        return rt_bc_decode_image(f, bytes, row_pitch, out);
    uint8_t order[4] = {0, 1, 2, 3};
    output_order(f, order);
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = (const uint8_t *)bytes + (size_t)y * row_pitch;
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *block = row + (size_t)(x / f->block_width) * f->block_size;
            uint16_t *texel = out->samples + ((size_t)y * width + x) * plan.channels;
            if (plan.channels == 3 && f->block_width == 2)
                chroma_texel(f, block, x % 2, plan.depth, texel);
            else
                plain_texel(f, block, order, plan.depth, texel);
        }
    }
    return rt_ok_status();
}

void rt_texels_finish(struct rt_texels *t)
{
    free(t->samples);
    *t = (struct rt_texels){0};
}
