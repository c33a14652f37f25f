/*
 * gen/vkcodec_internal.h — helpers shared by the codec's interpreter files.
 * Not installed, not included outside gen/ (tests excepted).
 */
#ifndef RT_VKCODEC_INTERNAL_H
#define RT_VKCODEC_INTERNAL_H

#include <string.h>

#include "vkcodec.h"

/* A pNext chain longer than this is treated as corrupt (or cyclic). */
#define RT_VKC_MAX_CHAIN 256
/* Nesting of structs through pointers; vk.xml needs fewer than 10. */
#define RT_VKC_MAX_DEPTH 32

/** One encode or decode pass over a call's structs: its stream (ENC when
 * encoding, DEC when decoding), counters, nesting depth, and the first error
 * (static text), which is what the caller reports. */
struct rt_vkc_pass {
    struct rt_enc *enc;
    struct rt_dec *dec;
    struct rt_vk_stats *stats;
    const char *err;
    const char *err_where;
    unsigned depth;
    bool interpreted; /* decoding: the interpreter alone, never a generated decoder (tests) */
};

/** Records ERR at WHERE unless an error is already recorded (the first is the
 * cause, later ones follow from it), marks a decoder failed; returns false. */
static inline bool rt_vkc_fail(struct rt_vkc_pass *c, const char *err, const char *where)
{
    if (!c->err) {
        c->err = err;
        c->err_where = where;
    }
    if (c->dec)
        c->dec->failed = true;
    return false;
}

/** The checks before a struct is encoded or decoded: vk.xml's coverage, the
 * platform compiled in, the nesting limit. On success the struct is entered
 * (DEPTH counts it) and the caller leaves it with c->depth--. */
static inline bool rt_vkc_enter_struct(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd)
{
    if (sd->excluded)
        return rt_vkc_fail(c, sd->excluded, sd->name);
    if (!sd->compiled)
        return rt_vkc_fail(c, "its platform is not compiled in", sd->name);
    if (++c->depth > RT_VKC_MAX_DEPTH)
        return rt_vkc_fail(c, "structs nested too deeply", sd->name);
    return true;
}

/** Loads an unsigned value of size 1, 2, 4 or 8 bytes (others: 0). */
static inline uint64_t rt_vkc_load(const void *p, uint32_t size)
{
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8 = 0;
    switch (size) {
    case 1: memcpy(&b1, p, 1); return b1;
    case 2: memcpy(&b2, p, 2); return b2;
    case 4: memcpy(&b4, p, 4); return b4;
    case 8: memcpy(&b8, p, 8); return b8;
    default: return 0;
    }
}

/** Stores the low size bytes of v (size 1, 2, 4 or 8). */
static inline void rt_vkc_store(void *p, uint32_t size, uint64_t v)
{
    uint8_t b1 = (uint8_t)v;
    uint16_t b2 = (uint16_t)v;
    uint32_t b4 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &b1, 1); break;
    case 2: memcpy(p, &b2, 2); break;
    case 4: memcpy(p, &b4, 4); break;
    case 8: memcpy(p, &v, 8); break;
    default: break;
    }
}

static inline const struct rt_vk_struct_desc *rt_vkc_sub(const struct rt_vk_member *m)
{
    return &rt_vk_structs[m->aux];
}

/** Bytes between consecutive elements at pointer level `level`. */
static inline size_t rt_vkc_stride(const struct rt_vk_member *m, unsigned level)
{
    return level + 1u < m->depth ? sizeof(void *) : m->elem_size;
}

/** Bytes one scalar element takes on the wire. */
static inline uint32_t rt_vkc_wire_size(const struct rt_vk_member *m)
{
    switch (m->kind) {
    case RT_VK_KIND_SIZE:
    case RT_VK_KIND_HANDLE:
    case RT_VK_KIND_FUNCPTR:
    case RT_VK_KIND_OPAQUE:
        return 8;
    default:
        return m->elem_size;
    }
}

/** Whether the element kind is a plain number stored in elem_size bytes. */
static inline bool rt_vkc_is_scalar(uint8_t kind)
{
    return kind != RT_VK_KIND_STRUCT && kind != RT_VK_KIND_UNION && kind != RT_VK_KIND_STRING &&
           kind != RT_VK_KIND_PNEXT && kind != RT_VK_KIND_CHAR && kind != RT_VK_KIND_VOID;
}

/** The value of a scalar sibling (a union's selector), sign-extended for enums. */
int64_t rt_vkc_selector_value(const struct rt_vk_struct_desc *parent, const struct rt_vk_member *m,
                              const void *base);

/** The member of union u chosen by selector value sel, or NULL (raw bytes). */
const struct rt_vk_member *rt_vkc_union_pick(const struct rt_vk_struct_desc *u, int64_t sel);

/** Struct index for an sType, or -1. */
int rt_vkc_stype_index(uint32_t stype);

/** The pNext member of a struct, or NULL. */
const struct rt_vk_member *rt_vkc_pnext_member(const struct rt_vk_struct_desc *sd);

/** The argument-block descriptor of cmd, or NULL (out of range, not compiled, excluded). */
const struct rt_vk_struct_desc *rt_vkc_args_desc(enum rt_vk_cmd cmd);

#endif
