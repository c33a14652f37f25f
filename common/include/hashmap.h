/*
 * common/include/hashmap.h — open-addressing map from uint64_t keys to uint64_t values.
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

/* The fields are hashmap.c's alone (callers embed the struct, so it cannot
 * be opaque): use the functions below and rt_hashmap_iter to read it. */
struct rt_hashmap {
    struct rt_hashmap_table {
        uint64_t *keys;
        uint64_t *values;
        uint8_t *state;  /* 0 empty, 1 used, 2 deleted */
        size_t capacity; /* power of two, or 0 */
        size_t count;
        size_t tombstones;
    } internal;
};

/* Walks every entry once, in no particular order. */
struct rt_hashmap_iter {
    const struct rt_hashmap *map;
    size_t next;
};

void rt_hashmap_init(struct rt_hashmap *map);
void rt_hashmap_finish(struct rt_hashmap *map);

/** Inserts or replaces. Returns false only when memory runs out. */
bool rt_hashmap_put(struct rt_hashmap *map, uint64_t key, uint64_t value);

/** Returns true and sets *value_out when key is present. */
bool rt_hashmap_get(const struct rt_hashmap *map, uint64_t key, uint64_t *value_out);

/** Returns true when key was present. */
bool rt_hashmap_remove(struct rt_hashmap *map, uint64_t key);

/** Entries in the map. */
size_t rt_hashmap_count(const struct rt_hashmap *map);

/** Slots allocated (entries, free and deleted): how much memory it holds. */
size_t rt_hashmap_slots(const struct rt_hashmap *map);

/**
 * Starts a walk over map. During the walk the caller may remove the entry
 * just returned (or any other), but must not put: a put may move entries.
 */
void rt_hashmap_iter_init(struct rt_hashmap_iter *it, const struct rt_hashmap *map);

/** The next entry into *key_out and *value_out (either may be NULL); false at the end. */
bool rt_hashmap_iter_next(struct rt_hashmap_iter *it, uint64_t *key_out, uint64_t *value_out);

#endif
