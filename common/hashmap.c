/* common/hashmap.c — linear probing with tombstones (see hashmap.h). */
#include "hashmap.h"

#include <stdlib.h>

enum { SLOT_EMPTY, SLOT_USED, SLOT_DELETED };

void rt_hashmap_init(struct rt_hashmap *map)
{
    *map = (struct rt_hashmap){0};
}

static void table_free(struct rt_hashmap_table *t)
{
    free(t->keys);
    free(t->values);
    free(t->state);
    *t = (struct rt_hashmap_table){0};
}

void rt_hashmap_finish(struct rt_hashmap *map)
{
    table_free(&map->internal);
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

static bool find(const struct rt_hashmap_table *t, uint64_t key, size_t *slot_out)
{
    if (t->capacity == 0)
        return false;
    size_t i = slot_of(key, t->capacity);
    for (size_t n = 0; n < t->capacity; n++) {
        if (t->state[i] == SLOT_EMPTY)
            return false;
        if (t->state[i] == SLOT_USED && t->keys[i] == key) {
            *slot_out = i;
            return true;
        }
        i = (i + 1) & (t->capacity - 1);
    }
    return false;
}

static bool grow(struct rt_hashmap_table *t)
{
    size_t capacity = t->capacity ? t->capacity * 2 : 16;
    if (t->count * 4 < t->capacity) /* mostly tombstones: rehash in place */
        capacity = t->capacity;
    struct rt_hashmap_table bigger = {
        .keys = malloc(capacity * sizeof(uint64_t)),
        .values = malloc(capacity * sizeof(uint64_t)),
        .state = calloc(capacity, 1),
        .capacity = capacity,
    };
    if (!bigger.keys || !bigger.values || !bigger.state) {
        table_free(&bigger);
        return false;
    }
    for (size_t i = 0; i < t->capacity; i++) {
        if (t->state[i] == SLOT_USED) {
            size_t j = slot_of(t->keys[i], capacity);
            while (bigger.state[j])
                j = (j + 1) & (capacity - 1);
            bigger.state[j] = SLOT_USED;
            bigger.keys[j] = t->keys[i];
            bigger.values[j] = t->values[i];
            bigger.count++;
        }
    }
    table_free(t);
    *t = bigger;
    return true;
}

bool rt_hashmap_put(struct rt_hashmap *map, uint64_t key, uint64_t value)
{
    struct rt_hashmap_table *t = &map->internal;
    size_t slot;
    if (find(t, key, &slot)) {
        t->values[slot] = value;
        return true;
    }
    if ((t->count + t->tombstones + 1) * 4 > t->capacity * 3 && !grow(t))
        return false;
    size_t i = slot_of(key, t->capacity);
    while (t->state[i] == SLOT_USED)
        i = (i + 1) & (t->capacity - 1);
    if (t->state[i] == SLOT_DELETED)
        t->tombstones--;
    t->state[i] = SLOT_USED;
    t->keys[i] = key;
    t->values[i] = value;
    t->count++;
    return true;
}

bool rt_hashmap_get(const struct rt_hashmap *map, uint64_t key, uint64_t *value_out)
{
    size_t slot;
    if (!find(&map->internal, key, &slot))
        return false;
    *value_out = map->internal.values[slot];
    return true;
}

bool rt_hashmap_remove(struct rt_hashmap *map, uint64_t key)
{
    struct rt_hashmap_table *t = &map->internal;
    size_t slot;
    if (!find(t, key, &slot))
        return false;
    t->state[slot] = SLOT_DELETED;
    t->count--;
    t->tombstones++;
    return true;
}

size_t rt_hashmap_count(const struct rt_hashmap *map) { return map->internal.count; }

size_t rt_hashmap_slots(const struct rt_hashmap *map) { return map->internal.capacity; }

void rt_hashmap_iter_init(struct rt_hashmap_iter *it, const struct rt_hashmap *map)
{
    *it = (struct rt_hashmap_iter){.map = map, .next = 0};
}

/* Removal only marks a slot deleted and never moves entries, so a walk that
 * removes what it has seen still meets every other entry exactly once. */
bool rt_hashmap_iter_next(struct rt_hashmap_iter *it, uint64_t *key_out, uint64_t *value_out)
{
    const struct rt_hashmap_table *t = &it->map->internal;
    while (it->next < t->capacity) {
        size_t i = it->next++;
        if (t->state[i] != SLOT_USED)
            continue;
        if (key_out)
            *key_out = t->keys[i];
        if (value_out)
            *value_out = t->values[i];
        return true;
    }
    return false;
}
