/*
 * Unit tests for gen/emit_encode.py's straight-line encoders against the
 * table-driven interpreter (gen/vkcodec.c) they stand in for: for every
 * struct and argument block with a generated encoder, random valid values
 * encoded both ways give the same answer, the same bytes and the same error,
 * at the bottom of the nesting and near its limit (RT_VKC_MAX_DEPTH), where
 * an encoder that writes nested structs inline hands the whole container to
 * the interpreter.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vkcodec_enc.h"
#include "vkcodec_fixture.h"

#define SEEDS 3

struct outcome {
    bool ok;
    struct rt_enc enc;
    const char *err, *where;
};

/* fn, or the interpreter when fn is NULL, on value at nesting depth. */
static struct outcome run(rt_vkc_enc_fn fn, const struct rt_vk_struct_desc *sd, const void *value, unsigned depth)
{
    struct outcome o = {0};
    rt_enc_init(&o.enc);
    struct rt_vkc_pass c = {.enc = &o.enc, .depth = depth};
    o.ok = fn ? fn(&c, value, false) : rt_vkc_enc_struct(&c, sd, value, false);
    o.err = c.err;
    o.where = c.err_where;
    return o;
}

static void same(const char *name, rt_vkc_enc_fn fn, const struct rt_vk_struct_desc *sd, const void *value)
{
    static const unsigned depths[] = {0, 1, RT_VKC_MAX_DEPTH - 4, RT_VKC_MAX_DEPTH - 3, RT_VKC_MAX_DEPTH - 2,
                                      RT_VKC_MAX_DEPTH - 1, RT_VKC_MAX_DEPTH};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
        struct outcome g = run(fn, sd, value, depths[i]), t = run(NULL, sd, value, depths[i]);
        cr_assert_eq(g.ok, t.ok, "%s at depth %u: generated %d, interpreter %d (%s)", name, depths[i], g.ok, t.ok,
                     t.err ? t.err : g.err);
        if (g.ok) {
            cr_assert(g.enc.size == t.enc.size && memcmp(g.enc.data, t.enc.data, g.enc.size) == 0,
                      "%s at depth %u: %zu bytes generated, %zu by the interpreter, or they differ", name,
                      depths[i], g.enc.size, t.enc.size);
        } else {
            cr_assert(g.err && t.err && !strcmp(g.err, t.err), "%s at depth %u: error %s, interpreter's %s", name,
                      depths[i], g.err ? g.err : "none", t.err ? t.err : "none");
            cr_assert(g.where && t.where && !strcmp(g.where, t.where), "%s at depth %u: error at %s, interpreter's at %s",
                      name, depths[i], g.where ? g.where : "none", t.where ? t.where : "none");
        }
        rt_enc_finish(&g.enc);
        rt_enc_finish(&t.enc);
    }
}

static rt_vkc_enc_fn encoder_of(const struct vkc_subject *s)
{
    return s->command ? rt_vk_command_encoders[s->index] : rt_vk_struct_encoders[s->index];
}

static bool has_encoder(const struct vkc_subject *s)
{
    return encoder_of(s) != NULL;
}

static void check_encoder(const struct vkc_subject *s, const void *value, void *ctx)
{
    (void)ctx;
    same(s->name, encoder_of(s), s->sd, value);
}

Test(encoders, every_struct_writes_the_interpreters_bytes)
{
    unsigned checked = vkc_for_each_random(false, SEEDS, has_encoder, check_encoder, NULL);
    cr_assert_gt(checked, 500, "only %u structs have generated encoders", checked);
}

Test(encoders, every_command_writes_the_interpreters_bytes)
{
    unsigned checked = vkc_for_each_random(true, SEEDS, has_encoder, check_encoder, NULL);
    cr_assert_gt(checked, 400, "only %u commands have generated encoders", checked);
}
