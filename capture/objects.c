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

/*
 * Every recorded call looks its device up, so the first few objects of each
 * map are also in slots read without a lock, a thread-local variable (a
 * __tls_get_addr call in a loaded library) or a shared write: a slot's key is
 * written after its data and cleared before it, both under the lock, and a
 * reader takes the data only between two reads of the same key. A dispatch
 * key names one live object at a time (the loader's dispatch table of it),
 * so whatever data a reader sees between them is that key's. Objects past
 * the slots are found in the map, under the read lock.
 */
#define FAST_SLOTS 8
struct slot {
    _Atomic uint64_t key; /* 0: free */
    _Atomic(void *) data;
};
static struct slot instance_slots[FAST_SLOTS], device_slots[FAST_SLOTS];

static void *find(struct rt_hashmap *map, struct slot *slots, const void *dispatchable)
{
    uint64_t key = dispatch_key(dispatchable);
    for (size_t i = 0; i < FAST_SLOTS; i++) {
        if (atomic_load_explicit(&slots[i].key, memory_order_acquire) != key)
            continue;
        void *data = atomic_load_explicit(&slots[i].data, memory_order_acquire);
        if (data && atomic_load_explicit(&slots[i].key, memory_order_acquire) == key)
            return data;
    }
    uint64_t value = 0;
    pthread_rwlock_rdlock(&lock);
    bool found = rt_hashmap_get(map, key, &value);
    pthread_rwlock_unlock(&lock);
    return found ? (void *)(uintptr_t)value : NULL;
}

static bool add(struct rt_hashmap *map, struct slot *slots, const void *dispatchable, void *data)
{
    uint64_t key = dispatch_key(dispatchable);
    pthread_rwlock_wrlock(&lock);
    bool ok = rt_hashmap_put(map, key, (uint64_t)(uintptr_t)data);
    for (size_t i = 0; ok && key && i < FAST_SLOTS; i++) {
        uint64_t k = atomic_load_explicit(&slots[i].key, memory_order_relaxed);
        if (k == key || k == 0) {
            atomic_store_explicit(&slots[i].data, data, memory_order_release);
            atomic_store_explicit(&slots[i].key, key, memory_order_release);
            break;
        }
    }
    pthread_rwlock_unlock(&lock);
    return ok;
}

static void drop(struct rt_hashmap *map, struct slot *slots, const void *dispatchable)
{
    uint64_t key = dispatch_key(dispatchable);
    pthread_rwlock_wrlock(&lock);
    rt_hashmap_remove(map, key);
    for (size_t i = 0; key && i < FAST_SLOTS; i++)
        if (atomic_load_explicit(&slots[i].key, memory_order_relaxed) == key) {
            atomic_store_explicit(&slots[i].key, 0, memory_order_release);
            atomic_store_explicit(&slots[i].data, NULL, memory_order_release);
        }
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
    return find(&instances, instance_slots, dispatchable);
}

struct capture_device *capture_device_of(const void *dispatchable)
{
    return find(&devices, device_slots, dispatchable);
}

bool capture_instance_add(struct capture_instance *instance)
{
    return add(&instances, instance_slots, instance->handle, instance);
}

void capture_instance_remove(struct capture_instance *instance)
{
    drop(&instances, instance_slots, instance->handle);
}

bool capture_device_add(struct capture_device *device)
{
    return add(&devices, device_slots, device->handle, device);
}

void capture_device_remove(struct capture_device *device)
{
    drop(&devices, device_slots, device->handle);
}
