/* replay/workarounds/no_robustness.c — no-robustness: the robustness
 * features the trace enables are turned off, so the driver's unchecked path
 * runs (when its robust path is the suspect). */
#include "workaround.h"

#define ID RT_WA_NO_ROBUSTNESS

struct counters {
    uint64_t features_disabled;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static void clear_flag(struct replay *r, VkBool32 *flag, const char *name)
{
    if (*flag) {
        *flag = VK_FALSE;
        if (replay_wa_add_name(r, ID, name, true))
            counters(r)->features_disabled++;
    }
}

static rt_status adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    VkPhysicalDeviceFeatures *base = replay_device_base_features(r, info);
    if (!base)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    clear_flag(r, &base->robustBufferAccess, "robustBufferAccess");
    VkPhysicalDeviceRobustness2FeaturesEXT *r2 = (VkPhysicalDeviceRobustness2FeaturesEXT *)replay_device_chain_find(
        info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT);
    if (r2) {
        clear_flag(r, &r2->robustBufferAccess2, "robustBufferAccess2");
        clear_flag(r, &r2->robustImageAccess2, "robustImageAccess2");
    }
    VkPhysicalDeviceVulkan13Features *v13 = (VkPhysicalDeviceVulkan13Features *)replay_device_chain_find(
        info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    if (v13)
        clear_flag(r, &v13->robustImageAccess, "robustImageAccess");
    VkPhysicalDeviceImageRobustnessFeatures *ir = (VkPhysicalDeviceImageRobustnessFeatures *)replay_device_chain_find(
        info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES);
    if (ir)
        clear_flag(r, &ir->robustImageAccess, "robustImageAccess");
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, features_disabled)};

const struct replay_workaround replay_wa_no_robustness = {
    .info = {"no-robustness",
             "turn off the robustness features the trace enables (a driver's robust path is suspect)",
             "device creation: robustBufferAccess, robustBufferAccess2, robustImageAccess2 and\n"
             "robustImageAccess are cleared where the trace enables them, so the driver's unchecked path\n"
             "runs. Overrides robust-buffer-access."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .names_key = "features",
    .adjust_device = adjust_device,
};
