/*
 * replay/snapshot_samples.c — every sample of a multisampled image, read
 * while trimming and written back when a trimmed trace replays
 * (snapshot_samples.h; trace/FORMAT.md IMAGE_SAMPLES).
 */
#include <inttypes.h>
#include <string.h>

#include "formats.h"
#include "log.h"
#include "replay_trim.h"
#include "snapshot_samples.h"
#include "snapshot_staging.h"

#include "samples_read_float_comp.h"
#include "samples_read_sint_comp.h"
#include "samples_read_uint_comp.h"
#include "samples_write_depth_frag.h"
#include "samples_write_float_frag.h"
#include "samples_write_sint_frag.h"
#include "samples_write_uint_frag.h"
#include "samples_write_vert.h"

#define VK_TRY(call, what)                                                                              \
    do {                                                                                                \
        VkResult vk_try_ = (call);                                                                      \
        if (vk_try_ != VK_SUCCESS)                                                                      \
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "snapshot samples: %s failed (%s)", what,            \
                             replay_result_name(vk_try_));                                              \
    } while (0)

#define MAX_SAMPLES 64

/* What one read or write makes; freed by kit_free whatever was made. */
struct kit {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkShaderModule modules[2];
    VkImageView view;
    VkRenderPass pass;
    VkFramebuffer framebuffer;
    VkPipeline pipelines[MAX_SAMPLES];
};

static void kit_free(const struct replay_device *dev, struct kit *k)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    for (int i = 0; i < MAX_SAMPLES; i++)
        if (k->pipelines[i])
            d->vkDestroyPipeline(dev->handle, k->pipelines[i], NULL);
    if (k->framebuffer)
        d->vkDestroyFramebuffer(dev->handle, k->framebuffer, NULL);
    if (k->pass)
        d->vkDestroyRenderPass(dev->handle, k->pass, NULL);
    if (k->view)
        d->vkDestroyImageView(dev->handle, k->view, NULL);
    for (int i = 0; i < 2; i++)
        if (k->modules[i])
            d->vkDestroyShaderModule(dev->handle, k->modules[i], NULL);
    if (k->pool)
        d->vkDestroyDescriptorPool(dev->handle, k->pool, NULL);
    if (k->layout)
        d->vkDestroyPipelineLayout(dev->handle, k->layout, NULL);
    if (k->set_layout)
        d->vkDestroyDescriptorSetLayout(dev->handle, k->set_layout, NULL);
}

/* The kind of words a shader reads from and writes to ASPECT of FORMAT;
 * UINT32_MAX for a stencil aspect or a format this build does not know. */
static uint32_t sample_kind(VkFormat format, uint32_t aspect)
{
    if (aspect == VK_IMAGE_ASPECT_DEPTH_BIT)
        return RT_TRACE_SAMPLES_DEPTH;
    const struct rt_format_info *f = rt_format_find(format);
    if (aspect != VK_IMAGE_ASPECT_COLOR_BIT || !f || !f->component_count || f->plane_count > 1 ||
        f->compression != RT_COMPRESSION_NONE)
        return UINT32_MAX;
    enum rt_numeric n = f->components[0].numeric;
    return n == RT_NUMERIC_SINT ? RT_TRACE_SAMPLES_SINT : n == RT_NUMERIC_UINT ? RT_TRACE_SAMPLES_UINT
                                                                                : RT_TRACE_SAMPLES_FLOAT;
}

static bool has_depth(VkFormat format)
{
    return snapshot_barrier_aspects(format, 0) & VK_IMAGE_ASPECT_DEPTH_BIT;
}

VkImageUsageFlags replay_samples_usage(struct replay *r, VkFormat format, VkSampleCountFlagBits samples,
                                       bool trimming)
{
    VkFormatProperties fp = {0};
    r->instance_dispatch.vkGetPhysicalDeviceFormatProperties(r->gpu, format, &fp);
    const VkPhysicalDeviceLimits *l = &r->gpu_properties.limits;
    bool depth = has_depth(format);
    uint32_t kind = sample_kind(format, depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT);
    if (kind == UINT32_MAX)
        return 0;
    if (trimming) {
        VkSampleCountFlags counts = depth ? l->sampledImageDepthSampleCounts
                                    : kind == RT_TRACE_SAMPLES_FLOAT ? l->sampledImageColorSampleCounts
                                                                     : l->sampledImageIntegerSampleCounts;
        return (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) && (counts & samples)
                   ? VK_IMAGE_USAGE_SAMPLED_BIT : 0;
    }
    VkFormatFeatureFlags need = depth ? VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT
                                      : VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
    VkSampleCountFlags counts = depth ? l->framebufferDepthSampleCounts : l->framebufferColorSampleCounts;
    if (!(fp.optimalTilingFeatures & need) || !(counts & samples))
        return 0;
    return depth ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT : VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
}

