/*
 * gen/gfxr/gfxr_decode.c — GFXReconstruct's parameter encoding, read by walking
 * retrace's descriptor tables (the same tables vkcodec_decode.c walks), so no
 * command or struct is written by hand here; the exceptions are the union
 * rules (generated from gfxr_rules.py) and VkDescriptorImageInfo's ignored
 * handles (fix_image_infos, below).
 *
 * GFXReconstruct writes every member in vk.xml order. A pointer, a string
 * and a fixed-size array start with pointer attributes (u32), then an address
 * (u64) when it says so, then a length (u64) for arrays and strings, then the
 * data when it says so. Safe on untrusted input: a count sizes an allocation
 * only after rt_dec_check_count saw that many bytes left.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "gfxr/gfxr_codec_internal.h"

enum {
    ATTR_NULL = 0x1,
    ATTR_SINGLE = 0x2,
    ATTR_ARRAY = 0x4,
    ATTR_STRING = 0x8,
    ATTR_WSTRING = 0x10,
    ATTR_STRUCT = 0x20,
    ATTR_ADDRESS = 0x40,
    ATTR_DATA = 0x80,
    ATTR_ARRAY2D = 0x100,
    ATTR_KNOWN = 0x1ff,
};

struct preamble {
    bool null, data;
    uint64_t len; /* elements (characters for a string); 1 for a single value */
};

struct pass {
    struct rt_vkc_pass c;
    unsigned chain; /* pNext nodes of the current chain, nested in GFXReconstruct's encoding */
    char msg[160]; /* a formatted reason, when c.err points here */
};

static bool failf(struct pass *p, const char *where, const char *fmt, uint64_t value)
{
    snprintf(p->msg, sizeof p->msg, fmt, value);
    return rt_vkc_fail(&p->c, p->msg, where);
}

static bool dec_struct(struct pass *p, const struct rt_vk_struct_desc *sd, void *out);
static bool dec_member(struct pass *p, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                       void *base);

static bool read_preamble(struct pass *p, const struct rt_vk_member *m, struct preamble *pre)
{
    struct rt_dec *d = p->c.dec;
    uint32_t attr = rt_dec_u32(d);
    if (d->failed)
        return rt_vkc_fail(&p->c, "truncated pointer attributes", m->name);
    if (attr & ~(uint32_t)ATTR_KNOWN)
        return failf(p, m->name, "unknown pointer attributes 0x%" PRIx64, attr);
    if (attr & ATTR_WSTRING)
        return rt_vkc_fail(&p->c, "UTF-16 string (not a Vulkan type)", m->name);
    *pre = (struct preamble){.null = attr & ATTR_NULL, .data = attr & ATTR_DATA, .len = 1};
    if (pre->null)
        return true;
    if (attr & ATTR_ADDRESS)
        (void)rt_dec_u64(d);
    if (attr & (ATTR_ARRAY | ATTR_STRING | ATTR_ARRAY2D))
        pre->len = rt_dec_u64(d);
    return !d->failed || rt_vkc_fail(&p->c, "truncated pointer", m->name);
}

static void *alloc(struct pass *p, uint64_t n, size_t size, const char *what)
{
    if (!rt_dec_check_count(p->c.dec, n, 1)) {
        rt_vkc_fail(&p->c, "count larger than the bytes left", what);
        return NULL;
    }
    void *mem = rt_arena_calloc(p->c.dec->arena, (size_t)(n ? n : 1), size ? size : 1, 16);
    if (!mem)
        rt_vkc_fail(&p->c, "allocation refused (arena limit or out of memory)", what);
    return mem;
}

/* The bytes one scalar takes in GFXReconstruct's encoding. */
static uint32_t wire_size(const struct rt_vk_member *m)
{
    switch (m->kind) {
    case RT_VK_KIND_BOOL32:
    case RT_VK_KIND_ENUM:
        return 4;
    case RT_VK_KIND_SIZE:
    case RT_VK_KIND_HANDLE:
    case RT_VK_KIND_FUNCPTR:
        return 8;
    default:
        return m->elem_size;
    }
}

