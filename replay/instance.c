/* replay/instance.c — the instance, the choice of physical device, devices,
 * and the validation layer's message counts. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "replay_internal.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* Window-system extensions: a headless replay needs none of them. */
static bool is_surface_extension(const char *name)
{
    return strstr(name, "surface") || strstr(name, "_display") || !strcmp(name, "VK_KHR_swapchain") ||
           !strcmp(name, "VK_EXT_swapchain_colorspace");
}

/* The application's own debug callbacks and validation settings are not part
 * of the trace's rendering: drop them from the chain. */
static const void *without_debug_nodes(const void *chain)
{
    const VkBaseInStructure *head = chain, **link = (const VkBaseInStructure **)&head;
    while (*link) {
        VkStructureType t = (*link)->sType;
        if (t == VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT ||
            t == VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT ||
            t == VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT || t == VK_STRUCTURE_TYPE_VALIDATION_FLAGS_EXT)
            *link = (*link)->pNext; /* decoded nodes live in the arena: relinking is safe */
        else
            link = (const VkBaseInStructure **)&(*link)->pNext;
    }
    return head;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                            VkDebugUtilsMessageTypeFlagsEXT types,
                                                            const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                            void *user)
{
    (void)types;
    struct replay *r = user;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
        r->result->validation_errors++;
    else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
        r->result->validation_warnings++;
    else
        r->result->validation_infos++;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT))
        rt_log(RT_LOG_WARN, "validation (call %" PRIu64 "): %s", r->call_seq, data->pMessage);
    return VK_FALSE;
}

static rt_status create_messenger(struct replay *r)
{
    VkDebugUtilsMessengerCreateInfoEXT info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_validation_message,
        .pUserData = r,
    };
    if (!r->instance_dispatch.vkCreateDebugUtilsMessengerEXT ||
        r->instance_dispatch.vkCreateDebugUtilsMessengerEXT(r->instance, &info, NULL, &r->messenger) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot create a debug messenger for --validate");
    return rt_ok_status();
}

static uint32_t add_missing(const char **names, uint32_t n, const char *const *extra, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++) {
        bool found = false;
        for (uint32_t i = 0; i < n && !found; i++)
            found = !strcmp(names[i], extra[k]);
        if (!found)
            names[n++] = extra[k];
    }
    return n;
}

static bool loader_has(const VkExtensionProperties *have, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++)
        if (!strcmp(have[i].extensionName, name))
            return true;
    return false;
}

/* The captured instance extensions this loader has. Window-system ones it
 * lacks are dropped (the replay is headless); any other missing one is an
 * error naming it. */
static rt_status instance_extensions(struct replay *r, const VkInstanceCreateInfo *captured,
                                     const char ***names_out, uint32_t *count_out)
{
    uint32_t count = 0;
    vkEnumerateInstanceExtensionProperties(NULL, &count, NULL);
    VkExtensionProperties *have = rt_arena_calloc(&r->arena, count + 1, sizeof *have, 8);
    const char **names = rt_arena_calloc(&r->arena, captured->enabledExtensionCount + 3, sizeof *names, 8);
    if (!names || !have)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    vkEnumerateInstanceExtensionProperties(NULL, &count, have);
    uint32_t n = 0;
    bool have_debug_utils = false;
    for (uint32_t i = 0; i < captured->enabledExtensionCount; i++) {
        const char *e = captured->ppEnabledExtensionNames[i];
        if (!loader_has(have, count, e)) {
            if (is_surface_extension(e) || !strcmp(e, "VK_KHR_portability_enumeration"))
                continue;
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "the trace needs instance extension %s, which this Vulkan "
                             "loader lacks", e);
        }
        have_debug_utils |= !strcmp(e, "VK_EXT_debug_utils");
        names[n++] = e;
    }
    if (r->opts->validate && !have_debug_utils)
        names[n++] = "VK_EXT_debug_utils";
    if (r->opts->window) /* the captured list may lack them (an offscreen program) */
        n = add_missing(names, n, (const char *[]){"VK_KHR_surface", "VK_KHR_xcb_surface"}, 2);
    *names_out = names;
    *count_out = n;
    return rt_ok_status();
}