static bool queue_can(struct replay *r, VkQueueFlags flags)
{
    VkQueueFamilyProperties props[64];
    uint32_t count = 64;
    r->instance_dispatch.vkGetPhysicalDeviceQueueFamilyProperties(r->gpu, &count, props);
    uint32_t family = r->device->any_queue_family;
    return family < count && (props[family].queueFlags & flags) == flags;
}

const char *rt_replay_samples_unreadable(struct replay *r, uint64_t image, uint32_t aspect, uint32_t samples)
{
    uint64_t live;
    rt_status s = replay_live(r, VK_OBJECT_TYPE_IMAGE, image, &live);
    if (!rt_ok(&s)) {
        rt_status_free(&s);
        return "the image is not alive in the replay";
    }
    VkFormat format = replay_image_format(r, (VkImage)(uintptr_t)live);
    if (aspect == VK_IMAGE_ASPECT_STENCIL_BIT)
        return "stencil samples are not carried (writing them needs VK_EXT_shader_stencil_export)";
    if (sample_kind(format, aspect) == UINT32_MAX || samples < 2 || samples > MAX_SAMPLES)
        return "its format is not one whose samples a shader can read";
    if (!replay_samples_usage(r, format, (VkSampleCountFlagBits)samples, true))
        return "the device cannot sample images of its format at its sample count";
    if (!r->device || !r->device->any_queue || !queue_can(r, VK_QUEUE_COMPUTE_BIT))
        return "the trace's first queue has no compute";
    return NULL;
}

static rt_status make_layout(const struct replay_device *dev, const VkDescriptorSetLayoutBinding *bindings,
                             uint32_t count, VkShaderStageFlags stage, uint32_t push_bytes, struct kit *k)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkDescriptorSetLayoutCreateInfo sl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = count, .pBindings = bindings};
    VK_TRY(d->vkCreateDescriptorSetLayout(dev->handle, &sl, NULL, &k->set_layout), "vkCreateDescriptorSetLayout");
    VkPushConstantRange push = {stage, 0, push_bytes};
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = &k->set_layout, .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &push};
    VK_TRY(d->vkCreatePipelineLayout(dev->handle, &pl, NULL, &k->layout), "vkCreatePipelineLayout");
    VkDescriptorPoolSize sizes[2];
    for (uint32_t i = 0; i < count; i++)
        sizes[i] = (VkDescriptorPoolSize){bindings[i].descriptorType, 1};
    VkDescriptorPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                       .poolSizeCount = count, .pPoolSizes = sizes};
    VK_TRY(d->vkCreateDescriptorPool(dev->handle, &pool, NULL, &k->pool), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = k->pool, .descriptorSetCount = 1,
                                         .pSetLayouts = &k->set_layout};
    VK_TRY(d->vkAllocateDescriptorSets(dev->handle, &alloc, &k->set), "vkAllocateDescriptorSets");
    return rt_ok_status();
}

static rt_status make_module(const struct replay_device *dev, const uint32_t *code, size_t size, VkShaderModule *out)
{
    VkShaderModuleCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size,
                                     .pCode = code};
    VK_TRY(dev->dispatch.device.vkCreateShaderModule(dev->handle, &info, NULL, out), "vkCreateShaderModule");
    return rt_ok_status();
}

static rt_status make_view(const struct replay_device *dev, VkImage image, VkFormat format, uint32_t aspect,
                           uint32_t layer, VkImageView *out)
{
    VkImageViewCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = image,
                                  .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                                  .subresourceRange = {aspect, 0, 1, layer, 1}};
    VK_TRY(dev->dispatch.device.vkCreateImageView(dev->handle, &info, NULL, out), "vkCreateImageView");
    return rt_ok_status();
}

/* ------------------------------------------------------------------ read */

struct read_push {
    uint32_t x, y, width, height, samples;
};

