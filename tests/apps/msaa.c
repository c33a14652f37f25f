/* tests/apps/msaa.c — rt_app_msaa: a 4x multisampled colour and depth target
 * that keeps its contents from frame to frame (both attachments LOAD and
 * STORE; cleared once, at setup), resolved into the presented image at the
 * end of every frame. Each frame adds one thin wedge, turned, placed,
 * coloured and at a depth given by the frame number: its slanted edges cover
 * pixels in part, so the samples of a pixel differ, and the depth test
 * hides it where an earlier, nearer wedge is. A trimmed trace therefore needs
 * every sample of both multisampled images at its first frame; a resolve of
 * them would not do (the next frame's wedges blend into single samples). */
#include <math.h>

#include "app.h"

#include "msaa_frag.h"
#include "msaa_vert.h"

#define SAMPLES VK_SAMPLE_COUNT_4_BIT

struct msaa {
    VkImage images[2]; /* colour, depth */
    VkDeviceMemory memory[2];
    VkImageView views[2];
    VkFormat depth_format;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    VkShaderModule vert, frag;
    VkPipelineLayout layout;
    VkPipeline pipeline;
};

struct push {
    float color[4];
    float center[2];
    float angle, depth;
};

static rt_status ms_image(struct rt_app *app, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                          VkImage *image, VkDeviceMemory *memory, VkImageView *view)
{
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                              .format = format, .extent = {app->extent.width, app->extent.height, 1},
                              .mipLevels = 1, .arrayLayers = 1, .samples = SAMPLES,
                              .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage | VK_IMAGE_USAGE_TRANSFER_DST_BIT};
    RT_VK(vkCreateImage(app->device, &info, NULL, image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(app->device, *image, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
    RT_TRY(rt_app_memory_type(app, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &alloc.memoryTypeIndex));
    RT_VK(vkAllocateMemory(app->device, &alloc, NULL, memory));
    RT_VK(vkBindImageMemory(app->device, *image, *memory, 0));
    VkImageViewCreateInfo v = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = *image,
                               .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                               .subresourceRange = {aspect, 0, 1, 0, 1}};
    RT_VK(vkCreateImageView(app->device, &v, NULL, view));
    return rt_ok_status();
}

/* Both images cleared once and left as attachments: the frames only add. */
static rt_status clear_once(struct rt_app *app, struct msaa *m)
{
    VkCommandBuffer cmd;
    RT_TRY(rt_app_upload_begin(app, &cmd));
    const VkImageAspectFlags aspects[2] = {VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_ASPECT_DEPTH_BIT};
    for (int i = 0; i < 2; i++)
        rt_app_image_barrier(app, cmd, m->images[i], aspects[i], 0, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    VkClearColorValue color = {{0.1f, 0.1f, 0.15f, 1.0f}};
    VkImageSubresourceRange cr = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, m->images[0], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &cr);
    VkClearDepthStencilValue depth = {1.0f, 0};
    VkImageSubresourceRange dr = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
    vkCmdClearDepthStencilImage(cmd, m->images[1], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &depth, 1, &dr);
    rt_app_image_barrier(app, cmd, m->images[0], aspects[0], 0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                         VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
    rt_app_image_barrier(app, cmd, m->images[1], aspects[1], 0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
                         VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
    return rt_app_upload_end(app, cmd);
}

/* Multisampled colour and depth, loaded and stored; the target image is the
 * resolve attachment (written whole by the resolve). */
static rt_status make_pass(struct rt_app *app, struct msaa *m)
{
    const VkImageLayout color = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    const VkImageLayout depth = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentDescription a[3] = {
        {.format = app->format, .samples = SAMPLES, .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = color, .finalLayout = color},
        {.format = m->depth_format, .samples = SAMPLES, .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = depth, .finalLayout = depth},
        {.format = app->format, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = color, .finalLayout = color}};
    VkAttachmentReference refs[3] = {{0, color}, {1, depth}, {2, color}};
    VkSubpassDescription sub = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                                .pColorAttachments = &refs[0], .pResolveAttachments = &refs[2],
                                .pDepthStencilAttachment = &refs[1]};
    /* the previous frame's writes to the kept attachments come before this one's */
    VkSubpassDependency dep = {
        .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
        .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
        .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                         VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT};
    VkRenderPassCreateInfo info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 3,
                                   .pAttachments = a, .subpassCount = 1, .pSubpasses = &sub,
                                   .dependencyCount = 1, .pDependencies = &dep};
    RT_VK(vkCreateRenderPass(app->device, &info, NULL, &m->pass));
    for (uint32_t i = 0; i < app->image_count; i++) {
        VkImageView views[3] = {m->views[0], m->views[1], app->views[i]};
        VkFramebufferCreateInfo fb = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = m->pass,
                                      .attachmentCount = 3, .pAttachments = views, .width = app->extent.width,
                                      .height = app->extent.height, .layers = 1};
        RT_VK(vkCreateFramebuffer(app->device, &fb, NULL, &m->framebuffers[i]));
    }
    return rt_ok_status();
}

