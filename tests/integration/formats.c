/*
 * tests/integration/formats.c — read-backs of images in formats that are not
 * 8-bit RGBA (video planes, float targets, packed formats), as ffmpeg's
 * Vulkan filters and offscreen renderers make them.
 *
 * usage: formats OUTDIR
 * For R8_UNORM, R32G32B32A32_SFLOAT, A8B8G8R8_SRGB_PACK32 and
 * A1R5G5B5_UNORM_PACK16, and the depth and the stencil aspect of
 * D32_SFLOAT_S8_UINT (each where the device can clear and copy it), clears an
 * 8x8 image to a value whose bytes are known exactly, copies it (one aspect)
 * into a host-visible buffer, checks the bytes and saves them with readback/'s
 * converter as OUTDIR/readback_NNNNNN.png. A replay's --readbacks must write
 * the same files (every other copy is made with vkCmdCopyImageToBuffer2, as
 * Vulkan 1.3 programs do). Prints "N formats, M wrong bytes".
 */
#include <stdio.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "convert.h"

#define SIZE 8

struct case_ {
    VkFormat format;
    VkClearColorValue clear;
    uint8_t texel[16]; /* the bytes a texel must hold after the clear */
    uint32_t texel_size;
    VkImageAspectFlags aspect; /* 0: colour; else the aspect copied of a depth/stencil clear */
    VkClearDepthStencilValue depth_stencil;
};

static const struct case_ cases[] = {
    {VK_FORMAT_R8_UNORM, {.float32 = {0.2f, 0, 0, 1}}, {0x33}, 1},
    {VK_FORMAT_R32G32B32A32_SFLOAT, {.float32 = {0.25f, 0.5f, 2.0f, -1.0f}},
     {0, 0, 0x80, 0x3e, 0, 0, 0, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x80, 0xbf}, 16},
    {VK_FORMAT_A8B8G8R8_SRGB_PACK32, {.float32 = {1, 0, 1, 1}}, {0xff, 0, 0xff, 0xff}, 4},
    {VK_FORMAT_A1R5G5B5_UNORM_PACK16, {.float32 = {1, 0, 1, 1}}, {0x1f, 0xfc}, 2},
    {VK_FORMAT_D32_SFLOAT_S8_UINT, {.float32 = {0}}, {0, 0, 0x80, 0x3e}, 4, VK_IMAGE_ASPECT_DEPTH_BIT, {0.25f, 0x5a}},
    {VK_FORMAT_D32_SFLOAT_S8_UINT, {.float32 = {0}}, {0x5a}, 1, VK_IMAGE_ASPECT_STENCIL_BIT, {0.25f, 0x5a}},
};

static VkDevice device;
static VkPhysicalDevice gpu;
static VkQueue queue;
static VkCommandBuffer cmd;
static VkPhysicalDeviceMemoryProperties memory;

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
    VkDeviceMemory m = VK_NULL_HANDLE;
    vkAllocateMemory(device, &info, NULL, &m);
    return m;
}

static int open_device(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "formats",
                             .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance;
    uint32_t count = 1;
    if (vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS ||
        vkEnumeratePhysicalDevices(instance, &count, &gpu) < 0 || count == 0)
        return 4;
    vkGetPhysicalDeviceMemoryProperties(gpu, &memory);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q};
    if (vkCreateDevice(gpu, &dci, NULL, &device) != VK_SUCCESS)
        return 4;
    vkGetDeviceQueue(device, 0, 0, &queue);
    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT};
    VkCommandPool pool;
    vkCreateCommandPool(device, &pool_info, NULL, &pool);
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    vkAllocateCommandBuffers(device, &alloc, &cmd);
    return 0;
}

static void barrier(VkImage image, VkImageAspectFlags aspect, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                              .oldLayout = from, .newLayout = to, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                              .subresourceRange = {aspect, 0, 1, 0, 1}};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL,
                         1, &b);
}

