/*
 * tests/integration/mt_submit.c — several threads record and submit at once.
 *
 * usage: mt_submit OUTDIR [THREADS] [ROUNDS]
 * Each thread owns a command pool, a 32x32 image and a host buffer; each
 * round it clears its image to a colour of its own, copies it to its buffer,
 * submits (queue access is serialised with a mutex, as Vulkan requires, but
 * recording, waiting and checking run in parallel), waits, checks the pixels
 * and saves them as OUTDIR/readback_NNNNNN.png, numbered in submission
 * order. A replay's --readbacks must give the same files.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "one_device.h"

#include "png_io.h"

#define SIZE 32
#define MAX_THREADS 16

static VkDevice device;
static VkQueue queue;
static VkPhysicalDeviceMemoryProperties memory;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned submissions;
static const char *out_dir;
static int rounds = 4;

struct worker {
    int index;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkImage image;
    VkBuffer buffer;
    VkDeviceMemory image_memory, buffer_memory;
    VkFence fence;
    uint8_t *pixels;
    int failures;
};

static uint32_t memory_type(uint32_t allowed, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < memory.memoryTypeCount; i++)
        if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want)
            return i;
    return 0;
}

static VkDeviceMemory bind(VkMemoryRequirements req, VkMemoryPropertyFlags want)
{
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                 .memoryTypeIndex = memory_type(req.memoryTypeBits, want)};
    VkDeviceMemory mem = VK_NULL_HANDLE;
    vkAllocateMemory(device, &info, NULL, &mem);
    return mem;
}

static void make_worker(struct worker *w, uint32_t family)
{
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = family};
    vkCreateCommandPool(device, &pool, NULL, &w->pool);
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = w->pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    vkAllocateCommandBuffers(device, &alloc, &w->cmd);
    VkImageCreateInfo image = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                               .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {SIZE, SIZE, 1}, .mipLevels = 1,
                               .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                               .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT};
    vkCreateImage(device, &image, NULL, &w->image);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, w->image, &req);
    w->image_memory = bind(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vkBindImageMemory(device, w->image, w->image_memory, 0);
    VkBufferCreateInfo buffer = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = SIZE * SIZE * 4,
                                 .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    vkCreateBuffer(device, &buffer, NULL, &w->buffer);
    vkGetBufferMemoryRequirements(device, w->buffer, &req);
    w->buffer_memory = bind(req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    vkBindBufferMemory(device, w->buffer, w->buffer_memory, 0);
    vkMapMemory(device, w->buffer_memory, 0, VK_WHOLE_SIZE, 0, (void **)&w->pixels);
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vkCreateFence(device, &fence, NULL, &w->fence);
}

static void barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                    VkAccessFlags dst)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src,
                              .dstAccessMask = dst, .oldLayout = from, .newLayout = to,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .image = image, .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

static void record(struct worker *w, const uint8_t rgba[4])
{
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(w->cmd, &begin);
    barrier(w->cmd, w->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    VkClearColorValue colour = {.float32 = {rgba[0] / 255.0f, rgba[1] / 255.0f, rgba[2] / 255.0f, 1.0f}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(w->cmd, w->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &colour, 1, &range);
    barrier(w->cmd, w->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
            VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy copy = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {SIZE, SIZE, 1}};
    vkCmdCopyImageToBuffer(w->cmd, w->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, w->buffer, 1, &copy);
    VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(w->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0,
                         NULL);
    vkEndCommandBuffer(w->cmd);
}

static void save(const struct worker *w, unsigned seq)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/readback_%06u.png", out_dir, seq);
    struct rt_image image = {SIZE, SIZE, w->pixels};
    rt_status s = rt_png_write_file(path, &image);
    if (!rt_ok(&s))
        fprintf(stderr, "mt_submit: %s\n", s.msg);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    for (int round = 0; round < rounds; round++) {
        uint8_t rgba[4] = {(uint8_t)(40 * w->index + 10), (uint8_t)(60 * round + 5), (uint8_t)(200 - 20 * w->index), 255};
        record(w, rgba);
        VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                               .pCommandBuffers = &w->cmd};
        pthread_mutex_lock(&queue_lock);
        unsigned seq = ++submissions;
        vkQueueSubmit(queue, 1, &submit, w->fence);
        pthread_mutex_unlock(&queue_lock);
        vkWaitForFences(device, 1, &w->fence, VK_TRUE, UINT64_MAX);
        vkResetFences(device, 1, &w->fence);
        if (memcmp(w->pixels + 4 * (SIZE * SIZE / 2), rgba, 4) != 0)
            w->failures++;
        save(w, seq);
    }
    return NULL;
}

/* Many programs first create an instance only to look at the devices, and
 * destroy it: the capture must go on into the real one. */
static void probe_instance(void)
{
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    VkInstance probe;
    if (vkCreateInstance(&ici, NULL, &probe) != VK_SUCCESS)
        return;
    PFN_vkEnumeratePhysicalDevices enumerate =
        (PFN_vkEnumeratePhysicalDevices)vkGetInstanceProcAddr(probe, "vkEnumeratePhysicalDevices");
    PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)vkGetInstanceProcAddr(probe, "vkDestroyInstance");
    uint32_t count = 0;
    enumerate(probe, &count, NULL);
    destroy(probe, NULL);
}

static int create_device(uint32_t *family_out)
{
    if (volkInitialize() != VK_SUCCESS)
        return 4;
    probe_instance();
    *family_out = 0; /* every Vulkan device has a family 0 that can transfer */
    return one_device_open("mt_submit", &memory, &device, &queue);
}

static void destroy_worker(struct worker *w)
{
    vkDestroyFence(device, w->fence, NULL);
    vkDestroyBuffer(device, w->buffer, NULL);
    vkFreeMemory(device, w->buffer_memory, NULL);
    vkDestroyImage(device, w->image, NULL);
    vkFreeMemory(device, w->image_memory, NULL);
    vkDestroyCommandPool(device, w->pool, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mt_submit OUTDIR [THREADS] [ROUNDS]\n");
        return 2;
    }
    out_dir = argv[1];
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    rounds = argc > 3 ? atoi(argv[3]) : 4;
    if (threads < 1 || threads > MAX_THREADS || rounds < 1)
        return 2;
    uint32_t family;
    int rc = create_device(&family);
    if (rc)
        return rc;
    struct worker workers[MAX_THREADS] = {0};
    pthread_t ids[MAX_THREADS];
    for (int i = 0; i < threads; i++) {
        workers[i].index = i;
        make_worker(&workers[i], family);
    }
    for (int i = 0; i < threads; i++)
        pthread_create(&ids[i], NULL, work, &workers[i]);
    int failures = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(ids[i], NULL);
        failures += workers[i].failures;
    }
    vkDeviceWaitIdle(device);
    for (int i = 0; i < threads; i++)
        destroy_worker(&workers[i]);
    vkDestroyDevice(device, NULL);
    printf("mt_submit: %u submissions from %d threads, %d wrong pixels\n", submissions, threads, failures);
    return failures ? 1 : 0;
}
