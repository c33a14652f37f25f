/* replay/draws_split.c — after a draw of the dump frame: its render pass (or
 * dynamic rendering) is ended, the attachments are copied into staging
 * buffers, and it is resumed with loads; outside rendering, the image a
 * clear, copy, blit or resolve wrote is copied. The program's command buffer
 * gets these commands; the frame's final image does not change (a store
 * variant keeps what DONT_CARE might have dropped; LOAD keeps the rest). */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "draws.h"
#include "formats.h"
#include "readback.h"
#include "staging.h"

static void *lookup(const struct rt_hashmap *m, uint64_t k)
{
    uint64_t v = 0;
    return rt_hashmap_get(m, k, &v) ? (void *)(uintptr_t)v : NULL;
}

static uint64_t key(const void *handle) { return (uint64_t)(uintptr_t)handle; }

/* "color0: why" into the draw's not_saved list. */
rt_status replay_draws_not_saved(struct replay *r, struct cJSON *entry, const char *role, const char *why)
{
    char text[256];
    snprintf(text, sizeof text, "%s: %s", role, why);
    cJSON *list = cJSON_GetObjectItem(entry, "not_saved");
    cJSON *item = cJSON_CreateString(text);
    if (!item || !cJSON_AddItemToArray(list, item)) {
        cJSON_Delete(item);
        return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
    }
    return rt_ok_status();
}

static rt_status not_saved(struct replay *r, cJSON *entry, const char *role, const char *why)
{
    return replay_draws_not_saved(r, entry, role, why);
}

static VkImageAspectFlags aspects_of(VkFormat format)
{
    const struct rt_format_info *f = rt_format_find(format);
    VkImageAspectFlags a = 0;
    for (uint8_t i = 0; f && i < f->component_count; i++)
        a |= f->components[i].channel == 'D' ? VK_IMAGE_ASPECT_DEPTH_BIT
             : f->components[i].channel == 'S' ? VK_IMAGE_ASPECT_STENCIL_BIT : 0;
    return a ? a : VK_IMAGE_ASPECT_COLOR_BIT;
}

/* C's staging buffer, from the shared staging module (readback/staging.h);
 * false when none could be made (nothing is left to free then). */
static bool staging(struct replay *r, const struct replay_device *dev, VkDeviceSize size, struct draw_copy *c)
{
    const struct rt_readback_device rd = {dev->handle, &dev->dispatch.device, &r->gpu_memory, NULL};
    rt_status s = rt_staging_buffer(&rd, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &c->buffer, &c->memory);
    bool ok = rt_ok(&s);
    rt_status_free(&s); /* the copy is then "not saved", with why */
    return ok;
}

void replay_draws_image_barrier(const struct rt_vk_device_dispatch *d, VkCommandBuffer cmd, VkImage image,
                                VkImageAspectFlags aspects, uint32_t mip, uint32_t layer, VkImageLayout from,
                                VkImageLayout to)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
                              .dstAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
                              .oldLayout = from, .newLayout = to,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                              .subresourceRange = {aspects, mip, 1, layer, 1}};
    d->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL,
                            0, NULL, 1, &b);
}

static rt_status copy_aspect(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                             const struct draw_target *t, VkImageAspectFlags aspect, const char *role)
{
    VkDeviceSize size = rt_readback_copy_size(t->format, aspect, t->width, t->height, 0);
    struct draw_copy c = {.entry = p->entry, .format = t->format, .aspect = aspect, .width = t->width,
                          .height = t->height, .set = -1, .binding = -1,
                          .temp = t->temp_given ? VK_NULL_HANDLE : t->temp,
                          .temp_memory = t->temp_given ? VK_NULL_HANDLE : t->temp_memory,
                          .samples = t->samples ? t->samples : 1};
    if (t->resolve && !t->temp_given)
        c.resolve = *t->resolve;
    const struct draw_image *im = lookup(&r->draws->images, key(t->image));
    c.image = im ? im->captured : 0;
    snprintf(c.role, sizeof c.role, "%s", role);
    if (!size)
        return not_saved(r, p->entry, role, "a format this build cannot read back");
    if (r->draws->staging_bytes + size > DRAW_MAX_STAGING)
        return not_saved(r, p->entry, role, "1 GiB of copies already wait for their submission (--dump-only "
                                            "fewer draws)");
    if (!staging(r, dev, size, &c)) {
        c.temp = VK_NULL_HANDLE; /* the caller's to free: this copy is not kept */
        c.temp_memory = VK_NULL_HANDLE;
        memset(&c.resolve, 0, sizeof c.resolve);
        struct draw_cmdbuf tmp = {.handle = p->cb->handle, .dev = dev, .copies = &c, .copy_count = 1};
        replay_draws_release(r, &tmp);
        return not_saved(r, p->entry, role, "no host-visible staging buffer could be made");
    }
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkBufferImageCopy region = {.imageSubresource = {aspect, t->mip, t->layer, 1},
                                .imageExtent = {t->width, t->height, 1}};
    d->vkCmdCopyImageToBuffer(p->cb->handle, t->temp ? t->temp : t->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                              c.buffer, 1, &region);
    c.bytes = size;
    r->draws->staging_bytes += size;
    return replay_draws_add_copy(r, p->cb, &c);
}

