/* tests/unit/vkcodec_fixture.c — see vkcodec_fixture.h. */
#include "vkcodec_fixture.h"

#include <criterion/criterion.h>
#include <stdlib.h>

static void one(const struct vkc_subject *s, uint64_t seed, vkc_check_fn check, void *ctx)
{
    struct rt_arena a;
    rt_arena_init(&a, 0, 0);
    void *v = calloc(1, s->sd->size + 1);
    rt_status st = s->command ? rt_vk_random_args((enum rt_vk_cmd)s->index, v, &a, &seed)
                              : rt_vk_random_struct((enum rt_vk_struct_type)s->index, v, &a, &seed);
    cr_assert(rt_ok(&st), "%s: %s", s->name, st.msg);
    check(s, v, ctx);
    free(v);
    rt_arena_finish(&a);
}

unsigned vkc_for_each_random(bool commands, unsigned seeds, vkc_has_fn has, vkc_check_fn check, void *ctx)
{
    unsigned count = commands ? RT_VK_CMD_COUNT : RT_VK_STRUCT_COUNT, checked = 0;
    for (unsigned i = 0; i < count; i++) {
        struct vkc_subject s = {commands ? rt_vk_commands[i].name : rt_vk_structs[i].name, i, commands,
                                commands ? rt_vk_commands[i].args : &rt_vk_structs[i]};
        if (!s.sd || !has(&s))
            continue;
        for (uint64_t k = 1; k <= seeds; k++)
            one(&s, k * (commands ? 104729 : 7919) + i, check, ctx);
        checked++;
    }
    return checked;
}
