/* tests/integration/syscall_mapped.c — system calls on mapped Vulkan memory
 * (docs/FIELD_TEST.md, finding 1; it replaces the reproduction that stood in tests/repro/): under
 * `retrace capture` with default settings, write(2) from memory the GPU
 * wrote and read(2) into memory the GPU then copies must work as they do
 * natively, and the trace must carry what read(2) put there.
 *
 * Steps: the GPU fills buffer A, the program waits and pwrites A to a file;
 * it preads a pattern from the file into A, the GPU copies A to buffer B,
 * the program waits and pwrites B to the file; the file must then hold the
 * pattern. Exit 0 when every step moved the right bytes, 1 when one did
 * not, 2 when Vulkan could not be set up. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <volk.h>

enum { SIZE = 65536 };

struct gpu {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    VkBuffer buffer, copy;
    VkDeviceMemory memory, copy_memory;
    VkCommandPool pool;
};

static int make_buffer(struct gpu *g, VkBuffer *buffer, VkDeviceMemory *memory)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = SIZE,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT};
    if (vkCreateBuffer(g->device, &bci, NULL, buffer))
        return -1;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->device, *buffer, &req);
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
    if (type == UINT32_MAX || vkAllocateMemory(g->device, &mai, NULL, memory) ||
        vkBindBufferMemory(g->device, *buffer, *memory, 0))
        return -1;
    return 0;
}

static int setup(struct gpu *g)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "syscall_mapped",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    uint32_t n = 1;
    if (volkInitialize() != VK_SUCCESS || vkCreateInstance(&ici, NULL, &g->instance))
        return -1;
    volkLoadInstance(g->instance);
    if (vkEnumeratePhysicalDevices(g->instance, &n, &g->phys) < 0 || !n)
        return -1;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q};
    if (vkCreateDevice(g->phys, &dci, NULL, &g->device))
        return -1;
    volkLoadDevice(g->device);
    vkGetDeviceQueue(g->device, 0, 0, &g->queue);
    if (make_buffer(g, &g->buffer, &g->memory) || make_buffer(g, &g->copy, &g->copy_memory))
        return -1;
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    return vkCreateCommandPool(g->device, &pci, NULL, &g->pool) ? -1 : 0;
}

/* One submission, then the wait a download does: the GPU fills A
 * (copy=false) or copies A to B. */
static int gpu_run(struct gpu *g, bool copy, uint32_t value)
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
    if (copy)
        vkCmdCopyBuffer(cb, g->buffer, g->copy, 1, &(VkBufferCopy){.size = SIZE});
    else
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

/* The file's SIZE bytes at offset must be expected(i) for every i. */
static int check_file(int fd, off_t offset, const char *what, uint8_t (*expected)(size_t))
{
    uint8_t *buf = malloc(SIZE);
    int bad = !buf || pread(fd, buf, SIZE, offset) != SIZE;
    for (size_t i = 0; !bad && i < SIZE; i++)
        bad = buf[i] != expected(i);
    free(buf);
    printf("%s: %s\n", what, bad ? "WRONG BYTES" : "ok");
    return bad;
}

static uint8_t filled(size_t i)
{
    (void)i;
    return 0x5a;
}

static uint8_t pattern(size_t i)
{
    return (uint8_t)(i * 7 + i / 251);
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
    uint8_t *a, *b;
    if (vkMapMemory(g.device, g.memory, 0, SIZE, 0, (void **)&a) ||
        vkMapMemory(g.device, g.copy_memory, 0, SIZE, 0, (void **)&b))
        return 2;
    /* The file: [0, SIZE) for downloads, [SIZE, 2 SIZE) the pattern to upload. */
    uint8_t *heap = calloc(2, SIZE);
    for (size_t i = 0; heap && i < SIZE; i++)
        heap[SIZE + i] = pattern(i);
    if (!heap || pwrite(fd, heap, 2 * SIZE, 0) != 2 * SIZE)
        return 2;
    free(heap);
    int bad = 0;

    /* 1. Download: the GPU fills A, the program write(2)s A to the file. */
    if (gpu_run(&g, false, 0x5a5a5a5a))
        return 2;
    bad += report("write(2) from mapped memory the GPU wrote", pwrite(fd, a, SIZE, 0));
    bad += check_file(fd, 0, "the file holds the GPU's bytes", filled);

    /* 2. Upload: read(2) straight into A, then the GPU copies A to B. */
    bad += report("read(2) into mapped memory", pread(fd, a, SIZE, SIZE));
    if (gpu_run(&g, true, 0))
        return 2;
    bad += report("write(2) from the GPU's copy of it", pwrite(fd, b, SIZE, 0));
    bad += check_file(fd, 0, "the copy holds the bytes read(2) put there", pattern);

    /* 3. The program's own stores into the mapping, then write(2). */
    memset(a, 0x33, SIZE);
    bad += report("write(2) from mapped memory the program wrote", pwrite(fd, a, SIZE, 0));

    printf("%s: %d failed\n", bad ? "FAILED" : "ok", bad);
    vkUnmapMemory(g.device, g.memory);
    vkUnmapMemory(g.device, g.copy_memory);
    close(fd);
    vkDestroyCommandPool(g.device, g.pool, NULL);
    vkDestroyBuffer(g.device, g.buffer, NULL);
    vkDestroyBuffer(g.device, g.copy, NULL);
    vkFreeMemory(g.device, g.memory, NULL);
    vkFreeMemory(g.device, g.copy_memory, NULL);
    vkDestroyDevice(g.device, NULL);
    vkDestroyInstance(g.instance, NULL);
    return bad ? 1 : 0;
}
