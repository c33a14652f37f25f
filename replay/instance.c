/* replay/instance.c — the instance, the choice of physical device, devices,
 * and the validation layer's message counts. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "log.h"
#include "replay_config.h"

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
    if (r->own_depth) { /* replay's own call: not the program's error, never a failure */
        r->result->validation_replay++;
        rt_log(RT_LOG_INFO, "validation (replay's own call, at call %" PRIu64 "): %s", r->call_seq, data->pMessage);
        return VK_FALSE;
    }
    if (replay_validation_count(r, data->pMessageIdName, severity))
        return VK_FALSE; /* --validate-ignore: the program's own error, counted apart */
    replay_config_validation_message(r, data->pMessageIdName);
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

static rt_status create_messenger(struct replay *r, struct replay_instance *inst)
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
    if (!inst->dispatch.vkCreateDebugUtilsMessengerEXT ||
        inst->dispatch.vkCreateDebugUtilsMessengerEXT(inst->handle, &info, NULL, &inst->messenger) != VK_SUCCESS)
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

/* A window system's surface extension (Wayland, X11, Win32 ...): a headless
 * replay creates no surface, and enabling one can have the driver reach for
 * its window system (Mesa's Wayland WSI complains without XDG_RUNTIME_DIR).
 * VK_KHR_surface stays: VK_KHR_swapchain requires it. */
static bool is_platform_surface(const char *name)
{
    size_t n = strlen(name);
    return n > 8 && !strcmp(name + n - 8, "_surface") && strcmp(name, "VK_KHR_surface") &&
           strcmp(name, "VK_EXT_headless_surface");
}

static bool loader_has(const VkExtensionProperties *have, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++)
        if (!strcmp(have[i].extensionName, name))
            return true;
    return false;
}

/* The loader's instance extensions. Each enumeration loads and unloads
 * every installed driver (tens of millions of instructions), so it is only
 * done when vkCreateInstance says an extension is missing. */
static rt_status loader_extensions(struct replay *r, VkExtensionProperties **have_out, uint32_t *count_out)
{
    uint32_t count = 0;
    vkEnumerateInstanceExtensionProperties(NULL, &count, NULL);
    VkExtensionProperties *have = rt_arena_calloc(&r->arena, count + 1, sizeof *have, 8);
    if (!have)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    vkEnumerateInstanceExtensionProperties(NULL, &count, have);
    *have_out = have;
    *count_out = count;
    return rt_ok_status();
}

/* The captured instance extensions this loader has (HAVE: its list; NULL:
 * assume it has them all). Window-system ones it lacks are dropped (the
 * replay is headless); any other missing one is an error naming it. */
