/*
 * tests/integration/proc_addr.c — what vkGet*ProcAddr gives for commands of
 * extensions the program did not enable, and what calling the safe ones does.
 *
 * usage: proc_addr NAMES_FILE
 * Creates an instance and a device with no extension enabled, then prints,
 * for every command named in NAMES_FILE (one per line), whether
 * vkGetInstanceProcAddr and vkGetDeviceProcAddr give a function. Then it
 * calls the commands that are safe to call on any device when they are given
 * (what libplacebo does: it names objects through vkSetDebugUtilsObjectNameEXT
 * whenever vkGetDeviceProcAddr returns it) and prints their results. Run with
 * and without the capture layer, the output must be the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <volk.h>

static VkInstance instance;
static VkPhysicalDevice gpu;
static VkDevice device;
static VkQueue queue;
static VkCommandPool pool;
static VkCommandBuffer cmd;

static int create_objects(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "proc_addr",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS)
        return 1;
    volkLoadInstance(instance);
    uint32_t n = 1;
    if (vkEnumeratePhysicalDevices(instance, &n, &gpu) < 0 || n == 0)
        return 1;
    float priority = 1;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q};
    if (vkCreateDevice(gpu, &dci, NULL, &device) != VK_SUCCESS)
        return 1;
    vkGetDeviceQueue(device, 0, 0, &queue);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (vkCreateCommandPool(device, &pci, NULL, &pool) != VK_SUCCESS)
        return 1;
    cai.commandPool = pool;
    if (vkAllocateCommandBuffers(device, &cai, &cmd) != VK_SUCCESS)
        return 1;
    return vkBeginCommandBuffer(cmd, &begin) != VK_SUCCESS;
}

static int list_addresses(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    char name[256];
    while (fscanf(f, "%255s", name) == 1) {
        PFN_vkVoidFunction i = vkGetInstanceProcAddr(instance, name);
        PFN_vkVoidFunction d = vkGetDeviceProcAddr(device, name);
        printf("%s instance=%s device=%s\n", name, i ? "yes" : "NULL", d ? "yes" : "NULL");
    }
    fclose(f);
    return 0;
}

#define GET(type, name) ((type)vkGetDeviceProcAddr(device, name))

/* Debug-utils commands: device-level, but VK_EXT_debug_utils is an instance
 * extension, which is where a layer's own tables can go wrong. */
static void call_debug_utils(void)
{
    VkDebugUtilsObjectNameInfoEXT name = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                                          .objectType = VK_OBJECT_TYPE_DEVICE,
                                          .objectHandle = (uint64_t)(uintptr_t)device, .pObjectName = "dev"};
    PFN_vkSetDebugUtilsObjectNameEXT set_name = GET(PFN_vkSetDebugUtilsObjectNameEXT, "vkSetDebugUtilsObjectNameEXT");
    if (set_name)
        printf("call vkSetDebugUtilsObjectNameEXT = %d\n", set_name(device, &name));
    static const uint32_t tag_data = 7;
    VkDebugUtilsObjectTagInfoEXT tag = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_TAG_INFO_EXT,
                                        .objectType = VK_OBJECT_TYPE_DEVICE,
                                        .objectHandle = (uint64_t)(uintptr_t)device, .tagName = 1,
                                        .tagSize = sizeof tag_data, .pTag = &tag_data};
    PFN_vkSetDebugUtilsObjectTagEXT set_tag = GET(PFN_vkSetDebugUtilsObjectTagEXT, "vkSetDebugUtilsObjectTagEXT");
    if (set_tag)
        printf("call vkSetDebugUtilsObjectTagEXT = %d\n", set_tag(device, &tag));
    VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = "label"};
    PFN_vkQueueBeginDebugUtilsLabelEXT qbegin = GET(PFN_vkQueueBeginDebugUtilsLabelEXT, "vkQueueBeginDebugUtilsLabelEXT");
    PFN_vkQueueInsertDebugUtilsLabelEXT qinsert = GET(PFN_vkQueueInsertDebugUtilsLabelEXT, "vkQueueInsertDebugUtilsLabelEXT");
    PFN_vkQueueEndDebugUtilsLabelEXT qend = GET(PFN_vkQueueEndDebugUtilsLabelEXT, "vkQueueEndDebugUtilsLabelEXT");
    if (qbegin && qinsert && qend) {
        qbegin(queue, &label);
        qinsert(queue, &label);
        qend(queue);
        printf("call vkQueue*DebugUtilsLabelEXT done\n");
    }
    PFN_vkCmdBeginDebugUtilsLabelEXT cbegin = GET(PFN_vkCmdBeginDebugUtilsLabelEXT, "vkCmdBeginDebugUtilsLabelEXT");
    PFN_vkCmdInsertDebugUtilsLabelEXT cinsert = GET(PFN_vkCmdInsertDebugUtilsLabelEXT, "vkCmdInsertDebugUtilsLabelEXT");
    PFN_vkCmdEndDebugUtilsLabelEXT cend = GET(PFN_vkCmdEndDebugUtilsLabelEXT, "vkCmdEndDebugUtilsLabelEXT");
    if (cbegin && cinsert && cend) {
        cbegin(cmd, &label);
        cinsert(cmd, &label);
        cend(cmd);
        printf("call vkCmd*DebugUtilsLabelEXT done\n");
    }
}

/* Commands of extensions the program did not enable that are harmless on any
 * device: queries, and a trim of an idle pool. */
static void call_others(void)
{
    PFN_vkGetPhysicalDeviceProperties2KHR props2 =
        (PFN_vkGetPhysicalDeviceProperties2KHR)vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceProperties2KHR");
    if (props2) {
        VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        props2(gpu, &p);
        printf("call vkGetPhysicalDeviceProperties2KHR = vendor %u\n", p.properties.vendorID);
    }
    PFN_vkTrimCommandPoolKHR trim = GET(PFN_vkTrimCommandPoolKHR, "vkTrimCommandPoolKHR");
    if (trim) {
        trim(device, pool, 0);
        printf("call vkTrimCommandPoolKHR done\n");
    }
    PFN_vkGetDeviceQueue2 queue2 = GET(PFN_vkGetDeviceQueue2, "vkGetDeviceQueue2");
    if (queue2) {
        VkDeviceQueueInfo2 info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_INFO_2};
        VkQueue q = VK_NULL_HANDLE;
        queue2(device, &info, &q);
        printf("call vkGetDeviceQueue2 = %s\n", q == queue ? "the queue" : "another");
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: proc_addr NAMES_FILE\n");
        return 2;
    }
    if (volkInitialize() != VK_SUCCESS || create_objects()) {
        fprintf(stderr, "proc_addr: cannot create a Vulkan device\n");
        return 1;
    }
    if (list_addresses(argv[1])) {
        fprintf(stderr, "proc_addr: cannot read %s\n", argv[1]);
        return 1;
    }
    call_debug_utils();
    call_others();
    vkEndCommandBuffer(cmd);
    vkDestroyCommandPool(device, pool, NULL);
    vkDestroyDevice(device, NULL);
    vkDestroyInstance(instance, NULL);
    return 0;
}
