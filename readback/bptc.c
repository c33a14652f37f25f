/* readback/bptc.c — BC6H and BC7 blocks (BPTC in the Khronos Data Format
 * Specification 1.3, §"BC6H" and §"BC7") to texels. The partition and
 * anchor tables are the specification's, packed: a 2-subset shape is one bit
 * per texel, a 3-subset shape two. */
#include <string.h>

#include "bc.h"

static const uint16_t partitions2[64] = {
    0xcccc, 0x8888, 0xeeee, 0xecc8, 0xc880, 0xfeec, 0xfec8, 0xec80,
    0xc800, 0xffec, 0xfe80, 0xe800, 0xffe8, 0xff00, 0xfff0, 0xf000,
    0xf710, 0x008e, 0x7100, 0x08ce, 0x008c, 0x7310, 0x3100, 0x8cce,
    0x088c, 0x3110, 0x6666, 0x366c, 0x17e8, 0x0ff0, 0x718e, 0x399c,
    0xaaaa, 0xf0f0, 0x5a5a, 0x33cc, 0x3c3c, 0x55aa, 0x9696, 0xa55a,
    0x73ce, 0x13c8, 0x324c, 0x3bdc, 0x6996, 0xc33c, 0x9966, 0x0660,
    0x0272, 0x04e4, 0x4e40, 0x2720, 0xc936, 0x936c, 0x39c6, 0x639c,
    0x9336, 0x9cc6, 0x817e, 0xe718, 0xccf0, 0x0fcc, 0x7744, 0xee22,
};
static const uint32_t partitions3[64] = {
    0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8, 0xa5a50000, 0xa0a05050,
    0x5555a0a0, 0x5a5a5050, 0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090,
    0x94949494, 0xa4a4a4a4, 0xa9a59450, 0x2a0a4250, 0xa5945040, 0x0a425054,
    0xa5a5a500, 0x55a0a0a0, 0xa8a85454, 0x6a6a4040, 0xa4a45000, 0x1a1a0500,
    0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400, 0xa08585a0, 0xaa821414,
    0x50a4a450, 0x6a5a0200, 0xa9a58000, 0x5090a0a8, 0xa8a09050, 0x24242424,
    0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50, 0x500aa550, 0xaaaa4444,
    0x66660000, 0xa5a0a5a0, 0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600,
    0xaa444444, 0x54a854a8, 0x95809580, 0x96969600, 0xa85454a8, 0x80959580,
    0xaa141414, 0x96960000, 0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000,
    0x40804080, 0xa9a8a9a8, 0xaaaaaa44, 0x2a4a5254,
};
static const uint8_t anchors2[64] = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 2, 8, 2, 2, 8, 8, 15, 2, 8, 2, 2, 8, 8, 2, 2,
    15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6,
    6, 2, 6, 8, 15, 15, 2, 2, 15, 15, 15, 15, 15, 2, 2, 15,
};
static const uint8_t anchors3[64][2] = {
    {3, 15}, {3, 8}, {15, 8}, {15, 3}, {8, 15}, {3, 15}, {15, 3}, {15, 8},
    {8, 15}, {8, 15}, {6, 15}, {6, 15}, {6, 15}, {5, 15}, {3, 15}, {3, 8},
    {3, 15}, {3, 8}, {8, 15}, {15, 3}, {3, 15}, {3, 8}, {6, 15}, {10, 8},
    {5, 3}, {8, 15}, {8, 6}, {6, 10}, {8, 15}, {5, 15}, {15, 10}, {15, 8},
    {8, 15}, {15, 3}, {3, 15}, {5, 10}, {6, 10}, {10, 8}, {8, 9}, {15, 10},
    {15, 6}, {3, 15}, {15, 8}, {5, 15}, {15, 3}, {15, 6}, {15, 6}, {15, 8},
    {3, 15}, {15, 3}, {5, 15}, {5, 15}, {5, 15}, {8, 15}, {5, 15}, {10, 15},
    {5, 15}, {10, 15}, {8, 15}, {13, 15}, {15, 3}, {12, 15}, {3, 15}, {3, 8},
};

