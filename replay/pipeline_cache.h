/*
 * replay/pipeline_cache.h — the --pipeline-cache file: a validated prefix
 * header followed by the driver's pipeline-cache data.
 *
 * Layout (little-endian, 64 bytes, then data_size bytes of driver data):
 *   0  char[8]  magic "RTPCACHE"
 *   8  u32      header version (1)      12 u32 header size (64)
 *   16 u64      data size               24 u64 XXH3-64 of the data
 *   32 u32      vendorID                36 u32 deviceID
 *   40 u32      driverVersion           44 u32 pointer size of the writer
 *   48 u8[16]   pipelineCacheUUID
 * The driver's data must itself begin with a VkPipelineCacheHeaderVersionOne
 * for the same vendor, device and UUID.
 * Owns: building and checking that header (pure functions, safe on any
 * bytes). The replay engine's side (load, save, notices) is pipeline_cache.c.
 */
#ifndef RT_REPLAY_PIPELINE_CACHE_H
#define RT_REPLAY_PIPELINE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define RT_PIPELINE_CACHE_HEADER_SIZE 64

struct rt_pipeline_cache_identity {
    uint32_t vendor_id, device_id, driver_version, pointer_size;
    uint8_t uuid[16];
};

/** Writes the 64-byte header for DATA into OUT. */
void rt_pipeline_cache_header(uint8_t out[RT_PIPELINE_CACHE_HEADER_SIZE], const struct rt_pipeline_cache_identity *id,
                              const void *data, size_t size);

/**
 * Checks a whole file's bytes against the device: RT_ERR_BAD_INPUT saying
 * why ("zero-sized", "truncated: ...", "for another device ...") when it
 * cannot be used, else the driver's data in *DATA_OUT / *SIZE_OUT.
 */
rt_status rt_pipeline_cache_check(const uint8_t *bytes, size_t size, const struct rt_pipeline_cache_identity *id,
                                  const uint8_t **data_out, size_t *size_out) RT_MUST_CHECK;

#endif
