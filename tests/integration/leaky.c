/*
 * tests/integration/leaky.c — a program that makes a validation error of its
 * own, as zink does: it destroys its device with a buffer and a semaphore
 * still alive (VUID-vkDestroyDevice-device-00378). It gives no application
 * name; `leaky api10` asks for API 1.0 (else 1.1), so the capture has no
 * driver properties (what `retrace info` must still say well).
 * Exits 0; 77 when there is no Vulkan device.
 */
#include <stdio.h>
#include <string.h>
#include <vulkan/vulkan.h>

int main(int argc, char **argv)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "",
                             .apiVersion = argc > 1 && !strcmp(argv[1], "api10") ? VK_API_VERSION_1_0 : VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance;
    if (vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS)
        return 77;
    uint32_t count = 1;
    VkPhysicalDevice gpu;
    if (vkEnumeratePhysicalDevices(instance, &count, &gpu) < 0 || !count)
        return 77;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = 0,
                                     .queueCount = 1, .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &queue};
    VkDevice device;
    if (vkCreateDevice(gpu, &dci, NULL, &device) != VK_SUCCESS)
        return 77;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 256,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer;
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore semaphore;
    if (vkCreateBuffer(device, &bci, NULL, &buffer) != VK_SUCCESS ||
        vkCreateSemaphore(device, &sci, NULL, &semaphore) != VK_SUCCESS)
        return 1;
    vkDestroyDevice(device, NULL); /* the leak: buffer and semaphore are alive */
    vkDestroyInstance(instance, NULL);
    puts("leaked a buffer and a semaphore");
    return 0;
}
