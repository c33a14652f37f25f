/* replay/workarounds/test_unchecked_reads.c — test-unchecked-reads, a model
 * of a driver for tests of `retrace diagnose` (issue 19), not a fix: a device
 * that does not bounds-check shader buffer access unless robustBufferAccess
 * (or robustBufferAccess2) is on, so a read past a storage buffer's end finds
 * the memory after it (rt_app_oob). lavapipe always checks against the
 * descriptor's range, so the model gives every storage buffer memory past its
 * end that the shader can reach: the buffer is made twice its size, and a
 * descriptor over its whole size covers the second half, which holds whatever
 * its allocation held (with test-dirty-memory, old bytes). Reads up to twice
 * the size are unchecked; further ones are still checked. With robustness on,
 * nothing changes: robust-buffer-access hides the bug. A widened buffer that
 * aliases another loses the alias (rebind.c warns), as on any device whose
 * sizes differ: rt_app_memory's first case then shows it.
 * Without RETRACE_TEST_DRIVER=1 it refuses to run. */
#include <inttypes.h>

#include "workaround.h"

#define ID RT_WA_TEST_UNCHECKED_READS

struct counters {
    uint64_t buffers_widened;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static bool robust2(VkDeviceCreateInfo *info)
{
    const VkPhysicalDeviceRobustness2FeaturesEXT *f = (const void *)replay_device_chain_find(
        info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT);
    return f && f->robustBufferAccess2;
}

/* Runs after robust-buffer-access's hook (registry order): the features the device gets. */
static rt_status adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    RT_TRY(replay_wa_test_driver_check("test-unchecked-reads"));
    VkPhysicalDeviceFeatures *base = replay_device_base_features(r, info);
    if (!base)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->config->unchecked_reads = !base->robustBufferAccess && !robust2(info);
    if (r->config->unchecked_reads) /* buffers larger than the capture's: placed as on a device whose sizes differ */
        r->rebind = true;
    return rt_ok_status();
}

/* The buffer is made twice its size; the decoded size is put back after the call, so that what
 * replay and the dumps know of it is the program's. */
static rt_status before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (rt_vk_commands[cmd].trim_args != RT_VK_TRIM_ARGS_BUFFER_INFO || !r->config->unchecked_reads) /* vkCreateBuffer's */
        return rt_ok_status();
    VkBufferCreateInfo *info = (VkBufferCreateInfo *)((struct rt_vk_args_vkCreateBuffer *)args)->pCreateInfo;
    if (!info || !(info->usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) || info->size > UINT64_MAX / 2)
        return rt_ok_status();
    info->size *= 2; /* decoded: ours to change */
    r->config->widened_size = info->size;
    counters(r)->buffers_widened++;
    return rt_ok_status();
}

static rt_status after_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (rt_vk_commands[cmd].trim_args != RT_VK_TRIM_ARGS_BUFFER_INFO || !r->config->widened_size)
        return rt_ok_status();
    VkBufferCreateInfo *info = (VkBufferCreateInfo *)((struct rt_vk_args_vkCreateBuffer *)args)->pCreateInfo;
    if (info && info->size == r->config->widened_size)
        info->size /= 2;
    r->config->widened_size = 0;
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, buffers_widened)};

const struct replay_workaround replay_wa_test_unchecked_reads = {
    .info = {"test-unchecked-reads",
             "TEST ONLY: models a driver that skips bounds checks without robustness (diagnose's tests)",
             "device creation: where robustBufferAccess and robustBufferAccess2 stay off (robust-buffer-\n"
             "access turns them on), every vkCreateBuffer with storage-buffer usage makes the buffer\n"
             "twice its size (memory rebound, as on a device whose sizes differ), so a shader reading\n"
             "past the end through a whole-size descriptor finds its allocation's other bytes, as it\n"
             "would on a driver that does not bounds-check. A widened buffer that aliases another at\n"
             "capture loses the alias (the replay warns), as on any device whose sizes differ.\n"
             "Needs RETRACE_TEST_DRIVER=1. A model of a bug for tests of retrace diagnose, never a fix."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .adjust_device = adjust_device,
    .before_call = before_call,
    .after_call = after_call,
};