static rt_status instance_extensions(struct replay *r, const VkInstanceCreateInfo *captured,
                                     const VkExtensionProperties *have, uint32_t count,
                                     const char ***names_out, uint32_t *count_out)
{
    const char **names = rt_arena_calloc(&r->arena, captured->enabledExtensionCount + 3, sizeof *names, 8);
    if (!names)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    uint32_t n = 0;
    bool have_debug_utils = false;
    for (uint32_t i = 0; i < captured->enabledExtensionCount; i++) {
        const char *e = captured->ppEnabledExtensionNames[i];
        if (is_platform_surface(e))
            continue; /* --window adds the one it uses */
        if (have && !loader_has(have, count, e)) {
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

/* vkCreateInstance with the captured extensions, assumed present; only if
 * one is missing is the loader asked which, and the instance made without
 * those a headless replay can do without. */
static rt_status create_instance(struct replay *r, const VkInstanceCreateInfo *captured, VkInstanceCreateInfo *info,
                                 VkInstance *instance, VkResult *result)
{
    RT_TRY(instance_extensions(r, captured, NULL, 0, (const char ***)&info->ppEnabledExtensionNames,
                               &info->enabledExtensionCount));
    *result = vkCreateInstance(info, NULL, instance);
    if (*result != VK_ERROR_EXTENSION_NOT_PRESENT)
        return rt_ok_status();
    VkExtensionProperties *have = NULL;
    uint32_t count = 0;
    RT_TRY(loader_extensions(r, &have, &count));
    RT_TRY(instance_extensions(r, captured, have, count, (const char ***)&info->ppEnabledExtensionNames,
                               &info->enabledExtensionCount));
    *result = vkCreateInstance(info, NULL, instance);
    return rt_ok_status();
}

struct replay_instance *replay_instance_of(struct replay *r, const void *live_dispatchable)
{
    uint64_t value = 0;
    if (!live_dispatchable)
        return NULL;
    /* The loader gives an instance and its physical devices one dispatch key. */
    uint64_t key = (uint64_t)(uintptr_t) * (void *const *)live_dispatchable;
    return rt_hashmap_get(&r->instances, key, &value) ? (struct replay_instance *)(uintptr_t)value : NULL;
}

/* The instance whose calls are being replayed: the newest, or the one the
 * last enumeration or device creation went through. Several may be alive. */
static void make_current(struct replay *r, const struct replay_instance *inst)
{
    r->instance = inst ? inst->handle : VK_NULL_HANDLE;
    r->instance_dispatch = inst ? inst->dispatch : (struct rt_vk_instance_dispatch){0};
    r->own = inst ? inst->own : (struct replay_own_queries){0};
    r->gpu = inst ? inst->gpu : VK_NULL_HANDLE;
}

static bool enables(const VkInstanceCreateInfo *info, const char *extension)
{
    for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
        if (!strcmp(info->ppEnabledExtensionNames[i], extension))
            return true;
    return false;
}

/* Replay's own queries use only what the instance was made with (see
 * struct replay_own_queries). */
static void choose_own_queries(struct replay_instance *inst, const VkInstanceCreateInfo *info)
{
    const VkApplicationInfo *app = info->pApplicationInfo;
    uint32_t version = app && app->apiVersion ? app->apiVersion : VK_API_VERSION_1_0;
    const struct rt_vk_instance_dispatch *d = &inst->dispatch;
    if (VK_API_VERSION_MAJOR(version) > 1 || VK_API_VERSION_MINOR(version) >= 1) {
        inst->own.features2 = d->vkGetPhysicalDeviceFeatures2;
        inst->own.properties2 = d->vkGetPhysicalDeviceProperties2;
    } else if (enables(info, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)) {
        inst->own.features2 = d->vkGetPhysicalDeviceFeatures2KHR;
        inst->own.properties2 = d->vkGetPhysicalDeviceProperties2KHR;
    }
}

static rt_status register_instance(struct replay *r, VkInstance instance, const VkInstanceCreateInfo *info,
                                   uint64_t captured_id)
{
    struct replay_instance *inst = calloc(1, sizeof *inst);
    if (!inst)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    inst->handle = instance;
    rt_vk_instance_dispatch_load(&inst->dispatch, vkGetInstanceProcAddr, instance);
    choose_own_queries(inst, info);
    if (!rt_hashmap_put(&r->instances, (uint64_t)(uintptr_t) * (void **)instance, (uint64_t)(uintptr_t)inst)) {
        free(inst);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    make_current(r, inst);
    RT_TRY(replay_remember(r, VK_OBJECT_TYPE_INSTANCE, captured_id, (uint64_t)(uintptr_t)instance));
    return r->opts->validate ? create_messenger(r, inst) : rt_ok_status();
}

rt_status replay_create_instance(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCreateInstance *a = args;
    if ((VkResult)(int32_t)captured_result != VK_SUCCESS)
        return replay_skip(r, args, captured_result); /* the program got no instance */
    VkInstanceCreateInfo info = *a->pCreateInfo;
    info.pNext = replay_config_instance_chain(r, without_debug_nodes(info.pNext));
    info.flags &= ~(VkInstanceCreateFlags)VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    const char *layers[] = {VALIDATION_LAYER};
    info.enabledLayerCount = r->opts->validate ? 1 : 0;
    info.ppEnabledLayerNames = layers;
    uint64_t captured_id = (uint64_t)(uintptr_t)*a->pInstance;
    VkInstance instance = VK_NULL_HANDLE;
    VkResult result = VK_SUCCESS;
    RT_TRY(create_instance(r, a->pCreateInfo, &info, &instance, &result));
    if (result != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkCreateInstance failed (%s)%s", replay_result_name(result),
                         r->opts->validate ? "; is the Khronos validation layer installed?" : "");
    volkLoadInstanceOnly(instance); /* volk's globals serve every instance: the loader dispatches by handle */
    return register_instance(r, instance, &info, captured_id);
}

/* Forgets the devices made from INST (NULL: every device), waiting for their work. */
static void forget_devices(struct replay *r, const struct replay_instance *inst)
{
    struct rt_hashmap_iter it;
    uint64_t key, value;
    rt_hashmap_iter_init(&it, &r->devices);
    while (rt_hashmap_iter_next(&it, &key, &value)) {
        struct replay_device *dev = (struct replay_device *)(uintptr_t)value;
        if (inst && dev->instance != inst)
            continue;
        dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
        replay_config_device_destroyed(r, dev);
        replay_swapchain_finish_device(r, dev); /* the program never destroyed the device: its state goes now */
        replay_memory_finish_device(r, dev);
        if (r->device == dev)
            r->device = NULL;
        free(dev);
        rt_hashmap_remove(&r->devices, key);
    }
}

static void release_instance(struct replay *r, struct replay_instance *inst, bool destroy)
{
    uint64_t key = (uint64_t)(uintptr_t) * (void **)inst->handle; /* read while the instance lives */
    forget_devices(r, inst);
    if (inst->messenger)
        inst->dispatch.vkDestroyDebugUtilsMessengerEXT(inst->handle, inst->messenger, NULL);
    if (destroy && inst->dispatch.vkDestroyInstance)
        inst->dispatch.vkDestroyInstance(inst->handle, NULL);
    rt_hashmap_remove(&r->instances, key);
    if (r->instance == inst->handle)
        make_current(r, NULL);
    free(inst);
}

rt_status replay_destroy_instance(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkDestroyInstance *a = args;
    (void)captured_result;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkDestroyInstance, args));
    struct replay_instance *inst = replay_instance_of(r, a->instance);
    if (!inst)
        return rt_ok_status();
    /* Another instance may live on (a probe instance kept open), or the
     * program may make the next one afresh: only this one goes. */
    release_instance(r, inst, true);
    struct rt_hashmap_iter it;
    uint64_t value;
    rt_hashmap_iter_init(&it, &r->instances);
    if (!r->instance && rt_hashmap_iter_next(&it, NULL, &value))
        make_current(r, (struct replay_instance *)(uintptr_t)value);
    return rt_ok_status();
}

void replay_instance_finish(struct replay *r)
{
    forget_devices(r, NULL);
    struct rt_hashmap_iter it;
    uint64_t value;
    rt_hashmap_iter_init(&it, &r->instances);
    while (rt_hashmap_iter_next(&it, NULL, &value))
        release_instance(r, (struct replay_instance *)(uintptr_t)value, false); /* the driver cleans up with the process */
    rt_hashmap_finish(&r->devices);
    rt_hashmap_init(&r->devices);
    rt_hashmap_finish(&r->instances);
    rt_hashmap_init(&r->instances);
}

/* --device INDEX|NAME, else the capture's vendor, else the first device. */
static rt_status choose_gpu(struct replay *r, VkPhysicalDevice *gpus, uint32_t count)
{
    const char *want = r->opts->device;
    const uint32_t *captured_vendor = r->header->has_device ? &r->header->device.vendor_id : NULL;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties p;
        r->instance_dispatch.vkGetPhysicalDeviceProperties(gpus[i], &p);
        bool match = rt_replay_device_chosen(want, i, p.deviceName, p.vendorID, captured_vendor);
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
    uint64_t live_instance = 0;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_INSTANCE, (uint64_t)(uintptr_t)a->instance, &live_instance));
    struct replay_instance *inst = replay_instance_of(r, (const void *)(uintptr_t)live_instance);
    if (!inst)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": vkEnumeratePhysicalDevices on an instance the trace "
                         "destroyed", r->call_seq);
    make_current(r, inst);
    if (!inst->gpu) {
        uint32_t count = 0;
        r->instance_dispatch.vkEnumeratePhysicalDevices(r->instance, &count, NULL);
        VkPhysicalDevice *gpus = rt_arena_calloc(&r->arena, count ? count : 1, sizeof *gpus, 8);
        if (!gpus)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        r->instance_dispatch.vkEnumeratePhysicalDevices(r->instance, &count, gpus);
        if (count == 0)
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "no Vulkan device to replay on");
        RT_TRY(choose_gpu(r, gpus, count));
        inst->gpu = r->gpu;
        r->rebind = r->opts->memory_mode == RT_REPLAY_MEMORY_REBIND ||
                    (r->opts->memory_mode == RT_REPLAY_MEMORY_AUTO && !same_memory_layout(r));
        r->result->memory_rebound = r->rebind;
        if (r->opts->verbose)
            rt_log(RT_LOG_INFO, "replaying on %s, %s memory", r->gpu_properties.deviceName,
                   r->rebind ? "rebound" : "direct");
    }
    /* Every device the application saw is the one we replay on. */
    for (uint32_t i = 0; i < *a->pPhysicalDeviceCount; i++)
        RT_TRY(replay_remember(r, VK_OBJECT_TYPE_PHYSICAL_DEVICE, (uint64_t)(uintptr_t)a->pPhysicalDevices[i],
                               (uint64_t)(uintptr_t)inst->gpu));
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
        else if (!is_surface_extension(e) && !replay_strip_extension(r, e)) /* no window system needed */
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