static rt_status make_pipeline(struct rt_app *app, struct msaa *m)
{
    RT_TRY(rt_app_shader(app, msaa_vert, sizeof msaa_vert, &m->vert));
    RT_TRY(rt_app_shader(app, msaa_frag, sizeof msaa_frag, &m->frag));
    VkPushConstantRange push = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(struct push)};
    VkPipelineLayoutCreateInfo layout = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                         .pushConstantRangeCount = 1, .pPushConstantRanges = &push};
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &m->layout));
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = m->vert, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = m->frag, .pName = "main"}};
    VkPipelineVertexInputStateCreateInfo vertex = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkViewport vp = {0, 0, (float)app->extent.width, (float)app->extent.height, 0, 1};
    VkRect2D scissor = {{0, 0}, app->extent};
    VkPipelineViewportStateCreateInfo viewport = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                                  .viewportCount = 1, .pViewports = &vp, .scissorCount = 1,
                                                  .pScissors = &scissor};
    VkPipelineRasterizationStateCreateInfo raster = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO, .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE, .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               .rasterizationSamples = SAMPLES};
    VkPipelineDepthStencilStateCreateInfo ds = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                                .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
                                                .depthCompareOp = VK_COMPARE_OP_LESS};
    VkPipelineColorBlendAttachmentState blend = {.colorWriteMask = 0xf};
    VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                              .attachmentCount = 1, .pAttachments = &blend};
    VkGraphicsPipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2, .pStages = stages,
        .pVertexInputState = &vertex, .pInputAssemblyState = &assembly, .pViewportState = &viewport,
        .pRasterizationState = &raster, .pMultisampleState = &ms, .pDepthStencilState = &ds,
        .pColorBlendState = &cb, .layout = m->layout, .renderPass = m->pass};
    RT_VK(vkCreateGraphicsPipelines(app->device, VK_NULL_HANDLE, 1, &info, NULL, &m->pipeline));
    return rt_ok_status();
}

static rt_status msaa_setup(struct rt_app *app, void *user)
{
    struct msaa *m = user;
    const VkPhysicalDeviceLimits *l = &app->props.limits;
    if (!(l->framebufferColorSampleCounts & l->framebufferDepthSampleCounts & SAMPLES))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the device cannot render 4 samples a pixel");
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(app->physical, VK_FORMAT_D32_SFLOAT, &fp);
    m->depth_format = fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT
                          ? VK_FORMAT_D32_SFLOAT : VK_FORMAT_D16_UNORM; /* one of the two is required */
    RT_TRY(ms_image(app, app->format, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT,
                    &m->images[0], &m->memory[0], &m->views[0]));
    RT_TRY(ms_image(app, m->depth_format, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                    &m->images[1], &m->memory[1], &m->views[1]));
    RT_TRY(clear_once(app, m));
    RT_TRY(make_pass(app, m));
    return make_pipeline(app, m);
}

static rt_status msaa_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct msaa *m = user;
    uint32_t n = f->number;
    struct push p = {
        .color = {(float)(n * 53 % 256) / 255.0f, (float)(n * 97 % 256) / 255.0f, (float)(n * 151 % 256) / 255.0f,
                  1.0f},
        .center = {(float)(n * 37 % 100) / 100.0f * 1.4f - 0.7f, (float)(n * 23 % 100) / 100.0f * 1.4f - 0.7f},
        .angle = (float)n * 0.7f,
        .depth = (float)(n * 53 % 97) / 97.0f * 0.9f + 0.05f};
    rt_app_begin_render_pass(app, f->cmd, m->pass, m->framebuffers[f->image_index], NULL, 0,
                             VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, m->pipeline);
    vkCmdPushConstants(f->cmd, m->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof p, &p);
    vkCmdDraw(f->cmd, 3, 1, 0, 0);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void msaa_teardown(struct rt_app *app, void *user)
{
    struct msaa *m = user;
    vkDestroyPipeline(app->device, m->pipeline, NULL);
    vkDestroyPipelineLayout(app->device, m->layout, NULL);
    vkDestroyShaderModule(app->device, m->vert, NULL);
    vkDestroyShaderModule(app->device, m->frag, NULL);
    rt_app_framebuffers_destroy(app, m->framebuffers);
    vkDestroyRenderPass(app->device, m->pass, NULL);
    for (int i = 0; i < 2; i++) {
        vkDestroyImageView(app->device, m->views[i], NULL);
        vkDestroyImage(app->device, m->images[i], NULL);
        vkFreeMemory(app->device, m->memory[i], NULL);
    }
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "msaa",
        .summary = "A 4x multisampled colour and depth target kept from frame to frame, one wedge added a frame.",
        .setup = msaa_setup,
        .record = msaa_record,
        .teardown = msaa_teardown,
    };
    struct msaa m = {0};
    return rt_app_main(&desc, &m, argc, argv);
}
