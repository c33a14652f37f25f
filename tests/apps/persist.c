/* tests/apps/persist.c — rt_app_persist: pixels that only earlier frames
 * made. In frame 1 a compute shader draws a stamp into a storage image (left
 * in GENERAL) and both layers of an accumulation image are cleared; every
 * frame then copies the stamp into each layer at a place that depends on the
 * frame, never clearing them again, and shows layer 0 on the right half,
 * layer 1 on the left. Between frames the layers rest in different layouts
 * (SHADER_READ_ONLY_OPTIMAL and TRANSFER_DST_OPTIMAL; the stamp in TRANSFER_SRC). So a frame's picture holds
 * every earlier frame's stamps: a replay that starts mid-run (a trimmed
 * trace) must restore GPU-written contents and per-layer layouts. Runs in the
 * framework's sync2 mode (vkQueueSubmit2, barrier2, a timeline semaphore).
 * `--push 1`: the compute shader's storage image comes through a push
 * descriptor (VK_KHR_push_descriptor), which a per-draw dump must follow. */
#include "app.h"

#include "persist_comp.h"
#include "persist_frag.h"
#include "persist_vert.h"

#define STAMP 64

struct persist {
    int push; /* --push */
    VkWriteDescriptorSet stamp_write; /* --push: what frame 1 pushes (pImageInfo: stamp_info) */
    VkDescriptorImageInfo stamp_info;
    struct rt_app_image stamp; /* STAMP x STAMP, rgba8, written by compute in frame 1 */
    VkImage acc;               /* 2 layers, the target's format and size */
    VkDeviceMemory acc_memory;
    VkImageView acc_view;
    VkSampler sampler;
    VkDescriptorSetLayout set_layouts[2]; /* compute: the stamp; display: the accumulation image */
    VkDescriptorPool pool;
    VkDescriptorSet sets[2];
    VkPipelineLayout layouts[2];
    VkPipeline draw_stamp, show;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
};

static rt_status create_acc(struct rt_app *app, struct persist *p)
{
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                              .format = app->format, .extent = {app->extent.width, app->extent.height, 1},
                              .mipLevels = 1, .arrayLayers = 2, .samples = VK_SAMPLE_COUNT_1_BIT,
                              .tiling = VK_IMAGE_TILING_OPTIMAL,
                              .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT};
    RT_VK(vkCreateImage(app->device, &info, NULL, &p->acc));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(app->device, p->acc, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
    RT_TRY(rt_app_memory_type(app, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &alloc.memoryTypeIndex));
    RT_VK(vkAllocateMemory(app->device, &alloc, NULL, &p->acc_memory));
    RT_VK(vkBindImageMemory(app->device, p->acc, p->acc_memory, 0));
    VkImageViewCreateInfo view = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = p->acc,
                                  .viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY, .format = app->format,
                                  .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 2}};
    RT_VK(vkCreateImageView(app->device, &view, NULL, &p->acc_view));
    VkSamplerCreateInfo sampler = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    RT_VK(vkCreateSampler(app->device, &sampler, NULL, &p->sampler));
    return rt_ok_status();
}

