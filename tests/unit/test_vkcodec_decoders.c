/*
 * Unit tests for gen/emit_decode.py's straight-line decoders against the
 * table-driven interpreter (gen/vkcodec_decode.c) they stand in for: for
 * every struct and argument block with a generated decoder, the encoding of
 * random valid values decodes both ways to the same value (the same
 * re-encoding) and the same bytes consumed, at the bottom of the nesting and
 * near its limit; and every truncation of it, and corruptions of its bytes
 * one at a time, get the same answer from both: the same value, or the same
 * error at the same member. The interpreter runs alone (interpreted: its
 * nested structs and pNext nodes are not handed to generated decoders).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vkcodec_dec.h"
#include "vkcodec_enc.h"
#include "vkcodec_fixture.h"

#define SEEDS 2
#define MAX_CUTS 48 /* truncations and corrupted positions tried per encoding, spread over it */

struct subject {
    const char *name;
    rt_vkc_dec_fn fn;
    const struct rt_vk_struct_desc *sd;
};

struct outcome {
    bool ok;
    size_t consumed;
    const char *err, *where;
    struct rt_enc again; /* ok: the decoded value encoded again */
};

static struct outcome decode(const struct subject *s, const uint8_t *data, size_t size, unsigned depth,
                             bool interpreted, struct rt_arena *arena)
{
    struct outcome o = {0};
    rt_enc_init(&o.again);
    void *value = calloc(1, s->sd->size + 1);
    struct rt_dec dec;
    rt_dec_init(&dec, data, size, arena);
    struct rt_vkc_pass c = {.dec = &dec, .depth = depth, .interpreted = interpreted};
    o.ok = (interpreted ? rt_vkc_dec_struct(&c, s->sd, value, false) : s->fn(&c, value, false)) && !dec.failed;
    o.consumed = size - rt_dec_left(&dec);
    o.err = c.err;
    o.where = c.err_where;
    if (o.ok) {
        struct rt_vkc_pass e = {.enc = &o.again};
        cr_assert(rt_vkc_enc_struct(&e, s->sd, value, false), "%s: a decoded value does not encode: %s", s->name,
                  e.err);
    }
    free(value);
    return o;
}

static void same(const struct subject *s, const uint8_t *data, size_t size, unsigned depth, const char *how)
{
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    struct outcome g = decode(s, data, size, depth, false, &arena), t = decode(s, data, size, depth, true, &arena);
    cr_assert_eq(g.ok, t.ok, "%s (%s, depth %u): generated %d, interpreter %d (%s at %s)", s->name, how, depth, g.ok,
                 t.ok, g.ok ? t.err : g.err, g.ok ? t.where : g.where);
    if (g.ok) {
        cr_assert_eq(g.consumed, t.consumed, "%s (%s, depth %u): %zu bytes read, the interpreter %zu", s->name, how,
                     depth, g.consumed, t.consumed);
        cr_assert(g.again.size == t.again.size && !memcmp(g.again.data, t.again.data, g.again.size),
                  "%s (%s, depth %u): the two decoded values differ", s->name, how, depth);
    } else {
        cr_assert(g.err && t.err && !strcmp(g.err, t.err), "%s (%s, depth %u): error %s, the interpreter's %s",
                  s->name, how, depth, g.err ? g.err : "none", t.err ? t.err : "none");
        cr_assert(g.where == t.where || (g.where && t.where && !strcmp(g.where, t.where)),
                  "%s (%s, depth %u): error at %s, the interpreter's at %s", s->name, how, depth,
                  g.where ? g.where : "none", t.where ? t.where : "none");
    }
    rt_enc_finish(&g.again);
    rt_enc_finish(&t.again);
    rt_arena_finish(&arena);
}

