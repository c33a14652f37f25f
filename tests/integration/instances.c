/*
 * tests/integration/instances.c — instances, devices and queues alive at
 * once, and objects destroyed and made again (handles reused), as real
 * programs do them (mpv keeps a probe instance alive beside the real one).
 *
 * usage: instances live|in-turn OUTDIR
 *   live     a probe instance stays alive while a second one works; three
 *            devices (two on one instance, one on the other) and their queues
 *            are alive at once; eight times a linear image is made and
 *            destroyed and an optimal one made in its place (a driver that
 *            reuses the handle gives the new image the old one's); then the
 *            probe's device and the probe instance go while the others work on.
 *   in-turn  a probe instance is destroyed before the real one is made.
 * Every device clears an image to a colour of its own and copies it into a
 * host-visible buffer; each copy is checked and saved as
 * OUTDIR/readback_NNNNNN.png in submission order: a replay's --readbacks
 * must give the same files. Prints "N read-backs, M wrong pixels".
 */
#include <stdio.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "png_io.h"

#define SIZE 16

struct gpu {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkBuffer buffer;
    VkDeviceMemory buffer_memory;
    uint8_t *pixels;
};

static const char *out_dir;
static unsigned readbacks, wrong;

static VkInstance make_instance(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "instances",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance = VK_NULL_HANDLE;
    vkCreateInstance(&ici, NULL, &instance);
    return instance;
}

static uint32_t memory_type(const struct gpu *g, uint32_t allowed, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < g->memory.memoryTypeCount; i++)
        if ((allowed & (1u << i)) && (g->memory.memoryTypes[i].propertyFlags & want) == want)
            return i;
    return 0;
}

static VkDeviceMemory allocate(const struct gpu *g, VkMemoryRequirements req, VkMemoryPropertyFlags want)
{
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                 .memoryTypeIndex = memory_type(g, req.memoryTypeBits, want)};
    VkDeviceMemory memory = VK_NULL_HANDLE;
    vkAllocateMemory(g->device, &info, NULL, &memory);
    return memory;
}

static int open_gpu(struct gpu *g, VkInstance instance)
{
    g->instance = instance;
    uint32_t count = 1;
    if (vkEnumeratePhysicalDevices(instance, &count, &g->physical) < 0 || count == 0)
        return 4;
    vkGetPhysicalDeviceMemoryProperties(g->physical, &g->memory);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q};
    if (vkCreateDevice(g->physical, &dci, NULL, &g->device) != VK_SUCCESS)
        return 4;
    vkGetDeviceQueue(g->device, 0, 0, &g->queue);
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT};
    vkCreateCommandPool(g->device, &pool, NULL, &g->pool);
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = g->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    vkAllocateCommandBuffers(g->device, &alloc, &g->cmd);
    VkBufferCreateInfo buffer = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = SIZE * SIZE * 4,
                                 .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    vkCreateBuffer(g->device, &buffer, NULL, &g->buffer);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->device, g->buffer, &req);
    g->buffer_memory = allocate(g, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    vkBindBufferMemory(g->device, g->buffer, g->buffer_memory, 0);
    vkMapMemory(g->device, g->buffer_memory, 0, VK_WHOLE_SIZE, 0, (void **)&g->pixels);
    return 0;
}

static void close_gpu(struct gpu *g)
{
    vkDeviceWaitIdle(g->device);
    vkDestroyBuffer(g->device, g->buffer, NULL);
    vkFreeMemory(g->device, g->buffer_memory, NULL);
    vkDestroyCommandPool(g->device, g->pool, NULL);
    vkDestroyDevice(g->device, NULL);
}

static VkImage make_image(const struct gpu *g, VkImageTiling tiling, VkDeviceMemory *memory_out)
{
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                              .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {SIZE, SIZE, 1}, .mipLevels = 1,
                              .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = tiling,
                              .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT};
    VkImage image = VK_NULL_HANDLE;
    vkCreateImage(g->device, &info, NULL, &image);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(g->device, image, &req);
    *memory_out = allocate(g, req, tiling == VK_IMAGE_TILING_LINEAR ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
                                                                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vkBindImageMemory(g->device, image, *memory_out, 0);
    return image;
}