static rt_status read_kit(const struct replay_device *dev, VkImage image, VkFormat format,
                          const struct rt_replay_image_region *g, uint32_t kind, VkBuffer buffer, struct kit *k)
{
    const VkDescriptorSetLayoutBinding bindings[2] = {
        {0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
    RT_TRY(make_layout(dev, bindings, 2, VK_SHADER_STAGE_COMPUTE_BIT, sizeof(struct read_push), k));
    RT_TRY(make_view(dev, image, format, g->aspect, g->layer, &k->view));
    const uint32_t *code = kind == RT_TRACE_SAMPLES_SINT ? samples_read_sint_comp
                           : kind == RT_TRACE_SAMPLES_UINT ? samples_read_uint_comp : samples_read_float_comp;
    size_t size = kind == RT_TRACE_SAMPLES_SINT ? sizeof samples_read_sint_comp
                  : kind == RT_TRACE_SAMPLES_UINT ? sizeof samples_read_uint_comp : sizeof samples_read_float_comp;
    RT_TRY(make_module(dev, code, size, &k->modules[0]));
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, .layout = k->layout,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = k->modules[0], .pName = "main"}};
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VK_TRY(d->vkCreateComputePipelines(dev->handle, VK_NULL_HANDLE, 1, &info, NULL, &k->pipelines[0]),
           "vkCreateComputePipelines");
    VkDescriptorImageInfo img = {.imageView = k->view, .imageLayout = VK_IMAGE_LAYOUT_GENERAL};
    VkDescriptorBufferInfo buf = {.buffer = buffer, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet writes[2] = {
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = k->set, .dstBinding = 0, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, .pImageInfo = &img},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = k->set, .dstBinding = 1, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &buf}};
    d->vkUpdateDescriptorSets(dev->handle, 2, writes, 0, NULL);
    return rt_ok_status();
}

rt_status rt_replay_read_samples(struct replay *r, uint64_t image, const struct rt_replay_image_region *g,
                                 uint32_t samples, void *out, uint64_t size, uint32_t *kind_out)
{
    const char *why = rt_replay_samples_unreadable(r, image, g->aspect, samples);
    if (why)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "samples of image 0x%" PRIx64 ": %s", image, why);
    if (size != (uint64_t)g->width * g->height * samples * RT_TRACE_SAMPLE_BYTES)
        return rt_errorf(RT_ERR_INTERNAL, "samples of image 0x%" PRIx64 ": %" PRIu64 " bytes for the region", image,
                         size);
    uint64_t live;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_IMAGE, image, &live));
    VkImage img = (VkImage)(uintptr_t)live;
    VkFormat format = replay_image_format(r, img);
    *kind_out = sample_kind(format, g->aspect);
    struct snapshot_staging s;
    RT_TRY(snapshot_staging_begin(r, size, &s));
    struct kit k = {0};
    rt_status st = read_kit(s.dev, img, format, g, *kind_out, s.buffer, &k);
    if (rt_ok(&st)) {
        const struct rt_vk_device_dispatch *d = &s.dev->dispatch.device;
        VkImageAspectFlags barrier = snapshot_barrier_aspects(format, g->aspect);
        snapshot_image_barrier(&s, img, barrier, 0, g->layer, (VkImageLayout)g->layout, VK_IMAGE_LAYOUT_GENERAL);
        d->vkCmdBindPipeline(s.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipelines[0]);
        d->vkCmdBindDescriptorSets(s.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &k.set, 0, NULL);
        struct read_push push = {g->x, g->y, g->width, g->height, samples};
        d->vkCmdPushConstants(s.cmd, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
        d->vkCmdDispatch(s.cmd, (g->width + 7) / 8, (g->height + 7) / 8, 1);
        snapshot_image_barrier(&s, img, barrier, 0, g->layer, VK_IMAGE_LAYOUT_GENERAL, (VkImageLayout)g->layout);
        st = snapshot_staging_submit(&s);
    }
    if (rt_ok(&st))
        memcpy(out, s.map, size);
    kit_free(s.dev, &k);
    snapshot_staging_end(&s);
    return st;
}

/* ----------------------------------------------------------------- write */

struct write_push {
    uint32_t x, y, width, height, samples, sample_index;
};

