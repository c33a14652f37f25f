/* replay/pipeline_cache_file.c — the --pipeline-cache file's header: built
 * for the data being saved, checked field by field before anything of the
 * file reaches the driver. */
#include <string.h>

#include <xxhash.h>

#include "pipeline_cache.h"

#define MAGIC "RTPCACHE"
#define HEADER_VERSION 1u
#define VK_HEADER_SIZE 32u /* VkPipelineCacheHeaderVersionOne */

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

void rt_pipeline_cache_header(uint8_t out[RT_PIPELINE_CACHE_HEADER_SIZE], const struct rt_pipeline_cache_identity *id,
                              const void *data, size_t size)
{
    memset(out, 0, RT_PIPELINE_CACHE_HEADER_SIZE);
    memcpy(out, MAGIC, 8);
    put32(out + 8, HEADER_VERSION);
    put32(out + 12, RT_PIPELINE_CACHE_HEADER_SIZE);
    put64(out + 16, size);
    put64(out + 24, XXH3_64bits(data, size));
    put32(out + 32, id->vendor_id);
    put32(out + 36, id->device_id);
    put32(out + 40, id->driver_version);
    put32(out + 44, id->pointer_size);
    memcpy(out + 48, id->uuid, 16);
}

static rt_status bad(const char *why)
{
    return rt_errorf(RT_ERR_BAD_INPUT, "%s", why);
}

/* The driver's own header (Vulkan 1.0 §10.6 "Pipeline Cache"): length,
 * version ONE, vendorID, deviceID, pipelineCacheUUID. */
static rt_status check_driver_header(const uint8_t *d, size_t size, const struct rt_pipeline_cache_identity *id)
{
    if (size < VK_HEADER_SIZE || get32(d) < VK_HEADER_SIZE || get32(d) > size)
        return bad("the driver's data is too short for its header");
    if (get32(d + 4) != 1u /* VK_PIPELINE_CACHE_HEADER_VERSION_ONE */)
        return bad("the driver's data has an unknown header version");
    if (get32(d + 8) != id->vendor_id || get32(d + 12) != id->device_id || memcmp(d + 16, id->uuid, 16))
        return bad("the driver's data is for another device");
    return rt_ok_status();
}

rt_status rt_pipeline_cache_check(const uint8_t *b, size_t size, const struct rt_pipeline_cache_identity *id,
                                  const uint8_t **data_out, size_t *size_out)
{
    if (size == 0)
        return bad("zero-sized");
    if (size < RT_PIPELINE_CACHE_HEADER_SIZE)
        return bad("truncated inside its header");
    if (memcmp(b, MAGIC, 8))
        return bad("not a retrace pipeline cache (bad magic)");
    if (get32(b + 8) != HEADER_VERSION || get32(b + 12) != RT_PIPELINE_CACHE_HEADER_SIZE)
        return bad("an unknown header version");
    uint64_t data_size = get64(b + 16);
    if (data_size != size - RT_PIPELINE_CACHE_HEADER_SIZE)
        return data_size > size - RT_PIPELINE_CACHE_HEADER_SIZE ? bad("truncated") : bad("longer than its header says");
    if (get32(b + 44) != id->pointer_size)
        return bad("written by a build with another pointer size");
    if (get32(b + 32) != id->vendor_id || get32(b + 36) != id->device_id || memcmp(b + 48, id->uuid, 16))
        return bad("for another device");
    if (get32(b + 40) != id->driver_version)
        return bad("for another driver version");
    const uint8_t *data = b + RT_PIPELINE_CACHE_HEADER_SIZE;
    if (XXH3_64bits(data, data_size) != get64(b + 24))
        return bad("corrupted (its data does not match its hash)");
    RT_TRY(check_driver_header(data, data_size, id));
    *data_out = data;
    *size_out = data_size;
    return rt_ok_status();
}
