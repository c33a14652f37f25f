/* replay/features.c — the device features a trace enables, checked against
 * the replay device before vkCreateDevice, so a missing one is named
 * ("the trace needs samplerAnisotropy (VkPhysicalDeviceFeatures)") rather
 * than reported as VK_ERROR_FEATURE_NOT_PRESENT. The VkBool32 members of
 * every feature struct are found through the codec's tables. */
#include <string.h>

#include "replay_config.h"

/* The first VkBool32 member enabled in WANT and not in HAVE, or NULL; with
 * strip-unsupported, such members are cleared in WANT (decoded: writable). */
static const char *missing_member(struct replay *r, const struct rt_vk_struct_desc *desc, const void *want,
                                  const void *have)
{
    for (uint32_t i = 0; i < desc->nmembers; i++) {
        const struct rt_vk_member *m = &desc->members[i];
        if (m->kind != RT_VK_KIND_BOOL32 || m->depth || m->count != 1)
            continue;
        VkBool32 w, h;
        memcpy(&w, (const char *)want + m->offset, sizeof w);
        memcpy(&h, (const char *)have + m->offset, sizeof h);
        if (w && !h && !replay_strip_feature(r, desc->name, m->name, (VkBool32 *)((char *)want + m->offset)))
            return m->name;
    }
    return NULL;
}

static rt_status check_base(struct replay *r, const VkPhysicalDeviceFeatures *want)
{
    VkPhysicalDeviceFeatures have;
    r->instance_dispatch.vkGetPhysicalDeviceFeatures(r->gpu, &have);
    const char *name = missing_member(r, &rt_vk_structs[RT_VK_STRUCT_VkPhysicalDeviceFeatures], want, &have);
    if (name)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the trace needs feature %s (VkPhysicalDeviceFeatures), which %s lacks",
                         name, r->gpu_properties.deviceName);
    return rt_ok_status();
}

/* One feature struct of the chain, queried alone from the replay device. */
static rt_status check_node(struct replay *r, const VkBaseInStructure *node)
{
    enum rt_vk_struct_type type;
    if (!rt_vk_struct_from_stype((uint32_t)node->sType, &type) || !rt_vk_structs[type].features)
        return rt_ok_status();
    const struct rt_vk_struct_desc *desc = &rt_vk_structs[type];
    if (node->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
        return check_base(r, &((const VkPhysicalDeviceFeatures2 *)node)->features);
    VkBaseOutStructure *have = rt_arena_calloc(&r->arena, 1, desc->size, 16);
    if (!have)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    have->sType = node->sType;
    VkPhysicalDeviceFeatures2 query = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = have};
    r->own.features2(r->gpu, &query);
    const char *name = missing_member(r, desc, node, have);
    if (name)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the trace needs feature %s (%s), which %s lacks", name, desc->name,
                         r->gpu_properties.deviceName);
    return rt_ok_status();
}

rt_status replay_check_features(struct replay *r, const VkDeviceCreateInfo *info)
{
    if (info->pEnabledFeatures)
        RT_TRY(check_base(r, info->pEnabledFeatures));
    if (!r->own.features2)
        return rt_ok_status(); /* a Vulkan 1.0 instance: let vkCreateDevice decide */
    for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
        RT_TRY(check_node(r, s));
    return rt_ok_status();
}
