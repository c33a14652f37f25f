/*
 * gen/vkcodec.c — table-driven encoder and decoder (see vkcodec.h and the
 * wire form in gen/README.md).
 *
 * A member is walked level by level: each pointer level writes a presence
 * byte, then (level 0 with a length) a u32 count, then its elements. Scalars
 * travel as little-endian numbers of their size (size_t, handles, opaque
 * values and function pointers as 8 bytes), strings as rt_enc_str, unions by
 * their selector's member or as raw bytes, pNext as nodes
 * `u8 1, u32 sType, u32 body bytes, body` ended by `u8 0`.
 */
#include <stdlib.h>

#include "vkcodec_enc.h"

#define UNKNOWN_NODE UINT32_MAX /* body length of a node the encoder could not encode */

/* ---- shared lookups ----------------------------------------------------- */

static int cmp_stype(const void *key, const void *item)
{
    uint32_t k = *(const uint32_t *)key;
    uint32_t s = ((const struct rt_vk_stype_entry *)item)->stype;
    return k < s ? -1 : k > s;
}

int rt_vkc_stype_index(uint32_t stype)
{
    const struct rt_vk_stype_entry *e = bsearch(&stype, rt_vk_stype_map, rt_vk_stype_map_count,
                                                sizeof *e, cmp_stype);
    return e ? e->index : -1;
}

const struct rt_vk_member *rt_vkc_pnext_member(const struct rt_vk_struct_desc *sd)
{
    for (uint32_t i = 0; i < sd->nmembers; i++)
        if (sd->members[i].kind == RT_VK_KIND_PNEXT)
            return &sd->members[i];
    return NULL;
}

int64_t rt_vkc_selector_value(const struct rt_vk_struct_desc *parent, const struct rt_vk_member *m,
                              const void *base)
{
    const struct rt_vk_member *s = &parent->members[m->selector];
    uint64_t v = rt_vkc_load((const uint8_t *)base + s->offset, s->elem_size);
    return s->elem_size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

const struct rt_vk_member *rt_vkc_union_pick(const struct rt_vk_struct_desc *u, int64_t sel)
{
    for (uint32_t i = 0; i < u->nmembers; i++)
        for (uint32_t j = 0; j < u->members[i].nselection; j++)
            if (u->members[i].selection[j] == sel)
                return &u->members[i];
    return NULL;
}

const struct rt_vk_struct_desc *rt_vkc_args_desc(enum rt_vk_cmd cmd)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT)
        return NULL;
    return rt_vk_commands[cmd].args;
}

/* ---- encoding ----------------------------------------------------------- */

bool rt_vkc_enc_chain(struct rt_vkc_pass *c, const void *node)
{
    for (unsigned n = 0; node; n++) {
        if (n >= RT_VKC_MAX_CHAIN)
            return rt_vkc_fail(c, "pNext chain too long or cyclic", NULL);
        uint32_t stype = (uint32_t)rt_vkc_load(node, 4);
        int idx = rt_vkc_stype_index(stype);
        rt_vkc_enc_u8(c->enc, 1);
        rt_vkc_enc_u32(c->enc, stype);
        if (idx < 0 || !rt_vk_structs[idx].compiled) {
            /* Recorded, never silently dropped: the decoder counts it too. */
            rt_vkc_enc_u32(c->enc, UNKNOWN_NODE);
            if (c->stats) {
                c->stats->unknown_stypes++;
                c->stats->last_unknown_stype = stype;
            }
            node = ((const VkBaseInStructure *)node)->pNext;
            continue;
        }
        const struct rt_vk_struct_desc *sd = &rt_vk_structs[idx];
        size_t at = c->enc->size;
        rt_vkc_enc_u32(c->enc, 0);
        rt_vkc_enc_fn fn = rt_vk_struct_encoders[idx];
        if (!(fn ? fn(c, node, true) : rt_vkc_enc_struct(c, sd, node, true)))
            return false;
        size_t body = c->enc->size - at - 4;
        if (body >= UNKNOWN_NODE)
            return rt_vkc_fail(c, "pNext node too large", sd->name);
        rt_enc_patch_u32(c->enc, at, (uint32_t)body);
        const struct rt_vk_member *pn = rt_vkc_pnext_member(sd);
        node = pn ? *(const void *const *)((const uint8_t *)node + pn->offset) : NULL;
    }
    rt_vkc_enc_u8(c->enc, 0);
    return true;
}

