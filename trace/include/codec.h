/*
 * trace/include/codec.h — little-endian primitive encoding and bounds-checked decoding.
 *
 * Owns: rt_enc (a growable byte buffer) and rt_dec (a cursor over untrusted
 * bytes). Decoding is safe on untrusted input: every read checks the bytes
 * left; a short read sets the sticky `failed` flag and yields zeros, so
 * generated decoders can read a whole struct and test the flag once.
 * Must not touch: Vulkan, files, threads. Used by trace/, the generated Vulkan
 * codec (gen/), capture and replay.
 */
#ifndef RT_CODEC_H
#define RT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"

struct rt_enc {
    uint8_t *data;
    size_t size;
    size_t capacity;
    bool failed; /* out of memory: everything after is dropped */
};

void rt_enc_init(struct rt_enc *enc);
void rt_enc_finish(struct rt_enc *enc);
static inline void rt_enc_reset(struct rt_enc *enc) { enc->size = 0; enc->failed = false; }

/** Makes room for n more bytes; returns a pointer to them, or NULL (failed set). */
uint8_t *rt_enc_reserve(struct rt_enc *enc, size_t n);

/** rt_enc_reserve without a call while the buffer has the room: the capture
 * layer takes room this way for every call it records. */
static inline __attribute__((always_inline)) uint8_t *rt_enc_room(struct rt_enc *enc, size_t n)
{
    if (!enc->failed && enc->capacity - enc->size >= n) {
        uint8_t *p = enc->data + enc->size;
        enc->size += n;
        return p;
    }
    return rt_enc_reserve(enc, n);
}

/* A little-endian store of v's low n bytes (2, 4 or 8) into room already
 * taken; returns the end. One store on a little-endian host for a constant
 * n (compilers leave the portable loop of byte shifts as a loop). */
static inline uint8_t *rt_put_le(uint8_t *p, uint64_t v, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, n);
#else
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
#endif
    return p + n;
}

void rt_enc_bytes(struct rt_enc *enc, const void *bytes, size_t n);
void rt_enc_u8(struct rt_enc *enc, uint8_t v);
void rt_enc_u16(struct rt_enc *enc, uint16_t v);
void rt_enc_u32(struct rt_enc *enc, uint32_t v);
void rt_enc_u64(struct rt_enc *enc, uint64_t v);
void rt_enc_f32(struct rt_enc *enc, float v);
void rt_enc_f64(struct rt_enc *enc, double v);
/** u32 length (without NUL), then the bytes. NULL is encoded as length 0xFFFFFFFF. */
void rt_enc_str(struct rt_enc *enc, const char *s);
/** Overwrites 4 bytes at offset (for sizes known only afterwards). */
void rt_enc_patch_u32(struct rt_enc *enc, size_t offset, uint32_t v);

struct rt_dec {
    const uint8_t *pos;
    const uint8_t *end;
    struct rt_arena *arena; /* where decoded arrays and strings go; may be NULL */
    bool failed;            /* a read ran past the end, or an allocation failed */
};

void rt_dec_init(struct rt_dec *dec, const void *data, size_t size, struct rt_arena *arena);

static inline size_t rt_dec_left(const struct rt_dec *dec)
{
    return (size_t)(dec->end - dec->pos);
}

/** n bytes in place (no copy), or NULL with failed set. */
const uint8_t *rt_dec_bytes(struct rt_dec *dec, size_t n);
uint8_t rt_dec_u8(struct rt_dec *dec);
uint16_t rt_dec_u16(struct rt_dec *dec);
uint32_t rt_dec_u32(struct rt_dec *dec);
uint64_t rt_dec_u64(struct rt_dec *dec);
float rt_dec_f32(struct rt_dec *dec);
double rt_dec_f64(struct rt_dec *dec);
/** A string copied into the arena, NUL-terminated; NULL for an encoded NULL. */
const char *rt_dec_str(struct rt_dec *dec);

/**
 * Checks that count elements of at least min_encoded_size bytes each can still
 * be in the input, so an allocation is never sized by an unchecked field.
 * Sets failed and returns false if not.
 */
bool rt_dec_check_count(struct rt_dec *dec, uint64_t count, size_t min_encoded_size);

#endif
