/* replay/draws_resolve.c — a multisampled image a draw wrote, made single-
 * sample so that it can be copied out: images of ours to resolve into, and
 * for depth and stencil (which vkCmdResolveImage does not take) a render
 * pass of ours whose only subpass loads the attachment and resolves it
 * (VkSubpassDescriptionDepthStencilResolve, Vulkan 1.2), sample 0 of each
 * pixel: a depth value the draw wrote, never an average of several. */
#include <string.h>

#include "draws.h"

/* A single-sample image of T's format and size with USAGE, in device memory, ours. */
bool replay_draws_temp_image(const struct replay_device *dev, const struct draw_target *t, VkImageUsageFlags usage,
                             VkImage *image, VkDeviceMemory *memory)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                              .format = t->format, .extent = {t->width, t->height, 1}, .mipLevels = 1,
                              .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                              .usage = usage};
    *memory = VK_NULL_HANDLE;
    if (d->vkCreateImage(dev->handle, &info, NULL, image) != VK_SUCCESS) {
        *image = VK_NULL_HANDLE;
        return false;
    }
    VkMemoryRequirements req;
    d->vkGetImageMemoryRequirements(dev->handle, *image, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
    while (alloc.memoryTypeIndex < 32 && !(req.memoryTypeBits & (1u << alloc.memoryTypeIndex)))
        alloc.memoryTypeIndex++;
    if (alloc.memoryTypeIndex < 32 && d->vkAllocateMemory(dev->handle, &alloc, NULL, memory) == VK_SUCCESS &&
        d->vkBindImageMemory(dev->handle, *image, *memory, 0) == VK_SUCCESS)
        return true;
    if (*memory)
        d->vkFreeMemory(dev->handle, *memory, NULL);
    d->vkDestroyImage(dev->handle, *image, NULL);
    *image = VK_NULL_HANDLE;
    *memory = VK_NULL_HANDLE;
    return false;
}

/* The two attachments: the multisampled one loaded and kept, ours resolved into and left for the copy. */
static VkResult make_pass(const struct replay_device *dev, const struct draw_target *t, VkSampleCountFlagBits samples,
                          VkImageAspectFlags aspects, VkRenderPass *out)
{
    const VkImageLayout ds = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    bool stencil = aspects & VK_IMAGE_ASPECT_STENCIL_BIT, depth = aspects & VK_IMAGE_ASPECT_DEPTH_BIT;
    VkAttachmentDescription2 att[2] = {
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = t->format, .samples = samples,
         .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = stencil ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE, .initialLayout = ds, .finalLayout = ds},
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = t->format, .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, .stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED, .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL},
    };
    VkAttachmentReference2 refs[2] = {
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0, .layout = ds, .aspectMask = aspects},
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 1, .layout = ds, .aspectMask = aspects},
    };
    VkSubpassDescriptionDepthStencilResolve resolve = {
        .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_DEPTH_STENCIL_RESOLVE,
        .depthResolveMode = depth ? VK_RESOLVE_MODE_SAMPLE_ZERO_BIT : VK_RESOLVE_MODE_NONE,
        .stencilResolveMode = stencil ? VK_RESOLVE_MODE_SAMPLE_ZERO_BIT : VK_RESOLVE_MODE_NONE,
        .pDepthStencilResolveAttachment = &refs[1]};
    VkSubpassDescription2 sub = {.sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2, .pNext = &resolve,
                                 .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                 .pDepthStencilAttachment = &refs[0]};
    /* Everything before (the draw, our barrier) and after (the copy) waits as the barriers around it do. */
    VkSubpassDependency2 deps[2] = {
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2, .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
         .srcStageMask = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, .dstStageMask = VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT,
         .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT, .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT |
                                                                       VK_ACCESS_MEMORY_WRITE_BIT},
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2, .srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
         .srcStageMask = VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT, .dstStageMask = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
         .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT, .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT |
                                                                       VK_ACCESS_MEMORY_WRITE_BIT},
    };
    VkRenderPassCreateInfo2 info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2, .attachmentCount = 2,
                                    .pAttachments = att, .subpassCount = 1, .pSubpasses = &sub,
                                    .dependencyCount = 2, .pDependencies = deps};
    return dev->dispatch.device.vkCreateRenderPass2(dev->handle, &info, NULL, out);
}

