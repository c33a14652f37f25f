/* trace/format.c — header, device and block-header (de)serialisation (FORMAT.md). */
#include <string.h>
#include <xxhash.h>

#include "trace_internal.h"

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

uint64_t rt_format_checksum(const void *data, size_t size)
{
    return XXH3_64bits(data, size);
}

uint64_t rt_format_header_checksum(const uint8_t prefix[20], const void *body, size_t size)
{
    /* Seeding with the prefix's hash makes a flipped version or size bit a
     * checksum mismatch too, without a second checksum field. */
    return XXH3_64bits_withSeed(body, size, XXH3_64bits(prefix, 20));
}

void rt_format_block_header_pack(const struct rt_block_header *h,
                                 uint8_t out[RT_FORMAT_BLOCK_HEADER_SIZE])
{
    put_u32(out + 0, RT_FORMAT_BLOCK_MAGIC);
    out[4] = h->type;
    out[5] = h->compression;
    put_u16(out + 6, h->flags);
    put_u32(out + 8, h->stored_size);
    put_u32(out + 12, h->raw_size);
    put_u32(out + 16, h->packet_count);
    put_u32(out + 20, h->call_count);
    put_u32(out + 24, h->frame_count);
    put_u32(out + 28, 0);
    put_u64(out + 32, h->first_seq);
    put_u64(out + 40, h->payload_checksum);
    put_u32(out + 28, (uint32_t)XXH3_64bits(out, RT_FORMAT_BLOCK_HEADER_SIZE));
}

bool rt_format_block_header_unpack(const uint8_t in[RT_FORMAT_BLOCK_HEADER_SIZE],
                                   struct rt_block_header *h, bool *bad_magic_out)
{
    *bad_magic_out = get_u32(in) != RT_FORMAT_BLOCK_MAGIC;
    if (*bad_magic_out)
        return false;
    uint8_t copy[RT_FORMAT_BLOCK_HEADER_SIZE];
    memcpy(copy, in, sizeof copy);
    put_u32(copy + 28, 0);
    if (RT_CHECKSUMS_MATTER && (uint32_t)XXH3_64bits(copy, sizeof copy) != get_u32(in + 28))
        return false;
    h->type = in[4];
    h->compression = in[5];
    h->flags = (uint16_t)(in[6] | in[7] << 8);
    h->stored_size = get_u32(in + 8);
    h->raw_size = get_u32(in + 12);
    h->packet_count = get_u32(in + 16);
    h->call_count = get_u32(in + 20);
    h->frame_count = get_u32(in + 24);
    h->first_seq = get_u64(in + 32);
    h->payload_checksum = get_u64(in + 40);
    return true;
}

/* Fixed-size name fields are encoded as ordinary strings (u32 length + bytes). */
static void enc_name(struct rt_enc *enc, const char *name)
{
    rt_enc_str(enc, name ? name : "");
}

static void dec_name(struct rt_dec *dec, char out[RT_TRACE_NAME_SIZE])
{
    uint32_t n = rt_dec_u32(dec);
    const uint8_t *p = n < RT_TRACE_NAME_SIZE ? rt_dec_bytes(dec, n) : NULL;
    if (!p) {
        dec->failed = true;
        out[0] = '\0';
        return;
    }
    memcpy(out, p, n);
    out[n] = '\0';
}

void rt_format_encode_device(struct rt_enc *enc, const struct rt_trace_device_info *d)
{
    rt_enc_u32(enc, d->vendor_id);
    rt_enc_u32(enc, d->device_id);
    rt_enc_u32(enc, d->driver_version);
    rt_enc_u32(enc, d->driver_id);
    rt_enc_u32(enc, d->api_version);
    rt_enc_u32(enc, d->device_type);
    enc_name(enc, d->device_name);
    enc_name(enc, d->driver_name);
    enc_name(enc, d->driver_info);
    rt_enc_bytes(enc, d->pipeline_cache_uuid, RT_TRACE_UUID_SIZE);
    rt_enc_bytes(enc, d->device_uuid, RT_TRACE_UUID_SIZE);
    rt_enc_bytes(enc, d->driver_uuid, RT_TRACE_UUID_SIZE);
    uint32_t types = d->memory_type_count < RT_TRACE_MAX_MEMORY_TYPES
                         ? d->memory_type_count : RT_TRACE_MAX_MEMORY_TYPES;
    rt_enc_u32(enc, types);
    for (uint32_t i = 0; i < types; i++) {
        rt_enc_u32(enc, d->memory_types[i].property_flags);
        rt_enc_u32(enc, d->memory_types[i].heap_index);
    }
    uint32_t heaps = d->memory_heap_count < RT_TRACE_MAX_MEMORY_HEAPS
                         ? d->memory_heap_count : RT_TRACE_MAX_MEMORY_HEAPS;
    rt_enc_u32(enc, heaps);
    for (uint32_t i = 0; i < heaps; i++) {
        rt_enc_u64(enc, d->memory_heaps[i].size);
        rt_enc_u32(enc, d->memory_heaps[i].flags);
    }
}

static void dec_uuid(struct rt_dec *dec, uint8_t out[RT_TRACE_UUID_SIZE])
{
    const uint8_t *p = rt_dec_bytes(dec, RT_TRACE_UUID_SIZE);
    if (p)
        memcpy(out, p, RT_TRACE_UUID_SIZE);
}