static rt_status create_sets(struct rt_app *app, struct persist *p)
{
    const VkDescriptorType types[2] = {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER};
    const VkShaderStageFlags stages[2] = {VK_SHADER_STAGE_COMPUTE_BIT, VK_SHADER_STAGE_FRAGMENT_BIT};
    for (int i = 0; i < 2; i++) {
        VkDescriptorSetLayoutBinding binding = {0, types[i], 1, stages[i], NULL};
        VkDescriptorSetLayoutCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                                .bindingCount = 1, .pBindings = &binding};
        if (i == 0 && p->push)
            info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
        RT_VK(vkCreateDescriptorSetLayout(app->device, &info, NULL, &p->set_layouts[i]));
        VkPipelineLayoutCreateInfo layout = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                             .setLayoutCount = 1, .pSetLayouts = &p->set_layouts[i]};
        RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &p->layouts[i]));
    }
    VkDescriptorPoolSize sizes[2] = {{types[0], 1}, {types[1], 1}};
    VkDescriptorPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 2,
                                       .poolSizeCount = 2, .pPoolSizes = sizes};
    RT_VK(vkCreateDescriptorPool(app->device, &pool, NULL, &p->pool));
    uint32_t first = p->push ? 1 : 0; /* a push descriptor set is never allocated */
    VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = p->pool, .descriptorSetCount = 2 - first,
                                         .pSetLayouts = p->set_layouts + first};
    RT_VK(vkAllocateDescriptorSets(app->device, &alloc, p->sets + first));
    VkDescriptorImageInfo images[2] = {{VK_NULL_HANDLE, p->stamp.view, VK_IMAGE_LAYOUT_GENERAL},
                                       {p->sampler, p->acc_view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL}};
    VkWriteDescriptorSet writes[2];
    for (int i = 0; i < 2; i++)
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->sets[i],
                                           .descriptorCount = 1, .descriptorType = types[i],
                                           .pImageInfo = &images[i]};
    vkUpdateDescriptorSets(app->device, 2 - first, writes + first, 0, NULL);
    p->stamp_write = writes[0];
    p->stamp_info = images[0];
    return rt_ok_status();
}

static rt_status create_pipelines(struct rt_app *app, struct persist *p)
{
    RT_TRY(rt_app_compute_pipeline(app, persist_comp, sizeof persist_comp, p->layouts[0], &p->draw_stamp));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &p->pass));
    RT_TRY(rt_app_framebuffers(app, p->pass, VK_NULL_HANDLE, p->framebuffers));
    struct rt_app_pipeline_desc d = {.layout = p->layouts[1], .render_pass = p->pass};
    rt_status st = rt_app_shader(app, persist_vert, sizeof persist_vert, &d.vert);
    if (rt_ok(&st))
        st = rt_app_shader(app, persist_frag, sizeof persist_frag, &d.frag);
    if (rt_ok(&st))
        st = rt_app_graphics_pipeline(app, &d, &p->show);
    vkDestroyShaderModule(app->device, d.vert, NULL);
    vkDestroyShaderModule(app->device, d.frag, NULL);
    return st;
}

static rt_status persist_setup(struct rt_app *app, void *user)
{
    struct persist *p = user;
    if (p->push && !app->optional_extension)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "--push: the device has no %s", VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    RT_TRY(rt_app_image_create(app, VK_FORMAT_R8G8B8A8_UNORM, (VkExtent2D){STAMP, STAMP}, 1,
                               VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                               VK_IMAGE_ASPECT_COLOR_BIT, &p->stamp));
    RT_TRY(create_acc(app, p));
    RT_TRY(create_sets(app, p));
    return create_pipelines(app, p);
}

static void layer_barrier(VkCommandBuffer cmd, VkImage image, uint32_t layer, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                               .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                               .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
                               .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                               .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
                               .oldLayout = from, .newLayout = to, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, layer, 1}};
    VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                            .pImageMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &dep);
}

/* Frame 1: the stamp is drawn (and rests in TRANSFER_SRC), both layers are
 * cleared (and left in TRANSFER_DST for this frame's stamps). */
static void first_frame(struct persist *p, VkCommandBuffer cmd)
{
    layer_barrier(cmd, p->stamp.image, 0, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->draw_stamp);
    if (p->push) {
        VkWriteDescriptorSet w = p->stamp_write;
        w.dstSet = VK_NULL_HANDLE;
        w.pImageInfo = &p->stamp_info;
        vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layouts[0], 0, 1, &w);
    } else {
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layouts[0], 0, 1, &p->sets[0], 0, NULL);
    }
    vkCmdDispatch(cmd, STAMP / 8, STAMP / 8, 1);
    layer_barrier(cmd, p->stamp.image, 0, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    const VkClearColorValue colours[2] = {{{0.05f, 0.05f, 0.20f, 1.0f}}, {{0.25f, 0.05f, 0.05f, 1.0f}}};
    for (uint32_t l = 0; l < 2; l++) {
        layer_barrier(cmd, p->acc, l, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, l, 1};
        vkCmdClearColorImage(cmd, p->acc, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &colours[l], 1, &range);
    }
}