static bool enc_elem(struct rt_vkc_pass *c, const struct rt_vk_member *m, const uint8_t *p)
{
    switch (m->kind) {
    case RT_VK_KIND_STRUCT:
        return rt_vkc_enc_struct_at(c, m->aux, p);
    case RT_VK_KIND_UNION:
        rt_vkc_enc_bytes(c->enc, p, rt_vkc_sub(m)->size);
        return true;
    case RT_VK_KIND_STRING:
        rt_enc_str(c->enc, *(const char *const *)p);
        return true;
    case RT_VK_KIND_PNEXT:
        return rt_vkc_enc_chain(c, *(const void *const *)p);
    case RT_VK_KIND_CHAR:
    case RT_VK_KIND_VOID:
        rt_vkc_enc_bytes(c->enc, p, 1);
        return true;
    default: {
        uint32_t w = rt_vkc_wire_size(m);
        if (w != 1 && w != 2 && w != 4 && w != 8)
            rt_vkc_enc_bytes(c->enc, p, m->elem_size);
        else
            rt_vkc_enc_scalar(c->enc, p, m->elem_size, w);
        return true;
    }
    }
}

static bool enc_level(struct rt_vkc_pass *c, const struct rt_vk_member *m, const void *base,
                      const uint8_t *field, unsigned level)
{
    if (level == m->depth) {
        if (m->kind == RT_VK_KIND_CHAR || m->kind == RT_VK_KIND_VOID) {
            rt_vkc_enc_bytes(c->enc, field, m->count);
            return true;
        }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* An array of numbers whose wire size is their size: its bytes. */
        if (m->count > 1 && rt_vkc_is_scalar(m->kind) && rt_vkc_wire_size(m) == m->elem_size) {
            rt_vkc_enc_bytes(c->enc, field, (size_t)m->count * m->elem_size);
            return true;
        }
#endif
        for (uint32_t i = 0; i < m->count; i++)
            if (!enc_elem(c, m, field + (size_t)i * m->elem_size))
                return false;
        return true;
    }
    const uint8_t *p = *(const uint8_t *const *)field;
    rt_vkc_enc_u8(c->enc, p != NULL);
    if (!p)
        return true;
    uint64_t n = 1;
    if (level == 0 && m->len) {
        n = m->len(base);
        if (n > UINT32_MAX)
            return rt_vkc_fail(c, "array longer than 2^32 elements", m->name);
        rt_vkc_enc_u32(c->enc, (uint32_t)n);
    }
    if (level + 1u == m->depth && m->kind == RT_VK_KIND_VOID) {
        rt_vkc_enc_bytes(c->enc, p, (size_t)n);
        return true;
    }
    size_t stride = rt_vkc_stride(m, level);
    for (uint64_t i = 0; i < n; i++)
        if (!enc_level(c, m, base, p + i * stride, level + 1))
            return false;
    return true;
}

static bool enc_union_selected(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd,
                               const struct rt_vk_member *m, const uint8_t *base)
{
    const struct rt_vk_struct_desc *u = rt_vkc_sub(m);
    const struct rt_vk_member *pick = rt_vkc_union_pick(u, rt_vkc_selector_value(sd, m, base));
    if (!pick) {
        rt_vkc_enc_bytes(c->enc, base + m->offset, u->size);
        return true;
    }
    return rt_vkc_enc_member(c, u, pick, base + m->offset, false);
}

