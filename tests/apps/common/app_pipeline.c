/* tests/apps/common/app_pipeline.c — graphics pipelines, render passes,
 * framebuffers: the boilerplate every app would otherwise repeat. */
#include "app.h"

static const VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT,
                                                VK_DYNAMIC_STATE_SCISSOR};

/* The fixed-function state, kept together so the create info can point into it. */
struct fixed_state {
    VkPipelineVertexInputStateCreateInfo vertex;
    VkPipelineInputAssemblyStateCreateInfo assembly;
    VkPipelineViewportStateCreateInfo viewport;
    VkPipelineRasterizationStateCreateInfo raster;
    VkPipelineMultisampleStateCreateInfo multisample;
    VkPipelineDepthStencilStateCreateInfo depth;
    VkPipelineColorBlendAttachmentState blend_att;
    VkPipelineColorBlendStateCreateInfo blend;
    VkPipelineDynamicStateCreateInfo dynamic;
};

static void fixed_state_init(struct fixed_state *s, const struct rt_app_pipeline_desc *d)
{
    *s = (struct fixed_state){
        .vertex = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                   .vertexBindingDescriptionCount = d->binding_count,
                   .pVertexBindingDescriptions = d->bindings,
                   .vertexAttributeDescriptionCount = d->attribute_count,
                   .pVertexAttributeDescriptions = d->attributes},
        .assembly = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                     .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST},
        .viewport = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                     .viewportCount = 1, .scissorCount = 1},
        .raster = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                   .polygonMode = VK_POLYGON_MODE_FILL,
                   .cullMode = d->depth_test ? VK_CULL_MODE_BACK_BIT : VK_CULL_MODE_NONE,
                   .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
                   .lineWidth = 1.0f},
        .multisample = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT},
        .depth = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                  .depthTestEnable = d->depth_test,
                  .depthWriteEnable = d->depth_test,
                  .depthCompareOp = VK_COMPARE_OP_LESS},
        /* Premultiplied "over". Alpha blends the same way, so an opaque
         * target stays opaque and screenshots never depend on alpha. */
        .blend_att = {.blendEnable = d->blend,
                      .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
                      .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
                      .colorBlendOp = VK_BLEND_OP_ADD,
                      .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
                      .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
                      .alphaBlendOp = VK_BLEND_OP_ADD,
                      .colorWriteMask = 0xf},
        .blend = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                  .attachmentCount = 1},
        .dynamic = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                    .dynamicStateCount = 2, .pDynamicStates = dynamic_states},
    };
    s->blend.pAttachments = &s->blend_att;
}

rt_status rt_app_graphics_pipeline(struct rt_app *app, const struct rt_app_pipeline_desc *d,
                                   VkPipeline *pipeline_out)
{
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = d->vert, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = d->frag, .pName = "main"},
    };
    struct fixed_state s;
    fixed_state_init(&s, d);
    VkPipelineRenderingCreateInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &d->color_format,
        .depthAttachmentFormat = d->depth_format,
    };
    VkGraphicsPipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = d->render_pass ? NULL : &rendering,
        .stageCount = 2,
        .pStages = stages,
        .pVertexInputState = &s.vertex,
        .pInputAssemblyState = &s.assembly,
        .pViewportState = &s.viewport,
        .pRasterizationState = &s.raster,
        .pMultisampleState = &s.multisample,
        .pDepthStencilState = &s.depth,
        .pColorBlendState = &s.blend,
        .pDynamicState = &s.dynamic,
        .layout = d->layout,
        .renderPass = d->render_pass,
    };
    RT_VK(vkCreateGraphicsPipelines(app->device, VK_NULL_HANDLE, 1, &info, NULL,
                                    pipeline_out));
    return rt_ok_status();
}

void rt_app_set_viewport(struct rt_app *app, VkCommandBuffer cmd)
{
    VkViewport vp = {0, 0, (float)app->extent.width, (float)app->extent.height, 0, 1};
    VkRect2D scissor = {{0, 0}, app->extent};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
}

rt_status rt_app_render_pass(struct rt_app *app, VkFormat depth_format, VkRenderPass *pass_out)
{
    bool depth = depth_format != VK_FORMAT_UNDEFINED;
    VkAttachmentDescription atts[2] = {
        {.format = app->format, .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         /* The frame loop moves the target in and out of this layout. */
         .initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
         .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
        {.format = depth_format, .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
         .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL},
    };
    VkAttachmentReference color_ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference depth_ref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass = {
        .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .colorAttachmentCount = 1,
        .pColorAttachments = &color_ref,
        .pDepthStencilAttachment = depth ? &depth_ref : NULL,
    };
    /* The one depth image is shared by the frames in flight: the previous
     * frame's depth tests must finish before this frame clears it. */
    VkSubpassDependency dep = {
        .srcSubpass = VK_SUBPASS_EXTERNAL,
        .dstSubpass = 0,
        .srcStageMask = VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        .srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                         VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
    };
    VkRenderPassCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
        .attachmentCount = depth ? 2 : 1,
        .pAttachments = atts,
        .subpassCount = 1,
        .pSubpasses = &subpass,
        .dependencyCount = 1,
        .pDependencies = &dep,
    };
    RT_VK(vkCreateRenderPass(app->device, &info, NULL, pass_out));
    return rt_ok_status();
}

rt_status rt_app_framebuffers(struct rt_app *app, VkRenderPass pass, VkImageView depth_view,
                              VkFramebuffer framebuffers_out[RT_APP_MAX_IMAGES])
{
    for (uint32_t i = 0; i < app->image_count; i++) {
        VkImageView views[2] = {app->views[i], depth_view};
        VkFramebufferCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
            .renderPass = pass,
            .attachmentCount = depth_view ? 2 : 1,
            .pAttachments = views,
            .width = app->extent.width,
            .height = app->extent.height,
            .layers = 1,
        };
        RT_VK(vkCreateFramebuffer(app->device, &info, NULL, &framebuffers_out[i]));
    }
    return rt_ok_status();
}

void rt_app_framebuffers_destroy(struct rt_app *app, VkFramebuffer fbs[RT_APP_MAX_IMAGES])
{
    for (uint32_t i = 0; i < RT_APP_MAX_IMAGES; i++) {
        vkDestroyFramebuffer(app->device, fbs[i], NULL);
        fbs[i] = VK_NULL_HANDLE;
    }
}

void rt_app_begin_render_pass(struct rt_app *app, VkCommandBuffer cmd, VkRenderPass pass,
                              VkFramebuffer framebuffer, const VkClearValue *clears,
                              uint32_t clear_count, VkSubpassContents contents)
{
    VkRenderPassBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
        .renderPass = pass,
        .framebuffer = framebuffer,
        .renderArea = {{0, 0}, app->extent},
        .clearValueCount = clear_count,
        .pClearValues = clears,
    };
    vkCmdBeginRenderPass(cmd, &begin, contents);
}

rt_status rt_app_compute_pipeline(struct rt_app *app, const uint32_t *code, size_t size,
                                  VkPipelineLayout layout, VkPipeline *pipeline_out)
{
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT, .pName = "main"},
        .layout = layout,
    };
    RT_TRY(rt_app_shader(app, code, size, &info.stage.module));
    VkResult r = vkCreateComputePipelines(app->device, VK_NULL_HANDLE, 1, &info, NULL, pipeline_out);
    vkDestroyShaderModule(app->device, info.stage.module, NULL);
    RT_VK(r);
    return rt_ok_status();
}
