/*
 * tests/integration/make_outputs_trace.c — writes a tiny trace whose one
 * vkAllocateCommandBuffers makes 5000 command buffers, more handles from one
 * call than replay follows: `retrace replay` must stop with exit 5 naming
 * the call, never drop the handles silently. With "orphan", the pool is
 * made on a device the trace never created instead: replay refuses call 3
 * (exit 3), and `retrace info --check` names the same call.
 *
 * usage: make_outputs_trace OUT [orphan]
 */
#include <stdio.h>
#include <string.h>

#include "trace.h"
#include "vkcodec.h"

#define COUNT 5000

static int append(struct rt_trace_writer *w, enum rt_vk_cmd cmd, const void *args)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_status s = rt_vk_encode_call(&enc, cmd, args);
    if (rt_ok(&s))
        s = rt_trace_writer_call(w, (uint32_t)cmd, 1, VK_SUCCESS, enc.data, enc.size, NULL);
    rt_enc_finish(&enc);
    if (!rt_ok(&s))
        fprintf(stderr, "make_outputs_trace: %s\n", s.msg);
    return rt_ok(&s) ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 2 && (argc != 3 || strcmp(argv[2], "orphan")))
        return 2;
    const char *names[RT_VK_CMD_COUNT];
    for (int i = 0; i < RT_VK_CMD_COUNT; i++)
        names[i] = rt_vk_cmd_name((enum rt_vk_cmd)i);
    struct rt_trace_writer_options o = {.path = argv[1], .command_names = names, .command_count = RT_VK_CMD_COUNT,
                                        .application_name = "outputs"};
    struct rt_trace_writer *w;
    rt_status made = rt_trace_writer_create(&o, &w);
    if (!rt_ok(&made))
        return 5;
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    VkInstance instance = (VkInstance)(uintptr_t)0x1000;
    VkPhysicalDevice gpu = (VkPhysicalDevice)(uintptr_t)0x2000;
    VkDevice device = (VkDevice)(uintptr_t)0x3000;
    VkCommandPool pool = (VkCommandPool)(uintptr_t)0x4000;
    uint32_t count = 1;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                     .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &queue};
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = COUNT};
    static VkCommandBuffer cmds[COUNT];
    for (uintptr_t i = 0; i < COUNT; i++)
        cmds[i] = (VkCommandBuffer)(0x100000 + i * 16);
    struct rt_vk_args_vkCreateInstance a1 = {&ici, NULL, &instance, VK_SUCCESS};
    struct rt_vk_args_vkEnumeratePhysicalDevices a2 = {instance, &count, &gpu, VK_SUCCESS};
    struct rt_vk_args_vkCreateDevice a3 = {gpu, &dci, NULL, &device, VK_SUCCESS};
    VkDevice pool_device = argc == 3 ? (VkDevice)(uintptr_t)0x9999 : device;
    struct rt_vk_args_vkCreateCommandPool a4 = {pool_device, &pci, NULL, &pool, VK_SUCCESS};
    struct rt_vk_args_vkAllocateCommandBuffers a5 = {device, &cai, cmds, VK_SUCCESS};
    int bad = append(w, RT_VK_CMD_vkCreateInstance, &a1) + append(w, RT_VK_CMD_vkEnumeratePhysicalDevices, &a2) +
              append(w, RT_VK_CMD_vkCreateDevice, &a3) + append(w, RT_VK_CMD_vkCreateCommandPool, &a4) +
              append(w, RT_VK_CMD_vkAllocateCommandBuffers, &a5);
    rt_status s = rt_trace_writer_close(w, NULL);
    return bad || !rt_ok(&s) ? 5 : 0;
}
