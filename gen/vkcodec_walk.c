/*
 * gen/vkcodec_walk.c — deep comparison and handle walking over the tables;
 * rt_vk_walk_handles hands a call with a generated walker (gen/emit_walk.py,
 * vkcodec_walk.h) to it, which calls back here for chains and what it does
 * not spell out.
 *
 * Both follow the wire's view of a value: what the encoder would write is
 * what is compared or visited (function pointers are not compared, because
 * decoding drops them; pNext nodes the tables do not know are skipped).
 */
#include <stdio.h>

#include "vkcodec_walk.h"

/* ---- deep comparison ---------------------------------------------------- */

struct cmp {
    char *where;
    size_t where_size;
    unsigned depth;
};

static bool differ(struct cmp *c, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m)
{
    if (c->where && c->where_size)
        snprintf(c->where, c->where_size, "%s.%s", sd->name, m ? m->name : "pNext");
    return false;
}

static bool eq_struct(struct cmp *c, const struct rt_vk_struct_desc *sd, const void *a, const void *b,
                      bool in_chain);

static const void *next_known(const void *node)
{
    while (node) {
        int idx = rt_vkc_stype_index((uint32_t)rt_vkc_load(node, 4));
        if (idx >= 0 && rt_vk_structs[idx].compiled)
            return node;
        node = ((const VkBaseInStructure *)node)->pNext;
    }
    return NULL;
}

static bool eq_chain(struct cmp *c, const struct rt_vk_struct_desc *owner, const void *a, const void *b)
{
    for (unsigned n = 0; n < RT_VKC_MAX_CHAIN; n++) {
        a = next_known(a);
        b = next_known(b);
        if (!a || !b)
            return (!a && !b) || differ(c, owner, NULL);
        if (rt_vkc_load(a, 4) != rt_vkc_load(b, 4))
            return differ(c, owner, NULL);
        const struct rt_vk_struct_desc *sd = &rt_vk_structs[rt_vkc_stype_index((uint32_t)rt_vkc_load(a, 4))];
        if (!eq_struct(c, sd, a, b, true))
            return false;
        const struct rt_vk_member *pn = rt_vkc_pnext_member(sd);
        if (!pn)
            return true;
        a = *(const void *const *)((const uint8_t *)a + pn->offset);
        b = *(const void *const *)((const uint8_t *)b + pn->offset);
    }
    return differ(c, owner, NULL);
}

static bool eq_elem(struct cmp *c, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                    const uint8_t *a, const uint8_t *b)
{
    switch (m->kind) {
    case RT_VK_KIND_STRUCT:
        return eq_struct(c, rt_vkc_sub(m), a, b, false);
    case RT_VK_KIND_UNION:
        return memcmp(a, b, rt_vkc_sub(m)->size) == 0 || differ(c, sd, m);
    case RT_VK_KIND_STRING: {
        const char *sa = *(const char *const *)a, *sb = *(const char *const *)b;
        return (!sa && !sb) || (sa && sb && strcmp(sa, sb) == 0) || differ(c, sd, m);
    }
    case RT_VK_KIND_PNEXT:
        return eq_chain(c, sd, *(const void *const *)a, *(const void *const *)b);
    case RT_VK_KIND_FUNCPTR:
        return true;
    default:
        return memcmp(a, b, m->elem_size) == 0 || differ(c, sd, m);
    }
}

static bool eq_level(struct cmp *c, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                     const void *base_a, const void *base_b, const uint8_t *fa, const uint8_t *fb,
                     unsigned level)
{
    if (level == m->depth) {
        for (uint32_t i = 0; i < m->count; i++)
            if (!eq_elem(c, sd, m, fa + (size_t)i * m->elem_size, fb + (size_t)i * m->elem_size))
                return false;
        return true;
    }
    const uint8_t *pa = *(const uint8_t *const *)fa, *pb = *(const uint8_t *const *)fb;
    if (!pa || !pb)
        return (!pa && !pb) || differ(c, sd, m);
    uint64_t n = level == 0 && m->len ? m->len(base_a) : 1;
    if (level == 0 && m->len && n != m->len(base_b))
        return differ(c, sd, m);
    size_t stride = rt_vkc_stride(m, level);
    for (uint64_t i = 0; i < n; i++)
        if (!eq_level(c, sd, m, base_a, base_b, pa + i * stride, pb + i * stride, level + 1))
            return false;
    return true;
}

static bool eq_member(struct cmp *c, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                      const uint8_t *a, const uint8_t *b, bool in_chain)
{
    if (m->kind == RT_VK_KIND_PNEXT && in_chain)
        return true;
    if (m->bits)
        return m->get(a) == m->get(b) || differ(c, sd, m);
    if (m->kind == RT_VK_KIND_UNION && m->selector >= 0 && m->depth == 0) {
        const struct rt_vk_struct_desc *u = rt_vkc_sub(m);
        const struct rt_vk_member *pick = rt_vkc_union_pick(u, rt_vkc_selector_value(sd, m, a));
        if (!pick)
            return memcmp(a + m->offset, b + m->offset, u->size) == 0 || differ(c, sd, m);
        return eq_member(c, u, pick, a + m->offset, b + m->offset, false);
    }
    return eq_level(c, sd, m, a, b, a + m->offset, b + m->offset, 0);
}

