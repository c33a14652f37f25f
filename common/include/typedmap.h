/*
 * common/include/typedmap.h — uint64_t keys to uint64_t values, one map per type.
 *
 * Owns: a hash map of hash maps. Replay maps captured handles to live ones
 * per VkObjectType, and dump numbers handles per type: a driver may give a
 * buffer and an image the same value, so the type is part of the key.
 * Must not touch: anything but libc (types are plain integers here).
 */
#ifndef RT_TYPEDMAP_H
#define RT_TYPEDMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"

struct rt_typed_map {
    struct rt_hashmap by_type; /* type -> struct rt_hashmap * */
};

void rt_typed_map_init(struct rt_typed_map *map);
void rt_typed_map_finish(struct rt_typed_map *map);

/** Inserts or replaces. Returns false only when memory runs out. */
bool rt_typed_map_put(struct rt_typed_map *map, uint32_t type, uint64_t key, uint64_t value);

/** Returns true and sets *value_out when (type, key) is present. */
bool rt_typed_map_get(const struct rt_typed_map *map, uint32_t type, uint64_t key, uint64_t *value_out);

#endif
