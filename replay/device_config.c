/* replay/device_config.c — the tools workarounds use to change device
 * creation (the create info's chain, its base features, its extensions),
 * what replay learns of the device for the report, and what the gpu delay
 * and --pipeline-cache set up per device. What each workaround changes is in
 * its own file (replay/workarounds/). Device creation works on the decoded
 * VkDeviceCreateInfo: its structs live in the call's arena, so changing or
 * relinking them is safe. */
#include <inttypes.h>
#include <string.h>

#include "replay_config.h"

VkBaseOutStructure *replay_device_chain_find(VkDeviceCreateInfo *info, VkStructureType type)
{
    for (VkBaseOutStructure *s = (VkBaseOutStructure *)info->pNext; s; s = s->pNext)
        if (s->sType == type)
            return s;
    return NULL;
}

void *replay_device_chain_add(struct replay *r, VkDeviceCreateInfo *info, VkStructureType type, size_t size)
{
    VkBaseOutStructure *node = rt_arena_calloc(&r->arena, 1, size, 16);
    if (!node)
        return NULL;
    node->sType = type;
    node->pNext = (VkBaseOutStructure *)info->pNext;
    info->pNext = node;
    return node;
}

static bool enables_extension(const VkDeviceCreateInfo *info, const char *name)
{
    for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
        if (!strcmp(info->ppEnabledExtensionNames[i], name))
            return true;
    return false;
}

bool replay_device_has_extension(struct replay *r, const char *name)
{
    uint32_t count = 0;
    r->instance_dispatch.vkEnumerateDeviceExtensionProperties(r->gpu, NULL, &count, NULL);
    VkExtensionProperties *have = rt_arena_calloc(&r->arena, count + 1, sizeof *have, 8);
    if (!have)
        return false;
    r->instance_dispatch.vkEnumerateDeviceExtensionProperties(r->gpu, NULL, &count, have);
    for (uint32_t i = 0; i < count; i++)
        if (!strcmp(have[i].extensionName, name))
            return true;
    return false;
}

rt_status replay_add_device_extension(struct replay *r, VkDeviceCreateInfo *info, const char *name)
{
    if (enables_extension(info, name))
        return rt_ok_status();
    const char **names = rt_arena_calloc(&r->arena, info->enabledExtensionCount + 1, sizeof *names, 8);
    if (!names)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    memcpy(names, info->ppEnabledExtensionNames, info->enabledExtensionCount * sizeof *names);
    names[info->enabledExtensionCount++] = name;
    info->ppEnabledExtensionNames = names;
    return rt_ok_status();
}

VkPhysicalDeviceFeatures *replay_device_base_features(struct replay *r, VkDeviceCreateInfo *info)
{
    VkPhysicalDeviceFeatures2 *f2 =
        (VkPhysicalDeviceFeatures2 *)replay_device_chain_find(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    if (f2)
        return &f2->features;
    VkPhysicalDeviceFeatures *f = rt_arena_calloc(&r->arena, 1, sizeof *f, 8);
    if (f && info->pEnabledFeatures)
        *f = *info->pEnabledFeatures;
    info->pEnabledFeatures = f;
    return f;
}

/* --- the device, for the report ------------------------------------------------ */

static void describe_device(struct replay *r)
{
    struct rt_replay_outcome *o = &r->result->outcome;
    o->device.vendor_id = r->gpu_properties.vendorID;
    o->device.device_id = r->gpu_properties.deviceID;
    o->device.driver_version = r->gpu_properties.driverVersion;
    o->device.api_version = r->gpu_properties.apiVersion;
    if (!r->own.properties2 || r->gpu_properties.apiVersion < VK_API_VERSION_1_2)
        return;
    VkPhysicalDeviceDriverProperties driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver};
    r->own.properties2(r->gpu, &props);
    snprintf(o->device.driver_name, sizeof o->device.driver_name, "%s", driver.driverName);
    snprintf(o->device.driver_info, sizeof o->device.driver_info, "%s", driver.driverInfo);
}

rt_status replay_config_device_created(struct replay *r, struct replay_device *dev)
{
    describe_device(r);
    struct replay_config_state *st = r->config;
    if (!st)
        return rt_ok_status();
    if (st->delay[RT_DELAY_GPU]) {
        for (int i = 0; i < REPLAY_MAX_STALLS; i++) {
            if (!st->stalls[i]) {
                RT_TRY(replay_gpu_stall_create(r, dev, &st->stalls[i]));
                break;
            }
        }
    }
    if (st->cfg->pipeline_cache && !st->cache)
        RT_TRY(replay_pipeline_cache_open(r, dev, &st->cache));
    return rt_ok_status();
}

void replay_config_device_destroyed(struct replay *r, struct replay_device *dev)
{
    struct replay_config_state *st = r->config;
    if (!st)
        return;
    for (int i = 0; i < REPLAY_MAX_STALLS; i++) {
        if (st->stalls[i] && *(struct replay_device **)st->stalls[i] == dev) {
            replay_gpu_stall_destroy(st->stalls[i]);
            st->stalls[i] = NULL;
        }
    }
    if (st->cache && *(struct replay_device **)st->cache == dev) {
        replay_pipeline_cache_close(r, st->cache);
        st->cache = NULL;
    }
}