rt_status replay_create_instance(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCreateInstance *a = args;
    if (r->instance)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the trace creates a second VkInstance, which replay does not support yet");
    VkInstanceCreateInfo info = *a->pCreateInfo;
    info.pNext = without_debug_nodes(info.pNext);
    info.flags &= ~(VkInstanceCreateFlags)VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    RT_TRY(instance_extensions(r, a->pCreateInfo, (const char ***)&info.ppEnabledExtensionNames,
                               &info.enabledExtensionCount));
    const char *layers[] = {VALIDATION_LAYER};
    info.enabledLayerCount = r->opts->validate ? 1 : 0;
    info.ppEnabledLayerNames = layers;
    uint64_t captured_id = (uint64_t)(uintptr_t)*a->pInstance;
    VkInstance instance = VK_NULL_HANDLE;
    VkResult result = vkCreateInstance(&info, NULL, &instance);
    if (result != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkCreateInstance failed (%s)%s", replay_result_name(result),
                         r->opts->validate ? "; is the Khronos validation layer installed?" : "");
    (void)captured_result;
    r->instance = instance;
    volkLoadInstanceOnly(instance);
    rt_vk_instance_dispatch_load(&r->instance_dispatch, vkGetInstanceProcAddr, instance);
    rt_typed_map_put(&r->handles, VK_OBJECT_TYPE_INSTANCE, captured_id, (uint64_t)(uintptr_t)instance);
    return r->opts->validate ? create_messenger(r) : rt_ok_status();
}

rt_status replay_destroy_instance(struct replay *r, void *args, uint64_t captured_result)
{
    (void)args;
    (void)captured_result;
    VkInstance instance = r->instance;
    PFN_vkDestroyInstance destroy = r->instance_dispatch.vkDestroyInstance;
    replay_instance_finish(r);
    /* A program may make another instance next (one to look at the devices,
     * then the real one): start that one afresh. */
    if (instance && destroy)
        destroy(instance, NULL);
    r->gpu = VK_NULL_HANDLE;
    return rt_ok_status();
}

void replay_instance_finish(struct replay *r)
{
    struct rt_hashmap_iter it;
    uint64_t value;
    rt_hashmap_iter_init(&it, &r->devices);
    while (rt_hashmap_iter_next(&it, NULL, &value)) {
        struct replay_device *dev = (struct replay_device *)(uintptr_t)value;
        dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
        free(dev);
    }
    rt_hashmap_finish(&r->devices);
    rt_hashmap_init(&r->devices);
    r->device = NULL;
    if (r->messenger)
        r->instance_dispatch.vkDestroyDebugUtilsMessengerEXT(r->instance, r->messenger, NULL);
    r->messenger = VK_NULL_HANDLE;
    r->instance = VK_NULL_HANDLE; /* the driver cleans up with the process */
}

/* --device INDEX|NAME, else the capture's vendor, else the first device. */
static rt_status choose_gpu(struct replay *r, VkPhysicalDevice *gpus, uint32_t count)
{
    const char *want = r->opts->device;
    char *end = NULL;
    unsigned long index = want ? strtoul(want, &end, 10) : 0;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties p;
        r->instance_dispatch.vkGetPhysicalDeviceProperties(gpus[i], &p);
        bool match = want ? (end && *end == '\0' && end != want ? index == i : strstr(p.deviceName, want) != NULL)
                          : (r->header->has_device && p.vendorID == r->header->device.vendor_id);
        if (match || (!want && i == count - 1 && !r->gpu)) {
            r->gpu = match ? gpus[i] : gpus[0];
            break;
        }
    }
    if (!r->gpu)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "no Vulkan device matches --device %s", want);
    r->instance_dispatch.vkGetPhysicalDeviceProperties(r->gpu, &r->gpu_properties);
    r->instance_dispatch.vkGetPhysicalDeviceMemoryProperties(r->gpu, &r->gpu_memory);
    snprintf(r->result->device_name, sizeof r->result->device_name, "%s", r->gpu_properties.deviceName);
    return rt_ok_status();
}