static bool dec_scalar(struct pass *p, const struct rt_vk_member *m, uint8_t *out)
{
    uint32_t w = wire_size(m);
    const uint8_t *in = rt_dec_bytes(p->c.dec, w);
    if (!in)
        return rt_vkc_fail(&p->c, "truncated", m->name);
    if (w != 1 && w != 2 && w != 4 && w != 8) {
        memcpy(out, in, m->elem_size);
        return true;
    }
    uint64_t v = 0;
    for (uint32_t i = 0; i < w; i++)
        v |= (uint64_t)in[i] << (8 * i);
    if (m->kind != RT_VK_KIND_FUNCPTR) /* a captured code address means nothing here */
        rt_vkc_store(out, m->elem_size, v);
    return true;
}

static const struct rt_gfxr_union_rule *union_rule(const struct rt_vk_struct_desc *u)
{
    for (uint32_t i = 0; i < rt_gfxr_union_rule_count; i++)
        if (&rt_vk_structs[rt_gfxr_union_rules[i].type] == u)
            return &rt_gfxr_union_rules[i];
    return NULL;
}

/* A union without a selector: gfxr_rules.py says how GFXReconstruct wrote it. */
static bool dec_union(struct pass *p, const struct rt_vk_struct_desc *u, uint8_t *out)
{
    const struct rt_gfxr_union_rule *rule = union_rule(u);
    if (!rule)
        return rt_vkc_fail(&p->c, "union without a GFXReconstruct rule (gen/gfxr/gfxr_rules.py)", u->name);
    if (rule->kind == RT_GFXR_UNION_U64) {
        uint64_t v = rt_dec_u64(p->c.dec);
        if (u->size >= 8)
            memcpy(out, &v, 8);
        return !p->c.dec->failed || rt_vkc_fail(&p->c, "truncated", u->name);
    }
    struct preamble pre;
    if (!read_preamble(p, &u->members[0], &pre))
        return false;
    if (pre.null || !pre.data || pre.len != 4)
        return rt_vkc_fail(&p->c, "expected four 32-bit values", u->name);
    const uint8_t *raw = rt_dec_bytes(p->c.dec, 16);
    if (raw && u->size >= 16)
        memcpy(out, raw, 16);
    return raw != NULL || rt_vkc_fail(&p->c, "truncated", u->name);
}

/* A pNext chain: a struct pointer whose data starts with the node's sType;
 * the node's own pNext member carries the rest of the chain. */
static bool dec_pnext(struct pass *p, const struct rt_vk_member *m, void **out)
{
    struct preamble pre;
    if (!read_preamble(p, m, &pre))
        return false;
    if (pre.null || !pre.data)
        return true;
    if (rt_dec_left(p->c.dec) < 4)
        return rt_vkc_fail(&p->c, "truncated pNext node", m->name);
    uint32_t stype;
    memcpy(&stype, p->c.dec->pos, 4);
    int idx = rt_vkc_stype_index(stype);
    if (idx < 0 || !rt_vk_structs[idx].compiled)
        return failf(p, m->name, "pNext structure with sType %" PRIu64 " is not known to retrace's tables",
                     stype);
    void *node = alloc(p, 1, rt_vk_structs[idx].size, rt_vk_structs[idx].name);
    if (!node)
        return false;
    /* Each node holds the next one, but a chain is one level of nesting,
     * bounded by its length (as retrace's own decoder bounds it). */
    if (++p->chain > RT_VKC_MAX_CHAIN)
        return rt_vkc_fail(&p->c, "pNext chain too long", m->name);
    unsigned depth = p->c.depth;
    p->c.depth = p->chain == 1 ? depth : depth - 1;
    unsigned saved_chain = p->chain;
    bool ok = dec_struct(p, &rt_vk_structs[idx], node);
    p->c.depth = depth;
    p->chain = saved_chain - 1;
    *out = node;
    return ok;
}

static bool dec_string(struct pass *p, const struct rt_vk_member *m, char **out)
{
    struct preamble pre;
    if (!read_preamble(p, m, &pre))
        return false;
    if (pre.null || !pre.data)
        return true;
    const uint8_t *s = rt_dec_bytes(p->c.dec, pre.len);
    if (!s)
        return rt_vkc_fail(&p->c, "truncated string", m->name);
    char *copy = rt_arena_strndup(p->c.dec->arena, (const char *)s, (size_t)pre.len);
    if (!copy || memchr(s, 0, (size_t)pre.len))
        return rt_vkc_fail(&p->c, copy ? "string with a NUL inside" : "allocation refused", m->name);
    *out = copy;
    return true;
}

