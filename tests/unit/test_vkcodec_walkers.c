/*
 * Unit tests for gen/emit_walk.py's straight-line handle walkers against
 * the table-driven walker (gen/vkcodec_walk.c) they stand in for: for every
 * struct and argument block with a generated walker, random values walked
 * both ways call the callback for the same handles in the same order, with
 * the same slots, object types and output flags, whether the value is
 * written by the command or not and near the nesting limit. The interpreter
 * runs alone (interpreted: nested structs and pNext nodes are not handed to
 * generated walkers).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vkcodec_fixture.h"
#include "vkcodec_walk.h"

#define SEEDS 3
#define MAX_SEEN 4096

struct visit {
    VkObjectType type;
    void *slot;
    bool output;
};

struct seen {
    size_t count;
    struct visit v[MAX_SEEN];
};

static void record(void *user, VkObjectType type, void *slot, bool output)
{
    struct seen *s = user;
    cr_assert_lt(s->count, MAX_SEEN, "more handles than the test keeps");
    s->v[s->count++] = (struct visit){type, slot, output};
}

static struct seen g, t; /* large: not on the stack */

static void same(const char *name, rt_vkc_walk_fn fn, const struct rt_vk_struct_desc *sd, const void *value,
                 void *ctx)
{
    static const unsigned depths[] = {0, 1, RT_VKC_MAX_DEPTH - 2, RT_VKC_MAX_DEPTH - 1, RT_VKC_MAX_DEPTH};
    for (int out = 0; out < 2; out++)
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
            g.count = t.count = 0;
            struct rt_vkc_walk wg = {.fn = record, .user = &g, .depth = depths[d]};
            struct rt_vkc_walk wt = {.fn = record, .user = &t, .depth = depths[d], .interpreted = true};
            fn(&wg, value, out, false);
            rt_vkc_walk_struct(&wt, sd, value, out, false);
            cr_assert_eq(g.count, t.count, "%s (output %d, depth %u): %zu handles walked, the interpreter %zu",
                         name, out, depths[d], g.count, t.count);
            for (size_t i = 0; i < g.count; i++)
                cr_assert(g.v[i].type == t.v[i].type && g.v[i].slot == t.v[i].slot &&
                              g.v[i].output == t.v[i].output,
                          "%s (output %d, depth %u): handle %zu differs from the interpreter's", name, out,
                          depths[d], i);
            cr_assert_eq(wg.depth, depths[d], "%s: the walk's depth is not restored", name);
            *(size_t *)ctx += g.count;
        }
}

static rt_vkc_walk_fn walker_of(const struct vkc_subject *s)
{
    return s->command ? rt_vk_command_walkers[s->index] : rt_vk_struct_walkers[s->index];
}

static bool has_walker(const struct vkc_subject *s)
{
    return walker_of(s) != NULL;
}

static void check_walker(const struct vkc_subject *s, const void *value, void *ctx)
{
    same(s->name, walker_of(s), s->sd, value, ctx);
}

Test(walkers, every_struct_walks_as_the_interpreter_does)
{
    size_t handles = 0;
    unsigned checked = vkc_for_each_random(false, SEEDS, has_walker, check_walker, &handles);
    cr_assert_gt(checked, 500, "only %u structs have generated walkers", checked);
    cr_assert_gt(handles, 1000, "only %zu handles walked: the random values hold too few to compare", handles);
}

Test(walkers, every_command_walks_as_the_interpreter_does)
{
    size_t handles = 0;
    unsigned checked = vkc_for_each_random(true, SEEDS, has_walker, check_walker, &handles);
    cr_assert_gt(checked, 400, "only %u commands have generated walkers", checked);
    cr_assert_gt(handles, 1000, "only %zu handles walked", handles);
}
