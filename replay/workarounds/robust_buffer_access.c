/* replay/workarounds/robust_buffer_access.c — robust-buffer-access: every
 * shader buffer access bounds-checked, the replay-level twin of a driver's
 * forced shader bounds checks. */
#include "workaround.h"

#define ID RT_WA_ROBUST_BUFFER_ACCESS

struct counters {
    uint64_t features_enabled;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static void enabled(struct replay *r, const char *feature)
{
    if (replay_wa_add_name(r, ID, feature, true))
        counters(r)->features_enabled++;
}

/* robustness2: robustBufferAccess2 and robustImageAccess2 where the device has them. */
static rt_status enable_robustness2(struct replay *r, VkDeviceCreateInfo *info)
{
    if (!replay_device_has_extension(r, "VK_EXT_robustness2") || !r->own.features2)
        return rt_ok_status();
    VkPhysicalDeviceRobustness2FeaturesEXT have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    VkPhysicalDeviceFeatures2 query = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have};
    r->own.features2(r->gpu, &query);
    if (!have.robustBufferAccess2 && !have.robustImageAccess2)
        return rt_ok_status();
    VkStructureType type = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT;
    VkPhysicalDeviceRobustness2FeaturesEXT *f = (VkPhysicalDeviceRobustness2FeaturesEXT *)replay_device_chain_find(info, type);
    if (!f && !(f = replay_device_chain_add(r, info, type, sizeof *f)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    RT_TRY(replay_add_device_extension(r, info, "VK_EXT_robustness2"));
    if (have.robustBufferAccess2 && (f->robustBufferAccess2 = VK_TRUE))
        enabled(r, "robustBufferAccess2");
    if (have.robustImageAccess2 && (f->robustImageAccess2 = VK_TRUE))
        enabled(r, "robustImageAccess2");
    return rt_ok_status();
}

/* robustImageAccess: in the Vulkan 1.3 features when the trace chains them,
 * else through VK_EXT_image_robustness. */
static rt_status enable_image_robustness(struct replay *r, VkDeviceCreateInfo *info)
{
    VkPhysicalDeviceVulkan13Features *v13 = (VkPhysicalDeviceVulkan13Features *)replay_device_chain_find(
        info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    VkPhysicalDeviceImageRobustnessFeatures have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES};
    VkPhysicalDeviceFeatures2 query = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have};
    if (!r->own.features2)
        return rt_ok_status();
    r->own.features2(r->gpu, &query);
    if (!have.robustImageAccess)
        return rt_ok_status();
    if (v13) {
        v13->robustImageAccess = VK_TRUE;
    } else {
        VkStructureType type = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES;
        VkPhysicalDeviceImageRobustnessFeatures *f =
            (VkPhysicalDeviceImageRobustnessFeatures *)replay_device_chain_find(info, type);
        if (!f && !replay_device_has_extension(r, "VK_EXT_image_robustness"))
            return rt_ok_status();
        if (!f && !(f = replay_device_chain_add(r, info, type, sizeof *f)))
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        RT_TRY(replay_add_device_extension(r, info, "VK_EXT_image_robustness"));
        f->robustImageAccess = VK_TRUE;
    }
    enabled(r, "robustImageAccess");
    return rt_ok_status();
}

static rt_status adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    if (replay_workaround(r, RT_WA_NO_ROBUSTNESS))
        return rt_ok_status(); /* no-robustness overrides it */
    VkPhysicalDeviceFeatures *base = replay_device_base_features(r, info);
    if (!base)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    base->robustBufferAccess = VK_TRUE; /* required of every Vulkan device */
    enabled(r, "robustBufferAccess");
    RT_TRY(enable_robustness2(r, info));
    return enable_image_robustness(r, info);
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, features_enabled)};

const struct replay_workaround replay_wa_robust_buffer_access = {
    .info = {"robust-buffer-access",
             "bounds-check every shader buffer access (robustBufferAccess, robustness2 where present)",
             "device creation: enables robustBufferAccess, and robustBufferAccess2 and robustImageAccess2\n"
             "(VK_EXT_robustness2) and robustImageAccess (VK_EXT_image_robustness) where the device has\n"
             "them. An out-of-bounds read then returns zero or in-bounds data instead of whatever memory\n"
             "lies there. The report names the features enabled."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .names_key = "features",
    .adjust_device = adjust_device,
};