static const uint8_t weights2[4] = {0, 21, 43, 64};
static const uint8_t weights3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
static const uint8_t weights4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

static const uint8_t *weights_for(unsigned bits)
{
    return bits == 2 ? weights2 : bits == 3 ? weights3 : weights4;
}

struct bits {
    const uint8_t *block;
    unsigned at;
};

static unsigned take(struct bits *b, unsigned n)
{
    unsigned v = 0;
    for (unsigned i = 0; i < n && b->at < 128; i++, b->at++)
        v |= (unsigned)((b->block[b->at / 8] >> (b->at % 8)) & 1) << i;
    return v;
}

static unsigned subset_of(unsigned subsets, unsigned shape, unsigned texel)
{
    if (subsets == 2)
        return (partitions2[shape] >> texel) & 1;
    if (subsets == 3)
        return (partitions3[shape] >> (2 * texel)) & 3;
    return 0;
}

static bool is_anchor(unsigned subsets, unsigned shape, unsigned texel)
{
    return texel == 0 || (subsets == 2 && anchors2[shape] == texel) ||
           (subsets == 3 && (anchors3[shape][0] == texel || anchors3[shape][1] == texel));
}

/* Reads 16 indices of N bits (anchors one bit fewer). */
static void read_indices(struct bits *b, unsigned subsets, unsigned shape, unsigned n, uint8_t out[16])
{
    for (unsigned t = 0; t < 16; t++)
        out[t] = (uint8_t)take(b, is_anchor(subsets, shape, t) ? n - 1 : n);
}

static unsigned interpolate(unsigned a, unsigned b, unsigned weight)
{
    return (a * (64 - weight) + b * weight + 32) >> 6;
}

/* --- BC7 ------------------------------------------------------------------------ */

struct bc7_mode {
    uint8_t subsets, partition_bits, rotation_bits, selector_bits, colour_bits, alpha_bits;
    uint8_t endpoint_pbits, shared_pbits, index_bits, index2_bits;
};

