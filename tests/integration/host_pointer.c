/*
 * tests/integration/host_pointer.c — from ../shared/repro/host_pointer_memory.c
 * (ffmpeg's Vulkan filters): imports a page-aligned malloc'd buffer as
 * VkDeviceMemory (VK_EXT_external_memory_host), writes 0xAB into it from the
 * CPU after the import, copies it on the GPU into an ordinary host-visible
 * buffer and reads that back. Exits 0 when the copy holds 0xAB, 1 when not,
 * 77 when the device cannot import host memory.
 * `host_pointer fd` instead exports an allocation as a file descriptor and
 * imports it again: memory whose content the capture cannot read.
 * `host_pointer query` reads an occlusion query (no draws: 0 samples) with
 * vkGetQueryPoolResults: query results that replay --verify compares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <volk.h>

#define N 65536

static VkDevice make_device(VkInstance *inst_out, VkQueue *queue_out)
{
    VkApplicationInfo ai = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "hostptr", 1, NULL, 0, VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &ai, 0, NULL, 0, NULL};
    if (vkCreateInstance(&ici, NULL, inst_out) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    volkLoadInstance(*inst_out);
    uint32_t n = 1;
    VkPhysicalDevice pd;
    vkEnumeratePhysicalDevices(*inst_out, &n, &pd);
    const char *ext[] = {"VK_KHR_external_memory", "VK_EXT_external_memory_host", "VK_KHR_external_memory_fd"};
    float prio = 1;
    VkDeviceQueueCreateInfo q = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, 0, 1, &prio};
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &q, 0, NULL, 3, ext, NULL};
    VkDevice dev;
    if (vkCreateDevice(pd, &dci, NULL, &dev) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    volkLoadDevice(dev);
    vkGetDeviceQueue(dev, 0, 0, queue_out);
    return dev;
}

static void make_buffer(VkDevice dev, const void *pnext, VkBufferUsageFlags usage, const void *import,
                        VkBuffer *buf, VkDeviceMemory *mem)
{
    VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, pnext, 0, N, usage, VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
    vkCreateBuffer(dev, &bci, NULL, buf);
    VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, import, N, 0};
    if (vkAllocateMemory(dev, &mai, NULL, mem) != VK_SUCCESS)
        exit(77);
    vkBindBufferMemory(dev, *buf, *mem, 0);
}

/* Records cb's commands (src and dst copied, or a query pool reset and
 * ended) and submits them; waits for the queue. */
static void run_commands(VkDevice dev, VkQueue queue, VkBuffer src, VkBuffer dst, VkQueryPool pool);

static void copy(VkDevice dev, VkQueue queue, VkBuffer src, VkBuffer dst)
{
    run_commands(dev, queue, src, dst, VK_NULL_HANDLE);
}

static int query(VkDevice dev, VkQueue queue)
{
    VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_OCCLUSION, 1, 0};
    VkQueryPool pool;
    if (vkCreateQueryPool(dev, &qi, NULL, &pool) != VK_SUCCESS)
        return 77;
    run_commands(dev, queue, VK_NULL_HANDLE, VK_NULL_HANDLE, pool);
    uint64_t samples = 99;
    VkResult r = vkGetQueryPoolResults(dev, pool, 0, 1, sizeof samples, &samples, sizeof samples,
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    printf("samples=%llu\n", (unsigned long long)samples);
    vkDestroyQueryPool(dev, pool, NULL);
    return r == VK_SUCCESS && samples == 0 ? 0 : 1;
}

static void run_commands(VkDevice dev, VkQueue queue, VkBuffer src, VkBuffer dst, VkQueryPool query_pool)
{
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0, 0};
    VkCommandPool pool;
    vkCreateCommandPool(dev, &cpi, NULL, &pool);
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
                                       VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cb;
    vkAllocateCommandBuffers(dev, &cai, &cb);
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, 0, NULL};
    vkBeginCommandBuffer(cb, &bi);
    if (query_pool) {
        vkCmdResetQueryPool(cb, query_pool, 0, 1);
        vkCmdBeginQuery(cb, query_pool, 0, 0);
        vkCmdEndQuery(cb, query_pool, 0);
    } else {
        VkBufferCopy r = {0, 0, N};
        vkCmdCopyBuffer(cb, src, dst, 1, &r);
    }
    vkEndCommandBuffer(cb);
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cb, 0, NULL};
    vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE);
    vkQueueWaitIdle(queue);
    vkDestroyCommandPool(dev, pool, NULL);
}

/* Exports an allocation as an opaque file descriptor and imports it again. */
static int import_fd(VkDevice dev)
{
    VkExportMemoryAllocateInfo ex = {VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, NULL,
                                     VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &ex, N, 0};
    VkDeviceMemory exported, imported;
    if (vkAllocateMemory(dev, &mai, NULL, &exported) != VK_SUCCESS)
        return 77;
    VkMemoryGetFdInfoKHR get = {VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR, NULL, exported,
                                VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    int fd = -1;
    if (vkGetMemoryFdKHR(dev, &get, &fd) != VK_SUCCESS)
        return 77;
    VkImportMemoryFdInfoKHR imp = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, NULL,
                                   VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, fd};
    mai.pNext = &imp;
    if (vkAllocateMemory(dev, &mai, NULL, &imported) != VK_SUCCESS)
        return 77;
    vkFreeMemory(dev, imported, NULL);
    vkFreeMemory(dev, exported, NULL);
    return 0;
}

int main(int argc, char **argv)
{
    if (volkInitialize() != VK_SUCCESS)
        return 77;
    VkInstance inst;
    VkQueue queue;
    VkDevice dev = make_device(&inst, &queue);
    if (!dev)
        return 77;
    if (argc > 1 && (!strcmp(argv[1], "fd") || !strcmp(argv[1], "query"))) {
        int rc = !strcmp(argv[1], "fd") ? import_fd(dev) : query(dev, queue);
        vkDestroyDevice(dev, NULL);
        vkDestroyInstance(inst, NULL);
        return rc;
    }
    unsigned char *host = aligned_alloc(4096, N);
    VkExternalMemoryBufferCreateInfo eb = {VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, NULL,
                                           VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT};
    VkImportMemoryHostPointerInfoEXT imp = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT, NULL,
                                            VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host};
    VkBuffer src, dst;
    VkDeviceMemory msrc, mdst;
    make_buffer(dev, &eb, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &imp, &src, &msrc);
    make_buffer(dev, NULL, VK_BUFFER_USAGE_TRANSFER_DST_BIT, NULL, &dst, &mdst);
    memset(host, 0xAB, N); /* the program writes straight into its own allocation */
    copy(dev, queue, src, dst);
    unsigned char *p;
    vkMapMemory(dev, mdst, 0, N, 0, (void **)&p);
    int ok = p[0] == 0xAB && p[N - 1] == 0xAB;
    printf("dst[0]=0x%02x dst[N-1]=0x%02x\n", p[0], p[N - 1]);
    vkUnmapMemory(dev, mdst);
    vkDestroyBuffer(dev, src, NULL);
    vkDestroyBuffer(dev, dst, NULL);
    vkFreeMemory(dev, msrc, NULL);
    vkFreeMemory(dev, mdst, NULL);
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(inst, NULL);
    free(host);
    return ok ? 0 : 1;
}