static rt_status write_pass(const struct replay_device *dev, VkFormat format, const struct rt_trace_image_samples *c,
                            struct kit *k)
{
    bool depth = c->kind == RT_TRACE_SAMPLES_DEPTH;
    VkImageLayout at = depth ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                             : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    /* LOAD: the render area is this piece; the rest of the image is kept */
    VkAttachmentDescription a = {.format = format, .samples = (VkSampleCountFlagBits)c->samples,
                                 .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                 .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                 .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                 .initialLayout = at, .finalLayout = at};
    VkAttachmentReference ref = {0, at};
    VkSubpassDescription sub = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                .colorAttachmentCount = depth ? 0 : 1, .pColorAttachments = depth ? NULL : &ref,
                                .pDepthStencilAttachment = depth ? &ref : NULL};
    VkRenderPassCreateInfo info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
                                   .pAttachments = &a, .subpassCount = 1, .pSubpasses = &sub};
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VK_TRY(d->vkCreateRenderPass(dev->handle, &info, NULL, &k->pass), "vkCreateRenderPass");
    VkFramebufferCreateInfo fb = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = k->pass,
                                  .attachmentCount = 1, .pAttachments = &k->view, .width = c->x + c->width,
                                  .height = c->y + c->height, .layers = 1};
    VK_TRY(d->vkCreateFramebuffer(dev->handle, &fb, NULL, &k->framebuffer), "vkCreateFramebuffer");
    return rt_ok_status();
}

static const uint32_t *write_code(uint32_t kind, size_t *size)
{
    switch (kind) {
    case RT_TRACE_SAMPLES_SINT: *size = sizeof samples_write_sint_frag; return samples_write_sint_frag;
    case RT_TRACE_SAMPLES_UINT: *size = sizeof samples_write_uint_frag; return samples_write_uint_frag;
    case RT_TRACE_SAMPLES_DEPTH: *size = sizeof samples_write_depth_frag; return samples_write_depth_frag;
    default: *size = sizeof samples_write_float_frag; return samples_write_float_frag;
    }
}

/* One pipeline per sample: its static sample mask holds that sample only. */
static rt_status write_pipelines(const struct replay_device *dev, const struct rt_trace_image_samples *c,
                                 struct kit *k)
{
    bool depth = c->kind == RT_TRACE_SAMPLES_DEPTH;
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = k->modules[0], .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = k->modules[1], .pName = "main"}};
    VkPipelineVertexInputStateCreateInfo vertex = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkPipelineViewportStateCreateInfo viewport = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                                  .viewportCount = 1, .scissorCount = 1};
    VkPipelineRasterizationStateCreateInfo raster = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO, .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE, .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f};
    VkSampleMask mask[MAX_SAMPLES / 32] = {0};
    VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               .rasterizationSamples = (VkSampleCountFlagBits)c->samples,
                                               .pSampleMask = mask};
    VkPipelineDepthStencilStateCreateInfo ds = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                                .depthTestEnable = depth, .depthWriteEnable = depth,
                                                .depthCompareOp = VK_COMPARE_OP_ALWAYS};
    VkPipelineColorBlendAttachmentState blend = {.colorWriteMask = 0xf};
    VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                              .attachmentCount = depth ? 0 : 1, .pAttachments = &blend};
    static const VkDynamicState dynamic[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dyn = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                            .dynamicStateCount = 2, .pDynamicStates = dynamic};
    VkGraphicsPipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2, .pStages = stages,
        .pVertexInputState = &vertex, .pInputAssemblyState = &assembly, .pViewportState = &viewport,
        .pRasterizationState = &raster, .pMultisampleState = &ms, .pDepthStencilState = &ds,
        .pColorBlendState = &cb, .pDynamicState = &dyn, .layout = k->layout, .renderPass = k->pass};
    for (uint32_t s = 0; s < c->samples; s++) {
        memset(mask, 0, sizeof mask);
        mask[s / 32] = 1u << (s % 32);
        VK_TRY(dev->dispatch.device.vkCreateGraphicsPipelines(dev->handle, VK_NULL_HANDLE, 1, &info, NULL,
                                                               &k->pipelines[s]),
               "vkCreateGraphicsPipelines");
    }
    return rt_ok_status();
}

static rt_status write_kit(const struct replay_device *dev, VkImage image, VkFormat format,
                           const struct rt_trace_image_samples *c, VkBuffer buffer, struct kit *k)
{
    const VkDescriptorSetLayoutBinding binding = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                  VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
    RT_TRY(make_layout(dev, &binding, 1, VK_SHADER_STAGE_FRAGMENT_BIT, sizeof(struct write_push), k));
    RT_TRY(make_view(dev, image, format, c->aspect, c->layer, &k->view));
    RT_TRY(write_pass(dev, format, c, k));
    size_t size;
    const uint32_t *code = write_code(c->kind, &size);
    RT_TRY(make_module(dev, samples_write_vert, sizeof samples_write_vert, &k->modules[0]));
    RT_TRY(make_module(dev, code, size, &k->modules[1]));
    RT_TRY(write_pipelines(dev, c, k));
    VkDescriptorBufferInfo buf = {.buffer = buffer, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = k->set,
                                  .dstBinding = 0, .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &buf};
    dev->dispatch.device.vkUpdateDescriptorSets(dev->handle, 1, &write, 0, NULL);
    return rt_ok_status();
}

