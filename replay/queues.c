/* replay/queues.c — queue families. A trace names the capture device's
 * queue families by index; the replay device may number them differently or
 * have fewer. The families the application saw are remembered from the
 * trace's own vkGetPhysicalDeviceQueueFamilyProperties* results, and a
 * device whose family at that index cannot do the same work is refused with
 * a message naming it (remapping families is not implemented yet). */
#include <inttypes.h>

#include "replay_internal.h"

static void remember(struct replay *r, uint32_t count, VkQueueFlags (*flags_of)(const void *, uint32_t),
                     const void *props)
{
    r->captured_family_count = count < REPLAY_MAX_FAMILIES ? count : REPLAY_MAX_FAMILIES;
    for (uint32_t i = 0; i < r->captured_family_count; i++)
        r->captured_family_flags[i] = flags_of(props, i);
}

static VkQueueFlags flags_1(const void *props, uint32_t i)
{
    return ((const VkQueueFamilyProperties *)props)[i].queueFlags;
}

static VkQueueFlags flags_2(const void *props, uint32_t i)
{
    return ((const VkQueueFamilyProperties2 *)props)[i].queueFamilyProperties.queueFlags;
}

rt_status replay_queue_family_properties(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetPhysicalDeviceQueueFamilyProperties *a = args;
    if (a->pQueueFamilyProperties && a->pQueueFamilyPropertyCount)
        remember(r, *a->pQueueFamilyPropertyCount, flags_1, a->pQueueFamilyProperties);
    return replay_skip(r, args, captured_result);
}

rt_status replay_queue_family_properties2(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetPhysicalDeviceQueueFamilyProperties2 *a = args;
    if (a->pQueueFamilyProperties && a->pQueueFamilyPropertyCount)
        remember(r, *a->pQueueFamilyPropertyCount, flags_2, a->pQueueFamilyProperties);
    return replay_skip(r, args, captured_result);
}

/* What matters for replaying work on a family. Sparse binding is left out:
 * families that can do it (NVIDIA's family 0) are mostly used for other
 * work, and a vkQueueBindSparse the device cannot run fails by itself. */
#define WORK_FLAGS (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT)

rt_status replay_check_queue_families(struct replay *r, const VkDeviceCreateInfo *info)
{
    uint32_t count = 0;
    r->instance_dispatch.vkGetPhysicalDeviceQueueFamilyProperties(r->gpu, &count, NULL);
    VkQueueFamilyProperties have[REPLAY_MAX_FAMILIES];
    count = count < REPLAY_MAX_FAMILIES ? count : REPLAY_MAX_FAMILIES;
    r->instance_dispatch.vkGetPhysicalDeviceQueueFamilyProperties(r->gpu, &count, have);
    for (uint32_t i = 0; i < info->queueCreateInfoCount; i++) {
        const VkDeviceQueueCreateInfo *q = &info->pQueueCreateInfos[i];
        uint32_t f = q->queueFamilyIndex;
        VkQueueFlags want = f < r->captured_family_count ? r->captured_family_flags[f] & WORK_FLAGS : 0;
        /* Graphics and compute families can always transfer, stated or not. */
        VkQueueFlags got = f < count ? have[f].queueFlags : 0;
        if (got & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
            got |= VK_QUEUE_TRANSFER_BIT;
        if (f >= count || (want & ~got) || q->queueCount > have[f].queueCount)
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "the trace uses %u queue(s) of queue family %u (flags 0x%x), "
                             "which %s does not have there; remapping queue families is not supported yet",
                             q->queueCount, f, (unsigned)want, r->gpu_properties.deviceName);
    }
    return rt_ok_status();
}
