/* tests/unit/test_readback_convert.c — every VkFormat has a documented form
 * (readback/convert.h), and each family converts known texels to known
 * samples: 8-bit, packed, 10/16-bit, SNORM/SINT/UINT, floats, shared
 * exponent, depth/stencil, 4:2:2, BC1-BC5; raw blocks get a sidecar. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bc.h"
#include "convert.h"
#include "formats.h"

/* Converts a 1x1 (or WxH) image and returns the samples (caller frees). */
static uint16_t *convert(VkFormat format, const void *bytes, size_t size, uint32_t w, uint32_t h, uint8_t channels,
                         uint8_t depth)
{
    struct rt_texels t;
    size_t pitch = size / h;
    rt_status s = rt_convert_texels(format, bytes, size, w, h, pitch, &t);
    cr_assert_eq(s.code, RT_OK, "%s", s.msg);
    cr_assert_eq(t.channels, channels, "format %d: %u channels, wanted %u", format, t.channels, channels);
    cr_assert_eq(t.depth, depth, "format %d: %u bits, wanted %u", format, t.depth, depth);
    return t.samples;
}

static void expect(VkFormat format, const void *bytes, size_t size, uint8_t channels, uint8_t depth,
                   const uint16_t *want)
{
    uint16_t *got = convert(format, bytes, size, 1, 1, channels, depth);
    for (uint8_t c = 0; c < channels; c++)
        cr_expect_eq(got[c], want[c], "format %d channel %u: %u, wanted %u", format, c, got[c], want[c]);
    free(got);
}

Test(formats, every_vulkan_format_is_in_the_table_sorted_with_a_plan)
{
    cr_assert_gt(rt_format_count, 200);
    for (size_t i = 0; i < rt_format_count; i++) {
        const struct rt_format_info *f = &rt_formats[i];
        cr_assert(i == 0 || rt_formats[i - 1].format < f->format, "%s out of order", f->name);
        cr_assert_eq(rt_format_find(f->format), f);
        struct rt_convert_plan p;
        cr_assert(rt_convert_plan_for(f->format, &p), "%s has no plan", f->name);
        cr_assert(p.raw ? p.why_raw != NULL : (p.channels >= 1 && p.channels <= 4 && (p.depth == 8 || p.depth == 16)),
                  "%s: bad plan", f->name);
    }
    cr_assert_null(rt_format_find((VkFormat)12345));
}

Test(formats, eight_bit_unorm_and_srgb_keep_their_values)
{
    expect(VK_FORMAT_R8_UNORM, (uint8_t[]){0x33}, 1, 1, 8, (uint16_t[]){0x33});
    expect(VK_FORMAT_R8G8_UNORM, (uint8_t[]){10, 200}, 2, 2, 8, (uint16_t[]){10, 200});
    expect(VK_FORMAT_B8G8R8A8_SRGB, (uint8_t[]){1, 2, 3, 4}, 4, 4, 8, (uint16_t[]){3, 2, 1, 4});
    expect(VK_FORMAT_B8G8R8_UNORM, (uint8_t[]){1, 2, 3}, 3, 3, 8, (uint16_t[]){3, 2, 1});
    uint32_t abgr = 0x80402010; /* A=0x80 B=0x40 G=0x20 R=0x10 */
    expect(VK_FORMAT_A8B8G8R8_SRGB_PACK32, &abgr, 4, 4, 8, (uint16_t[]){0x10, 0x20, 0x40, 0x80});
}

Test(formats, packed_formats_scale_to_eight_bits)
{
    uint16_t argb = 0x8000 | 31 << 10 | 0 << 5 | 16; /* A1 R31 G0 B16 */
    expect(VK_FORMAT_A1R5G5B5_UNORM_PACK16, &argb, 2, 4, 8, (uint16_t[]){255, 0, 132, 255});
    uint16_t rgb565 = 31 << 11 | 32 << 5 | 0;
    expect(VK_FORMAT_R5G6B5_UNORM_PACK16, &rgb565, 2, 3, 8, (uint16_t[]){255, 130, 0});
    uint16_t rgba4 = 0xF80F;
    expect(VK_FORMAT_R4G4B4A4_UNORM_PACK16, &rgba4, 2, 4, 8, (uint16_t[]){255, 136, 0, 255});
    uint8_t rg4 = 0x5A; /* R=5 G=10 */
    expect(VK_FORMAT_R4G4_UNORM_PACK8, &rg4, 1, 2, 8, (uint16_t[]){85, 170});
}