/* A multisampled colour image (in TRANSFER_SRC) is saved resolved: vkCmdResolveImage
 * into a temporary image (the average of the samples), which is copied out. */
static rt_status copy_resolved(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                               const struct draw_target *t, VkSampleCountFlagBits samples)
{
    struct draw_target one = *t;
    if (!replay_draws_temp_image(dev, t, VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, &one.temp,
                                 &one.temp_memory))
        return not_saved(r, p->entry, t->role, "multisampled, and no image to resolve it into could be made");
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    replay_draws_image_barrier(d, p->cb->handle, one.temp, VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, VK_IMAGE_LAYOUT_UNDEFINED,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkImageResolve region = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, t->mip, t->layer, 1},
                             .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                             .extent = {t->width, t->height, 1}};
    d->vkCmdResolveImage(p->cb->handle, t->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, one.temp,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    replay_draws_image_barrier(d, p->cb->handle, one.temp, VK_IMAGE_ASPECT_COLOR_BIT, 0, 0,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    one.samples = (uint32_t)samples;
    one.mip = one.layer = 0;
    size_t kept = p->cb->copy_count;
    rt_status s = copy_aspect(r, p, dev, &one, VK_IMAGE_ASPECT_COLOR_BIT, t->role);
    if (p->cb->copy_count == kept) { /* not kept (said in not_saved): the image goes now */
        d->vkDestroyImage(dev->handle, one.temp, NULL);
        d->vkFreeMemory(dev->handle, one.temp_memory, NULL);
    }
    return s;
}

/* Multisampled depth and stencil (in TRANSFER_SRC) are saved resolved by a render pass of ours (sample 0,
 * draws_resolve.c); the first copy kept takes the resolve's image and objects. */
static rt_status copy_resolved_depth(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                                     const struct draw_target *t, VkSampleCountFlagBits samples, VkImageAspectFlags want)
{
    struct draw_target one = *t;
    struct draw_resolve_objects o;
    if (!replay_draws_resolve_depth(dev, p->cb->handle, t, samples, aspects_of(t->format), &one, &o))
        return not_saved(r, p->entry, t->role, "multisampled depth or stencil, and no render pass of ours could "
                                               "resolve it (vkCreateRenderPass2, Vulkan 1.2)");
    one.resolve = &o;
    rt_status s = rt_ok_status();
    static const VkImageAspectFlags aspects[2] = {VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_ASPECT_STENCIL_BIT};
    static const char *const roles[2] = {"depth", "stencil"};
    for (int i = 0; i < 2 && rt_ok(&s); i++) {
        size_t kept = p->cb->copy_count;
        if (want & aspects[i])
            s = copy_aspect(r, p, dev, &one, aspects[i], roles[i]);
        one.temp_given |= p->cb->copy_count > kept;
    }
    if (!one.temp_given) { /* none kept (said in not_saved): what the resolve made goes now */
        replay_draws_resolve_free(dev, &o);
        dev->dispatch.device.vkDestroyImage(dev->handle, one.temp, NULL);
        dev->dispatch.device.vkFreeMemory(dev->handle, one.temp_memory, NULL);
    }
    return s;
}

/* Shader writes before the copy, and the copy's read before what follows. */
static void buffer_barrier(const struct rt_vk_device_dispatch *d, VkCommandBuffer cmd, VkBuffer buffer)
{
    VkBufferMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
                               .dstAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .buffer = buffer, .size = VK_WHOLE_SIZE};
    d->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL,
                            1, &b, 0, NULL);
}

