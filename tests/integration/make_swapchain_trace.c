/*
 * tests/integration/make_swapchain_trace.c — writes a one-frame trace that
 * clears and presents a swapchain image of a format that is not 8-bit RGBA,
 * and the PNG a screenshot of that frame must be.
 *
 * usage: make_swapchain_trace OUT.rtrace EXPECTED_STEM rgba16f|a2b10g10r10|r5g6b5
 * The clear colours are exact in each format, so the bytes the GPU writes
 * are known; EXPECTED_STEM.png is those bytes through readback/'s converter.
 * `retrace replay --screenshots DIR` must write the same DIR/frame_000001.png.
 * The instance enables VK_KHR_wayland_surface, as zink's does: a headless
 * replay leaves it out. The frame also copies the presented image into a
 * host-visible buffer, as a program taking its own screenshot does: replay's
 * --readbacks must save the same PNG (DIR/readback_000001.png).
 */
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "trace.h"
#include "vkcodec.h"

#define SIZE 16

struct format_case {
    const char *name;
    VkFormat format;
    VkClearColorValue clear;
    uint8_t texel[8];
    uint32_t texel_size;
};

static const struct format_case cases[] = {
    {"rgba16f", VK_FORMAT_R16G16B16A16_SFLOAT, {.float32 = {0.25f, 0.5f, 1.0f, 1.0f}},
     {0x00, 0x34, 0x00, 0x38, 0x00, 0x3c, 0x00, 0x3c}, 8},
    {"a2b10g10r10", VK_FORMAT_A2B10G10R10_UNORM_PACK32, {.float32 = {1.0f, 0.0f, 1.0f, 1.0f}},
     {0xff, 0x03, 0xf0, 0xff}, 4},
    {"r5g6b5", VK_FORMAT_R5G6B5_UNORM_PACK16, {.float32 = {0.0f, 1.0f, 1.0f, 1.0f}}, {0xff, 0x07}, 2},
};

static struct rt_trace_writer *writer;
static int failures;

static void append(enum rt_vk_cmd cmd, const void *args)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_status s = rt_vk_encode_call(&enc, cmd, args);
    if (rt_ok(&s))
        s = rt_trace_writer_call(writer, (uint32_t)cmd, 1, VK_SUCCESS, enc.data, enc.size, NULL);
    rt_enc_finish(&enc);
    if (!rt_ok(&s)) {
        fprintf(stderr, "make_swapchain_trace: %s\n", s.msg);
        failures++;
    }
}

#define H(type, value) ((type)(uintptr_t)(value))

static void setup(VkFormat format)
{
    VkInstance instance = H(VkInstance, 0x1000);
    VkPhysicalDevice gpu = H(VkPhysicalDevice, 0x2000);
    VkDevice device = H(VkDevice, 0x3000);
    VkQueue queue = H(VkQueue, 0x3100);
    VkSurfaceKHR surface = H(VkSurfaceKHR, 0x4000);
    VkSwapchainKHR swapchain = H(VkSwapchainKHR, 0x5000);
    VkImage image = H(VkImage, 0x6000);
    uint32_t one = 1;
    float priority = 1.0f;
    const char *swapchain_ext = "VK_KHR_swapchain";
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
    const char *instance_exts[] = {"VK_KHR_surface", "VK_EXT_headless_surface", "VK_KHR_wayland_surface"};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
                                .enabledExtensionCount = 3, .ppEnabledExtensionNames = instance_exts};
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q, .enabledExtensionCount = 1,
                              .ppEnabledExtensionNames = &swapchain_ext};
    VkHeadlessSurfaceCreateInfoEXT hci = {.sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
    VkSwapchainCreateInfoKHR sci = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = surface, .minImageCount = 1,
        .imageFormat = format, .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR, .imageExtent = {SIZE, SIZE},
        .imageArrayLayers = 1, .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
        .preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR, .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
        .presentMode = VK_PRESENT_MODE_FIFO_KHR, .clipped = VK_TRUE};
    append(RT_VK_CMD_vkCreateInstance, &(struct rt_vk_args_vkCreateInstance){&ici, NULL, &instance, VK_SUCCESS});
    append(RT_VK_CMD_vkEnumeratePhysicalDevices,
           &(struct rt_vk_args_vkEnumeratePhysicalDevices){instance, &one, &gpu, VK_SUCCESS});
    append(RT_VK_CMD_vkCreateDevice, &(struct rt_vk_args_vkCreateDevice){gpu, &dci, NULL, &device, VK_SUCCESS});
    append(RT_VK_CMD_vkGetDeviceQueue, &(struct rt_vk_args_vkGetDeviceQueue){device, 0, 0, &queue});
    append(RT_VK_CMD_vkCreateHeadlessSurfaceEXT,
           &(struct rt_vk_args_vkCreateHeadlessSurfaceEXT){instance, &hci, NULL, &surface, VK_SUCCESS});
    append(RT_VK_CMD_vkCreateSwapchainKHR,
           &(struct rt_vk_args_vkCreateSwapchainKHR){device, &sci, NULL, &swapchain, VK_SUCCESS});
    append(RT_VK_CMD_vkGetSwapchainImagesKHR,
           &(struct rt_vk_args_vkGetSwapchainImagesKHR){device, swapchain, &one, &image, VK_SUCCESS});
}