static void check(const struct subject *s, const void *value)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    struct rt_vkc_pass c = {.enc = &enc};
    /* A value the encoder refuses (a length held outside the struct) still
     * leaves bytes: input like any other, valid or not. */
    (void)rt_vkc_enc_struct(&c, s->sd, value, false);
    static const unsigned depths[] = {0, 1, RT_VKC_MAX_DEPTH - 3, RT_VKC_MAX_DEPTH - 2, RT_VKC_MAX_DEPTH - 1,
                                      RT_VKC_MAX_DEPTH};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++)
        same(s, enc.data, enc.size, depths[i], "whole");
    size_t step = enc.size / MAX_CUTS + 1;
    uint8_t *bad = malloc(enc.size + 1);
    for (size_t at = 0; at < enc.size; at += step) {
        same(s, enc.data, at, 0, "truncated");
        static const uint8_t values[] = {0x00, 0x01, 0x02, 0xff};
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(bad, enc.data, enc.size);
            bad[at] = values[v];
            same(s, bad, enc.size, 0, "corrupted");
        }
    }
    free(bad);
    rt_enc_finish(&enc);
}

static rt_vkc_dec_fn decoder_of(const struct vkc_subject *s)
{
    return s->command ? rt_vk_command_decoders[s->index] : rt_vk_struct_decoders[s->index];
}

static bool has_decoder(const struct vkc_subject *s)
{
    return decoder_of(s) != NULL;
}

static void check_decoder(const struct vkc_subject *s, const void *value, void *ctx)
{
    (void)ctx;
    struct subject subject = {s->name, decoder_of(s), s->sd};
    check(&subject, value);
}

Test(decoders, every_struct_reads_as_the_interpreter_does)
{
    unsigned checked = vkc_for_each_random(false, SEEDS, has_decoder, check_decoder, NULL);
    cr_assert_gt(checked, 500, "only %u structs have generated decoders", checked);
}

Test(decoders, every_command_reads_as_the_interpreter_does)
{
    unsigned checked = vkc_for_each_random(true, SEEDS, has_decoder, check_decoder, NULL);
    cr_assert_gt(checked, 400, "only %u commands have generated decoders", checked);
}

/* The entry points replay uses go through the generated decoders: a call
 * decoded by rt_vk_decode_call equals one the interpreter decodes. */
Test(decoders, decode_call_uses_them_and_agrees)
{
    cr_assert_not_null(rt_vk_command_decoders[RT_VK_CMD_vkCmdPipelineBarrier2]);
    cr_assert_not_null(rt_vk_struct_decoders[RT_VK_STRUCT_VkImageMemoryBarrier2]);
    VkImageMemoryBarrier2 image = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                                   .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                   .newLayout = VK_IMAGE_LAYOUT_GENERAL,
                                   .image = (VkImage)(uintptr_t)0x1234,
                                   .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                            .pImageMemoryBarriers = &image};
    struct rt_vk_args_vkCmdPipelineBarrier2 args = {.commandBuffer = (VkCommandBuffer)(uintptr_t)0x99,
                                                    .pDependencyInfo = &dep};
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_status s = rt_vk_encode_call(&enc, RT_VK_CMD_vkCmdPipelineBarrier2, &args);
    cr_assert(rt_ok(&s), "%s", s.msg);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    struct rt_dec dec;
    rt_dec_init(&dec, enc.data, enc.size, &arena);
    struct rt_vk_args_vkCmdPipelineBarrier2 out;
    s = rt_vk_decode_call(&dec, RT_VK_CMD_vkCmdPipelineBarrier2, &out);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(rt_dec_left(&dec), 0);
    cr_assert_eq(out.commandBuffer, args.commandBuffer);
    cr_assert_eq(out.pDependencyInfo->imageMemoryBarrierCount, 1);
    const VkImageMemoryBarrier2 *got = out.pDependencyInfo->pImageMemoryBarriers;
    cr_assert(got && got->image == image.image && got->newLayout == VK_IMAGE_LAYOUT_GENERAL &&
              got->subresourceRange.layerCount == 1 && got->pNext == NULL);
    /* one byte short: the interpreter's error, through the public entry point */
    rt_dec_init(&dec, enc.data, enc.size - 1, &arena);
    s = rt_vk_decode_call(&dec, RT_VK_CMD_vkCmdPipelineBarrier2, &out);
    cr_assert(!rt_ok(&s));
    cr_assert(strstr(s.msg, "vkCmdPipelineBarrier2") && strstr(s.msg, "truncated"), "%s", s.msg);
    rt_status_free(&s);
    rt_arena_finish(&arena);
    rt_enc_finish(&enc);
}
