/* capture/objects.c — instance and device data found by dispatch key. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "capture.h"
#include "hashmap.h"

/* Every dispatchable handle starts with the loader's dispatch pointer, and
 * child objects (physical devices, queues, command buffers) share their
 * parent's: the standard way a layer finds its per-object data. */
static uint64_t dispatch_key(const void *dispatchable)
{
    return (uint64_t)(uintptr_t) * (void *const *)dispatchable;
}

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static struct rt_hashmap instances, devices;

/* Every recorded call looks its device up: each thread remembers its last
 * answer per map, valid while no object was added or removed since (the
 * generation), so the common case is one atomic load and no shared write. */
static _Atomic uint64_t generation;
struct last_found {
    uint64_t key, generation;
    void *data;
};
static _Thread_local struct last_found last_instance, last_device;

static void *find(struct rt_hashmap *map, struct last_found *last, const void *dispatchable)
{
    uint64_t key = dispatch_key(dispatchable);
    uint64_t gen = atomic_load_explicit(&generation, memory_order_acquire);
    if (last->data && last->key == key && last->generation == gen)
        return last->data;
    uint64_t value = 0;
    pthread_rwlock_rdlock(&lock);
    bool found = rt_hashmap_get(map, key, &value);
    pthread_rwlock_unlock(&lock);
    void *data = found ? (void *)(uintptr_t)value : NULL;
    *last = (struct last_found){key, gen, data};
    return data;
}

static bool add(struct rt_hashmap *map, const void *dispatchable, void *data)
{
    pthread_rwlock_wrlock(&lock);
    bool ok = rt_hashmap_put(map, dispatch_key(dispatchable), (uint64_t)(uintptr_t)data);
    atomic_fetch_add_explicit(&generation, 1, memory_order_release);
    pthread_rwlock_unlock(&lock);
    return ok;
}

static void drop(struct rt_hashmap *map, const void *dispatchable)
{
    pthread_rwlock_wrlock(&lock);
    rt_hashmap_remove(map, dispatch_key(dispatchable));
    atomic_fetch_add_explicit(&generation, 1, memory_order_release);
    pthread_rwlock_unlock(&lock);
}

bool capture_any_instance_gives(const char *name, bool *gives_out)
{
    pthread_rwlock_rdlock(&lock);
    struct rt_hashmap_iter it;
    rt_hashmap_iter_init(&it, &instances);
    uint64_t value = 0;
    bool found = rt_hashmap_iter_next(&it, NULL, &value);
    if (found) {
        const struct capture_instance *instance = (const void *)(uintptr_t)value;
        *gives_out = instance->next_gipa(instance->handle, name) != NULL;
    }
    pthread_rwlock_unlock(&lock);
    return found;
}

struct capture_instance *capture_instance_of(const void *dispatchable)
{
    return find(&instances, &last_instance, dispatchable);
}

struct capture_device *capture_device_of(const void *dispatchable)
{
    return find(&devices, &last_device, dispatchable);
}

bool capture_instance_add(struct capture_instance *instance)
{
    return add(&instances, instance->handle, instance);
}

void capture_instance_remove(struct capture_instance *instance)
{
    drop(&instances, instance->handle);
}

bool capture_device_add(struct capture_device *device)
{
    return add(&devices, device->handle, device);
}

void capture_device_remove(struct capture_device *device)
{
    drop(&devices, device->handle);
}