/* The capture's memory layout is usable as it is only on the same kind of
 * device; elsewhere resources are rebound to allocations made for it. */
static bool same_memory_layout(const struct replay *r)
{
    const struct rt_trace_device_info *c = &r->header->device;
    if (!r->header->has_device || c->vendor_id != r->gpu_properties.vendorID ||
        c->device_id != r->gpu_properties.deviceID || c->memory_type_count != r->gpu_memory.memoryTypeCount)
        return false;
    for (uint32_t i = 0; i < c->memory_type_count; i++)
        if (c->memory_types[i].property_flags != r->gpu_memory.memoryTypes[i].propertyFlags)
            return false;
    return true;
}

rt_status replay_enumerate_physical_devices(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkEnumeratePhysicalDevices *a = args;
    (void)captured_result;
    if (!a->pPhysicalDevices || !a->pPhysicalDeviceCount)
        return replay_skip(r, args, captured_result);
    if (!r->gpu) {
        uint32_t count = 0;
        r->instance_dispatch.vkEnumeratePhysicalDevices(r->instance, &count, NULL);
        VkPhysicalDevice *gpus = rt_arena_calloc(&r->arena, count ? count : 1, sizeof *gpus, 8);
        if (!gpus)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        r->instance_dispatch.vkEnumeratePhysicalDevices(r->instance, &count, gpus);
        if (count == 0)
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "no Vulkan device to replay on");
        RT_TRY(choose_gpu(r, gpus, count));
        r->rebind = r->opts->memory_mode == RT_REPLAY_MEMORY_REBIND ||
                    (r->opts->memory_mode == RT_REPLAY_MEMORY_AUTO && !same_memory_layout(r));
        if (r->opts->verbose)
            rt_log(RT_LOG_INFO, "replaying on %s, %s memory", r->gpu_properties.deviceName,
                   r->rebind ? "rebound" : "direct");
    }
    /* Every device the application saw is the one we replay on. */
    for (uint32_t i = 0; i < *a->pPhysicalDeviceCount; i++)
        rt_typed_map_put(&r->handles, VK_OBJECT_TYPE_PHYSICAL_DEVICE, (uint64_t)(uintptr_t)a->pPhysicalDevices[i],
                           (uint64_t)(uintptr_t)r->gpu);
    return rt_ok_status();
}

static rt_status check_device_extensions(struct replay *r, const VkDeviceCreateInfo *info,
                                         const char ***names_out, uint32_t *count_out)
{
    uint32_t count = 0;
    r->instance_dispatch.vkEnumerateDeviceExtensionProperties(r->gpu, NULL, &count, NULL);
    VkExtensionProperties *have = rt_arena_calloc(&r->arena, count + 1, sizeof *have, 8);
    const char **names = rt_arena_calloc(&r->arena, info->enabledExtensionCount + 2, sizeof *names, 8);
    if (!have || !names)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->instance_dispatch.vkEnumerateDeviceExtensionProperties(r->gpu, NULL, &count, have);
    uint32_t n = 0;
    for (uint32_t i = 0; i < info->enabledExtensionCount; i++) {
        const char *e = info->ppEnabledExtensionNames[i];
        bool found = false;
        for (uint32_t j = 0; j < count && !found; j++)
            found = !strcmp(have[j].extensionName, e);
        if (found)
            names[n++] = e;
        else if (!is_surface_extension(e)) /* the virtual swapchain needs no window system */
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "the trace needs device extension %s, which %s lacks", e,
                             r->gpu_properties.deviceName);
    }
    *names_out = names;
    *count_out = n;
    return rt_ok_status();
}

/* Rebound buffers need VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT when the
 * device has bufferDeviceAddress on. */