static bool eq_struct(struct cmp *c, const struct rt_vk_struct_desc *sd, const void *a, const void *b,
                      bool in_chain)
{
    if (!sd->compiled || sd->excluded || ++c->depth > RT_VKC_MAX_DEPTH)
        return differ(c, sd, NULL);
    if (sd->is_union) {
        c->depth--;
        return memcmp(a, b, sd->size) == 0 || differ(c, sd, NULL);
    }
    for (uint32_t i = 0; i < sd->nmembers; i++)
        if (!eq_member(c, sd, &sd->members[i], a, b, in_chain))
            return false;
    c->depth--;
    return true;
}

bool rt_vk_args_equal(enum rt_vk_cmd cmd, const void *a, const void *b, char *where, size_t where_size)
{
    const struct rt_vk_struct_desc *sd = rt_vkc_args_desc(cmd);
    struct cmp c = {where, where_size, 0};
    return sd && eq_struct(&c, sd, a, b, false);
}

bool rt_vk_struct_equal(enum rt_vk_struct_type type, const void *a, const void *b, char *where,
                        size_t where_size)
{
    struct cmp c = {where, where_size, 0};
    return (unsigned)type < RT_VK_STRUCT_COUNT && eq_struct(&c, &rt_vk_structs[type], a, b, false);
}

/* ---- handle walking ----------------------------------------------------- */

void rt_vkc_walk_chain(struct rt_vkc_walk *w, const void *node, bool out)
{
    for (unsigned n = 0; n < RT_VKC_MAX_CHAIN && (node = next_known(node)) != NULL; n++) {
        int idx = rt_vkc_stype_index((uint32_t)rt_vkc_load(node, 4));
        const struct rt_vk_struct_desc *sd = &rt_vk_structs[idx];
        rt_vkc_walk_fn fn = w->interpreted ? NULL : rt_vk_struct_walkers[idx];
        if (fn)
            fn(w, node, out, true);
        else
            rt_vkc_walk_struct(w, sd, node, out, true);
        const struct rt_vk_member *pn = rt_vkc_pnext_member(sd);
        node = pn ? *(const void *const *)((const uint8_t *)node + pn->offset) : NULL;
    }
}

static void walk_level(struct rt_vkc_walk *w, const struct rt_vk_member *m, const void *base, const uint8_t *f,
                       unsigned level, bool out)
{
    if (level == m->depth) {
        for (uint32_t i = 0; i < m->count; i++) {
            const uint8_t *e = f + (size_t)i * m->elem_size;
            if (m->kind == RT_VK_KIND_HANDLE)
                w->fn(w->user, (VkObjectType)m->aux, (void *)(uintptr_t)e, out);
            else if (m->kind == RT_VK_KIND_STRUCT)
                rt_vkc_walk_struct_at(w, m->aux, e, out);
            else if (m->kind == RT_VK_KIND_PNEXT)
                rt_vkc_walk_chain(w, *(const void *const *)e, out);
        }
        return;
    }
    const uint8_t *p = *(const uint8_t *const *)f;
    if (!p)
        return;
    uint64_t n = level == 0 && m->len ? m->len(base) : 1;
    size_t stride = rt_vkc_stride(m, level);
    bool next_out = out || ((m->out_mask >> level) & 1u);
    for (uint64_t i = 0; i < n; i++)
        walk_level(w, m, base, p + i * stride, level + 1, next_out);
}

void rt_vkc_walk_member(struct rt_vkc_walk *w, const struct rt_vk_struct_desc *sd, uint32_t i, const void *base,
                        bool out, bool in_chain)
{
    const struct rt_vk_member *m = &sd->members[i];
    const uint8_t *b = base;
    if ((m->kind == RT_VK_KIND_PNEXT && in_chain) || m->bits)
        return;
    if (m->kind == RT_VK_KIND_UNION && m->selector >= 0 && m->depth == 0) {
        const struct rt_vk_struct_desc *u = rt_vkc_sub(m);
        const struct rt_vk_member *pick = rt_vkc_union_pick(u, rt_vkc_selector_value(sd, m, base));
        if (pick)
            walk_level(w, pick, b + m->offset, b + m->offset + pick->offset, 0, out);
        return;
    }
    walk_level(w, m, base, b + m->offset, 0, out);
}

void rt_vkc_walk_struct(struct rt_vkc_walk *w, const struct rt_vk_struct_desc *sd, const void *p, bool out,
                        bool in_chain)
{
    if (!sd->compiled || sd->excluded || sd->is_union || w->depth >= RT_VKC_MAX_DEPTH)
        return;
    w->depth++;
    for (uint32_t i = 0; i < sd->nmembers; i++)
        rt_vkc_walk_member(w, sd, i, p, out, in_chain);
    w->depth--;
}

/* Every replayed call: a command with a generated walker is neither
 * excluded nor without its argument block (gen/emit_walk.py). */
void rt_vk_walk_handles(enum rt_vk_cmd cmd, const void *args, rt_vk_handle_fn fn, void *user)
{
    struct rt_vkc_walk w = {.fn = fn, .user = user};
    if ((unsigned)cmd < RT_VK_CMD_COUNT && rt_vk_command_walkers[cmd]) {
        rt_vk_command_walkers[cmd](&w, args, false, false);
        return;
    }
    const struct rt_vk_struct_desc *sd = rt_vkc_args_desc(cmd);
    if (sd && !sd->excluded)
        rt_vkc_walk_struct(&w, sd, args, false, false);
}