static bool dec_elem(struct pass *p, const struct rt_vk_member *m, uint8_t *out)
{
    switch (m->kind) {
    case RT_VK_KIND_STRUCT:
        return dec_struct(p, rt_vkc_sub(m), out);
    case RT_VK_KIND_UNION:
        return dec_union(p, rt_vkc_sub(m), out);
    case RT_VK_KIND_STRING:
        return dec_string(p, m, (char **)out);
    case RT_VK_KIND_PNEXT:
        return dec_pnext(p, m, (void **)out);
    default:
        return dec_scalar(p, m, out);
    }
}

/* A fixed-size array travels with its used length (a string with its strlen,
 * memoryTypes with memoryTypeCount); the rest stays zero. */
static bool dec_fixed(struct pass *p, const struct rt_vk_member *m, uint8_t *field)
{
    struct preamble pre;
    if (!read_preamble(p, m, &pre))
        return false;
    if (pre.null || !pre.data)
        return true;
    if (pre.len > m->count - (m->kind == RT_VK_KIND_CHAR))
        return failf(p, m->name, "%" PRIu64 " elements in a fixed array that holds fewer", pre.len);
    if (m->kind == RT_VK_KIND_CHAR || m->kind == RT_VK_KIND_VOID) {
        const uint8_t *raw = rt_dec_bytes(p->c.dec, (size_t)pre.len);
        if (raw)
            memcpy(field, raw, (size_t)pre.len);
        return raw != NULL || rt_vkc_fail(&p->c, "truncated", m->name);
    }
    for (uint64_t i = 0; i < pre.len; i++)
        if (!dec_elem(p, m, field + i * m->elem_size))
            return false;
    return true;
}

static bool dec_level(struct pass *p, const struct rt_vk_member *m, void *base, uint8_t *field, unsigned level)
{
    if (level == m->depth)
        return m->count > 1 || m->kind == RT_VK_KIND_CHAR ? dec_fixed(p, m, field) : dec_elem(p, m, field);
    struct preamble pre;
    if (!read_preamble(p, m, &pre))
        return false;
    if (pre.null || !pre.data)
        return true; /* NULL, or written without its data (an output of a failed call) */
    if (level == 0 && m->len && pre.len < m->len(base))
        return failf(p, m->name, "%" PRIu64 " elements, fewer than its length member says", pre.len);
    size_t stride = rt_vkc_stride(m, level);
    uint8_t *arr = alloc(p, pre.len, stride, m->name);
    if (!arr)
        return false;
    memcpy(field, &arr, sizeof arr);
    if (level + 1u == m->depth && m->kind == RT_VK_KIND_VOID) {
        const uint8_t *raw = rt_dec_bytes(p->c.dec, (size_t)pre.len);
        if (raw)
            memcpy(arr, raw, (size_t)pre.len);
        return raw != NULL || rt_vkc_fail(&p->c, "truncated", m->name);
    }
    for (uint64_t i = 0; i < pre.len; i++)
        if (!dec_level(p, m, base, arr + i * stride, level + 1))
            return false;
    return true;
}

static bool dec_member(struct pass *p, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                       void *base)
{
    uint8_t *b = base;
    if (m->bits) {
        uint32_t v = rt_dec_u32(p->c.dec);
        if (p->c.dec->failed)
            return rt_vkc_fail(&p->c, "truncated", m->name);
        m->set(base, v);
        return true;
    }
    if (m->kind == RT_VK_KIND_UNION && m->selector >= 0 && m->depth == 0) {
        const struct rt_vk_struct_desc *u = rt_vkc_sub(m);
        const struct rt_vk_member *pick = rt_vkc_union_pick(u, rt_vkc_selector_value(sd, m, base));
        return !pick || dec_member(p, u, pick, b + m->offset); /* no pick: GFXReconstruct wrote nothing */
    }
    return dec_level(p, m, base, b + m->offset, 0);
}

/* Exception (GFXReconstruct's VkDescriptorImageInfo encoder): the handle a
 * descriptor type ignores is written as its raw value, not a handle id, so it
 * would name nothing (or, worse, another object) in the imported trace. */
