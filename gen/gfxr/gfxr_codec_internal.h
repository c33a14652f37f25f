/*
 * gen/gfxr/gfxr_codec_internal.h — the generated tables' types (gfxr_tables_gen.c).
 * Private to gen/gfxr/.
 */
#ifndef RT_GFXR_CODEC_INTERNAL_H
#define RT_GFXR_CODEC_INTERNAL_H

#include "gfxr_codec.h"
#include "vkcodec_internal.h"

/* How a union without a selector travels (gen/gfxr/gfxr_rules.py UNIONS). */
enum rt_gfxr_union_kind {
    RT_GFXR_UNION_U32X4, /* an array preamble and four u32: 16 bytes */
    RT_GFXR_UNION_U64,   /* one u64 */
};

struct rt_gfxr_union_rule {
    uint32_t type; /* enum rt_vk_struct_type */
    uint8_t kind;  /* enum rt_gfxr_union_kind */
    const char *why;
};

extern const struct rt_gfxr_call rt_gfxr_calls[]; /* sorted by id */
extern const uint32_t rt_gfxr_call_count;
extern const struct rt_gfxr_union_rule rt_gfxr_union_rules[];
extern const uint32_t rt_gfxr_union_rule_count;

#endif