static VkResult make_view(const struct replay_device *dev, VkImage image, VkFormat format, VkImageAspectFlags aspects,
                          uint32_t mip, uint32_t layer, VkImageView *out)
{
    VkImageViewCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = image,
                                  .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                                  .subresourceRange = {aspects, mip, 1, layer, 1}};
    return dev->dispatch.device.vkCreateImageView(dev->handle, &info, NULL, out);
}

/* What a resolve made and must free with its copy (draws_save.c's release). */
void replay_draws_resolve_free(const struct replay_device *dev, struct draw_resolve_objects *o)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    if (o->framebuffer)
        d->vkDestroyFramebuffer(dev->handle, o->framebuffer, NULL);
    for (int i = 0; i < 2; i++)
        if (o->views[i])
            d->vkDestroyImageView(dev->handle, o->views[i], NULL);
    if (o->pass)
        d->vkDestroyRenderPass(dev->handle, o->pass, NULL);
    memset(o, 0, sizeof *o);
}

/* T (multisampled depth/stencil, in TRANSFER_SRC) resolved into ONE->temp, left in TRANSFER_SRC; T back in
 * TRANSFER_SRC after. False (nothing left to free) when the device cannot: no vkCreateRenderPass2. */
bool replay_draws_resolve_depth(const struct replay_device *dev, VkCommandBuffer cmd, const struct draw_target *t,
                                VkSampleCountFlagBits samples, VkImageAspectFlags aspects, struct draw_target *one,
                                struct draw_resolve_objects *o)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    memset(o, 0, sizeof *o);
    if (!d->vkCreateRenderPass2 || !d->vkCmdBeginRenderPass2 ||
        !replay_draws_temp_image(dev, t, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                 &one->temp, &one->temp_memory))
        return false;
    VkFramebufferCreateInfo fb = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .attachmentCount = 2,
                                  .pAttachments = o->views, .width = t->width, .height = t->height, .layers = 1};
    bool made = make_pass(dev, t, samples, aspects, &o->pass) == VK_SUCCESS &&
                make_view(dev, t->image, t->format, aspects, t->mip, t->layer, &o->views[0]) == VK_SUCCESS &&
                make_view(dev, one->temp, t->format, aspects, 0, 0, &o->views[1]) == VK_SUCCESS &&
                (fb.renderPass = o->pass) && d->vkCreateFramebuffer(dev->handle, &fb, NULL, &o->framebuffer) == VK_SUCCESS;
    if (!made) {
        replay_draws_resolve_free(dev, o);
        d->vkDestroyImage(dev->handle, one->temp, NULL);
        d->vkFreeMemory(dev->handle, one->temp_memory, NULL);
        one->temp = VK_NULL_HANDLE;
        one->temp_memory = VK_NULL_HANDLE;
        return false;
    }
    replay_draws_image_barrier(d, cmd, t->image, aspects, t->mip, t->layer, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
    VkRenderPassBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = o->pass,
                                   .framebuffer = o->framebuffer, .renderArea = {{0, 0}, {t->width, t->height}}};
    VkSubpassBeginInfo sub = {.sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO, .contents = VK_SUBPASS_CONTENTS_INLINE};
    VkSubpassEndInfo end = {.sType = VK_STRUCTURE_TYPE_SUBPASS_END_INFO};
    d->vkCmdBeginRenderPass2(cmd, &begin, &sub);
    d->vkCmdEndRenderPass2(cmd, &end);
    replay_draws_image_barrier(d, cmd, t->image, aspects, t->mip, t->layer,
                               VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    one->mip = one->layer = 0;
    one->samples = (uint32_t)samples;
    return true;
}