bool rt_format_decode_device(struct rt_dec *dec, struct rt_trace_device_info *d)
{
    memset(d, 0, sizeof *d);
    d->vendor_id = rt_dec_u32(dec);
    d->device_id = rt_dec_u32(dec);
    d->driver_version = rt_dec_u32(dec);
    d->driver_id = rt_dec_u32(dec);
    d->api_version = rt_dec_u32(dec);
    d->device_type = rt_dec_u32(dec);
    dec_name(dec, d->device_name);
    dec_name(dec, d->driver_name);
    dec_name(dec, d->driver_info);
    dec_uuid(dec, d->pipeline_cache_uuid);
    dec_uuid(dec, d->device_uuid);
    dec_uuid(dec, d->driver_uuid);
    uint32_t types = rt_dec_u32(dec);
    if (types > RT_TRACE_MAX_MEMORY_TYPES)
        dec->failed = true;
    for (uint32_t i = 0; i < types && !dec->failed; i++) {
        d->memory_types[i].property_flags = rt_dec_u32(dec);
        d->memory_types[i].heap_index = rt_dec_u32(dec);
    }
    uint32_t heaps = rt_dec_u32(dec);
    if (heaps > RT_TRACE_MAX_MEMORY_HEAPS)
        dec->failed = true;
    for (uint32_t i = 0; i < heaps && !dec->failed; i++) {
        d->memory_heaps[i].size = rt_dec_u64(dec);
        d->memory_heaps[i].flags = rt_dec_u32(dec);
    }
    if (dec->failed)
        return false;
    d->memory_type_count = types;
    d->memory_heap_count = heaps;
    return true;
}

static void encode_header_body(struct rt_enc *enc, const struct rt_trace_header *h)
{
    rt_enc_u32(enc, h->vk_header_version);
    rt_enc_u8(enc, h->pointer_size);
    rt_enc_u8(enc, h->compression);
    enc_name(enc, h->application_name);
    rt_enc_u32(enc, h->application_version);
    enc_name(enc, h->engine_name);
    rt_enc_u32(enc, h->engine_version);
    rt_enc_u32(enc, h->api_version);
    enc_name(enc, h->settings);
    rt_enc_u8(enc, h->has_device ? 1 : 0);
    if (h->has_device) {
        /* Length-prefixed so a newer minor can append device fields. */
        size_t at = enc->size;
        rt_enc_u32(enc, 0);
        rt_format_encode_device(enc, &h->device);
        rt_enc_patch_u32(enc, at, (uint32_t)(enc->size - at - 4));
    }
    rt_enc_u32(enc, h->command_count);
    for (uint32_t i = 0; i < h->command_count; i++)
        enc_name(enc, h->command_names[i]);
}

void rt_format_encode_file_header(struct rt_enc *enc, const struct rt_trace_header *h)
{
    size_t start = enc->size;
    uint8_t *fixed = rt_enc_reserve(enc, RT_FORMAT_FILE_HEADER_SIZE);
    if (!fixed)
        return;
    encode_header_body(enc, h);
    if (enc->failed)
        return;
    uint8_t *p = enc->data + start; /* the buffer may have moved */
    size_t body = enc->size - start - RT_FORMAT_FILE_HEADER_SIZE;
    memcpy(p, RT_FORMAT_MAGIC, RT_FORMAT_MAGIC_SIZE);
    put_u16(p + 8, h->version_major);
    put_u16(p + 10, h->version_minor);
    put_u32(p + 12, h->flags);
    put_u32(p + 16, (uint32_t)body);
    put_u64(p + 20, rt_format_header_checksum(p, p + RT_FORMAT_FILE_HEADER_SIZE, body));
}

static const char *dec_arena_str(struct rt_dec *dec)
{
    const char *s = rt_dec_str(dec);
    if (!s)
        dec->failed = true; /* an encoded NULL is not valid in a header */
    return s;
}

bool rt_format_decode_header_body(struct rt_dec *dec, struct rt_trace_header *h)
{
    h->vk_header_version = rt_dec_u32(dec);
    h->pointer_size = rt_dec_u8(dec);
    h->compression = rt_dec_u8(dec);
    h->application_name = dec_arena_str(dec);
    h->application_version = rt_dec_u32(dec);
    h->engine_name = dec_arena_str(dec);
    h->engine_version = rt_dec_u32(dec);
    h->api_version = rt_dec_u32(dec);
    h->settings = dec_arena_str(dec);
    uint8_t has_device = rt_dec_u8(dec);
    if (has_device > 1)
        dec->failed = true;
    h->has_device = has_device == 1;
    if (h->has_device) {
        uint32_t size = rt_dec_u32(dec);
        const uint8_t *bytes = rt_dec_bytes(dec, size);
        static const uint8_t none[1];
        struct rt_dec sub;
        rt_dec_init(&sub, bytes ? bytes : none, bytes ? size : 0, NULL);
        if (!bytes || !rt_format_decode_device(&sub, &h->device))
            dec->failed = true;
    }
    uint32_t count = rt_dec_u32(dec);
    /* Each name takes at least its 4-byte length. */
    if (dec->failed || !rt_dec_check_count(dec, count, 4))
        return false;
    const char **names = rt_arena_calloc(dec->arena, count ? count : 1, sizeof *names,
                                         _Alignof(const char *));
    if (!names) {
        dec->failed = true;
        return false;
    }
    for (uint32_t i = 0; i < count && !dec->failed; i++)
        names[i] = dec_arena_str(dec);
    h->command_names = names;
    h->command_count = count;
    return !dec->failed;
}

const char *rt_trace_compression_name(unsigned compression)
{
    switch (compression) {
    case RT_FORMAT_COMPRESSION_NONE: return "none";
    case RT_FORMAT_COMPRESSION_ZSTD: return "zstd";
    }
    return "unknown";
}