static rt_status register_device(struct replay *r, struct replay_instance *inst, VkDevice device,
                                 const VkDeviceCreateInfo *info)
{
    struct replay_device *dev = calloc(1, sizeof *dev);
    if (!dev)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    dev->handle = device;
    dev->instance = inst;
    dev->dispatch.instance = inst->dispatch;
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

/* Replay's own part of vkCreateDevice: what the device lacks, and what the
 * configuration adds (its queries are replay's calls, not the program's). */
static rt_status prepare_device(struct replay *r, const VkDeviceCreateInfo *captured, VkDeviceCreateInfo *info)
{
    RT_TRY(check_device_extensions(r, captured, (const char ***)&info->ppEnabledExtensionNames,
                                   &info->enabledExtensionCount));
    RT_TRY(replay_check_features(r, info));
    RT_TRY(replay_check_queue_families(r, info));
    replay_enable_address_replay(r, info);
    return replay_config_adjust_device(r, info);
}

rt_status replay_create_device(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCreateDevice *a = args;
    uint64_t captured_id = (uint64_t)(uintptr_t)*a->pDevice;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkCreateDevice, args));
    struct replay_instance *inst = replay_instance_of(r, a->physicalDevice);
    if (!inst)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": vkCreateDevice on a physical device of no live "
                         "instance", r->call_seq);
    make_current(r, inst); /* the checks below ask this instance's device */
    VkDeviceCreateInfo info = *a->pCreateInfo;
    info.enabledLayerCount = 0;
    info.ppEnabledLayerNames = NULL;
    r->own_depth++;
    rt_status checked = prepare_device(r, a->pCreateInfo, &info);
    r->own_depth--;
    RT_TRY(checked);
    VkDevice device = VK_NULL_HANDLE;
    VkResult result = r->instance_dispatch.vkCreateDevice(a->physicalDevice, &info, NULL, &device);
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkCreateDevice, (VkResult)(int32_t)captured_result, result));
    if (result != VK_SUCCESS)
        return rt_ok_status();
    RT_TRY(replay_remember(r, VK_OBJECT_TYPE_DEVICE, captured_id, (uint64_t)(uintptr_t)device));
    r->device_address_enabled = enables_device_address(&info);
    RT_TRY(register_device(r, inst, device, &info));
    r->own_depth++;
    rt_status s = replay_config_device_created(r, r->device);
    r->own_depth--;
    return s;
}