static void record(VkImage image, VkBuffer buffer, const struct case_ *c, bool copy2)
{
    VkImageAspectFlags all = c->aspect ? VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT
                                       : VK_IMAGE_ASPECT_COLOR_BIT;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &begin);
    barrier(image, all, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkImageSubresourceRange range = {all, 0, 1, 0, 1};
    if (c->aspect)
        vkCmdClearDepthStencilImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c->depth_stencil, 1, &range);
    else
        vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c->clear, 1, &range);
    barrier(image, all, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy copy = {.imageSubresource = {c->aspect ? c->aspect : VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                              .imageExtent = {SIZE, SIZE, 1}};
    if (copy2) {
        VkBufferImageCopy2 region = {.sType = VK_STRUCTURE_TYPE_BUFFER_IMAGE_COPY_2,
                                     .imageSubresource = copy.imageSubresource, .imageExtent = copy.imageExtent};
        VkCopyImageToBufferInfo2 info = {.sType = VK_STRUCTURE_TYPE_COPY_IMAGE_TO_BUFFER_INFO_2, .srcImage = image,
                                         .srcImageLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, .dstBuffer = buffer,
                                         .regionCount = 1, .pRegions = &region};
        vkCmdCopyImageToBuffer2(cmd, &info);
    } else {
        vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &copy);
    }
    VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0,
                         NULL);
    vkEndCommandBuffer(cmd);
}

/* Returns the wrong bytes seen; saves the read-back as the replay would. */
static unsigned run_case(const struct case_ *c, const char *out_dir, unsigned number)
{
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                            .format = c->format, .extent = {SIZE, SIZE, 1}, .mipLevels = 1, .arrayLayers = 1,
                            .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                            .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT};
    VkImage image;
    if (c->aspect) /* a depth/stencil image: also an attachment, as real ones are */
        ii.usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
    vkCreateImage(device, &ii, NULL, &image);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, image, &req);
    VkDeviceMemory image_memory = bind(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vkBindImageMemory(device, image, image_memory, 0);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = SIZE * SIZE * c->texel_size,
                             .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer;
    vkCreateBuffer(device, &bi, NULL, &buffer);
    vkGetBufferMemoryRequirements(device, buffer, &req);
    VkDeviceMemory buffer_memory = bind(req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    vkBindBufferMemory(device, buffer, buffer_memory, 0);
    uint8_t *bytes;
    vkMapMemory(device, buffer_memory, 0, VK_WHOLE_SIZE, 0, (void **)&bytes);
    record(image, buffer, c, number % 2 == 0);
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE);
    vkQueueWaitIdle(queue);
    unsigned wrong = 0;
    for (uint32_t i = 0; i < SIZE * SIZE * c->texel_size; i++)
        wrong += bytes[i] != c->texel[i % c->texel_size];
    char stem[4096];
    snprintf(stem, sizeof stem, "%s/readback_%06u", out_dir, number);
    rt_status s = rt_readback_save(c->format, c->aspect ? c->aspect : VK_IMAGE_ASPECT_COLOR_BIT, bytes,
                                   SIZE * SIZE * c->texel_size, SIZE, SIZE, 0, stem, NULL, 0);
    if (!rt_ok(&s))
        fprintf(stderr, "formats: %s\n", s.msg);
    vkDestroyBuffer(device, buffer, NULL);
    vkFreeMemory(device, buffer_memory, NULL);
    vkDestroyImage(device, image, NULL);
    vkFreeMemory(device, image_memory, NULL);
    return wrong;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: formats OUTDIR\n");
        return 2;
    }
    if (open_device())
        return 4;
    unsigned done = 0, wrong = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        VkFormatProperties p;
        vkGetPhysicalDeviceFormatProperties(gpu, cases[i].format, &p);
        VkFormatFeatureFlags need = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
        if ((p.optimalTilingFeatures & need) != need) {
            printf("format %d: the device cannot clear and copy it; skipped\n", (int)cases[i].format);
            continue;
        }
        wrong += run_case(&cases[i], argv[1], ++done);
    }
    vkDeviceWaitIdle(device);
    printf("%u formats, %u wrong bytes\n", done, wrong);
    return 0;
}
