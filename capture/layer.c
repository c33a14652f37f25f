/* capture/layer.c — the loader interface: negotiation, vkGet*ProcAddr,
 * instance and device creation through the layer chain. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "log.h"

#define LAYER_EXPORT __attribute__((visibility("default")))

static int by_name(const void *key, const void *entry)
{
    return strcmp(key, ((const struct capture_entry *)entry)->name);
}

static const struct capture_entry *find_entry(const char *name)
{
    if (capture_test_unrecorded(name))
        return NULL;
    return bsearch(name, capture_entries, capture_entry_count, sizeof capture_entries[0], by_name);
}

/* What the next layer gives for a name we have no recorder for goes to the
 * program as it is: its calls will not be in the trace (unrecorded.c says so
 * once, at this lookup, never per call), or, for a window-system command of
 * a platform the build had no header for, through a detector that says so at
 * its first call. */
static PFN_vkVoidFunction passed_through(const struct capture_entry *entry, const char *name,
                                         PFN_vkVoidFunction next)
{
    if (entry || !next)
        return next;
    PFN_vkVoidFunction detector = capture_unrecorded_detector(name, next);
    if (detector)
        return detector;
    capture_note_unrecorded(name);
    return next;
}

static bool is_global(const struct capture_entry *entry)
{
    return rt_vk_cmd_level(entry->cmd) == RT_VK_LEVEL_GLOBAL;
}

/*
 * Without an instance of ours: the loader asking for vkCreateInstance with
 * its own handle (it does when no implicit layer comes first), or a layer
 * above us fetching the next vkCreateDevice with a NULL instance (vkBasalt,
 * GFXReconstruct and the loader's sample layer do; the loader's terminator
 * and the validation layer answer it). Our intercepts find their next layer
 * from the handle they are called with, so they can be given; where one of
 * our instances exists, only what its chain gives.
 */
static PFN_vkVoidFunction without_instance(const struct capture_entry *entry, const char *name)
{
    if (!entry)
        return NULL;
    bool gives = true;
    if (!is_global(entry) && capture_any_instance_gives(name, &gives) && !gives)
        return NULL;
    return entry->function;
}

/* Our intercept, but only where the next layer has the command: an
 * application must never be told we implement what the driver lacks. */
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL capture_vkGetInstanceProcAddr(VkInstance instance,
                                                                       const char *name)
{
    const struct capture_entry *entry = find_entry(name);
    struct capture_instance *data = instance ? capture_instance_of(instance) : NULL;
    if (!data)
        return without_instance(entry, name);
    PFN_vkVoidFunction next = data->next_gipa(instance, name);
    return entry && next ? entry->function : passed_through(entry, name, next);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL capture_vkGetDeviceProcAddr(VkDevice device, const char *name)
{
    struct capture_device *data = capture_device_of(device);
    if (!data)
        return NULL;
    const struct capture_entry *entry = find_entry(name);
    PFN_vkVoidFunction next = data->next_gdpa(device, name);
    return entry && entry->device_level && next ? entry->function : passed_through(entry, name, next);
}

static const VkLayerProperties layer_properties = {
    .layerName = CAPTURE_LAYER_NAME,
    .specVersion = VK_HEADER_VERSION_COMPLETE,
    .implementationVersion = 1,
    .description = "retrace capture layer: records Vulkan calls into .rtrace files",
};

static VkResult enumerate_layer(uint32_t *count, VkLayerProperties *properties)
{
    if (!properties) {
        *count = 1;
        return VK_SUCCESS;
    }
    if (*count < 1)
        return VK_INCOMPLETE;
    properties[0] = layer_properties;
    *count = 1;
    return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkEnumerateInstanceLayerProperties(uint32_t *count,
                                                                         VkLayerProperties *properties)
{
    return enumerate_layer(count, properties);
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkEnumerateDeviceLayerProperties(VkPhysicalDevice gpu, uint32_t *count,
                                                                       VkLayerProperties *properties)
{
    (void)gpu;
    return enumerate_layer(count, properties);
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkEnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                             VkExtensionProperties *properties)
{
    (void)properties;
    if (layer && !strcmp(layer, CAPTURE_LAYER_NAME)) {
        *count = 0;
        return VK_SUCCESS;
    }
    return VK_ERROR_LAYER_NOT_PRESENT;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkEnumerateDeviceExtensionProperties(
    VkPhysicalDevice gpu, const char *layer, uint32_t *count, VkExtensionProperties *properties)
{
    if (layer && !strcmp(layer, CAPTURE_LAYER_NAME)) {
        *count = 0;
        return VK_SUCCESS;
    }
    struct capture_instance *data = capture_instance_of(gpu);
    VkResult result = data->dispatch.vkEnumerateDeviceExtensionProperties(gpu, layer, count, properties);
    struct rt_vk_args_vkEnumerateDeviceExtensionProperties args = {gpu, layer, count, properties, result};
    capture_record_call(RT_VK_CMD_vkEnumerateDeviceExtensionProperties, &args, (uint64_t)(int64_t)result);
    return result;
}

static VkLayerInstanceCreateInfo *instance_link(const VkInstanceCreateInfo *info)
{
    for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
        VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)s;
        if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
            link->function == VK_LAYER_LINK_INFO)
            return link;
    }
    return NULL;
}

static VkLayerDeviceCreateInfo *device_chain_node(const VkDeviceCreateInfo *info, VkLayerFunction function)
{
    for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
        VkLayerDeviceCreateInfo *node = (VkLayerDeviceCreateInfo *)s;
        if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && node->function == function)
            return node;
    }
    return NULL;
}

