/* replay/device_config.c — what the workarounds change at device creation
 * (robustness, anisotropy, what the gpu delay needs), what replay learns of
 * the device for the report, and zero-init's fill of every new allocation.
 * Device creation works on the decoded VkDeviceCreateInfo: its structs live
 * in the call's arena, so changing or relinking them is safe. */
#include <inttypes.h>
#include <string.h>

#include "replay_config.h"

static void note(struct replay *r, enum rt_workaround w, const char *name)
{
    char *names = r->result->outcome.acted_names[w];
    size_t used = strlen(names);
    if (strstr(names, name))
        return;
    snprintf(names + used, sizeof r->result->outcome.acted_names[w] - used, "%s%s", used ? "," : "", name);
    r->result->outcome.acted[w][0]++;
}

static VkBaseOutStructure *find_node(VkDeviceCreateInfo *info, VkStructureType type)
{
    for (VkBaseOutStructure *s = (VkBaseOutStructure *)info->pNext; s; s = s->pNext)
        if (s->sType == type)
            return s;
    return NULL;
}

static void *add_node(struct replay *r, VkDeviceCreateInfo *info, VkStructureType type, size_t size)
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

/* The base features the device will be created with, writable. */
static VkPhysicalDeviceFeatures *base_features(struct replay *r, VkDeviceCreateInfo *info)
{
    VkPhysicalDeviceFeatures2 *f2 = (VkPhysicalDeviceFeatures2 *)find_node(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    if (f2)
        return &f2->features;
    VkPhysicalDeviceFeatures *f = rt_arena_calloc(&r->arena, 1, sizeof *f, 8);
    if (f && info->pEnabledFeatures)
        *f = *info->pEnabledFeatures;
    info->pEnabledFeatures = f;
    return f;
}

/* robustness2: robustBufferAccess2 and robustImageAccess2 where the device has them. */
static rt_status enable_robustness2(struct replay *r, VkDeviceCreateInfo *info)
{
    if (!replay_device_has_extension(r, "VK_EXT_robustness2") || !r->instance_dispatch.vkGetPhysicalDeviceFeatures2)
        return rt_ok_status();
    VkPhysicalDeviceRobustness2FeaturesEXT have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    VkPhysicalDeviceFeatures2 query = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have};
    r->instance_dispatch.vkGetPhysicalDeviceFeatures2(r->gpu, &query);
    if (!have.robustBufferAccess2 && !have.robustImageAccess2)
        return rt_ok_status();
    VkPhysicalDeviceRobustness2FeaturesEXT *f =
        (VkPhysicalDeviceRobustness2FeaturesEXT *)find_node(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT);
    if (!f && !(f = add_node(r, info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT, sizeof *f)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    RT_TRY(replay_add_device_extension(r, info, "VK_EXT_robustness2"));
    if (have.robustBufferAccess2 && (f->robustBufferAccess2 = VK_TRUE))
        note(r, RT_WA_ROBUST_BUFFER_ACCESS, "robustBufferAccess2");
    if (have.robustImageAccess2 && (f->robustImageAccess2 = VK_TRUE))
        note(r, RT_WA_ROBUST_BUFFER_ACCESS, "robustImageAccess2");
    return rt_ok_status();
}

/* robustImageAccess: in the Vulkan 1.3 features when the trace chains them,
 * else through VK_EXT_image_robustness. */
static rt_status enable_image_robustness(struct replay *r, VkDeviceCreateInfo *info)
{
    VkPhysicalDeviceVulkan13Features *v13 =
        (VkPhysicalDeviceVulkan13Features *)find_node(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    VkPhysicalDeviceImageRobustnessFeatures have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES};
    VkPhysicalDeviceFeatures2 query = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have};
    if (!r->instance_dispatch.vkGetPhysicalDeviceFeatures2)
        return rt_ok_status();
    r->instance_dispatch.vkGetPhysicalDeviceFeatures2(r->gpu, &query);
    if (!have.robustImageAccess)
        return rt_ok_status();
    if (v13) {
        v13->robustImageAccess = VK_TRUE;
    } else {
        VkPhysicalDeviceImageRobustnessFeatures *f = (VkPhysicalDeviceImageRobustnessFeatures *)find_node(
            info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES);
        if (!f && !replay_device_has_extension(r, "VK_EXT_image_robustness"))
            return rt_ok_status();
        if (!f && !(f = add_node(r, info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES, sizeof *f)))
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        RT_TRY(replay_add_device_extension(r, info, "VK_EXT_image_robustness"));
        f->robustImageAccess = VK_TRUE;
    }
    note(r, RT_WA_ROBUST_BUFFER_ACCESS, "robustImageAccess");
    return rt_ok_status();
}

static rt_status enable_robustness(struct replay *r, VkDeviceCreateInfo *info)
{
    VkPhysicalDeviceFeatures *base = base_features(r, info);
    if (!base)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    base->robustBufferAccess = VK_TRUE; /* required of every Vulkan device */
    note(r, RT_WA_ROBUST_BUFFER_ACCESS, "robustBufferAccess");
    RT_TRY(enable_robustness2(r, info));
    return enable_image_robustness(r, info);
}

static void clear_flag(struct replay *r, VkBool32 *flag, const char *name)
{
    if (*flag) {
        *flag = VK_FALSE;
        note(r, RT_WA_NO_ROBUSTNESS, name);
    }
}

static rt_status disable_robustness(struct replay *r, VkDeviceCreateInfo *info)
{
    VkPhysicalDeviceFeatures *base = base_features(r, info);
    if (!base)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    clear_flag(r, &base->robustBufferAccess, "robustBufferAccess");
    VkPhysicalDeviceRobustness2FeaturesEXT *r2 =
        (VkPhysicalDeviceRobustness2FeaturesEXT *)find_node(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT);
    if (r2) {
        clear_flag(r, &r2->robustBufferAccess2, "robustBufferAccess2");
        clear_flag(r, &r2->robustImageAccess2, "robustImageAccess2");
    }
    VkPhysicalDeviceVulkan13Features *v13 =
        (VkPhysicalDeviceVulkan13Features *)find_node(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    if (v13)
        clear_flag(r, &v13->robustImageAccess, "robustImageAccess");
    VkPhysicalDeviceImageRobustnessFeatures *ir = (VkPhysicalDeviceImageRobustnessFeatures *)find_node(
        info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES);
    if (ir)
        clear_flag(r, &ir->robustImageAccess, "robustImageAccess");
    return rt_ok_status();
}

rt_status replay_config_adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    if (!r->config)
        return rt_ok_status();
    replay_strip_device_chain(r, info);
    if (replay_workaround(r, RT_WA_NO_ROBUSTNESS))
        RT_TRY(disable_robustness(r, info));
    else if (replay_workaround(r, RT_WA_ROBUST_BUFFER_ACCESS))
        RT_TRY(enable_robustness(r, info));
    if (replay_workaround(r, RT_WA_NO_ANISOTROPY)) {
        VkPhysicalDeviceFeatures *base = base_features(r, info);
        if (!base)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        if (base->samplerAnisotropy)
            r->result->outcome.acted[RT_WA_NO_ANISOTROPY][1]++;
        base->samplerAnisotropy = VK_FALSE;
    }
    return rt_ok_status();
}

/* --- the device, for the report ------------------------------------------------ */

static void describe_device(struct replay *r)
{
    struct rt_replay_outcome *o = &r->result->outcome;
    o->device.vendor_id = r->gpu_properties.vendorID;
    o->device.device_id = r->gpu_properties.deviceID;
    o->device.driver_version = r->gpu_properties.driverVersion;
    o->device.api_version = r->gpu_properties.apiVersion;
    if (!r->instance_dispatch.vkGetPhysicalDeviceProperties2 || r->gpu_properties.apiVersion < VK_API_VERSION_1_2)
        return;
    VkPhysicalDeviceDriverProperties driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver};
    r->instance_dispatch.vkGetPhysicalDeviceProperties2(r->gpu, &props);
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

/* --- zero-init ----------------------------------------------------------------- */

static rt_status zero_mapped(struct replay_device *dev, VkDeviceMemory memory, VkDeviceSize size, bool coherent)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    void *p = NULL;
    if (d->vkMapMemory(dev->handle, memory, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "zero-init: cannot map a new allocation");
    memset(p, 0, size);
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory, .size = VK_WHOLE_SIZE};
    if (!coherent)
        d->vkFlushMappedMemoryRanges(dev->handle, 1, &range);
    d->vkUnmapMemory(dev->handle, memory);
    return rt_ok_status();
}

