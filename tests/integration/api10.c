/*
 * tests/integration/api10.c — a validation-clean program that asks for
 * Vulkan 1.0 and enables no extension (as SDL's testvulkan does): device
 * with features, a host-visible buffer filled by vkCmdFillBuffer, submitted
 * with a fence, read back, everything destroyed. Its replay under
 * --validate must be clean too: replay's own queries may not use the 1.1
 * commands (vkGetPhysicalDeviceFeatures2/Properties2) such an instance
 * lacks. Exits 0; 77 when there is no Vulkan device.
 */
#include <stdio.h>
#include <string.h>

#include "one_device.h"

#define CHECK(x) do { if ((x) != VK_SUCCESS) { fprintf(stderr, "api10: %s failed\n", #x); return 1; } } while (0)

static int host_visible_type(const VkPhysicalDeviceMemoryProperties *m, uint32_t bits)
{
    for (uint32_t i = 0; i < m->memoryTypeCount; i++)
        if ((bits & (1u << i)) && (m->memoryTypes[i].propertyFlags & (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) ==
                                      (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
            return (int)i;
    return -1;
}

static int fill(VkDevice device, VkQueue queue, VkBuffer buffer)
{
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = 0};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(device, &pci, NULL, &pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBuffer cb;
    CHECK(vkAllocateCommandBuffers(device, &ai, &cb));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    CHECK(vkBeginCommandBuffer(cb, &bi));
    vkCmdFillBuffer(cb, buffer, 0, VK_WHOLE_SIZE, 0x2a2a2a2a);
    VkBufferMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                     .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT, .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
                                     .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                     .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .buffer = buffer, .size = VK_WHOLE_SIZE};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &to_host, 0, NULL);
    CHECK(vkEndCommandBuffer(cb));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    CHECK(vkCreateFence(device, &fci, NULL, &fence));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
    CHECK(vkQueueSubmit(queue, 1, &si, fence));
    CHECK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
    vkDestroyFence(device, fence, NULL);
    vkDestroyCommandPool(device, pool, NULL);
    return 0;
}

static int run(const struct one_device *d)
{
    VkDevice device = d->device;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 4096,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer;
    CHECK(vkCreateBuffer(device, &bci, NULL, &buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    int type = host_visible_type(&d->memory, req.memoryTypeBits);
    if (type < 0)
        return 77;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = (uint32_t)type};
    VkDeviceMemory memory;
    CHECK(vkAllocateMemory(device, &mai, NULL, &memory));
    CHECK(vkBindBufferMemory(device, buffer, memory, 0));
    unsigned char *p;
    CHECK(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, (void **)&p));
    memset(p, 0, 4096);
    int rc = fill(device, d->queue, buffer);
    if (rc == 0 && p[100] != 0x2a) {
        fprintf(stderr, "api10: the buffer holds %d, not 42\n", p[100]);
        rc = 1;
    }
    vkUnmapMemory(device, memory);
    vkDestroyBuffer(device, buffer, NULL);
    vkFreeMemory(device, memory, NULL);
    return rc;
}

int main(void)
{
    struct one_device d;
    struct one_device_want want = {.app_name = "api10", .api_version = VK_API_VERSION_1_0, .features = true};
    if (one_device_create(&want, &d) != 0)
        return 77;
    int rc = run(&d);
    one_device_destroy(&d);
    return rc;
}
