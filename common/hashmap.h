/*
 * common/hashmap.h — open-addressing map from uint64_t keys to uint64_t values.
 *
 * Owns: the table memory. Used for captured-handle -> live-handle maps in
 * replay, dispatch-key -> per-object data in the layer, and symbolic handle
 * numbering in dump. Not thread-safe: callers lock.
 * Must not touch: anything but libc.
 */
#ifndef RT_HASHMAP_H
#define RT_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_hashmap {
    uint64_t *keys;
    uint64_t *values;
    uint8_t *state; /* 0 empty, 1 used, 2 deleted */
    size_t capacity; /* power of two, or 0 */
    size_t count;
    size_t tombstones;
};

void rt_hashmap_init(struct rt_hashmap *map);
void rt_hashmap_finish(struct rt_hashmap *map);

/** Inserts or replaces. Returns false only when memory runs out. */
bool rt_hashmap_put(struct rt_hashmap *map, uint64_t key, uint64_t value);

/** Returns true and sets *value_out when key is present. */
bool rt_hashmap_get(const struct rt_hashmap *map, uint64_t key, uint64_t *value_out);

/** Returns true when key was present. */
bool rt_hashmap_remove(struct rt_hashmap *map, uint64_t key);

#endif