/* A host-visible buffer the frame copies the presented image into. */
static void readback_buffer(void)
{
    VkDevice device = H(VkDevice, 0x3000);
    VkBuffer buffer = H(VkBuffer, 0x8000);
    VkDeviceMemory memory = H(VkDeviceMemory, 0x8100);
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = SIZE * SIZE * 8,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = SIZE * SIZE * 8};
    append(RT_VK_CMD_vkCreateBuffer, &(struct rt_vk_args_vkCreateBuffer){device, &bci, NULL, &buffer, VK_SUCCESS});
    append(RT_VK_CMD_vkAllocateMemory,
           &(struct rt_vk_args_vkAllocateMemory){device, &mai, NULL, &memory, VK_SUCCESS});
    append(RT_VK_CMD_vkBindBufferMemory,
           &(struct rt_vk_args_vkBindBufferMemory){device, buffer, memory, 0, VK_SUCCESS});
}

static void barrier(VkCommandBuffer cmd, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT, .oldLayout = from, .newLayout = to,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = H(VkImage, 0x6000),
                              .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    append(RT_VK_CMD_vkCmdPipelineBarrier, &(struct rt_vk_args_vkCmdPipelineBarrier){
        cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b});
}

static void frame(const VkClearColorValue *clear)
{
    VkDevice device = H(VkDevice, 0x3000);
    VkCommandPool pool = H(VkCommandPool, 0x7000);
    VkCommandBuffer cmd = H(VkCommandBuffer, 0x7100);
    VkSwapchainKHR swapchain = H(VkSwapchainKHR, 0x5000);
    uint32_t index = 0;
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    VkPresentInfoKHR present = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .swapchainCount = 1,
                                .pSwapchains = &swapchain, .pImageIndices = &index};
    append(RT_VK_CMD_vkCreateCommandPool,
           &(struct rt_vk_args_vkCreateCommandPool){device, &pci, NULL, &pool, VK_SUCCESS});
    append(RT_VK_CMD_vkAllocateCommandBuffers,
           &(struct rt_vk_args_vkAllocateCommandBuffers){device, &cai, &cmd, VK_SUCCESS});
    append(RT_VK_CMD_vkAcquireNextImageKHR, &(struct rt_vk_args_vkAcquireNextImageKHR){
        device, swapchain, UINT64_MAX, VK_NULL_HANDLE, VK_NULL_HANDLE, &index, VK_SUCCESS});
    append(RT_VK_CMD_vkBeginCommandBuffer, &(struct rt_vk_args_vkBeginCommandBuffer){cmd, &begin, VK_SUCCESS});
    barrier(cmd, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    append(RT_VK_CMD_vkCmdClearColorImage, &(struct rt_vk_args_vkCmdClearColorImage){
        cmd, H(VkImage, 0x6000), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, clear, 1, &range});
    barrier(cmd, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy copy = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {SIZE, SIZE, 1}};
    append(RT_VK_CMD_vkCmdCopyImageToBuffer, &(struct rt_vk_args_vkCmdCopyImageToBuffer){
        cmd, H(VkImage, 0x6000), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, H(VkBuffer, 0x8000), 1, &copy});
    barrier(cmd, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    append(RT_VK_CMD_vkEndCommandBuffer, &(struct rt_vk_args_vkEndCommandBuffer){cmd, VK_SUCCESS});
    append(RT_VK_CMD_vkQueueSubmit,
           &(struct rt_vk_args_vkQueueSubmit){H(VkQueue, 0x3100), 1, &submit, VK_NULL_HANDLE, VK_SUCCESS});
    append(RT_VK_CMD_vkQueuePresentKHR,
           &(struct rt_vk_args_vkQueuePresentKHR){H(VkQueue, 0x3100), &present, VK_SUCCESS});
    rt_status s = rt_trace_writer_frame_end(writer);
    failures += !rt_ok(&s);
}

/* The screenshot the replay must write: the known texels, converted. */
static int write_expected(const struct format_case *c, const char *stem)
{
    uint8_t texels[SIZE * SIZE * 8];
    for (size_t i = 0; i < SIZE * SIZE; i++)
        memcpy(texels + i * c->texel_size, c->texel, c->texel_size);
    rt_status s = rt_readback_save(c->format, VK_IMAGE_ASPECT_COLOR_BIT, texels, SIZE * SIZE * c->texel_size, SIZE,
                                   SIZE, 0, stem, NULL, 0);
    if (!rt_ok(&s))
        fprintf(stderr, "make_swapchain_trace: %s\n", s.msg);
    return rt_ok(&s) ? 0 : 1;
}

int main(int argc, char **argv)
{
    const struct format_case *c = NULL;
    for (size_t i = 0; argc == 4 && i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(argv[3], cases[i].name))
            c = &cases[i];
    if (!c) {
        fprintf(stderr, "usage: make_swapchain_trace OUT.rtrace EXPECTED_STEM rgba16f|a2b10g10r10|r5g6b5\n");
        return 2;
    }
    const char *names[RT_VK_CMD_COUNT];
    for (int i = 0; i < RT_VK_CMD_COUNT; i++)
        names[i] = rt_vk_cmd_name((enum rt_vk_cmd)i);
    /* Memory type 0 of the "capture device" is host-visible: the read-back buffer's. */
    struct rt_trace_device_info device = {.memory_type_count = 1, .memory_heap_count = 1};
    device.memory_types[0] = (struct rt_trace_memory_type){
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0};
    device.memory_heaps[0] = (struct rt_trace_memory_heap){1u << 30, 0};
    struct rt_trace_writer_options o = {.path = argv[1], .command_names = names, .command_count = RT_VK_CMD_COUNT,
                                        .application_name = "swapchain", .device = &device};
    rt_status s = rt_trace_writer_create(&o, &writer);
    if (!rt_ok(&s))
        return 5;
    setup(c->format);
    readback_buffer();
    frame(&c->clear);
    s = rt_trace_writer_close(writer, NULL);
    return failures || !rt_ok(&s) || write_expected(c, argv[2]) ? 5 : 0;
}