Test(formats, ten_and_sixteen_bit_unorm_are_sixteen_bit_samples)
{
    uint32_t w = 3u << 30 | 0u << 20 | 512u << 10 | 1023u; /* A2 B0 G512 R1023 */
    expect(VK_FORMAT_A2B10G10R10_UNORM_PACK32, &w, 4, 4, 16, (uint16_t[]){65535, 32800, 0, 65535});
    expect(VK_FORMAT_R16_UNORM, (uint16_t[]){0x1234}, 2, 1, 16, (uint16_t[]){0x1234});
    uint16_t x6 = 1023 << 6; /* R10X6: the value sits in the top bits */
    expect(VK_FORMAT_R10X6_UNORM_PACK16, &x6, 2, 1, 16, (uint16_t[]){65535});
}

Test(formats, signed_and_integer_formats_are_offset_not_scaled)
{
    expect(VK_FORMAT_R8_SNORM, (int8_t[]){-128}, 1, 1, 8, (uint16_t[]){0});
    expect(VK_FORMAT_R8_SNORM, (int8_t[]){0}, 1, 1, 8, (uint16_t[]){128});
    expect(VK_FORMAT_R8_SNORM, (int8_t[]){127}, 1, 1, 8, (uint16_t[]){255});
    expect(VK_FORMAT_R16_SINT, (int16_t[]){-1}, 2, 1, 16, (uint16_t[]){32767});
    expect(VK_FORMAT_R8_UINT, (uint8_t[]){7}, 1, 1, 8, (uint16_t[]){7});
    expect(VK_FORMAT_R16G16_UINT, (uint16_t[]){1, 60000}, 4, 2, 16, (uint16_t[]){1, 60000});
    struct rt_convert_plan p;
    cr_assert(rt_convert_plan_for(VK_FORMAT_R32_UINT, &p) && p.raw, "32-bit integers have no PNG form");
    cr_assert(rt_convert_plan_for(VK_FORMAT_R64G64_SINT, &p) && p.raw);
}

Test(formats, floats_are_clamped_to_sixteen_bits)
{
    float f[4] = {0.25f, 2.0f, -1.0f, 0.0f};
    f[3] = f[3] / f[3]; /* NaN */
    expect(VK_FORMAT_R32G32B32A32_SFLOAT, f, 16, 4, 16, (uint16_t[]){16384, 65535, 0, 0});
    expect(VK_FORMAT_R16G16B16A16_SFLOAT, (uint16_t[]){0x3800, 0x3c00, 0xbc00, 0x3400}, 8, 4, 16,
           (uint16_t[]){32768, 65535, 0, 16384});
    double d = 0.75;
    expect(VK_FORMAT_R64_SFLOAT, &d, 8, 1, 16, (uint16_t[]){49151});
    uint32_t small = 416u << 22 | 896u << 11 | 960u; /* B 0.25, G 0.5, R 1.0 */
    expect(VK_FORMAT_B10G11R11_UFLOAT_PACK32, &small, 4, 3, 16, (uint16_t[]){65535, 32768, 16384});
    uint32_t shared = 16u << 27 | 64u << 18 | 128u << 9 | 256u; /* 2^(16-24): R 1.0, G 0.5, B 0.25 */
    expect(VK_FORMAT_E5B9G9R9_UFLOAT_PACK32, &shared, 4, 3, 16, (uint16_t[]){65535, 32768, 16384});
}

