/*
 * gen/vkcodec_decode.c — table-driven decoder, the mirror of vkcodec.c, and
 * the entry points, which hand a struct or call with a generated decoder
 * (gen/emit_decode.py, vkcodec_dec.h) to it. The generated decoders call
 * back here for what they do not spell out; the two accept the same bytes
 * with the same errors (tests/unit/test_vkcodec_decoders.c).
 *
 * Safe on untrusted input: every count is checked against the bytes left
 * (rt_dec_check_count, with the element's smallest encoding) before the arena
 * allocation it sizes; a decoded count must equal what the struct's own
 * length member says, so later readers of the struct never run past an
 * array; presence bytes must be 0 or 1; a pNext node must fill exactly its
 * stated body and carry the sType it was filed under.
 */
#include "vkcodec_dec.h"

#define UNKNOWN_NODE UINT32_MAX

static bool dec_member(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                       void *base, bool in_chain);

void *rt_vkc_dec_alloc(struct rt_vkc_pass *c, uint64_t n, size_t size, size_t min_encoded, const char *what)
{
    if (!rt_dec_check_count(c->dec, n, min_encoded)) {
        rt_vkc_fail(c, "count larger than the bytes left", what);
        return NULL;
    }
    void *p = rt_arena_calloc(c->dec->arena, (size_t)(n ? n : 1), size ? size : 1, 16);
    if (!p)
        rt_vkc_fail(c, "allocation refused (arena limit or out of memory)", what);
    return p;
}

static bool skip_unknown(struct rt_vkc_pass *c, uint32_t stype, uint32_t len)
{
    if (len != UNKNOWN_NODE && !rt_dec_bytes(c->dec, len))
        return rt_vkc_fail(c, "truncated pNext node", NULL);
    if (c->stats) {
        c->stats->unknown_stypes++;
        c->stats->last_unknown_stype = stype;
    }
    return true;
}

static bool dec_node(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, uint32_t stype, uint32_t len,
                     void **node_out)
{
    const uint8_t *body = rt_dec_bytes(c->dec, len);
    if (!body)
        return rt_vkc_fail(c, "truncated pNext node", sd->name);
    void *node = rt_vkc_dec_alloc(c, 1, sd->size, 0, sd->name);
    if (!node)
        return false;
    struct rt_dec sub;
    rt_dec_init(&sub, body, len, c->dec->arena);
    struct rt_dec *outer = c->dec;
    c->dec = &sub;
    rt_vkc_dec_fn fn = c->interpreted ? NULL : rt_vk_struct_decoders[sd - rt_vk_structs];
    bool ok = fn ? fn(c, node, true) : rt_vkc_dec_struct(c, sd, node, true);
    c->dec = outer;
    if (!ok || sub.failed) {
        outer->failed = true;
        return rt_vkc_fail(c, "malformed pNext node", sd->name);
    }
    if (rt_dec_left(&sub) != 0)
        return rt_vkc_fail(c, "pNext node has trailing bytes", sd->name);
    if ((uint32_t)rt_vkc_load(node, 4) != stype)
        return rt_vkc_fail(c, "pNext node's sType differs from its header", sd->name);
    *node_out = node;
    return true;
}

bool rt_vkc_dec_chain(struct rt_vkc_pass *c, void **head_out)
{
    void **link = head_out;
    for (unsigned n = 0;; n++) {
        uint8_t more = rt_dec_u8(c->dec);
        if (c->dec->failed)
            return rt_vkc_fail(c, "truncated pNext chain", NULL);
        if (more == 0)
            return true;
        if (more != 1 || n >= RT_VKC_MAX_CHAIN)
            return rt_vkc_fail(c, more != 1 ? "bad pNext node marker" : "pNext chain too long", NULL);
        uint32_t stype = rt_dec_u32(c->dec);
        uint32_t len = rt_dec_u32(c->dec);
        if (c->dec->failed)
            return rt_vkc_fail(c, "truncated pNext chain", NULL);
        int idx = rt_vkc_stype_index(stype);
        if (len == UNKNOWN_NODE || idx < 0 || !rt_vk_structs[idx].compiled) {
            if (!skip_unknown(c, stype, len))
                return false;
            continue;
        }
        const struct rt_vk_struct_desc *sd = &rt_vk_structs[idx];
        const struct rt_vk_member *pn = rt_vkc_pnext_member(sd);
        void *node;
        if (!pn || !dec_node(c, sd, stype, len, &node))
            return pn ? false : rt_vkc_fail(c, "pNext node without pNext", sd->name);
        *link = node;
        link = (void **)((uint8_t *)node + pn->offset);
    }
}