/* Device-only memory: a transfer buffer over all of it, filled on the GPU. */
static rt_status zero_on_gpu(struct replay *r, struct replay_device *dev, VkDeviceMemory memory, VkDeviceSize size,
                             uint32_t type_index)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkBufferCreateInfo binfo = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                                .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkMemoryRequirements req;
    if (d->vkCreateBuffer(dev->handle, &binfo, NULL, &buffer) != VK_SUCCESS)
        return rt_ok_status(); /* too large for one buffer: left as it is, not counted */
    d->vkGetBufferMemoryRequirements(dev->handle, buffer, &req);
    VkCommandPoolCreateInfo pinfo = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                     .queueFamilyIndex = dev->any_queue_family};
    VkCommandBufferAllocateInfo cinfo = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    bool done = (req.memoryTypeBits & (1u << type_index)) && req.size <= size &&
                d->vkBindBufferMemory(dev->handle, buffer, memory, 0) == VK_SUCCESS &&
                d->vkCreateCommandPool(dev->handle, &pinfo, NULL, &pool) == VK_SUCCESS &&
                (cinfo.commandPool = pool) && d->vkAllocateCommandBuffers(dev->handle, &cinfo, &cmd) == VK_SUCCESS &&
                d->vkBeginCommandBuffer(cmd, &begin) == VK_SUCCESS;
    if (done) {
        d->vkCmdFillBuffer(cmd, buffer, 0, VK_WHOLE_SIZE, 0);
        VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
        done = d->vkEndCommandBuffer(cmd) == VK_SUCCESS && d->vkQueueSubmit(dev->any_queue, 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS &&
               d->vkQueueWaitIdle(dev->any_queue) == VK_SUCCESS;
    }
    if (pool)
        d->vkDestroyCommandPool(dev->handle, pool, NULL);
    d->vkDestroyBuffer(dev->handle, buffer, NULL);
    if (done) {
        r->result->outcome.acted[RT_WA_ZERO_INIT][0]++;
        r->result->outcome.acted[RT_WA_ZERO_INIT][1]++;
    }
    return rt_ok_status();
}

rt_status replay_config_new_memory(struct replay *r, struct replay_device *dev, VkDeviceMemory memory,
                                   VkDeviceSize size, uint32_t type_index)
{
    if (!replay_workaround(r, RT_WA_ZERO_INIT) || !dev || type_index >= r->gpu_memory.memoryTypeCount)
        return rt_ok_status();
    VkMemoryPropertyFlags flags = r->gpu_memory.memoryTypes[type_index].propertyFlags;
    if (!(flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        return zero_on_gpu(r, dev, memory, size, type_index);
    RT_TRY(zero_mapped(dev, memory, size, flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    r->result->outcome.acted[RT_WA_ZERO_INIT][0]++;
    return rt_ok_status();
}
