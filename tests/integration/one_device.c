/* tests/integration/one_device.c — see one_device.h. */
#include "one_device.h"

int one_device_open(const char *app_name, VkPhysicalDeviceMemoryProperties *memory,
                    VkDevice *device, VkQueue *queue)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = app_name,
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance;
    if (vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS)
        return 4;
    volkLoadInstance(instance);
    uint32_t count = 1;
    VkPhysicalDevice gpu;
    vkEnumeratePhysicalDevices(instance, &count, &gpu);
    if (count == 0)
        return 4;
    vkGetPhysicalDeviceMemoryProperties(gpu, memory);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q};
    if (vkCreateDevice(gpu, &dci, NULL, device) != VK_SUCCESS)
        return 4;
    volkLoadDevice(*device);
    vkGetDeviceQueue(*device, 0, 0, queue);
    return 0;
}
