/* replay/resources.c — one record per live buffer and image (resources.h). */
#include <stdlib.h>

#include "resources.h"

void replay_resources_init(struct replay_resources *res)
{
    rt_hashmap_init(&res->buffers);
    rt_hashmap_init(&res->images);
}

static void free_all(struct rt_hashmap *map)
{
    struct rt_hashmap_iter it;
    uint64_t value;
    rt_hashmap_iter_init(&it, map);
    while (rt_hashmap_iter_next(&it, NULL, &value))
        free((void *)(uintptr_t)value);
    rt_hashmap_finish(map);
}

void replay_resources_finish(struct replay_resources *res)
{
    free_all(&res->buffers);
    free_all(&res->images);
}

static void *lookup(const struct rt_hashmap *map, uint64_t handle)
{
    uint64_t value = 0;
    return rt_hashmap_get(map, handle, &value) ? (void *)(uintptr_t)value : NULL;
}

static void drop(struct rt_hashmap *map, uint64_t handle)
{
    free(lookup(map, handle));
    rt_hashmap_remove(map, handle);
}

/* A record zeroed from scratch: whatever an earlier object under the same
 * handle left (destroy missed or not) is gone. */
static void *add(struct rt_hashmap *map, uint64_t handle, size_t size)
{
    drop(map, handle);
    void *record = calloc(1, size);
    if (record && !rt_hashmap_put(map, handle, (uint64_t)(uintptr_t)record)) {
        free(record);
        return NULL;
    }
    return record;
}

struct replay_buffer *replay_resources_add_buffer(struct replay_resources *res, uint64_t buffer)
{
    return add(&res->buffers, buffer, sizeof(struct replay_buffer));
}

struct replay_image *replay_resources_add_image(struct replay_resources *res, uint64_t image)
{
    return add(&res->images, image, sizeof(struct replay_image));
}

struct replay_buffer *replay_resources_buffer(const struct replay_resources *res, uint64_t buffer)
{
    return lookup(&res->buffers, buffer);
}

struct replay_image *replay_resources_image(const struct replay_resources *res, uint64_t image)
{
    return lookup(&res->images, image);
}

void replay_resources_remove_buffer(struct replay_resources *res, uint64_t buffer)
{
    drop(&res->buffers, buffer);
}

void replay_resources_remove_image(struct replay_resources *res, uint64_t image)
{
    drop(&res->images, image);
}

static bool ranges_meet(VkDeviceSize a, VkDeviceSize a_size, VkDeviceSize b, VkDeviceSize b_size)
{
    return a_size && b_size && a < b + b_size && b < a + a_size;
}

bool replay_extents_alias(struct replay_extent a, struct replay_extent b)
{
    return ranges_meet(a.offset, a.capture_size, b.offset, b.capture_size);
}

bool replay_fits_in_place(const VkMemoryRequirements *req, uint32_t type, VkDeviceSize size,
                          struct replay_extent self, const struct replay_extent *placed, size_t count)
{
    if (type >= 32 || !(req->memoryTypeBits & (1u << type)) || (req->alignment && self.offset % req->alignment))
        return false;
    if (self.offset > size || req->size > size - self.offset)
        return false;
    for (size_t i = 0; i < count; i++) /* new overlaps would mix bytes the capture kept apart */
        if (ranges_meet(self.offset, self.replay_size, placed[i].offset, placed[i].replay_size) &&
            !replay_extents_alias(self, placed[i]))
            return false;
    return true;
}
