/* trace/codec.c — primitive LE codec (see codec.h). */
#include "codec.h"

#include <stdlib.h>
#include <string.h>

void rt_enc_init(struct rt_enc *enc) { memset(enc, 0, sizeof *enc); }

void rt_enc_finish(struct rt_enc *enc)
{
    free(enc->data);
    memset(enc, 0, sizeof *enc);
}

uint8_t *rt_enc_reserve(struct rt_enc *enc, size_t n)
{
    if (enc->failed)
        return NULL;
    if (n > SIZE_MAX - enc->size) {
        enc->failed = true;
        return NULL;
    }
    if (enc->size + n > enc->capacity) {
        size_t capacity = enc->capacity ? enc->capacity : 256;
        while (capacity < enc->size + n) {
            if (capacity > SIZE_MAX / 2) {
                enc->failed = true;
                return NULL;
            }
            capacity *= 2;
        }
        uint8_t *data = realloc(enc->data, capacity);
        if (!data) {
            enc->failed = true;
            return NULL;
        }
        enc->data = data;
        enc->capacity = capacity;
    }
    uint8_t *p = enc->data + enc->size;
    enc->size += n;
    return p;
}

void rt_enc_bytes(struct rt_enc *enc, const void *bytes, size_t n)
{
    uint8_t *p = rt_enc_room(enc, n);
    if (p && n)
        memcpy(p, bytes, n);
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void rt_enc_u8(struct rt_enc *enc, uint8_t v)
{
    uint8_t *p = rt_enc_room(enc, 1);
    if (p)
        *p = v;
}

void rt_enc_u16(struct rt_enc *enc, uint16_t v)
{
    uint8_t *p = rt_enc_room(enc, 2);
    if (p)
        rt_put_le(p, v, 2);
}

void rt_enc_u32(struct rt_enc *enc, uint32_t v)
{
    uint8_t *p = rt_enc_room(enc, 4);
    if (p)
        rt_put_le(p, v, 4);
}

void rt_enc_u64(struct rt_enc *enc, uint64_t v)
{
    uint8_t *p = rt_enc_room(enc, 8);
    if (p)
        rt_put_le(p, v, 8);
}

void rt_enc_f32(struct rt_enc *enc, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    rt_enc_u32(enc, bits);
}

void rt_enc_f64(struct rt_enc *enc, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    rt_enc_u64(enc, bits);
}

void rt_enc_str(struct rt_enc *enc, const char *s)
{
    if (!s) {
        rt_enc_u32(enc, UINT32_MAX);
        return;
    }
    size_t n = strlen(s);
    if (n >= UINT32_MAX) {
        enc->failed = true;
        return;
    }
    rt_enc_u32(enc, (uint32_t)n);
    rt_enc_bytes(enc, s, n);
}

void rt_enc_patch_u32(struct rt_enc *enc, size_t offset, uint32_t v)
{
    if (!enc->failed && offset <= enc->size && enc->size - offset >= 4)
        rt_put_le(enc->data + offset, v, 4);
}

void rt_dec_init(struct rt_dec *dec, const void *data, size_t size, struct rt_arena *arena)
{
    dec->pos = data;
    dec->end = dec->pos + size;
    dec->arena = arena;
    dec->failed = false;
}

const uint8_t *rt_dec_bytes(struct rt_dec *dec, size_t n)
{
    if (dec->failed || rt_dec_left(dec) < n) {
        dec->failed = true;
        return NULL;
    }
    const uint8_t *p = dec->pos;
    dec->pos += n;
    return p;
}

static uint64_t dec_le(struct rt_dec *dec, int n)
{
    const uint8_t *p = rt_dec_bytes(dec, (size_t)n);
    return p ? get_le(p, n) : 0;
}

uint8_t rt_dec_u8(struct rt_dec *dec) { return (uint8_t)dec_le(dec, 1); }
uint16_t rt_dec_u16(struct rt_dec *dec) { return (uint16_t)dec_le(dec, 2); }
uint32_t rt_dec_u32(struct rt_dec *dec) { return (uint32_t)dec_le(dec, 4); }
uint64_t rt_dec_u64(struct rt_dec *dec) { return dec_le(dec, 8); }

float rt_dec_f32(struct rt_dec *dec)
{
    uint32_t bits = rt_dec_u32(dec);
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

double rt_dec_f64(struct rt_dec *dec)
{
    uint64_t bits = rt_dec_u64(dec);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

const char *rt_dec_str(struct rt_dec *dec)
{
    uint32_t n = rt_dec_u32(dec);
    if (dec->failed || n == UINT32_MAX)
        return NULL;
    const uint8_t *p = rt_dec_bytes(dec, n);
    if (!p)
        return NULL;
    char *s = dec->arena ? rt_arena_strndup(dec->arena, (const char *)p, n) : NULL;
    if (!s)
        dec->failed = true;
    return s;
}

bool rt_dec_check_count(struct rt_dec *dec, uint64_t count, size_t min_encoded_size)
{
    size_t unit = min_encoded_size ? min_encoded_size : 1;
    if (dec->failed || count > rt_dec_left(dec) / unit) {
        dec->failed = true;
        return false;
    }
    return true;
}