/* A device's queues go with it (their dispatch key is the device's). */
static void forget_queues(struct replay *r, uint64_t device_key)
{
    struct rt_hashmap_iter it;
    uint64_t queue;
    rt_hashmap_iter_init(&it, &r->queue_families);
    while (rt_hashmap_iter_next(&it, &queue, NULL))
        if ((uint64_t)(uintptr_t) * (void **)(uintptr_t)queue == device_key)
            rt_hashmap_remove(&r->queue_families, queue);
}

rt_status replay_destroy_device(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkDestroyDevice *a = args;
    (void)captured_result;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkDestroyDevice, args));
    struct replay_device *dev = replay_device_of(r, a->device);
    if (!dev)
        return rt_ok_status();
    uint64_t key = (uint64_t)(uintptr_t) * (void **)dev->handle;
    dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
    replay_config_device_destroyed(r, dev);
    replay_swapchain_finish_device(r, dev); /* its images and memory belong to it; other devices' stay */
    replay_memory_finish_device(r, dev);
    forget_queues(r, key);
    dev->dispatch.device.vkDestroyDevice(dev->handle, NULL);
    rt_hashmap_remove(&r->devices, key);
    if (r->device == dev)
        r->device = NULL;
    free(dev);
    return rt_ok_status();
}

static rt_status remember_queue(struct replay *r, VkQueue queue, uint32_t family)
{
    if (queue && !rt_hashmap_put(&r->queue_families, (uint64_t)(uintptr_t)queue, family))
        return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
    return rt_ok_status();
}

rt_status replay_get_device_queue(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetDeviceQueue *a = args;
    uint32_t family = a->queueFamilyIndex;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkGetDeviceQueue, args, captured_result));
    return remember_queue(r, *a->pQueue, family);
}

rt_status replay_get_device_queue2(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetDeviceQueue2 *a = args;
    uint32_t family = a->pQueueInfo->queueFamilyIndex;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkGetDeviceQueue2, args, captured_result));
    return remember_queue(r, *a->pQueue, family);
}

uint32_t replay_queue_family(struct replay *r, VkQueue queue)
{
    uint64_t family = 0;
    rt_hashmap_get(&r->queue_families, (uint64_t)(uintptr_t)queue, &family);
    return (uint32_t)family;
}
