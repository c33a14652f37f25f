/* Reproduction (docs/FIELD_TEST.md, finding 1): a system call that reads or
 * writes mapped Vulkan memory fails with EFAULT under `retrace capture` in
 * the default page-guard mode, where the program's own code works.
 *
 * GStreamer's `vulkandownload ! filesink` does write(fd, mapped, n) and
 * stops with "Error while writing to file descriptor 6: Bad address"; a
 * program that read(2)s a file straight into a mapped staging buffer is the
 * upload side. The kernel does not raise SIGSEGV for a protected user page
 * it copies from or to: it returns EFAULT, so the layer's fault handler never
 * sees the access.
 *
 *   cc -o syscall_mapped tests/repro/syscall_mapped.c -lvulkan
 *   ./syscall_mapped                               # ok: 3 of 3 passed
 *   retrace capture -o s.rtrace --frame-delimiter submit -- ./syscall_mapped
 *                   # FAILED: 1 of 3 passed: steps 1 and 2 get EFAULT; exit 6
 *   retrace capture --memory-tracking full ...     # ok: 3 of 3 passed
 *
 * Exit 0 when every system call moved all its bytes, 1 when one failed, 2
 * when Vulkan could not be set up. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

enum { SIZE = 65536 };

struct gpu {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkCommandPool pool;
};

static int setup(struct gpu *g)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "syscall_mapped",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    uint32_t n = 1;
    if (vkCreateInstance(&ici, NULL, &g->instance) || vkEnumeratePhysicalDevices(g->instance, &n, &g->phys) < 0 || !n)
        return -1;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q};
    if (vkCreateDevice(g->phys, &dci, NULL, &g->device))
        return -1;
    vkGetDeviceQueue(g->device, 0, 0, &g->queue);
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = SIZE,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT};
    if (vkCreateBuffer(g->device, &bci, NULL, &g->buffer))
        return -1;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->device, g->buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(g->phys, &mp);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) &&
            (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
            (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
            type = i;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = type};
    if (type == UINT32_MAX || vkAllocateMemory(g->device, &mai, NULL, &g->memory) ||
        vkBindBufferMemory(g->device, g->buffer, g->memory, 0))
        return -1;
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    return vkCreateCommandPool(g->device, &pci, NULL, &g->pool) ? -1 : 0;
}

/* The GPU fills the buffer and the program waits: what a download does. */
static int gpu_fill(struct gpu *g, uint32_t value)
{
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = g->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
    VkCommandBuffer cb;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    if (vkAllocateCommandBuffers(g->device, &cai, &cb) || vkBeginCommandBuffer(cb, &bi))
        return -1;
    vkCmdFillBuffer(cb, g->buffer, 0, SIZE, value);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
    if (vkEndCommandBuffer(cb) || vkCreateFence(g->device, &fci, NULL, &fence) ||
        vkQueueSubmit(g->queue, 1, &si, fence) || vkWaitForFences(g->device, 1, &fence, VK_TRUE, UINT64_MAX))
        return -1;
    vkDestroyFence(g->device, fence, NULL);
    vkFreeCommandBuffers(g->device, g->pool, 1, &cb);
    return 0;
}

static int report(const char *what, ssize_t got)
{
    if (got == SIZE) {
        printf("%s: ok\n", what);
        return 0;
    }
    printf("%s: %zd of %d bytes (%s)\n", what, got, SIZE, got < 0 ? strerror(errno) : "short");
    return 1;
}

int main(void)
{
    struct gpu g = {0};
    if (setup(&g)) {
        fprintf(stderr, "syscall_mapped: no usable Vulkan device\n");
        return 2;
    }
    char path[] = "/tmp/syscall_mapped_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 2;
    unlink(path);
    uint8_t *p;
    if (vkMapMemory(g.device, g.memory, 0, SIZE, 0, (void **)&p))
        return 2;
    int bad = 0;
    uint8_t *heap = calloc(1, SIZE); /* the file holds SIZE bytes whatever step 1 does */
    if (!heap || pwrite(fd, heap, SIZE, 0) != SIZE)
        return 2;
    free(heap);

    /* 1. Download: GPU writes, the program write(2)s the mapped bytes to a file. */
    if (gpu_fill(&g, 0x5a5a5a5a))
        return 2;
    bad += report("write(2) from mapped memory the GPU wrote", pwrite(fd, p, SIZE, 0));

    /* 2. Upload: the program read(2)s a file straight into mapped memory. */
    bad += report("read(2) into mapped memory", pread(fd, p, SIZE, 0));

    /* 3. The same after the program's own stores into the mapping. */
    memset(p, 0x33, SIZE);
    bad += report("write(2) from mapped memory the program wrote", pwrite(fd, p, SIZE, 0));

    printf("%s: %d of 3 passed\n", bad ? "FAILED" : "ok", 3 - bad);
    vkUnmapMemory(g.device, g.memory);
    close(fd);
    vkDestroyCommandPool(g.device, g.pool, NULL);
    vkDestroyBuffer(g.device, g.buffer, NULL);
    vkFreeMemory(g.device, g.memory, NULL);
    vkDestroyDevice(g.device, NULL);
    vkDestroyInstance(g.instance, NULL);
    return bad ? 1 : 0;
}