static bool enables_device_address(const VkDeviceCreateInfo *info)
{
    for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES &&
            ((const VkPhysicalDeviceVulkan12Features *)s)->bufferDeviceAddress)
            return true;
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES &&
            ((const VkPhysicalDeviceBufferDeviceAddressFeatures *)s)->bufferDeviceAddress)
            return true;
    }
    return false;
}

static rt_status register_device(struct replay *r, VkDevice device, const VkDeviceCreateInfo *info)
{
    struct replay_device *dev = calloc(1, sizeof *dev);
    if (!dev)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    dev->handle = device;
    dev->dispatch.instance = r->instance_dispatch;
    rt_vk_device_dispatch_load(&dev->dispatch.device, vkGetDeviceProcAddr, device); /* volk's, loaded with the instance */
    dev->any_queue_family = info->queueCreateInfoCount ? info->pQueueCreateInfos[0].queueFamilyIndex : 0;
    dev->dispatch.device.vkGetDeviceQueue(device, dev->any_queue_family, 0, &dev->any_queue);
    uint64_t key = (uint64_t)(uintptr_t) * (void **)device;
    if (!rt_hashmap_put(&r->devices, key, (uint64_t)(uintptr_t)dev)) {
        free(dev);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    r->device = dev;
    return rt_ok_status();
}

rt_status replay_create_device(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCreateDevice *a = args;
    uint64_t captured_id = (uint64_t)(uintptr_t)*a->pDevice;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkCreateDevice, args));
    VkDeviceCreateInfo info = *a->pCreateInfo;
    info.enabledLayerCount = 0;
    info.ppEnabledLayerNames = NULL;
    RT_TRY(check_device_extensions(r, a->pCreateInfo, (const char ***)&info.ppEnabledExtensionNames,
                                   &info.enabledExtensionCount));
    RT_TRY(replay_check_features(r, &info));
    RT_TRY(replay_check_queue_families(r, &info));
    replay_enable_address_replay(r, &info);
    VkDevice device = VK_NULL_HANDLE;
    VkResult result = r->instance_dispatch.vkCreateDevice(a->physicalDevice, &info, NULL, &device);
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkCreateDevice, (VkResult)(int32_t)captured_result, result));
    if (result != VK_SUCCESS)
        return rt_ok_status();
    rt_typed_map_put(&r->handles, VK_OBJECT_TYPE_DEVICE, captured_id, (uint64_t)(uintptr_t)device);
    r->device_address_enabled = enables_device_address(&info);
    return register_device(r, device, &info);
}

rt_status replay_destroy_device(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkDestroyDevice *a = args;
    (void)captured_result;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkDestroyDevice, args));
    struct replay_device *dev = replay_device_of(r, a->device);
    if (!dev)
        return rt_ok_status();
    replay_swapchain_finish(r); /* its images belong to this device */
    replay_memory_finish(r);
    uint64_t key = (uint64_t)(uintptr_t) * (void **)dev->handle;
    dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
    dev->dispatch.device.vkDestroyDevice(dev->handle, NULL);
    rt_hashmap_remove(&r->devices, key);
    if (r->device == dev)
        r->device = NULL;
    free(dev);
    return rt_ok_status();
}

rt_status replay_get_device_queue(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetDeviceQueue *a = args;
    uint32_t family = a->queueFamilyIndex;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkGetDeviceQueue, args, captured_result));
    rt_hashmap_put(&r->queue_families, (uint64_t)(uintptr_t)*a->pQueue, family);
    return rt_ok_status();
}

rt_status replay_get_device_queue2(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetDeviceQueue2 *a = args;
    uint32_t family = a->pQueueInfo->queueFamilyIndex;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkGetDeviceQueue2, args, captured_result));
    rt_hashmap_put(&r->queue_families, (uint64_t)(uintptr_t)*a->pQueue, family);
    return rt_ok_status();
}

uint32_t replay_queue_family(struct replay *r, VkQueue queue)
{
    uint64_t family = 0;
    rt_hashmap_get(&r->queue_families, (uint64_t)(uintptr_t)queue, &family);
    return (uint32_t)family;
}