rt_status replay_draws_copy_buffer(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                                   VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size, const char *role,
                                   int set, int binding)
{
    const struct draw_buffer *b = lookup(&r->draws->buffers, key(buffer));
    if (!b)
        return not_saved(r, p->entry, role, "a buffer replay does not know");
    if (!(b->usage & VK_BUFFER_USAGE_TRANSFER_SRC_BIT))
        return not_saved(r, p->entry, role, "a buffer made without transfer-source use");
    if (offset >= b->size)
        return not_saved(r, p->entry, role, "an empty range");
    if (size == VK_WHOLE_SIZE || size > b->size - offset)
        size = b->size - offset;
    struct draw_copy c = {.entry = p->entry, .raw = true, .source = b->captured, .source_offset = offset,
                          .bytes = size, .set = set, .binding = binding};
    snprintf(c.role, sizeof c.role, "%s", role);
    if (r->draws->staging_bytes + size > DRAW_MAX_STAGING)
        return not_saved(r, p->entry, role, "1 GiB of copies already wait for their submission (--dump-only "
                                            "fewer draws)");
    if (!staging(r, dev, size, &c)) {
        struct draw_cmdbuf tmp = {.handle = p->cb->handle, .dev = dev, .copies = &c, .copy_count = 1};
        c.bytes = 0;
        replay_draws_release(r, &tmp);
        return not_saved(r, p->entry, role, "no host-visible staging buffer could be made");
    }
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkBufferCopy region = {offset, 0, size};
    buffer_barrier(d, p->cb->handle, buffer);
    d->vkCmdCopyBuffer(p->cb->handle, buffer, c.buffer, 1, &region);
    buffer_barrier(d, p->cb->handle, buffer);
    r->draws->staging_bytes += size;
    return replay_draws_add_copy(r, p->cb, &c);
}