bool rt_vkc_enc_member(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                       const void *base, bool in_chain)
{
    const uint8_t *b = base;
    if (m->kind == RT_VK_KIND_PNEXT && in_chain)
        return true; /* the chain walker follows it */
    if (m->bits) {
        rt_vkc_enc_u32(c->enc, (uint32_t)m->get(base));
        return true;
    }
    if (m->kind == RT_VK_KIND_UNION && m->selector >= 0 && m->depth == 0)
        return enc_union_selected(c, sd, m, b);
    return enc_level(c, m, base, b + m->offset, 0);
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* A member whose wire form is its bytes in memory: a number (or a fixed
 * array of them) whose wire size is its size, or chars, held in the struct
 * itself (no pointer level, no bitfield). enc_member would write exactly
 * those bytes (enc_level's array copy, enc_scalar's memcpy, CHAR's bytes). */
static inline bool wire_is_memory(const struct rt_vk_member *m)
{
    if (m->depth || m->bits)
        return false;
    if (m->kind == RT_VK_KIND_CHAR)
        return m->elem_size == 1;
    return rt_vkc_is_scalar(m->kind) && rt_vkc_wire_size(m) == m->elem_size &&
           (m->elem_size == 1 || m->elem_size == 2 || m->elem_size == 4 || m->elem_size == 8);
}
#endif

bool rt_vkc_enc_struct(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, const void *p, bool in_chain)
{
    if (!rt_vkc_enter_struct(c, sd))
        return false;
    if (sd->is_union) { /* a union on its own has no selector: its bytes */
        rt_vkc_enc_bytes(c->enc, p, sd->size);
        c->depth--;
        return true;
    }
    const struct rt_vk_member *members = sd->members;
    for (uint32_t i = 0; i < sd->nmembers;) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* Members next to each other in memory whose wire form is their
         * bytes (a barrier's masks, layouts and queue families, a draw's
         * counts) go out as one copy: the same bytes member by member would
         * write, without a table walk per member (the encoder was ~1,800
         * instructions per call of glxgears through zink, bench/README.md). */
        if (wire_is_memory(&members[i])) {
            uint32_t start = members[i].offset;
            uint32_t end = start + members[i].count * members[i].elem_size;
            uint32_t j = i + 1;
            while (j < sd->nmembers && members[j].offset == end && wire_is_memory(&members[j])) {
                end += members[j].count * members[j].elem_size;
                j++;
            }
            rt_vkc_enc_bytes(c->enc, (const uint8_t *)p + start, end - start);
            i = j;
            continue;
        }
#endif
        if (!rt_vkc_enc_member(c, sd, &members[i], p, in_chain))
            return false;
        i++;
    }
    c->depth--;
    return true;
}

/* What a pass that ended (ok: its encoder's answer) tells its caller. */
static rt_status enc_result(const struct rt_enc *enc, const struct rt_vkc_pass *c, bool ok, const char *what)
{
    if (!ok)
        return rt_errorf(RT_ERR_INTERNAL, "encoding %s: %s%s%s", what, c->err_where ? c->err_where : "",
                         c->err_where ? ": " : "", c->err);
    if (enc->failed)
        return rt_errorf(RT_ERR_INTERNAL, "encoding %s: out of memory", what);
    return rt_ok_status();
}

/* sd by its generated encoder fn where there is one (NULL: the interpreter). */
static rt_status enc_top(struct rt_enc *enc, const struct rt_vk_struct_desc *sd, rt_vkc_enc_fn fn,
                         const char *what, const void *value, struct rt_vk_stats *stats)
{
    struct rt_vkc_pass c = {.enc = enc, .stats = stats};
    if (!sd)
        return rt_errorf(RT_ERR_INTERNAL, "encoding %s: not encodable by the generated codec", what);
    bool ok = fn ? fn(&c, value, false) : rt_vkc_enc_struct(&c, sd, value, false);
    return enc_result(enc, &c, ok, what);
}

rt_status rt_vk_encode_call_stats(struct rt_enc *enc, enum rt_vk_cmd cmd, const void *args,
                                  struct rt_vk_stats *stats)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT)
        return rt_errorf(RT_ERR_INTERNAL, "encoding: command id %d out of range", (int)cmd);
    /* Every captured call: a command with a generated encoder is neither
     * excluded nor without its argument block (gen/emit_encode.py), so its
     * table entry is read only to name an error. */
    rt_vkc_enc_fn fn = rt_vk_command_encoders[cmd];
    if (fn) {
        struct rt_vkc_pass c = {.enc = enc, .stats = stats};
        bool ok = fn(&c, args, false);
        if (ok && !enc->failed)
            return rt_ok_status();
        return enc_result(enc, &c, ok, rt_vk_commands[cmd].name);
    }
    const char *excluded = rt_vk_commands[cmd].excluded;
    if (excluded)
        return rt_errorf(RT_ERR_INTERNAL, "encoding %s: hand-written: %s", rt_vk_commands[cmd].name,
                         excluded);
    return enc_top(enc, rt_vkc_args_desc(cmd), NULL, rt_vk_commands[cmd].name, args, stats);
}

rt_status rt_vk_encode_call(struct rt_enc *enc, enum rt_vk_cmd cmd, const void *args)
{
    return rt_vk_encode_call_stats(enc, cmd, args, NULL);
}

rt_status rt_vk_encode_struct(struct rt_enc *enc, enum rt_vk_struct_type type, const void *value)
{
    if ((unsigned)type >= RT_VK_STRUCT_COUNT)
        return rt_errorf(RT_ERR_INTERNAL, "encoding: struct id %d out of range", (int)type);
    return enc_top(enc, &rt_vk_structs[type], rt_vk_struct_encoders[type], rt_vk_structs[type].name, value, NULL);
}

size_t rt_vk_args_size(enum rt_vk_cmd cmd)
{
    const struct rt_vk_struct_desc *sd = rt_vkc_args_desc(cmd);
    return sd && !sd->excluded ? sd->size : 0;
}

size_t rt_vk_struct_size(enum rt_vk_struct_type type)
{
    return (unsigned)type < RT_VK_STRUCT_COUNT ? rt_vk_structs[type].size : 0;
}

bool rt_vk_struct_from_stype(uint32_t stype, enum rt_vk_struct_type *type_out)
{
    int idx = rt_vkc_stype_index(stype);
    if (idx < 0)
        return false;
    *type_out = (enum rt_vk_struct_type)idx;
    return true;
}