static bool dec_scalar(struct rt_vkc_pass *c, const struct rt_vk_member *m, uint8_t *p)
{
    uint32_t w = rt_vkc_wire_size(m);
    if (w != 1 && w != 2 && w != 4 && w != 8) {
        const uint8_t *raw = rt_dec_bytes(c->dec, m->elem_size);
        if (raw)
            memcpy(p, raw, m->elem_size);
        return raw != NULL || rt_vkc_fail(c, "truncated", m->name);
    }
    uint64_t v = 0;
    const uint8_t *in = rt_dec_bytes(c->dec, w);
    if (!in)
        return rt_vkc_fail(c, "truncated", m->name);
    for (uint32_t i = 0; i < w; i++)
        v |= (uint64_t)in[i] << (8 * i);
    if (m->kind != RT_VK_KIND_FUNCPTR) /* a captured code address means nothing here */
        rt_vkc_store(p, m->elem_size, v);
    return true;
}

static bool dec_elem(struct rt_vkc_pass *c, const struct rt_vk_member *m, uint8_t *p)
{
    switch (m->kind) {
    case RT_VK_KIND_STRUCT:
        return rt_vkc_dec_struct_at(c, m->aux, p);
    case RT_VK_KIND_UNION: {
        const uint8_t *raw = rt_dec_bytes(c->dec, rt_vkc_sub(m)->size);
        if (raw)
            memcpy(p, raw, rt_vkc_sub(m)->size);
        return raw != NULL || rt_vkc_fail(c, "truncated", m->name);
    }
    case RT_VK_KIND_STRING: {
        uint32_t n = rt_dec_u32(c->dec);
        if (c->dec->failed)
            return rt_vkc_fail(c, "truncated string", m->name);
        if (n == UINT32_MAX)
            return true;
        const uint8_t *s = rt_dec_bytes(c->dec, n);
        char *copy = s ? rt_arena_strndup(c->dec->arena, (const char *)s, n) : NULL;
        if (!copy || memchr(copy, 0, n))
            return rt_vkc_fail(c, s ? "bad string" : "truncated string", m->name);
        memcpy(p, &copy, sizeof copy);
        return true;
    }
    case RT_VK_KIND_PNEXT:
        return rt_vkc_dec_chain(c, (void **)p);
    default:
        return dec_scalar(c, m, p);
    }
}

static bool dec_bytes(struct rt_vkc_pass *c, const struct rt_vk_member *m, uint8_t *p, size_t n)
{
    const uint8_t *raw = rt_dec_bytes(c->dec, n);
    if (!raw)
        return rt_vkc_fail(c, "truncated", m->name);
    memcpy(p, raw, n);
    return true;
}

static size_t elem_min_encoded(const struct rt_vk_member *m, unsigned level)
{
    if (level + 1u < m->depth)
        return 1; /* a presence byte */
    if (m->kind == RT_VK_KIND_STRUCT)
        return rt_vkc_sub(m)->min_encoded;
    if (m->kind == RT_VK_KIND_STRING)
        return 4;
    return rt_vkc_is_scalar(m->kind) ? rt_vkc_wire_size(m) : 1;
}

static bool dec_level(struct rt_vkc_pass *c, const struct rt_vk_member *m, void *base, uint8_t *field,
                      unsigned level)
{
    if (level == m->depth) {
        if (m->kind == RT_VK_KIND_CHAR || m->kind == RT_VK_KIND_VOID)
            return dec_bytes(c, m, field, m->count);
        for (uint32_t i = 0; i < m->count; i++)
            if (!dec_elem(c, m, field + (size_t)i * m->elem_size))
                return false;
        return true;
    }
    uint8_t present = rt_dec_u8(c->dec);
    if (c->dec->failed || present > 1)
        return rt_vkc_fail(c, present > 1 ? "bad presence byte" : "truncated", m->name);
    if (!present)
        return true;
    uint64_t n = 1;
    if (level == 0 && m->len) {
        n = rt_dec_u32(c->dec);
        if (c->dec->failed || n != m->len(base))
            return rt_vkc_fail(c, c->dec->failed ? "truncated" : "array count differs from its length member",
                        m->name);
    }
    size_t stride = rt_vkc_stride(m, level);
    uint8_t *p = rt_vkc_dec_alloc(c, n, stride, elem_min_encoded(m, level), m->name);
    if (!p)
        return false;
    memcpy(field, &p, sizeof p);
    if (level + 1u == m->depth && m->kind == RT_VK_KIND_VOID)
        return dec_bytes(c, m, p, (size_t)n);
    for (uint64_t i = 0; i < n; i++)
        if (!dec_level(c, m, base, p + i * stride, level + 1))
            return false;
    return true;
}