static void record_draws(const struct snapshot_staging *s, const struct rt_trace_image_samples *c,
                         const struct kit *k)
{
    const struct rt_vk_device_dispatch *d = &s->dev->dispatch.device;
    VkRect2D area = {{(int32_t)c->x, (int32_t)c->y}, {c->width, c->height}};
    VkRenderPassBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = k->pass,
                                   .framebuffer = k->framebuffer, .renderArea = area};
    d->vkCmdBeginRenderPass(s->cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
    VkViewport vp = {(float)c->x, (float)c->y, (float)c->width, (float)c->height, 0.0f, 1.0f};
    d->vkCmdSetViewport(s->cmd, 0, 1, &vp);
    d->vkCmdSetScissor(s->cmd, 0, 1, &area);
    d->vkCmdBindDescriptorSets(s->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, k->layout, 0, 1, &k->set, 0, NULL);
    for (uint32_t i = 0; i < c->samples; i++) {
        struct write_push push = {c->x, c->y, c->width, c->height, c->samples, i};
        d->vkCmdBindPipeline(s->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, k->pipelines[i]);
        d->vkCmdPushConstants(s->cmd, k->layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof push, &push);
        d->vkCmdDraw(s->cmd, 3, 1, 0, 0);
    }
    d->vkCmdEndRenderPass(s->cmd);
}

/* Why a packet's samples cannot be written here, or NULL. */
static const char *unwritable(struct replay *r, VkFormat format, const struct rt_trace_image_samples *c)
{
    uint32_t kind = sample_kind(format, c->aspect);
    if (kind == UINT32_MAX || kind != c->kind)
        return "the packet's kind or aspect does not fit the image's format";
    if (!replay_samples_usage(r, format, (VkSampleCountFlagBits)c->samples, false))
        return "the device cannot render to images of its format at its sample count";
    if (!r->device->any_queue || !queue_can(r, VK_QUEUE_GRAPHICS_BIT))
        return "the trace's first queue has no graphics";
    return NULL;
}

rt_status replay_snapshot_write_samples(struct replay *r, const struct rt_trace_image_samples *c)
{
    uint64_t live;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_IMAGE, c->image_id, &live));
    VkImage img = (VkImage)(uintptr_t)live;
    VkFormat format = replay_image_format(r, img);
    if (!r->device)
        return rt_errorf(RT_ERR_BAD_INPUT, "snapshot samples before the trace made a device");
    const char *why = unwritable(r, format, c);
    if (why) { /* the frames may clear it: --check tells */
        rt_log(RT_LOG_WARN, "snapshot: the samples of image 0x%" PRIx64 " (layer %u, rows %u-%u) are not "
               "written: %s; the frames differ if they read them", c->image_id, c->layer, c->y,
               c->y + c->height - 1, why);
        return rt_ok_status();
    }
    struct snapshot_staging s;
    RT_TRY(snapshot_staging_begin(r, c->size, &s));
    memcpy(s.map, c->data, c->size);
    struct kit k = {0};
    rt_status st = write_kit(s.dev, img, format, c, s.buffer, &k);
    if (rt_ok(&st)) {
        VkImageAspectFlags aspects = snapshot_barrier_aspects(format, c->aspect);
        VkImageLayout at = c->kind == RT_TRACE_SAMPLES_DEPTH ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                                                             : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        /* the first piece of a layer starts from UNDEFINED: nothing is kept */
        VkImageLayout from = c->y == 0 ? VK_IMAGE_LAYOUT_UNDEFINED : (VkImageLayout)c->layout;
        snapshot_image_barrier(&s, img, aspects, 0, c->layer, from, at);
        record_draws(&s, c, &k);
        snapshot_image_barrier(&s, img, aspects, 0, c->layer, at, (VkImageLayout)c->layout);
        st = snapshot_staging_submit(&s);
    }
    kit_free(s.dev, &k);
    snapshot_staging_end(&s);
    return st;
}