static const struct bc7_mode bc7_modes[8] = {
    {3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0}, {3, 6, 0, 0, 5, 0, 0, 0, 2, 0},
    {2, 6, 0, 0, 7, 0, 1, 0, 2, 0}, {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
    {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0},
};

/* A component of N bits (a p-bit already appended) widened to 8 bits. */
static unsigned widen(unsigned v, unsigned n)
{
    v <<= 8 - n;
    return (v | (v >> n)) & 0xff;
}

/* Endpoints [subset][end][channel], 8-bit. */
static void bc7_endpoints(struct bits *b, const struct bc7_mode *m, unsigned e[3][2][4])
{
    unsigned raw[3][2][4] = {{{0}}};
    for (unsigned c = 0; c < 4; c++) {
        unsigned n = c < 3 ? m->colour_bits : m->alpha_bits;
        for (unsigned s = 0; s < m->subsets; s++)
            for (unsigned end = 0; end < 2; end++)
                raw[s][end][c] = take(b, n);
    }
    unsigned p[3][2] = {{0}};
    for (unsigned s = 0; s < m->subsets; s++)
        for (unsigned end = 0; end < 2; end++)
            p[s][end] = m->endpoint_pbits ? take(b, 1) : 0;
    for (unsigned s = 0; m->shared_pbits && s < m->subsets; s++)
        p[s][0] = p[s][1] = take(b, 1);
    bool pbit = m->endpoint_pbits || m->shared_pbits;
    for (unsigned s = 0; s < m->subsets; s++)
        for (unsigned end = 0; end < 2; end++)
            for (unsigned c = 0; c < 4; c++) {
                unsigned n = c < 3 ? m->colour_bits : m->alpha_bits;
                if (n == 0) {
                    e[s][end][c] = 255;
                    continue;
                }
                unsigned v = pbit ? (raw[s][end][c] << 1) | p[s][end] : raw[s][end][c];
                e[s][end][c] = widen(v, pbit ? n + 1 : n);
            }
}

void rt_bptc_decode_bc7(const uint8_t *block, float texels[16][4])
{
    unsigned mode = 0;
    while (mode < 8 && !(block[0] & (1u << mode)))
        mode++;
    memset(texels, 0, 16 * sizeof texels[0]);
    if (mode == 8)
        return; /* reserved: transparent black */
    const struct bc7_mode *m = &bc7_modes[mode];
    struct bits b = {block, mode + 1};
    unsigned shape = take(&b, m->partition_bits), rotation = take(&b, m->rotation_bits);
    unsigned selector = take(&b, m->selector_bits);
    unsigned e[3][2][4];
    bc7_endpoints(&b, m, e);
    uint8_t index[16], index2[16] = {0};
    read_indices(&b, m->subsets, shape, m->index_bits, index);
    if (m->index2_bits)
        read_indices(&b, 1, 0, m->index2_bits, index2);
    for (unsigned t = 0; t < 16; t++) {
        unsigned s = subset_of(m->subsets, shape, t), out[4];
        bool swap = selector && m->index2_bits; /* mode 4: colour from the 3-bit set */
        unsigned ci = swap ? index2[t] : index[t], cbits = swap ? m->index2_bits : m->index_bits;
        unsigned ai = m->index2_bits ? (swap ? index[t] : index2[t]) : index[t];
        unsigned abits = m->index2_bits ? (swap ? m->index_bits : m->index2_bits) : m->index_bits;
        for (unsigned c = 0; c < 3; c++)
            out[c] = interpolate(e[s][0][c], e[s][1][c], weights_for(cbits)[ci]);
        out[3] = interpolate(e[s][0][3], e[s][1][3], weights_for(abits)[ai]);
        if (rotation) { /* 1: A<->R, 2: A<->G, 3: A<->B */
            unsigned keep = out[3];
            out[3] = out[rotation - 1];
            out[rotation - 1] = keep;
        }
        for (unsigned c = 0; c < 4; c++)
            texels[t][c] = (float)out[c] / 255.0f;
    }
}

/* --- BC6H ----------------------------------------------------------------------- */

/* Each mode's header, as the specification's table lists it: a field (r, g,
 * b endpoint w, x, y, z; d the shape) and its bits, lowest block bit first;
 * "rw10-15" counts up, "rw15-10" down. The mode bits themselves come first. */
struct bc6h_mode {
    uint8_t mode, regions, transformed, endpoint_bits, delta_bits[3];
    const char *layout;
};

static const struct bc6h_mode bc6h_modes[14] = {
    {0x00, 2, 1, 10, {5, 5, 5}, "gy4 by4 bz4 rw0-9 gw0-9 bw0-9 rx0-4 gz4 gy0-3 gx0-4 bz0 gz0-3 bx0-4 bz1 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"},
    {0x01, 2, 1, 7, {6, 6, 6}, "gy5 gz4 gz5 rw0-6 bz0 bz1 by4 gw0-6 by5 bz2 gy4 bw0-6 bz3 bz5 bz4 rx0-5 gy0-3 gx0-5 gz0-3 bx0-5 by0-3 ry0-5 rz0-5 d0-4"},
    {0x02, 2, 1, 11, {5, 4, 4}, "rw0-9 gw0-9 bw0-9 rx0-4 rw10 gy0-3 gx0-3 gw10 bz0 gz0-3 bx0-3 bw10 bz1 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"},
    {0x06, 2, 1, 11, {4, 5, 4}, "rw0-9 gw0-9 bw0-9 rx0-3 rw10 gz4 gy0-3 gx0-4 gw10 gz0-3 bx0-3 bw10 bz1 by0-3 ry0-3 bz0 bz2 rz0-3 gy4 bz3 d0-4"},
    {0x0a, 2, 1, 11, {4, 4, 5}, "rw0-9 gw0-9 bw0-9 rx0-3 rw10 by4 gy0-3 gx0-3 gw10 bz0 gz0-3 bx0-4 bw10 by0-3 ry0-3 bz1 bz2 rz0-3 bz4 bz3 d0-4"},
    {0x0e, 2, 1, 9, {5, 5, 5}, "rw0-8 by4 gw0-8 gy4 bw0-8 bz4 rx0-4 gz4 gy0-3 gx0-4 bz0 gz0-3 bx0-4 bz1 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"},
    {0x12, 2, 1, 8, {6, 5, 5}, "rw0-7 gz4 by4 gw0-7 bz2 gy4 bw0-7 bz3 bz4 rx0-5 gy0-3 gx0-4 bz0 gz0-3 bx0-4 bz1 by0-3 ry0-5 rz0-5 d0-4"},
    {0x16, 2, 1, 8, {5, 6, 5}, "rw0-7 bz0 by4 gw0-7 gy5 gy4 bw0-7 gz5 bz4 rx0-4 gz4 gy0-3 gx0-5 gz0-3 bx0-4 bz1 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"},
    {0x1a, 2, 1, 8, {5, 5, 6}, "rw0-7 bz1 by4 gw0-7 by5 gy4 bw0-7 bz5 bz4 rx0-4 gz4 gy0-3 gx0-4 bz0 gz0-3 bx0-5 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"},
    {0x1e, 2, 0, 6, {6, 6, 6}, "rw0-5 gz4 bz0 bz1 by4 gw0-5 gy5 by5 bz2 gy4 bw0-5 gz5 bz3 bz5 bz4 rx0-5 gy0-3 gx0-5 gz0-3 bx0-5 by0-3 ry0-5 rz0-5 d0-4"},
    {0x03, 1, 0, 10, {10, 10, 10}, "rw0-9 gw0-9 bw0-9 rx0-9 gx0-9 bx0-9"},
    {0x07, 1, 1, 11, {9, 9, 9}, "rw0-9 gw0-9 bw0-9 rx0-8 rw10 gx0-8 gw10 bx0-8 bw10"},
    {0x0b, 1, 1, 12, {8, 8, 8}, "rw0-9 gw0-9 bw0-9 rx0-7 rw11 rw10 gx0-7 gw11 gw10 bx0-7 bw11 bw10"},
    {0x0f, 1, 1, 16, {4, 4, 4}, "rw0-9 gw0-9 bw0-9 rx0-3 rw15-10 gx0-3 gw15-10 bx0-3 bw15-10"},
};

/* Reads the header fields into v[endpoint w x y z][channel] and *shape. */
static void bc6h_fields(struct bits *b, const char *layout, int v[4][3], unsigned *shape)
{
    for (const char *p = layout; *p;) {
        char channel = p[0], which = p[1];
        p += 2;
        unsigned from = 0, to;
        while (*p >= '0' && *p <= '9')
            from = from * 10 + (unsigned)(*p++ - '0');
        to = from;
        if (*p == '-')
            for (to = 0, p++; *p >= '0' && *p <= '9';)
                to = to * 10 + (unsigned)(*p++ - '0');
        for (unsigned i = from;; i = from <= to ? i + 1 : i - 1) {
            unsigned bit = take(b, 1);
            if (channel == 'd')
                *shape |= bit << i;
            else
                v[which - 'w'][channel == 'r' ? 0 : channel == 'g' ? 1 : 2] |= (int)(bit << i);
            if (i == to)
                break;
        }
        while (*p == ' ')
            p++;
    }
}

static int sign_extend(int v, unsigned bits)
{
    return bits < 32 && (v & (1 << (bits - 1))) ? v - (1 << bits) : v;
}

/* Quantized endpoint to the 16-bit interpolation range (the specification's unquantize). */
static int unquantize(int v, unsigned bits, bool is_signed)
{
    if (!is_signed) {
        if (bits >= 15 || v == 0)
            return v;
        return v == (1 << bits) - 1 ? 0xffff : ((v << 16) + 0x8000) >> bits;
    }
    if (bits >= 16)
        return v;
    bool negative = v < 0;
    int m = negative ? -v : v, u;
    if (m == 0)
        u = 0;
    else if (m >= (1 << (bits - 1)) - 1)
        u = 0x7fff;
    else
        u = ((m << 15) + 0x4000) >> (bits - 1);
    return negative ? -u : u;
}

/* Interpolated value to a half float (the specification's finish_unquantize). */
static float finish(int v, bool is_signed)
{
    uint16_t h;
    if (!is_signed)
        h = (uint16_t)((v * 31) >> 6);
    else
        h = v < 0 ? (uint16_t)(0x8000 | (((-v) * 31) >> 5)) : (uint16_t)((v * 31) >> 5);
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float magnitude = exponent == 0 ? (float)mantissa / 16777216.0f
                      : exponent == 31 ? 65504.0f /* never produced: the range stops below infinity */
                                       : (float)(mantissa | 0x400) * (float)(1u << exponent) / 33554432.0f;
    return (h & 0x8000) ? -magnitude : magnitude;
}

static const struct bc6h_mode *bc6h_mode_of(const uint8_t *block, unsigned *mode_bits)
{
    unsigned two = block[0] & 3, five = block[0] & 0x1f;
    for (size_t i = 0; i < sizeof bc6h_modes / sizeof bc6h_modes[0]; i++) {
        unsigned want = bc6h_modes[i].mode;
        if (want < 2 ? two == want : five == want) {
            *mode_bits = want < 2 ? 2 : 5;
            return &bc6h_modes[i];
        }
    }
    return NULL;
}

/* Endpoints [region][end][channel] in the 16-bit interpolation range. */
static void bc6h_endpoints(const struct bc6h_mode *m, int v[4][3], bool is_signed, int e[2][2][3])
{
    unsigned ends = m->regions * 2u;
    for (unsigned c = 0; c < 3; c++) {
        unsigned wide = m->endpoint_bits, delta = m->transformed ? m->delta_bits[c] : wide;
        if (is_signed)
            v[0][c] = sign_extend(v[0][c], wide);
        for (unsigned k = 1; k < ends; k++) {
            if (is_signed || m->transformed)
                v[k][c] = sign_extend(v[k][c], delta);
            if (m->transformed) { /* deltas from w, wrapped to the endpoint width */
                v[k][c] = (v[0][c] + v[k][c]) & ((1 << wide) - 1);
                if (is_signed)
                    v[k][c] = sign_extend(v[k][c], wide);
            }
        }
        for (unsigned k = 0; k < ends; k++)
            e[k / 2][k % 2][c] = unquantize(v[k][c], wide, is_signed);
    }
}

void rt_bptc_decode_bc6h(const uint8_t *block, bool is_signed, float texels[16][4])
{
    unsigned mode_bits = 0, shape = 0;
    const struct bc6h_mode *m = bc6h_mode_of(block, &mode_bits);
    for (unsigned t = 0; t < 16; t++)
        texels[t][0] = texels[t][1] = texels[t][2] = 0.0f, texels[t][3] = 1.0f;
    if (!m)
        return; /* a reserved mode decodes to black */
    struct bits b = {block, mode_bits};
    int v[4][3] = {{0}}, e[2][2][3];
    bc6h_fields(&b, m->layout, v, &shape);
    bc6h_endpoints(m, v, is_signed, e);
    uint8_t index[16];
    unsigned index_bits = m->regions == 2 ? 3 : 4;
    read_indices(&b, m->regions, shape, index_bits, index);
    for (unsigned t = 0; t < 16; t++) {
        unsigned r = subset_of(m->regions, shape, t);
        for (unsigned c = 0; c < 3; c++) {
            int w = weights_for(index_bits)[index[t]];
            texels[t][c] = finish((e[r][0][c] * (64 - w) + e[r][1][c] * w + 32) >> 6, is_signed);
        }
    }
}