rt_status replay_draws_copy_out(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                                const struct draw_target *t)
{
    const struct draw_image *im = lookup(&r->draws->images, key(t->image));
    if (im && !(im->usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT))
        return not_saved(r, p->entry, t->role, "a transient attachment, which cannot be copied");
    if (!t->width || !t->height)
        return not_saved(r, p->entry, t->role, "an empty extent");
    VkImageAspectFlags all = aspects_of(t->format), want = t->only ? t->only & all : all;
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    replay_draws_image_barrier(d, p->cb->handle, t->image, all, t->mip, t->layer, t->layout,
                               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    if (im && im->samples > VK_SAMPLE_COUNT_1_BIT) {
        rt_status s = all == VK_IMAGE_ASPECT_COLOR_BIT ? copy_resolved(r, p, dev, t, im->samples)
                                                       : copy_resolved_depth(r, p, dev, t, im->samples, want);
        replay_draws_image_barrier(d, p->cb->handle, t->image, all, t->mip, t->layer,
                                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, t->layout);
        return s;
    }
    rt_status s = rt_ok_status();
    if (want & VK_IMAGE_ASPECT_COLOR_BIT)
        s = copy_aspect(r, p, dev, t, VK_IMAGE_ASPECT_COLOR_BIT, t->role);
    if (rt_ok(&s) && (want & VK_IMAGE_ASPECT_DEPTH_BIT))
        s = copy_aspect(r, p, dev, t, VK_IMAGE_ASPECT_DEPTH_BIT, "depth");
    if (rt_ok(&s) && (want & VK_IMAGE_ASPECT_STENCIL_BIT))
        s = copy_aspect(r, p, dev, t, VK_IMAGE_ASPECT_STENCIL_BIT, "stencil");
    replay_draws_image_barrier(d, p->cb->handle, t->image, all, t->mip, t->layer, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               t->layout);
    return s;
}

/* The size of mip level MIP of IMAGE, within the render area's reach W x H (0: none). */
static void extent_of(struct replay *r, VkImage image, uint32_t mip, uint32_t w, uint32_t h, struct draw_target *t)
{
    const struct draw_image *im = lookup(&r->draws->images, key(image));
    uint32_t iw = im ? im->extent.width >> mip : w, ih = im ? im->extent.height >> mip : h;
    t->width = w && w < iw ? w : (iw ? iw : 1);
    t->height = h && h < ih ? h : (ih ? ih : 1);
}

/* A view's image as a target. */
static bool view_target(struct replay *r, VkImageView view, VkImageLayout layout, uint32_t w, uint32_t h,
                        struct draw_target *t)
{
    const struct draw_view *v = lookup(&r->draws->views, key(view));
    if (!v)
        return false;
    *t = (struct draw_target){.image = v->image, .format = v->format, .mip = v->mip, .layer = v->layer,
                              .layout = layout};
    extent_of(r, v->image, v->mip, w, h, t);
    return true;
}

/* The current subpass's attachments of P's render pass, copied out (the pass ended). */
static rt_status copy_subpass(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                              const struct draw_render_pass *rp, const struct draw_framebuffer *fb)
{
    const struct draw_subpass *sp = &rp->sub[p->cb->subpass];
    const VkImageView *views = fb->imageless ? p->cb->views : fb->views; /* imageless: the begin's */
    uint32_t count = fb->imageless ? p->cb->view_count : fb->count;
    rt_status s = rt_ok_status();
    for (uint32_t k = 0; k <= sp->colour_count && rt_ok(&s); k++) { /* the colours, then depth/stencil */
        uint32_t att = k < sp->colour_count ? sp->colour[k] : sp->depth;
        char role[16];
        struct draw_target t;
        if (att >= count || att >= rp->count ||
            !view_target(r, views[att], rp->final_layout[att], fb->width, fb->height, &t))
            continue;
        snprintf(role, sizeof role, "color%u", k);
        t.role = role;
        s = replay_draws_copy_out(r, p, dev, &t);
    }
    return s;
}

/* A render pass can only end in its last subpass: the split steps through the
 * rest (empty), ends it, copies, begins the resume variant and steps back to
 * the draw's subpass. Resolves of the skipped subpasses run early and again in
 * their turn. */
/* Why CB's rendering cannot be ended and resumed here (NULL: it can). */
const char *replay_draws_split_why(struct replay *r, const struct draw_cmdbuf *cb)
{
    if (cb->kind == DRAW_DYNAMIC) {
        const struct replay_device *dev = cb->dev ? cb->dev : replay_device_of(r, cb->handle);
        const struct rt_vk_device_dispatch *d = dev ? &dev->dispatch.device : NULL;
        const VkRenderingInfo *info = &cb->dynamic.info;
        return !d || !(d->vkCmdEndRendering || d->vkCmdEndRenderingKHR) || info->viewMask ||
                       (info->flags & VK_RENDERING_SUSPENDING_BIT)
                   ? "multiview or suspended rendering (not split by this build)" : NULL;
    }
    if (cb->kind != DRAW_RENDER_PASS)
        return NULL;
    const struct draw_render_pass *rp = lookup(&r->draws->render_passes, key(cb->pass));
    const struct draw_framebuffer *fb = lookup(&r->draws->framebuffers, key(cb->framebuffer));
    return !rp ? "a render pass replay does not know"
           : rp->subpasses > DRAW_MAX_SUBPASSES || cb->subpass >= rp->subpasses
               ? "a render pass of more than 8 subpasses (not split by this build)"
           : !rp->resume ? "its store and resume variants could not be made"
           : !fb ? "a framebuffer replay does not know"
           : fb->imageless && cb->view_count < fb->count ? "an imageless framebuffer begun without its views" : NULL;
}

/* A render pass can only end in its last subpass: the split steps through the
 * rest (empty), ends it, copies (when P has an entry), begins the resume
 * variant and steps back to the draw's subpass, with CB's contents. Resolves of
 * the skipped subpasses run early and again in their turn. */
static rt_status split_render_pass(struct replay *r, struct draw_pending *p, const struct replay_device *dev)
{
    struct draw_cmdbuf *cb = p->cb;
    const char *why = replay_draws_split_why(r, cb);
    if (why)
        return p->entry ? not_saved(r, p->entry, "attachments", why) : rt_ok_status();
    const struct draw_render_pass *rp = lookup(&r->draws->render_passes, key(cb->pass));
    const struct draw_framebuffer *fb = lookup(&r->draws->framebuffers, key(cb->framebuffer));
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    for (uint32_t i = cb->subpass + 1; i < rp->subpasses; i++)
        d->vkCmdNextSubpass(cb->handle, VK_SUBPASS_CONTENTS_INLINE);
    d->vkCmdEndRenderPass(cb->handle);
    rt_status s = p->entry ? copy_subpass(r, p, dev, rp, fb) : rt_ok_status();
    if (rt_ok(&s) && p->entry)
        s = replay_draws_dump_storage(r, p, dev, 0);
    VkRenderPassAttachmentBeginInfo views = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO,
                                             .attachmentCount = cb->view_count, .pAttachments = cb->views};
    VkRenderPassBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                   .pNext = fb->imageless ? &views : NULL, .renderPass = rp->resume,
                                   .framebuffer = cb->framebuffer, .renderArea = cb->area};
    d->vkCmdBeginRenderPass(cb->handle, &begin, cb->subpass ? VK_SUBPASS_CONTENTS_INLINE : cb->contents);
    for (uint32_t i = 1; i <= cb->subpass; i++)
        d->vkCmdNextSubpass(cb->handle, i == cb->subpass ? cb->contents : VK_SUBPASS_CONTENTS_INLINE);
    return s;
}

