/*
 * gen/vkcodec_random.c — pseudo-random valid values, for round-trip tests
 * and fuzz seeds. "Valid" as the codec sees it: lengths agree with their
 * arrays (length members stay small), sTypes are right, enums hold declared
 * values, pNext chains hold structs vk.xml allows there (structextends),
 * optional pointers are sometimes NULL, function pointers are NULL (decoding
 * drops them), selectors pick a union member that exists.
 */
#include "vkcodec_internal.h"

#define MAX_CHAIN_NODES 3
#define MAX_NEST 6 /* below this depth pointers stay NULL, keeping values small */

struct rnd {
    struct rt_arena *arena;
    uint64_t *state;
    unsigned depth;
    bool oom;
};

static uint64_t next(struct rnd *r)
{
    /* splitmix64: deterministic for a seed, fine statistically for tests */
    uint64_t z = (*r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void *alloc(struct rnd *r, size_t n, size_t size)
{
    void *p = rt_arena_calloc(r->arena, n ? n : 1, size ? size : 1, 16);
    if (!p)
        r->oom = true;
    return p;
}

static void fill_struct(struct rnd *r, const struct rt_vk_struct_desc *sd, void *p, bool in_chain);
static bool reaches_excluded(const struct rt_vk_struct_desc *sd, unsigned depth);

static int64_t pick_enum(struct rnd *r, int32_t aux)
{
    if (aux < 0 || rt_vk_enums[aux].count == 0)
        return 0;
    const struct rt_vk_enum_desc *e = &rt_vk_enums[aux];
    return e->values[next(r) % e->count].value;
}

static uint64_t pick_flags(struct rnd *r, int32_t aux)
{
    uint64_t v = 0;
    if (aux < 0)
        return 0;
    for (uint32_t i = 0; i < rt_vk_enums[aux].count; i++)
        if (next(r) % 4 == 0)
            v |= (uint64_t)rt_vk_enums[aux].values[i].value;
    return v;
}

static char *make_string(struct rnd *r)
{
    size_t n = next(r) % 12;
    char *s = alloc(r, n + 1, 1);
    for (size_t i = 0; s && i < n; i++)
        s[i] = (char)('a' + next(r) % 26);
    return s;
}

static void fill_chain(struct rnd *r, const struct rt_vk_struct_desc *owner, void **head)
{
    void **link = head;
    for (unsigned i = 0; i < MAX_CHAIN_NODES && owner->nextenders && r->depth < MAX_NEST; i++) {
        if (next(r) % 4 == 0)
            break;
        const struct rt_vk_struct_desc *sd = &rt_vk_structs[owner->extenders[next(r) % owner->nextenders]];
        const struct rt_vk_member *pn = rt_vkc_pnext_member(sd);
        if (!pn || reaches_excluded(sd, 0))
            continue;
        void *node = alloc(r, 1, sd->size);
        if (!node)
            return;
        fill_struct(r, sd, node, true);
        *link = node;
        link = (void **)((uint8_t *)node + pn->offset);
    }
}

static void fill_scalar(struct rnd *r, const struct rt_vk_member *m, uint8_t *p)
{
    uint64_t v = next(r);
    if (m->len_scale)
        v = (v % 4) * m->len_scale; /* an array length: keep arrays small */
    else if (m->kind == RT_VK_KIND_ENUM)
        v = (uint64_t)pick_enum(r, m->aux);
    else if (m->kind == RT_VK_KIND_FLAGS)
        v = pick_flags(r, m->aux);
    else if (m->kind == RT_VK_KIND_BOOL32)
        v &= 1;
    else if (m->kind == RT_VK_KIND_FUNCPTR)
        v = 0;
    else if (m->kind == RT_VK_KIND_HANDLE)
        v = v % 1000 + 1;
    rt_vkc_store(p, m->elem_size, v);
}

static void fill_elem(struct rnd *r, const struct rt_vk_struct_desc *owner, const struct rt_vk_member *m,
                      uint8_t *p)
{
    switch (m->kind) {
    case RT_VK_KIND_STRUCT: fill_struct(r, rt_vkc_sub(m), p, false); break;
    case RT_VK_KIND_UNION:
        for (uint32_t i = 0; i < rt_vkc_sub(m)->size; i++)
            p[i] = (uint8_t)next(r);
        break;
    case RT_VK_KIND_STRING: {
        char *s = make_string(r);
        memcpy(p, &s, sizeof s);
        break;
    }
    case RT_VK_KIND_PNEXT: fill_chain(r, owner, (void **)p); break;
    case RT_VK_KIND_CHAR:
    case RT_VK_KIND_VOID: *p = (uint8_t)('a' + next(r) % 26); break;
    default: fill_scalar(r, m, p); break;
    }
}

static void fill_level(struct rnd *r, const struct rt_vk_struct_desc *owner, const struct rt_vk_member *m,
                       const void *base, uint8_t *f, unsigned level)
{
    if (level == m->depth) {
        for (uint32_t i = 0; i < m->count; i++)
            fill_elem(r, owner, m, f + (size_t)i * m->elem_size);
        if (m->kind == RT_VK_KIND_CHAR && m->count)
            f[next(r) % m->count] = '\0'; /* usually a short C string, as drivers write */
        return;
    }
    bool optional = (m->opt_mask >> level) & 1u;
    if (r->depth >= MAX_NEST || (optional && next(r) % 4 == 0))
        return; /* NULL */
    uint64_t n = level == 0 && m->len ? m->len(base) : 1;
    size_t stride = rt_vkc_stride(m, level);
    uint8_t *p = alloc(r, (size_t)n, stride);
    if (!p)
        return;
    memcpy(f, &p, sizeof p);
    for (uint64_t i = 0; i < n; i++)
        fill_level(r, owner, m, base, p + i * stride, level + 1);
}

static void fill_member(struct rnd *r, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                        uint8_t *base)
{
    if (m->bits) {
        m->set(base, m->len_scale ? next(r) % 4 : next(r));
    } else if (strcmp(m->name, "sType") == 0 && sd->has_stype) {
        rt_vkc_store(base + m->offset, 4, sd->stype);
    } else if (m->kind == RT_VK_KIND_UNION && m->selector >= 0 && m->depth == 0) {
        const struct rt_vk_struct_desc *u = rt_vkc_sub(m);
        const struct rt_vk_member *pick = rt_vkc_union_pick(u, rt_vkc_selector_value(sd, m, base));
        if (pick)
            fill_member(r, u, pick, base + m->offset);
        else
            fill_elem(r, sd, m, base + m->offset);
    } else {
        fill_level(r, sd, m, base, base + m->offset, 0);
    }
}

static void fill_struct(struct rnd *r, const struct rt_vk_struct_desc *sd, void *p, bool in_chain)
{
    (void)in_chain;
    if (sd->is_union) {
        for (uint32_t i = 0; i < sd->size; i++)
            ((uint8_t *)p)[i] = (uint8_t)next(r);
        return;
    }
    r->depth++;
    for (uint32_t i = 0; i < sd->nmembers; i++)
        fill_member(r, sd, &sd->members[i], p);
    r->depth--;
}

static rt_status fill_top(const struct rt_vk_struct_desc *sd, const char *what, void *out,
                          struct rt_arena *arena, uint64_t *seed)
{
    struct rnd r = {.arena = arena, .state = seed};
    if (!sd || !sd->compiled || sd->excluded)
        return rt_errorf(RT_ERR_INTERNAL, "random %s: not available", what);
    memset(out, 0, sd->size);
    fill_struct(&r, sd, out, false);
    if (r.oom)
        return rt_errorf(RT_ERR_INTERNAL, "random %s: out of memory", what);
    return rt_ok_status();
}

rt_status rt_vk_random_args(enum rt_vk_cmd cmd, void *args_out, struct rt_arena *arena, uint64_t *seed)
{
    const char *name = rt_vk_cmd_name(cmd);
    return fill_top(rt_vkc_args_desc(cmd), name ? name : "?", args_out, arena, seed);
}

rt_status rt_vk_random_struct(enum rt_vk_struct_type type, void *value_out, struct rt_arena *arena,
                              uint64_t *seed)
{
    if ((unsigned)type >= RT_VK_STRUCT_COUNT)
        return rt_errorf(RT_ERR_INTERNAL, "random: struct id %d out of range", (int)type);
    return fill_top(&rt_vk_structs[type], rt_vk_structs[type].name, value_out, arena, seed);
}

static bool reaches_excluded(const struct rt_vk_struct_desc *sd, unsigned depth)
{
    if (sd->excluded || !sd->compiled)
        return true;
    for (uint32_t i = 0; depth < RT_VKC_MAX_DEPTH && i < sd->nmembers; i++) {
        const struct rt_vk_member *m = &sd->members[i];
        if ((m->kind == RT_VK_KIND_STRUCT || m->kind == RT_VK_KIND_UNION) &&
            reaches_excluded(rt_vkc_sub(m), depth + 1))
            return true;
    }
    return false;
}

bool rt_vk_struct_encodable(enum rt_vk_struct_type type)
{
    return (unsigned)type < RT_VK_STRUCT_COUNT && !reaches_excluded(&rt_vk_structs[type], 0);
}

bool rt_vk_cmd_encodable(enum rt_vk_cmd cmd)
{
    const struct rt_vk_struct_desc *sd = rt_vkc_args_desc(cmd);
    return sd && !rt_vk_commands[cmd].excluded && !reaches_excluded(sd, 0);
}