Test(formats, depth_and_stencil_are_grey_one_aspect_at_a_time)
{
    expect(VK_FORMAT_D16_UNORM, (uint16_t[]){40000}, 2, 1, 16, (uint16_t[]){40000});
    uint32_t d24 = 0xAB800000; /* the top byte is undefined */
    expect(VK_FORMAT_X8_D24_UNORM_PACK32, &d24, 4, 1, 16, (uint16_t[]){32768});
    float depth = 0.25f;
    expect(VK_FORMAT_D32_SFLOAT, &depth, 4, 1, 16, (uint16_t[]){16384});
    expect(VK_FORMAT_S8_UINT, (uint8_t[]){3}, 1, 1, 8, (uint16_t[]){3});
    cr_assert_eq(rt_format_for_aspect(VK_FORMAT_D24_UNORM_S8_UINT, VK_IMAGE_ASPECT_DEPTH_BIT),
                 VK_FORMAT_X8_D24_UNORM_PACK32);
    cr_assert_eq(rt_format_for_aspect(VK_FORMAT_D32_SFLOAT_S8_UINT, VK_IMAGE_ASPECT_STENCIL_BIT), VK_FORMAT_S8_UINT);
    cr_assert_eq(rt_format_for_aspect(VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, VK_IMAGE_ASPECT_PLANE_1_BIT),
                 VK_FORMAT_R8G8_UNORM);
    struct rt_convert_plan p;
    cr_assert(rt_convert_plan_for(VK_FORMAT_D24_UNORM_S8_UINT, &p) && p.raw, "both aspects at once");
    cr_assert(rt_convert_plan_for(VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, &p) && p.raw, "all planes at once");
}

Test(formats, chroma_422_repeats_each_pairs_chroma)
{
    uint8_t block[4] = {10, 20, 30, 40}; /* G0 B G1 R */
    uint16_t *got = convert(VK_FORMAT_G8B8G8R8_422_UNORM, block, 4, 2, 1, 3, 8);
    const uint16_t want[6] = {40, 10, 20, 40, 30, 20};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(got[i], want[i], "sample %d: %u", i, got[i]);
    free(got);
}

/* BC1: red and blue endpoints, texels 0..3 use indices 0..3. */
static const uint8_t bc1_block[8] = {0x00, 0xF8, 0x1F, 0x00, 0xE4, 0, 0, 0};

Test(formats, bc1_to_bc5_blocks_decode)
{
    uint16_t *t = convert(VK_FORMAT_BC1_RGB_UNORM_BLOCK, bc1_block, 8, 4, 4, 3, 8);
    const uint16_t want[4][3] = {{255, 0, 0}, {0, 0, 255}, {170, 0, 85}, {85, 0, 170}};
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++)
            cr_expect_eq(t[i * 3 + c], want[i][c], "BC1 texel %d channel %d: %u", i, c, t[i * 3 + c]);
    free(t);
    /* c0 <= c1: three colours and transparent black at index 3 */
    uint8_t punch[8] = {0x1F, 0x00, 0x00, 0xF8, 0xC0, 0, 0, 0};
    t = convert(VK_FORMAT_BC1_RGBA_UNORM_BLOCK, punch, 8, 4, 4, 4, 8);
    cr_expect_eq(t[3 * 4 + 3], 0, "index 3 is transparent");
    cr_expect_eq(t[3], 255);
    free(t);
    uint8_t bc3[16] = {255, 0, 2, 0, 0, 0, 0, 0}; /* alpha: texel 0 code 2 = 6/7 */
    memcpy(bc3 + 8, bc1_block, 8);
    t = convert(VK_FORMAT_BC3_UNORM_BLOCK, bc3, 16, 4, 4, 4, 8);
    cr_expect_eq(t[3], 219);
    cr_expect_eq(t[4 + 3], 255);
    free(t);
    uint8_t bc2[16] = {0x8F};
    memcpy(bc2 + 8, bc1_block, 8);
    t = convert(VK_FORMAT_BC2_UNORM_BLOCK, bc2, 16, 4, 4, 4, 8);
    cr_expect_eq(t[3], 255);
    cr_expect_eq(t[4 + 3], 136);
    free(t);
    uint8_t bc4[8] = {127, 0x81, 0x08}; /* texel 0 code 0 (1.0), texel 1 code 1 (-1.0) */
    t = convert(VK_FORMAT_BC4_SNORM_BLOCK, bc4, 8, 4, 4, 1, 8);
    cr_expect_eq(t[0], 255);
    cr_expect_eq(t[1], 0);
    free(t);
    uint8_t bc5[16] = {200, 100, 0, 0, 0, 0, 0, 0, 50, 60, 0x01, 0, 0, 0, 0, 0};
    t = convert(VK_FORMAT_BC5_UNORM_BLOCK, bc5, 16, 4, 4, 2, 8);
    cr_expect_eq(t[0], 200);
    cr_expect_eq(t[1], 60, "texel 0 of G uses code 1");
    free(t);
}

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s missing", path);
    static char buf[4096];
    *size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