static rt_status split_dynamic(struct replay *r, struct draw_pending *p, const struct replay_device *dev)
{
    struct draw_cmdbuf *cb = p->cb;
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    PFN_vkCmdEndRendering end = d->vkCmdEndRendering ? d->vkCmdEndRendering : d->vkCmdEndRenderingKHR;
    PFN_vkCmdBeginRendering begin = d->vkCmdBeginRendering ? d->vkCmdBeginRendering : d->vkCmdBeginRenderingKHR;
    VkRenderingInfo *info = &cb->dynamic.info;
    const char *why = replay_draws_split_why(r, cb);
    if (why || !begin)
        return p->entry ? not_saved(r, p->entry, "attachments", why ? why : "no vkCmdBeginRendering") : rt_ok_status();
    end(cb->handle);
    uint32_t w = info->renderArea.offset.x + info->renderArea.extent.width;
    uint32_t h = info->renderArea.offset.y + info->renderArea.extent.height;
    rt_status s = rt_ok_status();
    for (uint32_t i = 0; i < info->colorAttachmentCount && rt_ok(&s); i++) {
        char role[16];
        struct draw_target t;
        snprintf(role, sizeof role, "color%u", i);
        VkRenderingAttachmentInfo *a = &cb->dynamic.color[i];
        if (p->entry && a->imageView && view_target(r, a->imageView, a->imageLayout, w, h, &t) && (t.role = role))
            s = replay_draws_copy_out(r, p, dev, &t);
        a->loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    }
    VkRenderingAttachmentInfo *ds[2] = {info->pDepthAttachment ? &cb->dynamic.depth : NULL,
                                        info->pStencilAttachment ? &cb->dynamic.stencil : NULL};
    for (int k = 0; k < 2 && rt_ok(&s); k++) {
        struct draw_target t;
        if (p->entry && ds[k] && ds[k]->imageView && view_target(r, ds[k]->imageView, ds[k]->imageLayout, w, h, &t)) {
            t.only = k ? VK_IMAGE_ASPECT_STENCIL_BIT : VK_IMAGE_ASPECT_DEPTH_BIT;
            t.role = k ? "stencil" : "depth";
            s = replay_draws_copy_out(r, p, dev, &t);
        }
        if (ds[k])
            ds[k]->loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    }
    if (rt_ok(&s) && p->entry)
        s = replay_draws_dump_storage(r, p, dev, 0);
    info->flags &= VK_RENDERING_CONTENTS_SECONDARY_COMMAND_BUFFERS_BIT;
    begin(cb->handle, info);
    return s;
}

rt_status replay_draws_restart(struct replay *r, struct draw_cmdbuf *cb, const struct replay_device *dev)
{
    struct draw_pending p = {.cb = cb};
    r->own_depth++;
    rt_status s = cb->kind == DRAW_RENDER_PASS ? split_render_pass(r, &p, dev)
                  : cb->kind == DRAW_DYNAMIC    ? split_dynamic(r, &p, dev) : rt_ok_status();
    r->own_depth--;
    return s;
}

/* --- outside rendering: the image a command wrote ------------------------------ */

typedef bool (*dst_fn)(const void *args, struct draw_target *t);

