/* replay/devices.c — listing the devices --device can name (see devices.h). */
#include "devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <volk.h>

bool rt_replay_device_matches(const char *want, uint32_t index, const char *name)
{
    char *end = NULL;
    unsigned long n = strtoul(want, &end, 10);
    bool number = end != want && *end == '\0' && want[0] >= '0' && want[0] <= '9';
    return number ? n == index : strstr(name, want) != NULL;
}

bool rt_replay_device_chosen(const char *want, uint32_t index, const char *name, uint32_t vendor_id,
                             const uint32_t *captured_vendor)
{
    if (want)
        return rt_replay_device_matches(want, index, name);
    return captured_vendor && vendor_id == *captured_vendor;
}

const char *rt_replay_vendor_name(uint32_t vendor_id)
{
    switch (vendor_id) {
    case 0x1002: return "AMD";
    case 0x1010: return "Imagination";
    case 0x10de: return "NVIDIA";
    case 0x13b5: return "ARM";
    case 0x14e4: return "Broadcom";
    case 0x5143: return "Qualcomm";
    case 0x8086: return "Intel";
    case 0x10005: return "Mesa"; /* VK_VENDOR_ID_MESA: lavapipe and other software devices */
    }
    return NULL;
}

void rt_replay_version_text(uint32_t v, char out[32])
{
    snprintf(out, 32, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
             VK_API_VERSION_PATCH(v));
}

static void describe(VkPhysicalDevice gpu, uint32_t index, bool properties2,
                     struct rt_replay_device *d)
{
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(gpu, &p);
    *d = (struct rt_replay_device){.index = index, .vendor_id = p.vendorID,
                                   .device_id = p.deviceID, .device_type = p.deviceType,
                                   .api_version = p.apiVersion, .driver_version = p.driverVersion};
    snprintf(d->name, sizeof d->name, "%s", p.deviceName);
    /* Driver name and version string: core in Vulkan 1.2. */
    if (!properties2 || p.apiVersion < VK_API_VERSION_1_2)
        return;
    VkPhysicalDeviceDriverProperties driver = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &driver};
    vkGetPhysicalDeviceProperties2(gpu, &p2);
    snprintf(d->driver_name, sizeof d->driver_name, "%s", driver.driverName);
    snprintf(d->driver_info, sizeof d->driver_info, "%s", driver.driverInfo);
}

static rt_status enumerate(VkInstance instance, bool properties2,
                           struct rt_replay_device **list_out, uint32_t *count_out)
{
    uint32_t count = 0;
    if (vkEnumeratePhysicalDevices(instance, &count, NULL) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkEnumeratePhysicalDevices failed");
    VkPhysicalDevice *gpus = calloc(count ? count : 1, sizeof *gpus);
    struct rt_replay_device *list = calloc(count ? count : 1, sizeof *list);
    if (!gpus || !list) {
        free(gpus);
        free(list);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    VkResult r = vkEnumeratePhysicalDevices(instance, &count, gpus);
    for (uint32_t i = 0; r >= 0 && i < count; i++)
        describe(gpus[i], i, properties2, &list[i]);
    free(gpus);
    if (r < 0) {
        free(list);
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkEnumeratePhysicalDevices failed");
    }
    *list_out = list;
    *count_out = count;
    return rt_ok_status();
}

rt_status rt_replay_list_devices(struct rt_replay_device **list_out, uint32_t *count_out)
{
    *list_out = NULL;
    *count_out = 0;
    if (volkInitialize() != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "no Vulkan loader (libvulkan.so.1) found");
    /* 1.1 for vkGetPhysicalDeviceProperties2, where the loader has it. */
    uint32_t loader = volkGetInstanceVersion();
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "retrace devices",
                             .apiVersion = loader >= VK_API_VERSION_1_1 ? VK_API_VERSION_1_1
                                                                         : VK_API_VERSION_1_0};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkInstance instance = VK_NULL_HANDLE;
    VkResult r = vkCreateInstance(&info, NULL, &instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "no Vulkan driver found (the loader has no ICD that "
                         "works here: VK_ERROR_INCOMPATIBLE_DRIVER)");
    if (r != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkCreateInstance failed (VkResult %d)", (int)r);
    volkLoadInstanceOnly(instance);
    rt_status s = enumerate(instance, app.apiVersion >= VK_API_VERSION_1_1, list_out, count_out);
    vkDestroyInstance(instance, NULL);
    return s;
}

void rt_replay_device_key(uint32_t vendor_id, uint32_t device_id, const char *driver_info, uint32_t driver_version,
                          char *out, size_t size)
{
    if (driver_info && driver_info[0])
        snprintf(out, size, "%04x:%04x/%s", vendor_id, device_id, driver_info);
    else
        snprintf(out, size, "%04x:%04x/%u", vendor_id, device_id, driver_version);
}
