/* common/typedmap.c — one hash map per type (see typedmap.h). */
#include "typedmap.h"

#include <stdlib.h>

void rt_typed_map_init(struct rt_typed_map *map) { rt_hashmap_init(&map->by_type); }

void rt_typed_map_finish(struct rt_typed_map *map)
{
    struct rt_hashmap_iter it;
    uint64_t value;
    rt_hashmap_iter_init(&it, &map->by_type);
    while (rt_hashmap_iter_next(&it, NULL, &value)) {
        struct rt_hashmap *m = (struct rt_hashmap *)(uintptr_t)value;
        rt_hashmap_finish(m);
        free(m);
    }
    rt_hashmap_finish(&map->by_type);
}

static struct rt_hashmap *map_of(const struct rt_typed_map *map, uint32_t type)
{
    uint64_t value;
    return rt_hashmap_get(&map->by_type, type, &value) ? (struct rt_hashmap *)(uintptr_t)value : NULL;
}

bool rt_typed_map_put(struct rt_typed_map *map, uint32_t type, uint64_t key, uint64_t value)
{
    struct rt_hashmap *m = map_of(map, type);
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m || !rt_hashmap_put(&map->by_type, type, (uint64_t)(uintptr_t)m)) {
            free(m);
            return false;
        }
    }
    return rt_hashmap_put(m, key, value);
}

bool rt_typed_map_get(const struct rt_typed_map *map, uint32_t type, uint64_t key, uint64_t *value_out)
{
    const struct rt_hashmap *m = map_of(map, type);
    return m && rt_hashmap_get(m, key, value_out);
}