static void stamp_into(struct rt_app *app, struct persist *p, VkCommandBuffer cmd, uint32_t layer, uint32_t n)
{
    uint32_t w = app->extent.width - STAMP, h = app->extent.height - STAMP;
    VkImageCopy copy = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, layer, 1},
                        .dstOffset = {(int32_t)((n * (37 + 16 * layer)) % w), (int32_t)((n * (23 + 9 * layer)) % h), 0},
                        .extent = {STAMP, STAMP, 1}};
    /* orders this copy after the clear or the previous frame's copy */
    layer_barrier(cmd, p->acc, layer, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdCopyImage(cmd, p->stamp.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, p->acc,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
}

/* Between frames layer 0 rests in SHADER_READ_ONLY, layer 1 in TRANSFER_DST. */
static rt_status persist_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct persist *p = user;
    VkCommandBuffer cmd = f->cmd;
    if (f->number == 1)
        first_frame(p, cmd);
    else
        layer_barrier(cmd, p->acc, 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    stamp_into(app, p, cmd, 0, f->number);
    stamp_into(app, p, cmd, 1, f->number);
    for (uint32_t l = 0; l < 2; l++)
        layer_barrier(cmd, p->acc, l, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    VkClearValue clear = {.color = {{0, 0, 0, 1}}};
    rt_app_begin_render_pass(app, cmd, p->pass, p->framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->show);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->layouts[1], 0, 1, &p->sets[1], 0, NULL);
    rt_app_set_viewport(app, cmd);
    vkCmdDraw(cmd, 3, 1, 0, 0);
    vkCmdEndRenderPass(cmd);
    layer_barrier(cmd, p->acc, 1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    return rt_ok_status();
}

static void persist_teardown(struct rt_app *app, void *user)
{
    struct persist *p = user;
    VkDevice dev = app->device;
    vkDestroyPipeline(dev, p->draw_stamp, NULL);
    vkDestroyPipeline(dev, p->show, NULL);
    rt_app_framebuffers_destroy(app, p->framebuffers);
    vkDestroyRenderPass(dev, p->pass, NULL);
    for (int i = 0; i < 2; i++) {
        vkDestroyPipelineLayout(dev, p->layouts[i], NULL);
        vkDestroyDescriptorSetLayout(dev, p->set_layouts[i], NULL);
    }
    vkDestroyDescriptorPool(dev, p->pool, NULL);
    vkDestroySampler(dev, p->sampler, NULL);
    vkDestroyImageView(dev, p->acc_view, NULL);
    vkDestroyImage(dev, p->acc, NULL);
    vkFreeMemory(dev, p->acc_memory, NULL);
    rt_app_image_destroy(app, &p->stamp);
}
int main(int argc, char **argv)
{
    static const VkPhysicalDeviceVulkan13Features features13 = {.synchronization2 = VK_TRUE, .maintenance4 = VK_TRUE};
    static const VkPhysicalDeviceVulkan12Features features12 = {.timelineSemaphore = VK_TRUE};
    struct persist p = {0};
    const struct rt_app_int_option options[] = {
        {"push", "1: the compute shader's storage image through a push descriptor (default 0)", &p.push, 0, 1}};
    const struct rt_app_desc desc = {
        .name = "persist",
        .options = options,
        .option_count = 1,
        .optional_extension = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME,
        .summary = "Stamps a compute-drawn image into an accumulation image that is never\n"
                   "cleared again: each frame shows every earlier frame's work.",
        .features12 = &features12,
        .features13 = &features13,
        .sync2 = true,
        .setup = persist_setup,
        .record = persist_record,
        .teardown = persist_teardown,
    };
    return rt_app_main(&desc, &p, argc, argv);
}
