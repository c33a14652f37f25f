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
                 size_t *handles)
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
            *handles += g.count;
        }
}

Test(walkers, every_struct_walks_as_the_interpreter_does)
{
    unsigned checked = 0;
    size_t handles = 0;
    for (unsigned ty = 0; ty < RT_VK_STRUCT_COUNT; ty++) {
        if (!rt_vk_struct_walkers[ty])
            continue;
        for (uint64_t k = 1; k <= SEEDS; k++) {
            struct rt_arena a;
            rt_arena_init(&a, 0, 0);
            void *v = calloc(1, rt_vk_structs[ty].size);
            uint64_t seed = k * 7919 + ty;
            rt_status s = rt_vk_random_struct((enum rt_vk_struct_type)ty, v, &a, &seed);
            cr_assert(rt_ok(&s), "%s: %s", rt_vk_structs[ty].name, s.msg);
            same(rt_vk_structs[ty].name, rt_vk_struct_walkers[ty], &rt_vk_structs[ty], v, &handles);
            free(v);
            rt_arena_finish(&a);
        }
        checked++;
    }
    cr_assert_gt(checked, 500, "only %u structs have generated walkers", checked);
    cr_assert_gt(handles, 1000, "only %zu handles walked: the random values hold too few to compare", handles);
}

Test(walkers, every_command_walks_as_the_interpreter_does)
{
    unsigned checked = 0;
    size_t handles = 0;
    for (unsigned cmd = 0; cmd < RT_VK_CMD_COUNT; cmd++) {
        if (!rt_vk_command_walkers[cmd])
            continue;
        for (uint64_t k = 1; k <= SEEDS; k++) {
            struct rt_arena a;
            rt_arena_init(&a, 0, 0);
            void *v = calloc(1, rt_vk_args_size((enum rt_vk_cmd)cmd) + 1);
            uint64_t seed = k * 104729 + cmd;
            rt_status s = rt_vk_random_args((enum rt_vk_cmd)cmd, v, &a, &seed);
            cr_assert(rt_ok(&s), "%s: %s", rt_vk_commands[cmd].name, s.msg);
            same(rt_vk_commands[cmd].name, rt_vk_command_walkers[cmd], rt_vk_commands[cmd].args, v, &handles);
            free(v);
            rt_arena_finish(&a);
        }
        checked++;
    }
    cr_assert_gt(checked, 400, "only %u commands have generated walkers", checked);
    cr_assert_gt(handles, 1000, "only %zu handles walked", handles);
}
