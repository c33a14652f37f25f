/*
 * Unit tests for capture/objects.c: instance and device data found by the
 * loader's dispatch pointer, through the lock-free slots and past them (the
 * map), while other threads add and remove objects.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>

#include "capture.h"

#define MANY 40

/* A dispatchable handle: the loader's dispatch pointer first. */
struct handle {
    void *dispatch;
};

static void *table(int i) { return (void *)(uintptr_t)(0x1000 * (i + 1)); }

Test(objects, found_by_dispatch_key_in_slots_and_past_them)
{
    static struct handle h[MANY], child[MANY];
    static struct capture_device d[MANY];
    for (int i = 0; i < MANY; i++) {
        h[i].dispatch = child[i].dispatch = table(i);
        d[i].handle = (VkDevice)&h[i];
        cr_assert(capture_device_add(&d[i]));
    }
    for (int i = 0; i < MANY; i++) {
        cr_assert_eq(capture_device_of(&h[i]), &d[i], "device %d", i);
        cr_assert_eq(capture_device_of(&child[i]), &d[i], "a child of device %d", i);
    }
    struct handle unknown = {table(MANY + 5)};
    cr_assert_null(capture_device_of(&unknown));
    for (int i = 0; i < MANY; i += 2)
        capture_device_remove(&d[i]);
    for (int i = 0; i < MANY; i++)
        cr_assert_eq(capture_device_of(&h[i]), i % 2 ? &d[i] : NULL, "device %d after removals", i);
    /* A new device whose dispatch table is where a removed one's was. */
    static struct capture_device again;
    again.handle = (VkDevice)&h[0];
    cr_assert(capture_device_add(&again));
    cr_assert_eq(capture_device_of(&child[0]), &again);
    capture_device_remove(&again);
    for (int i = 1; i < MANY; i += 2)
        capture_device_remove(&d[i]);
    for (int i = 0; i < MANY; i++)
        cr_assert_null(capture_device_of(&h[i]));
}

Test(objects, instances_apart_from_devices)
{
    static struct handle ih = {(void *)0x777000}, dh = {(void *)0x777000};
    static struct capture_instance instance;
    instance.handle = (VkInstance)&ih;
    cr_assert(capture_instance_add(&instance));
    cr_assert_eq(capture_instance_of(&ih), &instance);
    cr_assert_null(capture_device_of(&dh));
    capture_instance_remove(&instance);
    cr_assert_null(capture_instance_of(&ih));
}

static struct handle stable = {(void *)0x5550000};
static struct capture_device stable_device;
static atomic_bool stop;
static atomic_long wrong;

static void *look_up(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
    {
        struct capture_device *found = capture_device_of(&stable);
        if (found && found != &stable_device) /* absent while it is re-added: never another's */
            atomic_fetch_add(&wrong, 1);
    }
    return NULL;
}

Test(objects, lookups_while_others_come_and_go)
{
    stable_device.handle = (VkDevice)&stable;
    cr_assert(capture_device_add(&stable_device));
    pthread_t readers[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&readers[i], NULL, look_up, NULL);
    static struct handle h[MANY];
    static struct capture_device d[MANY];
    for (int round = 0; round < 2000; round++) {
        int i = round % MANY;
        h[i].dispatch = table(i);
        d[i].handle = (VkDevice)&h[i];
        cr_assert(capture_device_add(&d[i]));
        cr_assert_eq(capture_device_of(&h[i]), &d[i]);
        if (round % 3)
            capture_device_remove(&d[i]);
        if (round % 7 == 0) { /* the stable one leaves its slot and comes back */
            capture_device_remove(&stable_device);
            cr_assert(capture_device_add(&stable_device));
        }
    }
    atomic_store(&stop, true);
    for (int i = 0; i < 3; i++)
        pthread_join(readers[i], NULL);
    cr_assert_eq(atomic_load(&wrong), 0, "lookups that found another device: %ld", atomic_load(&wrong));
}
