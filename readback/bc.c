/* readback/bc.c — BC1-BC5 blocks (S3TC and RGTC in the Khronos Data Format
 * Specification 1.3) to texels; BC6H and BC7 (BPTC) are in bptc.c. */
#include <string.h>

#include "bc.h"

enum bc_kind { BC1_RGB, BC1_RGBA, BC2, BC3, BC4, BC5, BC6H, BC7 };

static enum bc_kind kind_of(const struct rt_format_info *f)
{
    static const struct {
        const char *prefix;
        enum bc_kind kind;
    } kinds[] = {{"BC1_RGBA", BC1_RGBA}, {"BC1_RGB", BC1_RGB}, {"BC2", BC2}, {"BC3", BC3},
                 {"BC4", BC4},           {"BC5", BC5},         {"BC6H", BC6H}, {"BC7", BC7}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strncmp(f->name, kinds[i].prefix, strlen(kinds[i].prefix)))
            return kinds[i].kind;
    return BC7;
}

static bool is_snorm(const struct rt_format_info *f) { return f->components[0].numeric == RT_NUMERIC_SNORM; }

bool rt_bc_plan(const struct rt_format_info *f, struct rt_convert_plan *p)
{
    p->channels = f->component_count;
    p->depth = kind_of(f) == BC6H ? 16 : 8;
    return true;
}

/* BC1's colour block (also the colour half of BC2 and BC3, which always use
 * four colours): two RGB565 endpoints and 2-bit indices. */
static void colour_block(const uint8_t *b, bool four_colours, bool punch_through, float texels[16][4])
{
    unsigned c[2] = {b[0] | (unsigned)b[1] << 8, b[2] | (unsigned)b[3] << 8};
    float e[4][4];
    for (int i = 0; i < 2; i++) {
        e[i][0] = (float)(c[i] >> 11) / 31.0f;
        e[i][1] = (float)((c[i] >> 5) & 0x3f) / 63.0f;
        e[i][2] = (float)(c[i] & 0x1f) / 31.0f;
        e[i][3] = 1.0f;
    }
    bool four = four_colours || c[0] > c[1];
    for (int k = 0; k < 4; k++) {
        e[2][k] = four ? (2 * e[0][k] + e[1][k]) / 3 : (e[0][k] + e[1][k]) / 2;
        e[3][k] = four ? (e[0][k] + 2 * e[1][k]) / 3 : 0.0f;
    }
    if (!four)
        e[3][3] = punch_through ? 0.0f : 1.0f;
    uint32_t indices = b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
    for (int t = 0; t < 16; t++)
        memcpy(texels[t], e[(indices >> (2 * t)) & 3], sizeof texels[t]);
}

/* BC4's single channel (also BC3's alpha and each half of BC5). */
static void channel_block(const uint8_t *b, bool snorm, float out[16])
{
    float r[8];
    int raw0 = snorm ? (int8_t)b[0] : b[0], raw1 = snorm ? (int8_t)b[1] : b[1];
    float scale = snorm ? 127.0f : 255.0f;
    r[0] = (float)(raw0 < -127 ? -127 : raw0) / scale;
    r[1] = (float)(raw1 < -127 ? -127 : raw1) / scale;
    for (int k = 2; k < 8; k++) {
        if (raw0 > raw1)
            r[k] = ((float)(8 - k) * r[0] + (float)(k - 1) * r[1]) / 7.0f;
        else if (k < 6)
            r[k] = ((float)(6 - k) * r[0] + (float)(k - 1) * r[1]) / 5.0f;
        else
            r[k] = k == 6 ? (snorm ? -1.0f : 0.0f) : 1.0f;
    }
    uint64_t codes = 0;
    for (int i = 0; i < 6; i++)
        codes |= (uint64_t)b[2 + i] << (8 * i);
    for (int t = 0; t < 16; t++)
        out[t] = r[(codes >> (3 * t)) & 7];
}

void rt_bc_decode_block(const struct rt_format_info *f, const uint8_t *b, float texels[16][4])
{
    float channel[16];
    memset(texels, 0, 16 * sizeof texels[0]);
    switch (kind_of(f)) {
    case BC1_RGB:
    case BC1_RGBA: colour_block(b, false, kind_of(f) == BC1_RGBA, texels); return;
    case BC2:
        colour_block(b + 8, true, false, texels);
        for (int t = 0; t < 16; t++)
            texels[t][3] = (float)((b[t / 2] >> (4 * (t % 2))) & 0xf) / 15.0f;
        return;
    case BC3:
        colour_block(b + 8, true, false, texels);
        channel_block(b, false, channel);
        for (int t = 0; t < 16; t++)
            texels[t][3] = channel[t];
        return;
    case BC5:
        channel_block(b + 8, is_snorm(f), channel);
        for (int t = 0; t < 16; t++)
            texels[t][1] = channel[t];
        __attribute__((fallthrough)); /* R as BC4 */
    case BC4:
        channel_block(b, is_snorm(f), channel);
        for (int t = 0; t < 16; t++)
            texels[t][0] = channel[t];
        return;
    case BC6H: rt_bptc_decode_bc6h(b, f->components[0].numeric == RT_NUMERIC_SFLOAT, texels); return;
    case BC7: rt_bptc_decode_bc7(b, texels); return;
    }
}

rt_status rt_bc_decode_image(const struct rt_format_info *f, const void *bytes, size_t row_pitch,
                             struct rt_texels *out)
{
    bool snorm = is_snorm(f);
    for (uint32_t by = 0; by < (out->height + 3) / 4; by++) {
        for (uint32_t bx = 0; bx < (out->width + 3) / 4; bx++) {
            float texels[16][4];
            rt_bc_decode_block(f, (const uint8_t *)bytes + by * row_pitch + (size_t)bx * f->block_size, texels);
            for (uint32_t t = 0; t < 16; t++) {
                uint32_t x = bx * 4 + t % 4, y = by * 4 + t / 4;
                if (x >= out->width || y >= out->height)
                    continue;
                uint16_t *s = out->samples + ((size_t)y * out->width + x) * out->channels;
                for (uint8_t c = 0; c < out->channels; c++) /* SNORM: [-1, 1] to [0, 1] */
                    s[c] = rt_sample_from_unit(snorm ? (texels[t][c] + 1.0) / 2.0 : texels[t][c], out->depth);
            }
        }
    }
    return rt_ok_status();
}