static void fix_image_infos(VkWriteDescriptorSet *w)
{
    VkDescriptorImageInfo *info = (VkDescriptorImageInfo *)w->pImageInfo;
    bool sampler = w->descriptorType == VK_DESCRIPTOR_TYPE_SAMPLER ||
                   w->descriptorType == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    for (uint32_t i = 0; info && i < w->descriptorCount; i++) {
        if (!sampler)
            info[i].sampler = VK_NULL_HANDLE;
        if (w->descriptorType == VK_DESCRIPTOR_TYPE_SAMPLER)
            info[i].imageView = VK_NULL_HANDLE;
    }
}

static bool dec_struct(struct pass *p, const struct rt_vk_struct_desc *sd, void *out)
{
    if (!rt_vkc_enter_struct(&p->c, sd))
        return false;
    bool ok = true;
    if (sd->is_union)
        ok = dec_union(p, sd, out);
    for (uint32_t i = 0; ok && !sd->is_union && i < sd->nmembers; i++)
        ok = dec_member(p, sd, &sd->members[i], out);
    if (ok && sd == &rt_vk_structs[RT_VK_STRUCT_VkWriteDescriptorSet])
        fix_image_infos(out);
    p->c.depth--;
    return ok;
}

static rt_status dec_top(struct rt_dec *dec, const struct rt_vk_struct_desc *sd, const char *what, void *out)
{
    struct pass p = {.c = {.dec = dec}};
    if (!sd)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: not decodable by the generated codec", what);
    if (!dec->arena)
        return rt_errorf(RT_ERR_INTERNAL, "decoding %s: no arena", what);
    memset(out, 0, sd->size);
    if (dec->failed || !dec_struct(&p, sd, out) || dec->failed)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %s%s%s", what, p.c.err_where ? p.c.err_where : "",
                         p.c.err_where ? ": " : "", p.c.err ? p.c.err : "truncated");
    return rt_ok_status();
}

rt_status rt_gfxr_decode_call(struct rt_dec *dec, enum rt_vk_cmd cmd, void *args_out)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT)
        return rt_errorf(RT_ERR_BAD_INPUT, "command id %d out of range", (int)cmd);
    if (rt_vk_commands[cmd].excluded)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: not covered by retrace's codec: %s", rt_vk_commands[cmd].name,
                         rt_vk_commands[cmd].excluded);
    RT_TRY(dec_top(dec, rt_vkc_args_desc(cmd), rt_vk_commands[cmd].name, args_out));
    if (rt_dec_left(dec))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %zu bytes left after its parameters", rt_vk_commands[cmd].name,
                         rt_dec_left(dec));
    return rt_ok_status();
}

rt_status rt_gfxr_decode_struct(struct rt_dec *dec, enum rt_vk_struct_type type, void *value_out)
{
    if ((unsigned)type >= RT_VK_STRUCT_COUNT)
        return rt_errorf(RT_ERR_BAD_INPUT, "struct id %d out of range", (int)type);
    return dec_top(dec, &rt_vk_structs[type], rt_vk_structs[type].name, value_out);
}

uint64_t rt_gfxr_return_value(enum rt_vk_cmd cmd, const void *args)
{
    const struct rt_vk_struct_desc *sd = rt_vkc_args_desc(cmd);
    if (!sd || !sd->nmembers || strcmp(sd->members[sd->nmembers - 1].name, "result") != 0)
        return 0;
    const struct rt_vk_member *m = &sd->members[sd->nmembers - 1];
    uint64_t v = rt_vkc_load((const uint8_t *)args + m->offset, m->elem_size);
    bool is_signed = m->kind == RT_VK_KIND_ENUM || m->kind == RT_VK_KIND_SINT;
    return is_signed && m->elem_size == 4 ? (uint64_t)(int64_t)(int32_t)(uint32_t)v : v;
}

static int cmp_call(const void *key, const void *elem)
{
    uint32_t id = *(const uint32_t *)key, other = ((const struct rt_gfxr_call *)elem)->id;
    return id < other ? -1 : id > other;
}

const struct rt_gfxr_call *rt_gfxr_call_find(uint32_t id)
{
    return bsearch(&id, rt_gfxr_calls, rt_gfxr_call_count, sizeof rt_gfxr_calls[0], cmp_call);
}