static bool dst_clear_colour(const void *args, struct draw_target *t)
{
    const struct rt_vk_args_vkCmdClearColorImage *a = args;
    *t = (struct draw_target){a->image, 0, a->rangeCount ? a->pRanges[0].baseMipLevel : 0,
                              a->rangeCount ? a->pRanges[0].baseArrayLayer : 0, 0, 0, a->imageLayout, 0, "dst"};
    return true;
}

static bool dst_clear_depth(const void *args, struct draw_target *t)
{
    const struct rt_vk_args_vkCmdClearDepthStencilImage *a = args;
    *t = (struct draw_target){a->image, 0, a->rangeCount ? a->pRanges[0].baseMipLevel : 0,
                              a->rangeCount ? a->pRanges[0].baseArrayLayer : 0, 0, 0, a->imageLayout, 0, "dst"};
    return true;
}

static bool dst_layers(VkImage image, VkImageLayout layout, VkImageSubresourceLayers sub, struct draw_target *t)
{
    *t = (struct draw_target){image, 0, sub.mipLevel, sub.baseArrayLayer, 0, 0, layout, sub.aspectMask, "dst"};
    return true;
}

static bool dst_copy_image(const void *args, struct draw_target *t)
{
    const struct rt_vk_args_vkCmdCopyImage *a = args;
    return a->regionCount && dst_layers(a->dstImage, a->dstImageLayout, a->pRegions[0].dstSubresource, t);
}

static bool dst_blit_image(const void *args, struct draw_target *t)
{
    const struct rt_vk_args_vkCmdBlitImage *a = args;
    return a->regionCount && dst_layers(a->dstImage, a->dstImageLayout, a->pRegions[0].dstSubresource, t);
}

static bool dst_resolve_image(const void *args, struct draw_target *t)
{
    const struct rt_vk_args_vkCmdResolveImage *a = args;
    return a->regionCount && dst_layers(a->dstImage, a->dstImageLayout, a->pRegions[0].dstSubresource, t);
}

static bool dst_buffer_to_image(const void *args, struct draw_target *t)
{
    const struct rt_vk_args_vkCmdCopyBufferToImage *a = args;
    return a->regionCount && dst_layers(a->dstImage, a->dstImageLayout, a->pRegions[0].imageSubresource, t);
}

static bool dst_copy_image2(const void *args, struct draw_target *t)
{
    const VkCopyImageInfo2 *i = ((const struct rt_vk_args_vkCmdCopyImage2 *)args)->pCopyImageInfo;
    return i && i->regionCount && dst_layers(i->dstImage, i->dstImageLayout, i->pRegions[0].dstSubresource, t);
}

static bool dst_blit_image2(const void *args, struct draw_target *t)
{
    const VkBlitImageInfo2 *i = ((const struct rt_vk_args_vkCmdBlitImage2 *)args)->pBlitImageInfo;
    return i && i->regionCount && dst_layers(i->dstImage, i->dstImageLayout, i->pRegions[0].dstSubresource, t);
}

static bool dst_resolve_image2(const void *args, struct draw_target *t)
{
    const VkResolveImageInfo2 *i = ((const struct rt_vk_args_vkCmdResolveImage2 *)args)->pResolveImageInfo;
    return i && i->regionCount && dst_layers(i->dstImage, i->dstImageLayout, i->pRegions[0].dstSubresource, t);
}

static bool dst_buffer_to_image2(const void *args, struct draw_target *t)
{
    const VkCopyBufferToImageInfo2 *i = ((const struct rt_vk_args_vkCmdCopyBufferToImage2 *)args)->pCopyBufferToImageInfo;
    return i && i->regionCount && dst_layers(i->dstImage, i->dstImageLayout, i->pRegions[0].imageSubresource, t);
}

