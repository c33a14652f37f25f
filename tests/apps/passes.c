/* tests/apps/passes.c — rt_app_passes: the render pass shapes per-draw dumps
 * must split (retrace replay --dump-draws, issue 19): a render pass made with
 * vkCreateRenderPass2 of two subpasses over a 4x multisampled colour
 * attachment, begun with vkCmdBeginRenderPass2 and stepped with
 * vkCmdNextSubpass2; the second subpass resolves it into the target. Two
 * triangles in the first subpass, one in the second, placed by frame number.
 * `--transient 1` makes the multisampled attachment a transient one (its
 * contents never leave the pass), `--imageless 1` the framebuffers imageless
 * (VK_KHR_imageless_framebuffer, core 1.2: the views come with each begin):
 * what a per-draw dump must still read. */
#include "app.h"

#include "passes_frag.h"
#include "passes_vert.h"

#define SAMPLES VK_SAMPLE_COUNT_4_BIT

struct push {
    float colour[4];
    float offset[2];
    float scale;
};

struct passes {
    int transient, imageless; /* --transient, --imageless */
    VkImageUsageFlags msaa_usage;
    VkImage msaa;
    VkDeviceMemory msaa_memory;
    VkImageView msaa_view;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    VkPipelineLayout layout;
    VkPipeline pipelines[2]; /* per subpass */
};

static rt_status make_msaa(struct rt_app *app, struct passes *p)
{
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                              .format = app->format, .extent = {app->extent.width, app->extent.height, 1},
                              .mipLevels = 1, .arrayLayers = 1, .samples = SAMPLES,
                              .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT};
    if (p->transient)
        info.usage |= VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
    p->msaa_usage = info.usage;
    RT_VK(vkCreateImage(app->device, &info, NULL, &p->msaa));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(app->device, p->msaa, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
    RT_TRY(rt_app_memory_type(app, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &alloc.memoryTypeIndex));
    RT_VK(vkAllocateMemory(app->device, &alloc, NULL, &p->msaa_memory));
    RT_VK(vkBindImageMemory(app->device, p->msaa, p->msaa_memory, 0));
    VkImageViewCreateInfo view = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = p->msaa,
                                  .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = app->format,
                                  .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    RT_VK(vkCreateImageView(app->device, &view, NULL, &p->msaa_view));
    return rt_ok_status();
}

/* Subpass 0 draws into the multisampled attachment; subpass 1 draws more and resolves it into the target. */
static rt_status make_pass(struct rt_app *app, struct passes *p)
{
    VkAttachmentDescription2 atts[2] = {
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = app->format, .samples = SAMPLES,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED, .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = app->format, .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         /* The frame loop moves the target in and out of this layout. */
         .initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
         .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
    };
    VkAttachmentReference2 colour = {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
                                     .layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                     .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT};
    VkAttachmentReference2 resolve = colour;
    resolve.attachment = 1;
    VkSubpassDescription2 subpasses[2] = {
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2, .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
         .colorAttachmentCount = 1, .pColorAttachments = &colour},
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2, .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
         .colorAttachmentCount = 1, .pColorAttachments = &colour, .pResolveAttachments = &resolve},
    };
    VkSubpassDependency2 deps[2] = {
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2, .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
         .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT},
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2, .srcSubpass = 0, .dstSubpass = 1,
         .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT},
    };
    VkRenderPassCreateInfo2 info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2, .attachmentCount = 2,
                                    .pAttachments = atts, .subpassCount = 2, .pSubpasses = subpasses,
                                    .dependencyCount = 2, .pDependencies = deps};
    RT_VK(vkCreateRenderPass2(app->device, &info, NULL, &p->pass));
    if (p->imageless && !app->enabled12.imagelessFramebuffer)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "--imageless: the device has no imagelessFramebuffer");
    /* imageless: what the views will be, not the views (the begin gives those) */
    VkImageUsageFlags target_usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    VkFramebufferAttachmentImageInfo images[2] = {
        {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO, .usage = p->msaa_usage,
         .width = app->extent.width, .height = app->extent.height, .layerCount = 1, .viewFormatCount = 1,
         .pViewFormats = &app->format},
        {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO, .usage = target_usage,
         .width = app->extent.width, .height = app->extent.height, .layerCount = 1, .viewFormatCount = 1,
         .pViewFormats = &app->format}};
    VkFramebufferAttachmentsCreateInfo attachments = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO,
                                                      .attachmentImageInfoCount = 2, .pAttachmentImageInfos = images};
    for (uint32_t i = 0; i < app->image_count; i++) {
        VkImageView views[2] = {p->msaa_view, app->views[i]};
        VkFramebufferCreateInfo fb = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = p->pass,
                                      .attachmentCount = 2, .pAttachments = views, .width = app->extent.width,
                                      .height = app->extent.height, .layers = 1};
        if (p->imageless) {
            fb.pNext = &attachments;
            fb.flags = VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT;
            fb.pAttachments = NULL;
        }
        RT_VK(vkCreateFramebuffer(app->device, &fb, NULL, &p->framebuffers[i]));
        if (p->imageless) /* one framebuffer serves every image */
            break;
    }
    return rt_ok_status();
}