Test(formats, save_writes_png_of_the_planned_depth_or_raw_with_a_sidecar)
{
    char dir[] = "/tmp/rt_convert_XXXXXX", stem[64], written[128];
    cr_assert_not_null(mkdtemp(dir));
    uint16_t r16[4] = {1, 2, 3, 4};
    snprintf(stem, sizeof stem, "%s/a", dir);
    rt_status s = rt_readback_save(VK_FORMAT_R16_UNORM, VK_IMAGE_ASPECT_COLOR_BIT, r16, sizeof r16, 2, 2, 0, stem,
                                   written, sizeof written);
    cr_assert_eq(s.code, RT_OK, "%s", s.msg);
    size_t n;
    const unsigned char *png = (const unsigned char *)slurp(written, &n);
    cr_assert_gt(n, 26);
    cr_expect_eq(png[24], 16, "bit depth");
    cr_expect_eq(png[25], 0, "grey");
    uint8_t etc[16] = {1, 2, 3};
    snprintf(stem, sizeof stem, "%s/b", dir);
    rt_status_free(&s);
    s = rt_readback_save(VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK, VK_IMAGE_ASPECT_COLOR_BIT, etc, sizeof etc, 8, 4, 0,
                         stem, written, sizeof written);
    cr_assert_eq(s.code, RT_OK, "%s", s.msg);
    cr_expect_str_eq(written + strlen(written) - 4, ".bin");
    slurp(written, &n);
    cr_expect_eq(n, 16, "two 8-byte blocks");
    char json[80];
    snprintf(json, sizeof json, "%s.json", stem);
    const char *side = slurp(json, &n);
    cr_expect(strstr(side, "\"format\": \"VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK\"") != NULL, "%.*s", (int)n, side);
    cr_expect(strstr(side, "\"row_bytes\": 16") != NULL);
    snprintf(stem, sizeof stem, "%s/c", dir);
    rt_status_free(&s);
    s = rt_readback_save(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_ASPECT_COLOR_BIT, etc, 15, 2, 2, 0, stem, NULL, 0);
    cr_expect_eq(s.code, RT_ERR_BAD_INPUT, "16 bytes needed, 15 given");
    rt_status_free(&s);
    s = rt_readback_save((VkFormat)12345, VK_IMAGE_ASPECT_COLOR_BIT, etc, 16, 1, 1, 0, stem, NULL, 0);
    cr_expect_eq(s.code, RT_ERR_CANNOT_REPLAY);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
    rt_status_free(&s);
}

/* BC6H and BC7: one block per mode family, with the texels 0, 5, 10, 15 an
 * independent decoder (Pillow 9.4's BcnDecode, 8-bit out) gives. */
struct bptc_vector {
    VkFormat format;
    uint8_t block[16];
    uint8_t want[4][4];
};