/* The commands outside rendering that write an image, and where it is in their arguments. */
static const dst_fn image_dsts[RT_VK_CMD_COUNT] = {
    [RT_VK_CMD_vkCmdClearColorImage] = dst_clear_colour,
    [RT_VK_CMD_vkCmdClearDepthStencilImage] = dst_clear_depth,
    [RT_VK_CMD_vkCmdCopyImage] = dst_copy_image,
    [RT_VK_CMD_vkCmdBlitImage] = dst_blit_image,
    [RT_VK_CMD_vkCmdResolveImage] = dst_resolve_image,
    [RT_VK_CMD_vkCmdCopyBufferToImage] = dst_buffer_to_image,
    [RT_VK_CMD_vkCmdCopyImage2] = dst_copy_image2,
    [RT_VK_CMD_vkCmdCopyImage2KHR] = dst_copy_image2,
    [RT_VK_CMD_vkCmdBlitImage2] = dst_blit_image2,
    [RT_VK_CMD_vkCmdBlitImage2KHR] = dst_blit_image2,
    [RT_VK_CMD_vkCmdResolveImage2] = dst_resolve_image2,
    [RT_VK_CMD_vkCmdResolveImage2KHR] = dst_resolve_image2,
    [RT_VK_CMD_vkCmdCopyBufferToImage2] = dst_buffer_to_image2,
    [RT_VK_CMD_vkCmdCopyBufferToImage2KHR] = dst_buffer_to_image2,
};

/* Commands that run a compute pipeline: their storage images and buffers are what they wrote. */
static const bool dispatches[RT_VK_CMD_COUNT] = {
    [RT_VK_CMD_vkCmdDispatch] = true, [RT_VK_CMD_vkCmdDispatchIndirect] = true,
    [RT_VK_CMD_vkCmdDispatchBase] = true, [RT_VK_CMD_vkCmdDispatchBaseKHR] = true,
};

static rt_status dump_outside(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                              enum rt_vk_cmd cmd, const void *args)
{
    struct draw_target t;
    if (p->cb->continues_pass)
        return not_saved(r, p->entry, "attachments", "a draw in a secondary command buffer, inside its primary's "
                                                     "render pass (not split by this build)");
    VkBuffer buffer;
    VkDeviceSize offset, size;
    if (dispatches[cmd])
        return replay_draws_dump_storage(r, p, dev, 1);
    if (replay_draws_buffer_dst(cmd, args, &buffer, &offset, &size))
        return r->draws->opts->buffers ? replay_draws_copy_buffer(r, p, dev, buffer, offset, size, "dst", -1, -1)
                                       : not_saved(r, p->entry, "dst", "a buffer (saved with --dump-buffers)");
    if (!image_dsts[cmd] || !image_dsts[cmd](args, &t))
        return not_saved(r, p->entry, "dst", "writes no image or buffer this build follows");
    const struct draw_image *im = lookup(&r->draws->images, key(t.image));
    if (!im)
        return not_saved(r, p->entry, "dst", "an image replay does not know");
    t.format = im->format;
    extent_of(r, t.image, t.mip, 0, 0, &t);
    return replay_draws_copy_out(r, p, dev, &t);
}

rt_status replay_draws_dump(struct replay *r, struct draw_pending *p, enum rt_vk_cmd cmd, const void *args)
{
    struct replay_device *dev = replay_device_of(r, p->cb->handle);
    if (!dev)
        return not_saved(r, p->entry, "attachments", "a command buffer of an unknown device");
    p->cb->dev = dev;
    cJSON *rendering = cJSON_AddObjectToObject(p->entry, "rendering");
    static const char *const kinds[] = {"none", "render_pass", "dynamic"};
    char rp[24], fb[24];
    snprintf(rp, sizeof rp, "0x%" PRIx64, p->cb->pass_captured);
    snprintf(fb, sizeof fb, "0x%" PRIx64, p->cb->framebuffer_captured);
    bool pass = p->cb->kind == DRAW_RENDER_PASS;
    if (!rendering || !cJSON_AddStringToObject(rendering, "kind", kinds[p->cb->kind]) ||
        !(pass ? cJSON_AddStringToObject(rendering, "render_pass", rp) : cJSON_AddNullToObject(rendering, "render_pass")) ||
        !(pass ? cJSON_AddStringToObject(rendering, "framebuffer", fb) : cJSON_AddNullToObject(rendering, "framebuffer")))
        return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
    r->own_depth++; /* validation messages about these calls are replay's */
    rt_status s = pass ? split_render_pass(r, p, dev)
                  : p->cb->kind == DRAW_DYNAMIC ? split_dynamic(r, p, dev) : dump_outside(r, p, dev, cmd, args);
    r->own_depth--;
    return s;
}

/* --- render pass variants -------------------------------------------------------- */