static bool dec_member(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                       void *base, bool in_chain)
{
    uint8_t *b = base;
    if (m->kind == RT_VK_KIND_PNEXT && in_chain)
        return true; /* dec_chain links the next node */
    if (m->bits) {
        uint32_t v = rt_dec_u32(c->dec);
        if (c->dec->failed)
            return rt_vkc_fail(c, "truncated", m->name);
        m->set(base, v);
        return true;
    }
    if (m->kind == RT_VK_KIND_UNION && m->selector >= 0 && m->depth == 0) {
        const struct rt_vk_struct_desc *u = rt_vkc_sub(m);
        const struct rt_vk_member *pick = rt_vkc_union_pick(u, rt_vkc_selector_value(sd, m, base));
        if (!pick)
            return dec_bytes(c, m, b + m->offset, u->size);
        return dec_member(c, u, pick, b + m->offset, false);
    }
    return dec_level(c, m, base, b + m->offset, 0);
}

bool rt_vkc_dec_members(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, void *base, bool in_chain,
                        uint32_t first, uint32_t end)
{
    for (uint32_t i = first; i < end; i++)
        if (!dec_member(c, sd, &sd->members[i], base, in_chain))
            return false;
    return true;
}

bool rt_vkc_dec_struct(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, void *p, bool in_chain)
{
    if (!rt_vkc_enter_struct(c, sd))
        return false;
    if (sd->is_union) { /* a union on its own has no selector: its bytes */
        c->depth--;
        return dec_bytes(c, &sd->members[0], p, sd->size);
    }
    if (!rt_vkc_dec_members(c, sd, p, in_chain, 0, sd->nmembers))
        return false;
    c->depth--;
    return true;
}

/* fn: the generated decoder of sd, or NULL (the interpreter). */
static rt_status dec_top(struct rt_dec *dec, const struct rt_vk_struct_desc *sd, rt_vkc_dec_fn fn, const char *what,
                         void *out, struct rt_vk_stats *stats)
{
    struct rt_vkc_pass c = {.dec = dec, .stats = stats};
    if (!sd)
        return rt_errorf(RT_ERR_BAD_INPUT, "decoding %s: not decodable by the generated codec", what);
    if (!dec->arena)
        return rt_errorf(RT_ERR_INTERNAL, "decoding %s: no arena", what);
    memset(out, 0, sd->size);
    if (dec->failed || !(fn ? fn(&c, out, false) : rt_vkc_dec_struct(&c, sd, out, false)) || dec->failed) {
        return rt_errorf(RT_ERR_BAD_INPUT, "decoding %s: %s%s%s", what, c.err_where ? c.err_where : "",
                         c.err_where ? ": " : "", c.err ? c.err : "truncated");
    }
    return rt_ok_status();
}

/* Every replayed call: a command with a generated decoder is neither
 * excluded nor without its argument block (gen/emit_decode.py). */
rt_status rt_vk_decode_call_stats(struct rt_dec *dec, enum rt_vk_cmd cmd, void *args_out,
                                  struct rt_vk_stats *stats)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT)
        return rt_errorf(RT_ERR_BAD_INPUT, "decoding: command id %d out of range", (int)cmd);
    rt_vkc_dec_fn fn = rt_vk_command_decoders[cmd];
    if (fn)
        return dec_top(dec, rt_vk_commands[cmd].args, fn, rt_vk_commands[cmd].name, args_out, stats);
    if (rt_vk_commands[cmd].excluded)
        return rt_errorf(RT_ERR_BAD_INPUT, "decoding %s: hand-written: %s", rt_vk_commands[cmd].name,
                         rt_vk_commands[cmd].excluded);
    return dec_top(dec, rt_vkc_args_desc(cmd), NULL, rt_vk_commands[cmd].name, args_out, stats);
}

rt_status rt_vk_decode_call(struct rt_dec *dec, enum rt_vk_cmd cmd, void *args_out)
{
    return rt_vk_decode_call_stats(dec, cmd, args_out, NULL);
}

rt_status rt_vk_decode_struct(struct rt_dec *dec, enum rt_vk_struct_type type, void *value_out)
{
    if ((unsigned)type >= RT_VK_STRUCT_COUNT)
        return rt_errorf(RT_ERR_BAD_INPUT, "decoding: struct id %d out of range", (int)type);
    return dec_top(dec, &rt_vk_structs[type], rt_vk_struct_decoders[type], rt_vk_structs[type].name, value_out, NULL);
}