static const struct bptc_vector bptc_vectors[] = {
    {VK_FORMAT_BC7_UNORM_BLOCK, /* mode 1: two subsets, shared p-bits */
     {0x52, 0xf2, 0x26, 0x65, 0xa6, 0x0c, 0x12, 0xd2, 0x89, 0x18, 0x5d, 0x95, 0x0e, 0xe8, 0x81, 0x36},
     {{164, 175, 110, 255}, {136, 190, 135, 255}, {110, 203, 159, 255}, {190, 162, 86, 255}}},
    {VK_FORMAT_BC7_UNORM_BLOCK, /* mode 6: RGBA, 4-bit indices */
     {0x40, 0x09, 0x03, 0x04, 0xbb, 0x81, 0x8d, 0xfa, 0x30, 0x83, 0x79, 0x3e, 0xef, 0x72, 0x1b, 0xa8},
     {{37, 65, 111, 141}, {31, 80, 149, 189}, {35, 69, 122, 155}, {28, 86, 165, 210}}},
    {VK_FORMAT_BC7_UNORM_BLOCK, /* mode 4: rotation and index selector */
     {0x10, 0x68, 0x19, 0xcb, 0x65, 0xa9, 0x8c, 0x27, 0xa3, 0x88, 0x17, 0xa7, 0x29, 0x65, 0xb2, 0x45},
     {{74, 92, 204, 104}, {66, 49, 231, 104}, {74, 92, 204, 135}, {90, 181, 148, 119}}},
    {VK_FORMAT_BC7_UNORM_BLOCK, /* mode 7: two subsets with alpha */
     {0x80, 0x05, 0x6b, 0x6e, 0xaa, 0x99, 0x2f, 0x0b, 0x88, 0x4b, 0x46, 0x1e, 0xc5, 0xa0, 0xb4, 0x72},
     {{100, 105, 68, 130}, {117, 207, 69, 36}, {129, 200, 121, 64}, {117, 207, 69, 36}}},
    {VK_FORMAT_BC6H_UFLOAT_BLOCK, /* mode 0x00: two regions, transformed */
     {0x5c, 0x16, 0xc1, 0x5c, 0xbb, 0xa7, 0x35, 0xd3, 0x3b, 0xfb, 0xc8, 0x6e, 0xa7, 0xbc, 0xad, 0x41},
     {{0, 28, 69}, {0, 34, 77}, {0, 21, 61}, {0, 21, 62}}},
    {VK_FORMAT_BC6H_UFLOAT_BLOCK, /* mode 0x12 */
     {0x92, 0xd5, 0x38, 0xab, 0x71, 0xbe, 0xd4, 0x51, 0x91, 0x20, 0xc0, 0xda, 0x5d, 0x7e, 0x72, 0x8c},
     {{255, 111, 255}, {255, 150, 255}, {255, 139, 255}, {255, 127, 255}}},
    {VK_FORMAT_BC6H_UFLOAT_BLOCK, /* mode 0x03: one region, not transformed */
     {0x63, 0x47, 0x26, 0x19, 0x2e, 0xb8, 0x93, 0xd7, 0x30, 0x29, 0x79, 0x96, 0x89, 0x31, 0x70, 0xa5},
     {{255, 255, 255}, {255, 27, 255}, {255, 255, 255}, {255, 4, 255}}},
    {VK_FORMAT_BC6H_UFLOAT_BLOCK, /* mode 0x0f: 16-bit endpoints, reversed bits */
     {0x6f, 0x38, 0x61, 0x77, 0x03, 0x70, 0xdc, 0xa1, 0x60, 0xc9, 0x00, 0x18, 0xf5, 0xf2, 0x3a, 0x67},
     {{0, 175, 0}, {0, 175, 0}, {0, 175, 0}, {0, 176, 0}}},
};

Test(formats, bc6h_and_bc7_blocks_decode_as_an_independent_decoder_does)
{
    for (size_t v = 0; v < sizeof bptc_vectors / sizeof bptc_vectors[0]; v++) {
        const struct bptc_vector *x = &bptc_vectors[v];
        float texels[16][4];
        rt_bc_decode_block(rt_format_find(x->format), x->block, texels);
        unsigned channels = x->format == VK_FORMAT_BC7_UNORM_BLOCK ? 4 : 3;
        for (int k = 0; k < 4; k++) {
            for (unsigned c = 0; c < channels; c++) {
                float f = texels[k * 5][c] * 255.0f, want = x->want[k][c];
                f = f < 0 ? 0 : f > 255 ? 255 : f;
                cr_expect(f > want - 1.01f && f < want + 1.01f, "vector %zu texel %d channel %u: %.2f, wanted %.0f",
                          v, k * 5, c, (double)f, (double)want);
            }
        }
    }
    float texels[16][4];
    rt_bc_decode_block(rt_format_find(VK_FORMAT_BC7_UNORM_BLOCK), (const uint8_t[16]){0}, texels);
    cr_expect_eq(texels[3][3], 0.0f, "a reserved BC7 mode decodes to transparent black");
}
