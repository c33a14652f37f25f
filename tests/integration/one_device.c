/* tests/integration/one_device.c — see one_device.h. */
#include "one_device.h"

#include <string.h>

int one_device_create(const struct one_device_want *want, struct one_device *out)
{
    memset(out, 0, sizeof *out);
    if (!vkCreateInstance && volkInitialize() != VK_SUCCESS)
        return 4;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = want->app_name,
                             .apiVersion = want->api_version};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (vkCreateInstance(&ici, NULL, &out->instance) != VK_SUCCESS)
        return 4;
    volkLoadInstance(out->instance);
    uint32_t count = 1;
    if (vkEnumeratePhysicalDevices(out->instance, &count, &out->gpu) < 0 || count == 0)
        return 4;
    vkGetPhysicalDeviceMemoryProperties(out->gpu, &out->memory);
    VkPhysicalDeviceFeatures have, features = {0};
    if (want->features) { /* a features struct the replay checks */
        vkGetPhysicalDeviceFeatures(out->gpu, &have);
        features.shaderInt16 = have.shaderInt16;
    }
    float priority = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q, .pEnabledFeatures = want->features ? &features : NULL};
    if (vkCreateDevice(out->gpu, &dci, NULL, &out->device) != VK_SUCCESS)
        return 4;
    volkLoadDevice(out->device);
    vkGetDeviceQueue(out->device, 0, 0, &out->queue);
    return 0;
}

void one_device_destroy(struct one_device *d)
{
    vkDestroyDevice(d->device, NULL);
    vkDestroyInstance(d->instance, NULL);
    memset(d, 0, sizeof *d);
}

int one_device_open(const char *app_name, VkPhysicalDeviceMemoryProperties *memory,
                    VkDevice *device, VkQueue *queue)
{
    struct one_device d;
    struct one_device_want want = {.app_name = app_name, .api_version = VK_API_VERSION_1_1};
    int rc = one_device_create(&want, &d);
    *memory = d.memory, *device = d.device, *queue = d.queue;
    return rc;
}