/* The application's pNext chain without the loader's own nodes, which are no
 * part of what the application asked for. Copies nodes shallowly. */
static const void *without_loader_nodes(const void *chain, struct rt_arena *arena)
{
    const VkBaseInStructure *head = NULL;
    VkBaseInStructure **tail = (VkBaseInStructure **)&head;
    for (const VkBaseInStructure *s = chain; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO ||
            s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO)
            continue;
        enum rt_vk_struct_type type;
        size_t size = rt_vk_struct_from_stype((uint32_t)s->sType, &type) ? rt_vk_struct_size(type) : 0;
        VkBaseInStructure *copy = size ? rt_arena_alloc(arena, size, 16) : NULL;
        if (!copy)
            continue; /* unknown to the codec: it would be reported as such anyway */
        memcpy(copy, s, size);
        copy->pNext = NULL;
        *tail = copy;
        tail = (VkBaseInStructure **)&copy->pNext;
    }
    return head;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateInstance(const VkInstanceCreateInfo *info,
                                                       const VkAllocationCallbacks *allocator,
                                                       VkInstance *instance_out)
{
    VkLayerInstanceCreateInfo *link = instance_link(info);
    if (!link)
        return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext; /* the next layer reads the rest */
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    struct capture_instance *data = calloc(1, sizeof *data);
    if (!create || !data || capture_session_open(info) != VK_SUCCESS) {
        free(data);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult result = create(info, allocator, instance_out);
    if (result == VK_SUCCESS) {
        data->handle = *instance_out;
        data->next_gipa = gipa;
        data->api_version = info->pApplicationInfo ? info->pApplicationInfo->apiVersion : VK_API_VERSION_1_0;
        rt_vk_instance_dispatch_load(&data->dispatch, gipa, *instance_out);
        capture_instance_add(data);
    }
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    VkInstanceCreateInfo original = *info;
    original.pNext = without_loader_nodes(info->pNext, &arena);
    struct rt_vk_args_vkCreateInstance args = {&original, allocator, instance_out, result};
    capture_record_call(RT_VK_CMD_vkCreateInstance, &args, (uint64_t)(int64_t)result);
    rt_arena_finish(&arena);
    if (result != VK_SUCCESS) {
        free(data);
        capture_session_close();
    }
    return result;
}

VKAPI_ATTR void VKAPI_CALL capture_vkDestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator)
{
    struct capture_instance *data = instance ? capture_instance_of(instance) : NULL;
    if (!data)
        return;
    capture_instance_remove(data); /* while its dispatch key is readable */
    data->dispatch.vkDestroyInstance(instance, allocator);
    struct rt_vk_args_vkDestroyInstance args = {instance, allocator};
    capture_record_call(RT_VK_CMD_vkDestroyInstance, &args, 0);
    free(data);
    capture_session_close();
}

/* The device table as the loader builds its own: a command the next layer's
 * vkGetDeviceProcAddr does not give (a device-level command of an instance
 * extension, vkSetDebugUtilsObjectNameEXT without VK_EXT_debug_utils, as
 * libplacebo calls it) is what the next layer's vkGetInstanceProcAddr gives,
 * so our intercept calls exactly what the application would have called. */
static _Thread_local struct {
    PFN_vkGetDeviceProcAddr gdpa;
    const struct capture_instance *instance;
} loading;

/* vk.xml's device-level commands of instance extensions (VK_EXT_debug_utils
 * has the only ones). The loader fills these through vkGetInstanceProcAddr;
 * asking its terminator that way for other device commands crashes it. */
static bool from_instance_extension(const char *name)
{
    enum rt_vk_cmd cmd;
    return rt_vk_cmd_from_name(name, &cmd) && (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_INSTANCE_EXTENSION);
}

