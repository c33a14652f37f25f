/* tests/integration/multi_draw.c — review R5: three draws through
 * vkCmdDrawMultiEXT with 12-byte records (stride 12, as zink passes them;
 * VkMultiDrawInfoEXT is 8 bytes), the third word of each a marker (7777)
 * that must never be read as a draw. multi_draw.sh checks the trace holds
 * the three draws as the driver saw them. Exit 0, 77 without the extension. */
#include <stdio.h>
#include <string.h>

#include <volk.h>

#include "multi_draw_frag.h"
#include "multi_draw_vert.h"

#define SIZE 8u

struct gpu {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
};

static int has_multi_draw(VkPhysicalDevice physical)
{
    VkExtensionProperties props[512];
    uint32_t n = 512;
    vkEnumerateDeviceExtensionProperties(physical, NULL, &n, props);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(props[i].extensionName, VK_EXT_MULTI_DRAW_EXTENSION_NAME))
            return 1;
    return 0;
}

static int open_gpu(struct gpu *g)
{
    if (volkInitialize() != VK_SUCCESS)
        return 77;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "multi_draw",
                             .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (vkCreateInstance(&ici, NULL, &g->instance) != VK_SUCCESS)
        return 77;
    volkLoadInstance(g->instance);
    uint32_t count = 1;
    if (vkEnumeratePhysicalDevices(g->instance, &count, &g->physical) < 0 || !count || !has_multi_draw(g->physical))
        return 77;
    VkPhysicalDeviceMultiDrawFeaturesEXT multi = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTI_DRAW_FEATURES_EXT,
                                                  .multiDraw = VK_TRUE};
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                            .pNext = &multi, .dynamicRendering = VK_TRUE};
    float priority = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                 .pQueuePriorities = &priority};
    const char *ext = VK_EXT_MULTI_DRAW_EXTENSION_NAME;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f13, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q, .enabledExtensionCount = 1, .ppEnabledExtensionNames = &ext};
    if (vkCreateDevice(g->physical, &dci, NULL, &g->device) != VK_SUCCESS)
        return 77;
    volkLoadDevice(g->device);
    vkGetDeviceQueue(g->device, 0, 0, &g->queue);
    return 0;
}

static VkImage make_target(const struct gpu *g, VkDeviceMemory *memory, VkImageView *view)
{
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                            .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {SIZE, SIZE, 1}, .mipLevels = 1,
                            .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                            .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT};
    VkImage image;
    vkCreateImage(g->device, &ii, NULL, &image);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(g->device, image, &req);
    uint32_t type = 0;
    while (!(req.memoryTypeBits & (1u << type)))
        type++;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                               .memoryTypeIndex = type};
    vkAllocateMemory(g->device, &ai, NULL, memory);
    vkBindImageMemory(g->device, image, *memory, 0);
    VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = image,
                                .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = ii.format,
                                .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    vkCreateImageView(g->device, &vi, NULL, view);
    return image;
}

static VkShaderModule shader(const struct gpu *g, const uint32_t *code, size_t size)
{
    VkShaderModuleCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size,
                                   .pCode = code};
    VkShaderModule m;
    vkCreateShaderModule(g->device, &si, NULL, &m);
    return m;
}

static VkPipeline make_pipeline(const struct gpu *g, VkPipelineLayout layout)
{
    VkShaderModule vert = shader(g, multi_draw_vert, sizeof multi_draw_vert);
    VkShaderModule frag = shader(g, multi_draw_frag, sizeof multi_draw_frag);
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vert, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = frag, .pName = "main"}};
    VkPipelineVertexInputStateCreateInfo vin = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                 .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkViewport viewport = {0, 0, SIZE, SIZE, 0, 1};
    VkRect2D scissor = {{0, 0}, {SIZE, SIZE}};
    VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                            .viewportCount = 1, .pViewports = &viewport, .scissorCount = 1,
                                            .pScissors = &scissor};
    VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                 .polygonMode = VK_POLYGON_MODE_FILL, .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    VkPipelineColorBlendAttachmentState blend = {.colorWriteMask = 0xf};
    VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                              .attachmentCount = 1, .pAttachments = &blend};
    VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    VkPipelineRenderingCreateInfo rendering = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                               .colorAttachmentCount = 1, .pColorAttachmentFormats = &format};
    VkGraphicsPipelineCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .pNext = &rendering,
                                       .stageCount = 2, .pStages = stages, .pVertexInputState = &vin,
                                       .pInputAssemblyState = &ia, .pViewportState = &vp, .pRasterizationState = &rs,
                                       .pMultisampleState = &ms, .pColorBlendState = &cb, .layout = layout};
    VkPipeline pipeline = VK_NULL_HANDLE;
    vkCreateGraphicsPipelines(g->device, VK_NULL_HANDLE, 1, &pi, NULL, &pipeline);
    vkDestroyShaderModule(g->device, vert, NULL);
    vkDestroyShaderModule(g->device, frag, NULL);
    return pipeline;
}

static void record(VkCommandBuffer cmd, VkImage image, VkImageView view, VkPipeline pipeline)
{
    VkImageMemoryBarrier to_target = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                                      .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                                      .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                                      .newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                                      .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0,
                         NULL, 0, NULL, 1, &to_target);
    VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = view,
                                       .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {SIZE, SIZE}},
                          .layerCount = 1, .colorAttachmentCount = 1, .pColorAttachments = &color};
    vkCmdBeginRendering(cmd, &ri);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    /* {firstVertex, vertexCount, marker}: zink's pipe_draw_start_count_bias. */
    static const uint32_t records[3][3] = {{0, 3, 7777}, {3, 3, 7777}, {6, 3, 7777}};
    vkCmdDrawMultiEXT(cmd, 3, (const VkMultiDrawInfoEXT *)records, 1, 0, sizeof records[0]);
    vkCmdEndRendering(cmd);
}

static int draw(const struct gpu *g)
{
    VkDeviceMemory memory;
    VkImageView view;
    VkImage image = make_target(g, &memory, &view);
    VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    VkPipelineLayout layout;
    vkCreatePipelineLayout(g->device, &li, NULL, &layout);
    VkPipeline pipeline = make_pipeline(g, layout);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandPool pool;
    vkCreateCommandPool(g->device, &pci, NULL, &pool);
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBuffer cmd;
    vkAllocateCommandBuffers(g->device, &cai, &cmd);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &bi);
    record(cmd, image, view, pipeline);
    vkEndCommandBuffer(cmd);
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    int rc = vkQueueSubmit(g->queue, 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS && vkQueueWaitIdle(g->queue) == VK_SUCCESS
                 ? 0
                 : 1;
    vkDestroyCommandPool(g->device, pool, NULL);
    vkDestroyPipeline(g->device, pipeline, NULL);
    vkDestroyPipelineLayout(g->device, layout, NULL);
    vkDestroyImageView(g->device, view, NULL);
    vkDestroyImage(g->device, image, NULL);
    vkFreeMemory(g->device, memory, NULL);
    return rc;
}

int main(void)
{
    struct gpu g = {0};
    int rc = open_gpu(&g);
    if (rc == 0)
        rc = draw(&g);
    if (g.device)
        vkDestroyDevice(g.device, NULL);
    if (g.instance)
        vkDestroyInstance(g.instance, NULL);
    if (rc == 77)
        fprintf(stderr, "multi_draw: no device with VK_EXT_multi_draw\n");
    return rc;
}
