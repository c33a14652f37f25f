/* replay/workarounds/test_dirty_memory.c — test-dirty-memory, a model of a
 * driver for tests of `retrace diagnose` (issue 19), not a fix: every new
 * allocation holds what an earlier one left (a fixed pattern here) instead of
 * the zeros lavapipe and the replay's own homes start with (memory.h), so a
 * program that reads memory it never wrote (rt_app_uninit) shows it, and
 * zero-init, which fills with zeros after the driver, hides it again.
 * Without RETRACE_TEST_DRIVER=1 it refuses to run, so no configuration can
 * turn it on by accident. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "workaround.h"

#define ID RT_WA_TEST_DIRTY_MEMORY

struct counters {
    uint64_t allocations_dirtied, device_local_left;
};
REPLAY_WA_COUNTERS(struct counters, ID)

rt_status replay_wa_test_driver_check(const char *name)
{
    const char *env = getenv("RETRACE_TEST_DRIVER");
    if (env && strcmp(env, "1") == 0)
        return rt_ok_status();
    return rt_errorf(RT_ERR_USAGE, "%s models a driver bug on purpose, for tests: it needs RETRACE_TEST_DRIVER=1",
                     name);
}

static rt_status adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    (void)r;
    (void)info;
    return replay_wa_test_driver_check("test-dirty-memory");
}

/* Opaque, different from word to word: what a recycled allocation might hold. */
static void fill(uint8_t *p, VkDeviceSize size)
{
    for (VkDeviceSize i = 0; i + 4 <= size; i += 4) {
        uint32_t w = 0xff000000u | ((uint32_t)(i / 4) * 2654435761u) >> 8;
        memcpy(p + i, &w, 4);
    }
}

static void flush(struct replay *r, struct replay_device *dev, VkDeviceMemory memory, uint32_t type_index)
{
    if (r->gpu_memory.memoryTypes[type_index].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
        return;
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory, .size = VK_WHOLE_SIZE};
    dev->dispatch.device.vkFlushMappedMemoryRanges(dev->handle, 1, &range);
}

/* zero-init fills with zeros after the driver hands the memory out: where it is on, its zeros stay. */
static bool zeros_win(const struct replay *r) { return replay_workaround(r, RT_WA_ZERO_INIT); }

/* Every new allocation: an allocation rebinding makes keeps this; a captured one's home is zeroed by
 * memory.c after the hook, and dirtied again in after_call below. */
static rt_status new_memory(struct replay *r, struct replay_device *dev, VkDeviceMemory memory, VkDeviceSize size,
                            uint32_t type_index)
{
    if (!dev || type_index >= r->gpu_memory.memoryTypeCount || zeros_win(r))
        return rt_ok_status();
    if (!(r->gpu_memory.memoryTypes[type_index].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
        counters(r)->device_local_left++; /* lavapipe has none; a GPU's stays as the device made it */
        return rt_ok_status();
    }
    void *p = NULL;
    if (dev->dispatch.device.vkMapMemory(dev->handle, memory, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "test-dirty-memory: cannot map a new allocation");
    fill(p, size);
    flush(r, dev, memory, type_index);
    dev->dispatch.device.vkUnmapMemory(dev->handle, memory);
    counters(r)->allocations_dirtied++;
    return rt_ok_status();
}

/* A captured allocation's home, zeroed and mapped by memory.c: the pattern again, through its mapping. */
static rt_status after_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (rt_vk_commands[cmd].trim_args != RT_VK_TRIM_ARGS_MEMORY_INFO || zeros_win(r)) /* vkAllocateMemory's */
        return rt_ok_status();
    struct rt_vk_args_vkAllocateMemory *a = args;
    struct replay_memory *m = a->pMemory ? replay_memory_of(r, (uint64_t)(uintptr_t)*a->pMemory) : NULL;
    if (!m || !m->mapped)
        return rt_ok_status();
    fill(m->mapped, m->live_size);
    flush(r, m->dev, m->live, m->type);
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, allocations_dirtied),
                                                        REPLAY_WA_COUNTER(struct counters, device_local_left)};

const struct replay_workaround replay_wa_test_dirty_memory = {
    .info = {"test-dirty-memory", "TEST ONLY: models a driver whose new memory holds old bytes (diagnose's tests)",
             "memory: every vkAllocateMemory's home and every allocation rebinding makes is filled with a\n"
             "fixed pattern of opaque words instead of zeros, as a driver that recycles memory without\n"
             "clearing it would hand it out; memory the host cannot see is left as the device made it.\n"
             "With zero-init on too, zero-init's zeros come after the driver's bytes: nothing is filled.\n"
             "Needs RETRACE_TEST_DRIVER=1. A model of a bug for tests of retrace diagnose, never a fix."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .adjust_device = adjust_device,
    .new_memory = new_memory,
    .after_call = after_call,
};
