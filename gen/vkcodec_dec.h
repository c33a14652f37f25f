/*
 * gen/vkcodec_dec.h — what the decoder's two halves share: the interpreter
 * (gen/vkcodec_decode.c) and the straight-line decoders gen/emit_decode.py
 * writes for every struct and argument block (vk_decode_gen_*.c, build dir
 * only). Not installed, not included outside gen/ (tests excepted).
 *
 * A generated decoder accepts exactly the bytes the interpreter accepts and
 * builds the same value, and on bad input fails with the interpreter's
 * error at the interpreter's member (tests/unit/test_vkcodec_decoders.c, on
 * every struct and command, truncated and corrupted too): where it cannot
 * tell the error itself (a run of fixed-size members cut short) it hands
 * those members to the interpreter, which finds it.
 */
#ifndef RT_VKCODEC_DEC_H
#define RT_VKCODEC_DEC_H

#include <stdint.h>
#include <string.h>

#include "vkcodec_internal.h"

/** A generated decoder: checks the nesting limit as rt_vkc_enter_struct
 * does, reads its members into the zeroed struct at p, leaves it. in_chain:
 * it is a pNext node (its pNext is the chain walker's). */
typedef bool (*rt_vkc_dec_fn)(struct rt_vkc_pass *c, void *p, bool in_chain);

/* Indexed by enum rt_vk_struct_type and enum rt_vk_cmd; NULL where only the
 * interpreter decodes (unions, excluded or not compiled here). */
extern const rt_vkc_dec_fn rt_vk_struct_decoders[RT_VK_STRUCT_COUNT];
extern const rt_vkc_dec_fn rt_vk_command_decoders[RT_VK_CMD_COUNT];

/* The interpreter (gen/vkcodec_decode.c). Nested structs and pNext nodes go
 * to their generated decoders unless c->interpreted. */
bool rt_vkc_dec_struct(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, void *p, bool in_chain);
/** Members [first, end) of sd at base, one by one. */
bool rt_vkc_dec_members(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, void *base, bool in_chain,
                        uint32_t first, uint32_t end);
bool rt_vkc_dec_chain(struct rt_vkc_pass *c, void **head_out);

/** Struct number idx at p, by its generated decoder where there is one. */
static inline bool rt_vkc_dec_struct_at(struct rt_vkc_pass *c, int32_t idx, void *p)
{
    rt_vkc_dec_fn fn = c->interpreted ? NULL : rt_vk_struct_decoders[idx];
    return fn ? fn(c, p, false) : rt_vkc_dec_struct(c, &rt_vk_structs[idx], p, false);
}

#define RT_VKC_DEC_INLINE static inline __attribute__((always_inline))

/** The next n bytes, consumed; NULL (nothing consumed, the decoder not
 * marked failed) when fewer are left: the caller decides the error. */
RT_VKC_DEC_INLINE const uint8_t *rt_vkc_take(struct rt_dec *dec, size_t n)
{
    if (dec->failed || (size_t)(dec->end - dec->pos) < n)
        return NULL;
    const uint8_t *p = dec->pos;
    dec->pos += n;
    return p;
}

RT_VKC_DEC_INLINE uint32_t rt_vkc_get_u32(const uint8_t *in)
{
    return (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
}

/** One number of size bytes from its w wire bytes (the interpreter's
 * dec_scalar for a number). */
RT_VKC_DEC_INLINE void rt_vkc_get_number(void *p, const uint8_t *in, uint32_t size, uint32_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (w == size) {
        memcpy(p, in, size);
        return;
    }
#endif
    if (w != 1 && w != 2 && w != 4 && w != 8) { /* then w == size: its bytes */
        memcpy(p, in, size);
        return;
    }
    uint64_t v = 0;
    for (uint32_t i = 0; i < w; i++)
        v |= (uint64_t)in[i] << (8 * i);
    rt_vkc_store(p, size, v);
}

/** n numbers side by side (rt_vkc_get_number once per number). */
RT_VKC_DEC_INLINE void rt_vkc_get_numbers(void *p, const uint8_t *in, uint64_t n, uint32_t size, uint32_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (w == size) {
        if (n)
            memcpy(p, in, (size_t)n * size);
        return;
    }
#endif
    for (uint64_t i = 0; i < n; i++)
        rt_vkc_get_number((uint8_t *)p + i * size, in + i * w, size, w);
}

/** n elements of size bytes (zeroed) in the pass's arena, once the bytes
 * left could hold n encodings of at least min_encoded bytes: the
 * interpreter's checks and errors, at member what. */
void *rt_vkc_dec_alloc(struct rt_vkc_pass *c, uint64_t n, size_t size, size_t min_encoded, const char *what);

/** A presence byte at member what: 0 or 1, else the interpreter's error
 * (returns -1). */
RT_VKC_DEC_INLINE int rt_vkc_dec_presence(struct rt_vkc_pass *c, const char *what)
{
    const uint8_t *b = rt_vkc_take(c->dec, 1);
    if (b && *b <= 1)
        return *b;
    rt_vkc_fail(c, b ? "bad presence byte" : "truncated", what);
    return -1;
}

#endif
