/* replay/handles.c — captured handle ids to live handles, per object type.
 * Per type, because a driver may give a buffer and an image the same value. */
#include <stdlib.h>

#include "replay_internal.h"

void replay_handles_init(struct replay_handles *h) { rt_hashmap_init(&h->by_type); }

void replay_handles_finish(struct replay_handles *h)
{
    for (size_t i = 0; i < h->by_type.capacity; i++) {
        if (h->by_type.state[i] == 1) {
            struct rt_hashmap *m = (struct rt_hashmap *)(uintptr_t)h->by_type.values[i];
            rt_hashmap_finish(m);
            free(m);
        }
    }
    rt_hashmap_finish(&h->by_type);
}

static struct rt_hashmap *map_of(const struct replay_handles *h, VkObjectType type)
{
    uint64_t value;
    return rt_hashmap_get(&h->by_type, (uint64_t)type, &value) ? (struct rt_hashmap *)(uintptr_t)value : NULL;
}

bool replay_handles_put(struct replay_handles *h, VkObjectType type, uint64_t captured, uint64_t live)
{
    struct rt_hashmap *m = map_of(h, type);
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m || !rt_hashmap_put(&h->by_type, (uint64_t)type, (uint64_t)(uintptr_t)m)) {
            free(m);
            return false;
        }
    }
    return rt_hashmap_put(m, captured, live);
}

bool replay_handles_get(const struct replay_handles *h, VkObjectType type, uint64_t captured, uint64_t *live_out)
{
    const struct rt_hashmap *m = map_of(h, type);
    return m && rt_hashmap_get(m, captured, live_out);
}