static bool make_variant(const struct replay_device *dev, const VkRenderPassCreateInfo *info, bool resume,
                         VkRenderPass *out)
{
    VkAttachmentDescription att[DRAW_MAX_ATTACHMENTS];
    VkRenderPassCreateInfo copy = *info;
    if (info->attachmentCount > DRAW_MAX_ATTACHMENTS)
        return false;
    for (uint32_t i = 0; i < info->attachmentCount; i++) {
        att[i] = info->pAttachments[i];
        att[i].storeOp = att[i].stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE;
        if (resume) {
            att[i].loadOp = att[i].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
            att[i].initialLayout = att[i].finalLayout;
        }
    }
    copy.pAttachments = att;
    return dev->dispatch.device.vkCreateRenderPass(dev->handle, &copy, NULL, out) == VK_SUCCESS;
}

/* RP's device, or NULL when a pass of this size is not split (the dump says why). */
static const struct replay_device *variants_device(struct replay *r, VkDevice device, uint32_t subpasses,
                                                   uint32_t attachments, struct draw_render_pass *rp)
{
    const struct replay_device *dev = replay_device_of(r, device);
    rp->device = device;
    rp->dev = dev;
    return dev && subpasses <= DRAW_MAX_SUBPASSES && attachments <= DRAW_MAX_ATTACHMENTS ? dev : NULL;
}

/* Both variants MADE: remembered under a stand-in id; else none is kept. */
static rt_status variants_made(struct replay *r, struct draw_render_pass *rp, bool made)
{
    if (!made) {
        replay_draws_render_pass_free(r, rp);
        return rt_ok_status();
    }
    rp->store_id = r->draws->next_stand_in++;
    return replay_remember(r, VK_OBJECT_TYPE_RENDER_PASS, rp->store_id, key(rp->store));
}

rt_status replay_draws_render_pass_variants(struct replay *r, VkDevice device, const VkRenderPassCreateInfo *info,
                                            struct draw_render_pass *rp)
{
    const struct replay_device *dev = variants_device(r, device, info->subpassCount, info->attachmentCount, rp);
    if (!dev)
        return rt_ok_status();
    r->own_depth++;
    bool made = make_variant(dev, info, false, &rp->store) && make_variant(dev, info, true, &rp->resume);
    r->own_depth--;
    return variants_made(r, rp, made);
}

static bool make_variant2(const struct replay_device *dev, const VkRenderPassCreateInfo2 *info, bool resume,
                          VkRenderPass *out)
{
    VkAttachmentDescription2 att[DRAW_MAX_ATTACHMENTS];
    VkRenderPassCreateInfo2 copy = *info;
    PFN_vkCreateRenderPass2 create = dev->dispatch.device.vkCreateRenderPass2 ? dev->dispatch.device.vkCreateRenderPass2
                                                                             : dev->dispatch.device.vkCreateRenderPass2KHR;
    if (info->attachmentCount > DRAW_MAX_ATTACHMENTS || !create)
        return false;
    for (uint32_t i = 0; i < info->attachmentCount; i++) {
        att[i] = info->pAttachments[i];
        att[i].storeOp = att[i].stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE;
        if (resume) {
            att[i].loadOp = att[i].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
            att[i].initialLayout = att[i].finalLayout;
        }
    }
    copy.pAttachments = att;
    return create(dev->handle, &copy, NULL, out) == VK_SUCCESS;
}

rt_status replay_draws_render_pass2_variants(struct replay *r, VkDevice device, const VkRenderPassCreateInfo2 *info,
                                             struct draw_render_pass *rp)
{
    const struct replay_device *dev = variants_device(r, device, info->subpassCount, info->attachmentCount, rp);
    if (!dev)
        return rt_ok_status();
    r->own_depth++;
    bool made = make_variant2(dev, info, false, &rp->store) && make_variant2(dev, info, true, &rp->resume);
    r->own_depth--;
    return variants_made(r, rp, made);
}

void replay_draws_render_pass_free(struct replay *r, struct draw_render_pass *rp)
{
    (void)r;
    if (!rp->dev)
        return;
    const struct rt_vk_device_dispatch *d = &rp->dev->dispatch.device;
    if (rp->store)
        d->vkDestroyRenderPass(rp->device, rp->store, NULL);
    if (rp->resume)
        d->vkDestroyRenderPass(rp->device, rp->resume, NULL);
    rp->store = rp->resume = VK_NULL_HANDLE;
    rp->store_id = 0;
    rp->dev = NULL;
}
