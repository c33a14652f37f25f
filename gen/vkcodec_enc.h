/*
 * gen/vkcodec_enc.h — what the encoder's two halves share: the interpreter
 * (gen/vkcodec.c) and the straight-line encoders gen/emit_encode.py writes
 * for every struct and argument block (vk_encode_gen_*.c, build dir only).
 * Not installed, not included outside gen/.
 *
 * A generated encoder writes exactly the bytes the interpreter would for its
 * struct (bench/encode_calls checks it on real traces, the codec's round
 * trips on every struct); for members it does not spell out (unions,
 * strings, nested pointers) it calls the interpreter's rt_vkc_enc_member.
 */
#ifndef RT_VKCODEC_ENC_H
#define RT_VKCODEC_ENC_H

#include <stdint.h>
#include <string.h>

#include "vkcodec_internal.h"

/** A generated encoder: enters the struct (rt_vkc_enter_struct), writes its
 * members, leaves it. in_chain: it is a pNext node (its pNext is the chain
 * walker's). */
typedef bool (*rt_vkc_enc_fn)(struct rt_vkc_pass *c, const void *p, bool in_chain);

/* Indexed by enum rt_vk_struct_type and enum rt_vk_cmd; NULL where the
 * interpreter encodes (unions, excluded or not compiled here). */
extern const rt_vkc_enc_fn rt_vk_struct_encoders[RT_VK_STRUCT_COUNT];
extern const rt_vkc_enc_fn rt_vk_command_encoders[RT_VK_CMD_COUNT];

/* The interpreter (gen/vkcodec.c). */
bool rt_vkc_enc_struct(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, const void *p, bool in_chain);
bool rt_vkc_enc_member(struct rt_vkc_pass *c, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                       const void *base, bool in_chain);
bool rt_vkc_enc_chain(struct rt_vkc_pass *c, const void *node);

/** Struct number idx at p, by its generated encoder where there is one. */
static inline bool rt_vkc_enc_struct_at(struct rt_vkc_pass *c, int32_t idx, const void *p)
{
    rt_vkc_enc_fn fn = rt_vk_struct_encoders[idx];
    return fn ? fn(c, p, false) : rt_vkc_enc_struct(c, &rt_vk_structs[idx], p, false);
}

/* Inlined into every generated encoder whatever the compiler's size
 * heuristics say: a call each cost more than the store it makes. */
#define RT_VKC_INLINE static inline __attribute__((always_inline))

/* The encoder runs for every captured call: room for a few bytes is taken
 * without a call while the buffer has it (codec.h). */
RT_VKC_INLINE uint8_t *rt_vkc_room(struct rt_enc *enc, size_t n)
{
    return rt_enc_room(enc, n);
}

RT_VKC_INLINE void rt_vkc_enc_u8(struct rt_enc *enc, uint8_t v)
{
    uint8_t *out = rt_vkc_room(enc, 1);
    if (out)
        *out = v;
}

/* rt_enc_u32 and rt_enc_bytes (trace/codec.c) without a call while the
 * buffer has room: the same bytes. */
RT_VKC_INLINE void rt_vkc_enc_u32(struct rt_enc *enc, uint32_t v)
{
    uint8_t *out = rt_vkc_room(enc, 4);
    if (out)
        rt_put_le(out, v, 4);
}

RT_VKC_INLINE void rt_vkc_enc_bytes(struct rt_enc *enc, const void *bytes, size_t n)
{
    uint8_t *out = rt_vkc_room(enc, n);
    if (out && n)
        memcpy(out, bytes, n);
}

/* A scalar of size bytes as w little-endian bytes (w >= size: wider kinds
 * such as size_t on a 32-bit host are zero-extended). */
RT_VKC_INLINE void rt_vkc_enc_scalar(struct rt_enc *enc, const uint8_t *p, uint32_t size, uint32_t w)
{
    uint8_t *out = rt_vkc_room(enc, w);
    if (!out)
        return;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (w == size) {
        switch (w) {
        case 1: memcpy(out, p, 1); return;
        case 2: memcpy(out, p, 2); return;
        case 4: memcpy(out, p, 4); return;
        default: memcpy(out, p, 8); return;
        }
    }
#endif
    uint64_t v = rt_vkc_load(p, size);
    for (uint32_t i = 0; i < w; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

/** One number element of size bytes whose wire size is w (what the
 * interpreter's enc_elem writes for one). */
RT_VKC_INLINE void rt_vkc_enc_number(struct rt_enc *enc, const void *p, uint32_t size, uint32_t w)
{
    if (w != 1 && w != 2 && w != 4 && w != 8)
        rt_vkc_enc_bytes(enc, p, size);
    else
        rt_vkc_enc_scalar(enc, p, size, w);
}


/* Runs (gen/emit_encode.py): members whose wire size is known at generation
 * time are written after one rt_vkc_room for all of them, each at its offset
 * in the room: the bytes rt_vkc_enc_number, rt_vkc_enc_numbers and
 * rt_vkc_enc_u32 would write one by one. */

/** One number of size bytes at p as its w wire bytes (rt_vkc_enc_number's). */
RT_VKC_INLINE void rt_vkc_put_number(uint8_t *out, const void *p, uint32_t size, uint32_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (w == size) {
        memcpy(out, p, size);
        return;
    }
#endif
    if (w != 1 && w != 2 && w != 4 && w != 8) { /* then w == size: its bytes */
        memcpy(out, p, size);
        return;
    }
    uint64_t v = rt_vkc_load(p, size);
    for (uint32_t i = 0; i < w; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

/** n numbers side by side, as the interpreter's enc_elem writes them one by one. */
RT_VKC_INLINE void rt_vkc_put_numbers(uint8_t *out, const void *p, uint64_t n, uint32_t size, uint32_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (w == size) {
        memcpy(out, p, (size_t)n * size);
        return;
    }
#endif
    for (uint64_t i = 0; i < n; i++)
        rt_vkc_put_number(out + i * w, (const uint8_t *)p + i * size, size, w);
}

/** n numbers side by side, in one room: rt_vkc_put_numbers' bytes (the
 * interpreter's enc_elem, once per number). */
RT_VKC_INLINE void rt_vkc_enc_numbers(struct rt_enc *enc, const void *p, uint64_t n, uint32_t size, uint32_t w)
{
    uint8_t *out = rt_vkc_room(enc, (size_t)n * w);
    if (out && n)
        rt_vkc_put_numbers(out, p, n, size, w);
}

/** A u32, little-endian (rt_vkc_enc_u32's bytes). */
RT_VKC_INLINE void rt_vkc_put_u32(uint8_t *out, uint32_t v)
{
    out[0] = (uint8_t)v;
    out[1] = (uint8_t)(v >> 8);
    out[2] = (uint8_t)(v >> 16);
    out[3] = (uint8_t)(v >> 24);
}

#endif