static rt_status make_pipeline(struct rt_app *app, struct passes *p, VkShaderModule vert, VkShaderModule frag,
                               uint32_t subpass)
{
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vert, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = frag, .pName = "main"}};
    VkPipelineVertexInputStateCreateInfo input = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkPipelineViewportStateCreateInfo viewport = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                                  .viewportCount = 1, .scissorCount = 1};
    VkPipelineRasterizationStateCreateInfo raster = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO, .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE, .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               .rasterizationSamples = SAMPLES};
    VkPipelineColorBlendAttachmentState att = {.colorWriteMask = 0xf};
    VkPipelineColorBlendStateCreateInfo blend = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                                 .attachmentCount = 1, .pAttachments = &att};
    VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                                .dynamicStateCount = 2, .pDynamicStates = dyn};
    VkGraphicsPipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2, .pStages = stages,
        .pVertexInputState = &input, .pInputAssemblyState = &assembly, .pViewportState = &viewport,
        .pRasterizationState = &raster, .pMultisampleState = &ms, .pColorBlendState = &blend,
        .pDynamicState = &dynamic, .layout = p->layout, .renderPass = p->pass, .subpass = subpass};
    RT_VK(vkCreateGraphicsPipelines(app->device, VK_NULL_HANDLE, 1, &info, NULL, &p->pipelines[subpass]));
    return rt_ok_status();
}

static rt_status passes_setup(struct rt_app *app, void *user)
{
    struct passes *p = user;
    RT_TRY(make_msaa(app, p));
    RT_TRY(make_pass(app, p));
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(struct push)};
    VkPipelineLayoutCreateInfo layout = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                         .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &p->layout));
    VkShaderModule vert = VK_NULL_HANDLE, frag = VK_NULL_HANDLE;
    rt_status st = rt_app_shader(app, passes_vert, sizeof passes_vert, &vert);
    if (rt_ok(&st))
        st = rt_app_shader(app, passes_frag, sizeof passes_frag, &frag);
    for (uint32_t i = 0; i < 2 && rt_ok(&st); i++)
        st = make_pipeline(app, p, vert, frag, i);
    vkDestroyShaderModule(app->device, vert, NULL);
    vkDestroyShaderModule(app->device, frag, NULL);
    return st;
}

static void triangle(struct rt_app *app, VkCommandBuffer cmd, const struct passes *p, struct push push)
{
    (void)app;
    vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof push,
                       &push);
    vkCmdDraw(cmd, 3, 1, 0, 0);
}

static rt_status passes_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct passes *p = user;
    float t = 0.05f * (float)(f->number % 8);
    VkClearValue clear = {.color = {{0.05f, 0.05f, 0.1f, 1.0f}}};
    VkImageView views[2] = {p->msaa_view, app->views[f->image_index]};
    VkRenderPassAttachmentBeginInfo attachments = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO,
                                                   .attachmentCount = 2, .pAttachments = views};
    VkRenderPassBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                   .pNext = p->imageless ? &attachments : NULL, .renderPass = p->pass,
                                   .framebuffer = p->framebuffers[p->imageless ? 0 : f->image_index],
                                   .renderArea = {{0, 0}, app->extent}, .clearValueCount = 1, .pClearValues = &clear};
    VkSubpassBeginInfo inline_contents = {.sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO,
                                          .contents = VK_SUBPASS_CONTENTS_INLINE};
    VkSubpassEndInfo end = {.sType = VK_STRUCTURE_TYPE_SUBPASS_END_INFO};
    vkCmdBeginRenderPass2(f->cmd, &begin, &inline_contents);
    rt_app_set_viewport(app, f->cmd);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipelines[0]);
    triangle(app, f->cmd, p, (struct push){{0.9f, 0.3f, 0.2f, 1.0f}, {-0.4f + t, -0.1f}, 0.5f});
    triangle(app, f->cmd, p, (struct push){{0.2f, 0.8f, 0.3f, 1.0f}, {0.35f, 0.2f - t}, 0.4f});
    vkCmdNextSubpass2(f->cmd, &inline_contents, &end);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipelines[1]);
    triangle(app, f->cmd, p, (struct push){{0.3f, 0.4f, 1.0f, 1.0f}, {0.0f, 0.45f}, 0.3f + t});
    vkCmdEndRenderPass2(f->cmd, &end);
    return rt_ok_status();
}

static void passes_teardown(struct rt_app *app, void *user)
{
    struct passes *p = user;
    for (uint32_t i = 0; i < 2; i++)
        vkDestroyPipeline(app->device, p->pipelines[i], NULL);
    vkDestroyPipelineLayout(app->device, p->layout, NULL);
    rt_app_framebuffers_destroy(app, p->framebuffers);
    vkDestroyRenderPass(app->device, p->pass, NULL);
    vkDestroyImageView(app->device, p->msaa_view, NULL);
    vkDestroyImage(app->device, p->msaa, NULL);
    vkFreeMemory(app->device, p->msaa_memory, NULL);
}

int main(int argc, char **argv)
{
    struct passes p = {0};
    const struct rt_app_int_option options[] = {
        {"transient", "1: the multisampled attachment is transient (default 0)", &p.transient, 0, 1},
        {"imageless", "1: imageless framebuffers, the views given at each begin (default 0)", &p.imageless, 0, 1}};
    static const VkPhysicalDeviceVulkan12Features optional12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .imagelessFramebuffer = VK_TRUE};
    const struct rt_app_desc desc = {
        .name = "passes",
        .summary = "A vkCreateRenderPass2 pass of two subpasses over a 4x multisampled attachment, resolved.",
        .options = options,
        .option_count = 2,
        .optional12 = &optional12,
        .setup = passes_setup,
        .record = passes_record,
        .teardown = passes_teardown,
    };
    return rt_app_main(&desc, &p, argc, argv);
}