static void barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                              .oldLayout = from, .newLayout = to, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                              .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL,
                         1, &b);
}

/* Clears a fresh optimal image to RGBA, copies it to the host buffer, checks
 * and saves what arrived. */
static void read_back(struct gpu *g, const uint8_t rgba[4])
{
    VkDeviceMemory memory;
    VkImage image = make_image(g, VK_IMAGE_TILING_OPTIMAL, &memory);
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(g->cmd, &begin);
    barrier(g->cmd, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkClearColorValue colour = {.float32 = {rgba[0] / 255.0f, rgba[1] / 255.0f, rgba[2] / 255.0f, 1.0f}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(g->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &colour, 1, &range);
    barrier(g->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy copy = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {SIZE, SIZE, 1}};
    vkCmdCopyImageToBuffer(g->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, g->buffer, 1, &copy);
    VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(g->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL,
                         0, NULL);
    vkEndCommandBuffer(g->cmd);
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &g->cmd};
    vkQueueSubmit(g->queue, 1, &submit, VK_NULL_HANDLE);
    vkQueueWaitIdle(g->queue);
    for (int i = 0; i < SIZE * SIZE; i++)
        wrong += memcmp(g->pixels + 4 * i, rgba, 4) != 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/readback_%06u.png", out_dir, ++readbacks);
    struct rt_image png = {SIZE, SIZE, g->pixels};
    rt_status s = rt_png_write_file(path, &png);
    if (!rt_ok(&s))
        fprintf(stderr, "instances: %s\n", s.msg);
    vkDestroyImage(g->device, image, NULL);
    vkFreeMemory(g->device, memory, NULL);
}

/* A linear image made and destroyed just before an optimal one: where the
 * driver reuses the handle, replay must not take the new image for linear. */
static void reuse_handles(struct gpu *g)
{
    for (uint8_t k = 0; k < 8; k++) {
        VkDeviceMemory memory;
        VkImage linear = make_image(g, VK_IMAGE_TILING_LINEAR, &memory);
        vkDestroyImage(g->device, linear, NULL);
        vkFreeMemory(g->device, memory, NULL);
        read_back(g, (const uint8_t[4]){(uint8_t)(30 * k), 200, (uint8_t)(255 - 30 * k), 255});
    }
}

static int live(void)
{
    struct gpu probe = {0}, real = {0}, second = {0};
    VkInstance probe_instance = make_instance(), real_instance = make_instance();
    if (!probe_instance || !real_instance || open_gpu(&real, real_instance) || open_gpu(&probe, probe_instance) ||
        open_gpu(&second, real_instance))
        return 4;
    read_back(&real, (const uint8_t[4]){255, 0, 0, 255});
    read_back(&probe, (const uint8_t[4]){0, 255, 0, 255});
    read_back(&second, (const uint8_t[4]){0, 0, 255, 255});
    reuse_handles(&real);
    close_gpu(&probe); /* one device goes; the others' memory must stay */
    read_back(&real, (const uint8_t[4]){255, 255, 0, 255});
    vkDestroyInstance(probe_instance, NULL); /* one instance goes; the other works on */
    read_back(&second, (const uint8_t[4]){0, 255, 255, 255});
    close_gpu(&second);
    close_gpu(&real);
    vkDestroyInstance(real_instance, NULL);
    return 0;
}

static int in_turn(void)
{
    VkInstance probe_instance = make_instance();
    if (!probe_instance)
        return 4;
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(probe_instance, &count, NULL);
    vkDestroyInstance(probe_instance, NULL);
    struct gpu real = {0};
    VkInstance real_instance = make_instance();
    if (!real_instance || open_gpu(&real, real_instance))
        return 4;
    read_back(&real, (const uint8_t[4]){255, 128, 0, 255});
    close_gpu(&real);
    vkDestroyInstance(real_instance, NULL);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "live") && strcmp(argv[1], "in-turn"))) {
        fprintf(stderr, "usage: instances live|in-turn OUTDIR\n");
        return 2;
    }
    out_dir = argv[2];
    int rc = !strcmp(argv[1], "live") ? live() : in_turn();
    printf("%u read-backs, %u wrong pixels\n", readbacks, wrong);
    return rc;
}
