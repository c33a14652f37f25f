/* common/hashmap.c — linear probing with tombstones (see hashmap.h). */
#include "hashmap.h"

#include <stdlib.h>

void rt_hashmap_init(struct rt_hashmap *map)
{
    *map = (struct rt_hashmap){0};
}

void rt_hashmap_finish(struct rt_hashmap *map)
{
    free(map->keys);
    free(map->values);
    free(map->state);
    *map = (struct rt_hashmap){0};
}

/* splitmix64 finaliser: handle values are often aligned pointers, so the low
 * bits alone would cluster. */
static size_t slot_of(uint64_t key, size_t capacity)
{
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebull;
    key ^= key >> 31;
    return (size_t)key & (capacity - 1);
}

static bool find(const struct rt_hashmap *map, uint64_t key, size_t *slot_out)
{
    if (map->capacity == 0)
        return false;
    size_t i = slot_of(key, map->capacity);
    for (size_t n = 0; n < map->capacity; n++) {
        if (map->state[i] == 0)
            return false;
        if (map->state[i] == 1 && map->keys[i] == key) {
            *slot_out = i;
            return true;
        }
        i = (i + 1) & (map->capacity - 1);
    }
    return false;
}

static bool grow(struct rt_hashmap *map)
{
    size_t capacity = map->capacity ? map->capacity * 2 : 16;
    if (map->count * 4 < map->capacity) /* mostly tombstones: rehash in place */
        capacity = map->capacity;
    struct rt_hashmap bigger = {
        .keys = malloc(capacity * sizeof(uint64_t)),
        .values = malloc(capacity * sizeof(uint64_t)),
        .state = calloc(capacity, 1),
        .capacity = capacity,
    };
    if (!bigger.keys || !bigger.values || !bigger.state) {
        rt_hashmap_finish(&bigger);
        return false;
    }
    for (size_t i = 0; i < map->capacity; i++) {
        if (map->state[i] == 1) {
            size_t j = slot_of(map->keys[i], capacity);
            while (bigger.state[j])
                j = (j + 1) & (capacity - 1);
            bigger.state[j] = 1;
            bigger.keys[j] = map->keys[i];
            bigger.values[j] = map->values[i];
            bigger.count++;
        }
    }
    rt_hashmap_finish(map);
    *map = bigger;
    return true;
}

bool rt_hashmap_put(struct rt_hashmap *map, uint64_t key, uint64_t value)
{
    size_t slot;
    if (find(map, key, &slot)) {
        map->values[slot] = value;
        return true;
    }
    if ((map->count + map->tombstones + 1) * 4 > map->capacity * 3 && !grow(map))
        return false;
    size_t i = slot_of(key, map->capacity);
    while (map->state[i] == 1)
        i = (i + 1) & (map->capacity - 1);
    if (map->state[i] == 2)
        map->tombstones--;
    map->state[i] = 1;
    map->keys[i] = key;
    map->values[i] = value;
    map->count++;
    return true;
}

bool rt_hashmap_get(const struct rt_hashmap *map, uint64_t key, uint64_t *value_out)
{
    size_t slot;
    if (!find(map, key, &slot))
        return false;
    *value_out = map->values[slot];
    return true;
}

bool rt_hashmap_remove(struct rt_hashmap *map, uint64_t key)
{
    size_t slot;
    if (!find(map, key, &slot))
        return false;
    map->state[slot] = 2;
    map->count--;
    map->tombstones++;
    return true;
}