static PFN_vkVoidFunction VKAPI_CALL load_device_command(VkDevice device, const char *name)
{
    PFN_vkVoidFunction f = loading.gdpa(device, name);
    if (!f && from_instance_extension(name))
        f = loading.instance->next_gipa(loading.instance->handle, name);
    return f;
}

static struct capture_device *new_device(struct capture_instance *instance, VkPhysicalDevice gpu,
                                         VkDevice device, PFN_vkGetDeviceProcAddr gdpa)
{
    struct capture_device *data = calloc(1, sizeof *data);
    if (!data)
        return NULL;
    *data = (struct capture_device){.handle = device, .physical_device = gpu, .instance = instance,
                                    .next_gdpa = gdpa};
    pthread_mutex_init(&data->memory_lock, NULL);
    pthread_mutex_init(&data->present_lock, NULL);
    pthread_mutex_init(&data->template_lock, NULL);
    rt_hashmap_init(&data->templates);
    rt_hashmap_init(&data->memories);
    rt_hashmap_init(&data->swapchains);
    rt_hashmap_init(&data->queue_families);
    loading.gdpa = gdpa;
    loading.instance = instance;
    rt_vk_device_dispatch_load(&data->dispatch, load_device_command, device);
    instance->dispatch.vkGetPhysicalDeviceMemoryProperties(gpu, &data->memory_properties);
    return data;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateDevice(VkPhysicalDevice gpu, const VkDeviceCreateInfo *info,
                                                     const VkAllocationCallbacks *allocator,
                                                     VkDevice *device_out)
{
    struct capture_instance *instance = capture_instance_of(gpu);
    VkLayerDeviceCreateInfo *link = device_chain_node(info, VK_LAYER_LINK_INFO);
    VkLayerDeviceCreateInfo *loader_data = device_chain_node(info, VK_LOADER_DATA_CALLBACK);
    if (!instance || !link)
        return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(instance->handle, "vkCreateDevice");
    if (!create)
        return VK_ERROR_INITIALIZATION_FAILED;
    capture_session_set_device(instance, gpu);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    VkDeviceCreateInfo sent = *info;
    bool address_replay = false;
    sent.pNext = capture_enable_address_replay(instance, gpu, info->pNext, &arena, &address_replay);
    VkResult result = create(gpu, &sent, allocator, device_out);
    if (result == VK_SUCCESS) {
        struct capture_device *data = new_device(instance, gpu, *device_out, gdpa);
        if (data) {
            data->set_loader_data = loader_data ? loader_data->u.pfnSetDeviceLoaderData : NULL;
            data->address_replay = address_replay;
        }
        if (!data || !capture_device_add(data))
            rt_log(RT_LOG_ERROR, "out of memory: device calls will not be captured");
    }
    VkDeviceCreateInfo original = *info; /* as the application asked */
    original.pNext = without_loader_nodes(info->pNext, &arena);
    struct rt_vk_args_vkCreateDevice args = {gpu, &original, allocator, device_out, result};
    capture_record_call(RT_VK_CMD_vkCreateDevice, &args, (uint64_t)(int64_t)result);
    rt_arena_finish(&arena);
    return result;
}

VKAPI_ATTR void VKAPI_CALL capture_vkDestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator)
{
    struct capture_device *data = device ? capture_device_of(device) : NULL;
    if (!data)
        return;
    /* Found by its dispatch key, which lives in the handle: gone once the
     * driver destroyed it (ThreadSanitizer saw the read after free). */
    capture_device_remove(data);
    data->dispatch.vkDestroyDevice(device, allocator);
    struct rt_vk_args_vkDestroyDevice args = {device, allocator};
    capture_record_call(RT_VK_CMD_vkDestroyDevice, &args, 0);
    capture_forget_memories(data);
    capture_forget_swapchains(data);
    capture_forget_templates(data);
    pthread_mutex_destroy(&data->memory_lock);
    pthread_mutex_destroy(&data->present_lock);
    pthread_mutex_destroy(&data->template_lock);
    free(data);
}

/* --- what the loader calls -------------------------------------------- */

LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *interface)
{
    if (!interface || interface->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
        return VK_ERROR_INITIALIZATION_FAILED;
    if (interface->loaderLayerInterfaceVersion > 2)
        interface->loaderLayerInterfaceVersion = 2;
    interface->pfnGetInstanceProcAddr = capture_vkGetInstanceProcAddr;
    interface->pfnGetDeviceProcAddr = capture_vkGetDeviceProcAddr;
    interface->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}

LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name)
{
    return capture_vkGetInstanceProcAddr(instance, name);
}

LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name)
{
    return capture_vkGetDeviceProcAddr(device, name);
}
