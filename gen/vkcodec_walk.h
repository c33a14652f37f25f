/*
 * gen/vkcodec_walk.h — what the handle walker's two halves share: the
 * interpreter (gen/vkcodec_walk.c) and the straight-line walkers
 * gen/emit_walk.py writes for every struct and argument block
 * (vk_walk_gen_*.c, build dir only). Not installed, not included outside
 * gen/ (tests excepted).
 *
 * A generated walker calls the callback for the same handles, in the same
 * order, with the same slots and output flags as the interpreter
 * (tests/unit/test_vkcodec_walkers.c, on every struct and command).
 */
#ifndef RT_VKCODEC_WALK_H
#define RT_VKCODEC_WALK_H

#include "vkcodec_internal.h"

/** One walk over a value: the callback, nesting depth (a value nested
 * deeper than RT_VKC_MAX_DEPTH is not walked further), and interpreted:
 * the interpreter alone, never a generated walker (tests). */
struct rt_vkc_walk {
    rt_vk_handle_fn fn;
    void *user;
    unsigned depth;
    bool interpreted;
};

/** A generated walker: the handles of the struct at p; out: the struct is
 * written by the command; in_chain: it is a pNext node (the chain walker
 * walks its pNext). */
typedef void (*rt_vkc_walk_fn)(struct rt_vkc_walk *w, const void *p, bool out, bool in_chain);

/* Indexed by enum rt_vk_struct_type and enum rt_vk_cmd; NULL where only the
 * interpreter walks (unions, excluded or not compiled here). */
extern const rt_vkc_walk_fn rt_vk_struct_walkers[RT_VK_STRUCT_COUNT];
extern const rt_vkc_walk_fn rt_vk_command_walkers[RT_VK_CMD_COUNT];

/* The interpreter (gen/vkcodec_walk.c). Nested structs and pNext nodes go
 * to their generated walkers unless w->interpreted. */
void rt_vkc_walk_struct(struct rt_vkc_walk *w, const struct rt_vk_struct_desc *sd, const void *p, bool out,
                        bool in_chain);
/** Member number i of sd at base. */
void rt_vkc_walk_member(struct rt_vkc_walk *w, const struct rt_vk_struct_desc *sd, uint32_t i, const void *base,
                        bool out, bool in_chain);
void rt_vkc_walk_chain(struct rt_vkc_walk *w, const void *node, bool out);

/** Struct number idx at p, by its generated walker where there is one. */
static inline void rt_vkc_walk_struct_at(struct rt_vkc_walk *w, int32_t idx, const void *p, bool out)
{
    rt_vkc_walk_fn fn = w->interpreted ? NULL : rt_vk_struct_walkers[idx];
    if (fn)
        fn(w, p, out, false);
    else
        rt_vkc_walk_struct(w, &rt_vk_structs[idx], p, out, false);
}

#endif
