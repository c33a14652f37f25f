/*
 * tests/integration/driver_crash.c — a program whose submit crashes the
 * driver, as a real trace can (a 3D suite's render crashes lavapipe at a
 * submit): a vkCmdCopyBuffer whose source offset lies 2 GiB past a
 * 4 KiB buffer. The validation layer would refuse it; lavapipe copies from
 * there and dies of SIGSEGV on its queue thread. Its trace does the same at
 * replay, which must say where. Exits 77 when there is no Vulkan device
 * (it does not return when the driver crashes).
 */
#include <stdio.h>
#include <unistd.h>

#include "one_device.h"

static VkBuffer make_buffer(VkDevice device, const VkPhysicalDeviceMemoryProperties *m, VkDeviceMemory *memory)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 4096,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer = VK_NULL_HANDLE;
    vkCreateBuffer(device, &bci, NULL, &buffer);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    uint32_t type = 0;
    while (type < m->memoryTypeCount && !(req.memoryTypeBits & (1u << type)))
        type++;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = type};
    vkAllocateMemory(device, &mai, NULL, memory);
    vkBindBufferMemory(device, buffer, *memory, 0);
    return buffer;
}

int main(void)
{
    struct one_device d;
    struct one_device_want want = {.app_name = "driver_crash", .api_version = VK_API_VERSION_1_1};
    if (one_device_create(&want, &d) != 0)
        return 77;
    VkDevice device = d.device;
    VkQueue queue = d.queue;
    VkDeviceMemory src_memory, dst_memory;
    VkBuffer src = make_buffer(device, &d.memory, &src_memory), dst = make_buffer(device, &d.memory, &dst_memory);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandPool pool;
    vkCreateCommandPool(device, &pci, NULL, &pool);
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBuffer cb;
    vkAllocateCommandBuffers(device, &ai, &cb);
    VkEventCreateInfo eci = {.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    VkEvent go;
    vkCreateEvent(device, &eci, NULL, &go);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cb, &bi);
    vkCmdWaitEvents(cb, 1, &go, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, NULL, 0, NULL, 0, NULL);
    VkBufferCopy far = {.srcOffset = 0x7fff0000, .dstOffset = 0, .size = 4096};
    vkCmdCopyBuffer(cb, src, dst, 1, &far);
    vkEndCommandBuffer(cb);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
    vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE);
    usleep(200 * 1000); /* the capture records the submit before the crash comes */
    vkSetEvent(device, go);
    vkQueueWaitIdle(queue);
    fprintf(stderr, "driver_crash: the driver did not crash\n");
    return 1;
}
