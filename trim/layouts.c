/*
 * trim/layouts.c — the layout every image subresource is in at frame A, as
 * the submitted work left it. A recorded barrier, render pass (its
 * attachments' final layouts) or secondary command buffer is a layout change
 * the command buffer makes when it runs; a submit runs them in order. Also
 * the facts this needs from creation calls: image shapes, views, render
 * passes, framebuffers, swapchain images, buffer sizes, semaphore types.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_snapshot.h"
#include "trim_internal.h"

#define ID(h) ((uint64_t)(uintptr_t)(h))

static uint32_t add_info(void **array, uint32_t *count, uint32_t *cap, size_t size)
{
    if (!trim_grow(array, cap, *count, size))
        return TRIM_NONE;
    return (*count)++;
}

static void add_image(struct trim_state *t, uint32_t object, const struct trim_image *shape)
{
    uint32_t i = add_info((void **)&t->images, &t->image_count, &t->image_cap, sizeof *t->images);
    if (i == TRIM_NONE)
        return;
    t->images[i] = *shape;
    size_t n = (size_t)shape->mips * shape->layers;
    t->images[i].layouts = malloc((n ? n : 1) * sizeof(VkImageLayout));
    for (size_t k = 0; t->images[i].layouts && k < n; k++)
        t->images[i].layouts[k] = shape->layouts ? shape->layouts[0] : VK_IMAGE_LAYOUT_UNDEFINED;
    t->objects[object].info = i;
}

static void image_created(struct trim_state *t, uint32_t object, const VkImageCreateInfo *c)
{
    if (!c)
        return;
    VkImageLayout initial = c->initialLayout;
    struct trim_image shape = {.format = c->format, .type = c->imageType, .extent = c->extent,
                               .mips = c->mipLevels, .layers = c->arrayLayers, .samples = c->samples,
                               .transient = (c->usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT) != 0,
                               .sparse = (c->flags & VK_IMAGE_CREATE_SPARSE_BINDING_BIT) != 0, .layouts = &initial};
    add_image(t, object, &shape);
}

/* A swapchain keeps its images' shape; vkGetSwapchainImagesKHR hands it on. */
static void swapchain_created(struct trim_state *t, uint32_t object, const VkSwapchainCreateInfoKHR *c)
{
    if (!c)
        return;
    struct trim_image shape = {.format = c->imageFormat, .type = VK_IMAGE_TYPE_2D,
                               .extent = {c->imageExtent.width, c->imageExtent.height, 1}, .mips = 1,
                               .layers = c->imageArrayLayers, .samples = VK_SAMPLE_COUNT_1_BIT, .swapchain = true};
    add_image(t, object, &shape);
}

static void swapchain_image(struct trim_state *t, uint32_t object)
{
    uint32_t sc = t->objects[object].owner;
    if (sc == TRIM_NONE || t->objects[sc].info == TRIM_NONE)
        return;
    struct trim_image shape = t->images[t->objects[sc].info];
    shape.layouts = NULL;
    add_image(t, object, &shape);
}

static void view_created(struct trim_state *t, uint32_t object, const VkImageViewCreateInfo *c)
{
    uint32_t i = c ? add_info((void **)&t->views, &t->view_count, &t->view_cap, sizeof *t->views) : TRIM_NONE;
    if (i == TRIM_NONE)
        return;
    t->views[i] = (struct trim_view){trim_object_find(t, VK_OBJECT_TYPE_IMAGE, ID(c->image)), c->subresourceRange};
    t->objects[object].info = i;
}

static void pass_created(struct trim_state *t, uint32_t object, uint32_t count, const void *attachments, size_t stride,
                         size_t final_offset)
{
    uint32_t i = add_info((void **)&t->passes, &t->pass_count, &t->pass_cap, sizeof *t->passes);
    if (i == TRIM_NONE)
        return;
    t->passes[i].final_layouts = calloc(count ? count : 1, sizeof(VkImageLayout));
    t->passes[i].count = t->passes[i].final_layouts ? count : 0;
    for (uint32_t k = 0; k < t->passes[i].count; k++)
        memcpy(&t->passes[i].final_layouts[k], (const char *)attachments + k * stride + final_offset,
               sizeof(VkImageLayout));
    t->objects[object].info = i;
}

static void framebuffer_created(struct trim_state *t, uint32_t object, const VkFramebufferCreateInfo *c)
{
    uint32_t i = c ? add_info((void **)&t->framebuffers, &t->framebuffer_count, &t->framebuffer_cap,
                              sizeof *t->framebuffers) : TRIM_NONE;
    if (i == TRIM_NONE)
        return;
    bool imageless = (c->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT) != 0;
    uint32_t n = imageless || !c->pAttachments ? 0 : c->attachmentCount;
    t->framebuffers[i].views = calloc(n ? n : 1, sizeof(uint32_t));
    t->framebuffers[i].count = t->framebuffers[i].views ? n : 0;
    for (uint32_t k = 0; k < t->framebuffers[i].count; k++)
        t->framebuffers[i].views[k] = trim_object_find(t, VK_OBJECT_TYPE_IMAGE_VIEW, ID(c->pAttachments[k]));
    t->objects[object].info = i;
}

static bool timeline_type(const void *next)
{
    for (const VkBaseInStructure *n = next; n; n = n->pNext)
        if (n->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO)
            return ((const VkSemaphoreTypeCreateInfo *)n)->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE;
    return false;
}

/* A query pool's shape: what reading its availability needs. */
static void query_pool_created(struct trim_object *o, const VkQueryPoolCreateInfo *c)
{
    if (!c)
        return;
    o->query_type = (uint32_t)c->queryType;
    o->query_count = c->queryCount;
    o->query_values = c->queryType == VK_QUERY_TYPE_PIPELINE_STATISTICS
                          ? (uint32_t)__builtin_popcount(c->pipelineStatistics | 1u)
                      : c->queryType == VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT ? 2 : 1;
}

static void cmdbuf_created(struct trim_state *t, uint32_t object)
{
    uint32_t i = add_info((void **)&t->cmdbufs, &t->cmdbuf_count, &t->cmdbuf_cap, sizeof *t->cmdbufs);
    if (i != TRIM_NONE)
        t->objects[object].info = i;
}

static void pass2_created(struct trim_state *t, uint32_t object, const VkRenderPassCreateInfo2 *c)
{
    if (c)
        pass_created(t, object, c->attachmentCount, c->pAttachments, sizeof *c->pAttachments,
                     offsetof(VkAttachmentDescription2, finalLayout));
}

static void pass1_created(struct trim_state *t, uint32_t object, const VkRenderPassCreateInfo *c)
{
    if (c)
        pass_created(t, object, c->attachmentCount, c->pAttachments, sizeof *c->pAttachments,
                     offsetof(VkAttachmentDescription, finalLayout));
}

static void buffer_created(struct trim_object *o, const VkBufferCreateInfo *c)
{
    o->size = c ? c->size : 0;
    o->sparse = c && (c->flags & VK_BUFFER_CREATE_SPARSE_BINDING_BIT);
}

/* The argument block each shape is read as: gen/command_flags.py's trim_args. */
void trim_layouts_created(struct trim_state *t, enum rt_vk_cmd cmd, const void *args, uint32_t object,
                          uint32_t index)
{
    (void)index;
    struct trim_object *o = &t->objects[object];
    const VkSemaphoreCreateInfo *semaphore;
    switch ((enum rt_vk_trim_args)rt_vk_commands[cmd].trim_args) {
    case RT_VK_TRIM_ARGS_IMAGE_INFO:
        image_created(t, object, ((const struct rt_vk_args_vkCreateImage *)args)->pCreateInfo);
        break;
    case RT_VK_TRIM_ARGS_SWAPCHAIN_IMAGES:
        swapchain_image(t, object);
        break;
    case RT_VK_TRIM_ARGS_SWAPCHAIN_INFO:
        swapchain_created(t, object, ((const struct rt_vk_args_vkCreateSwapchainKHR *)args)->pCreateInfo);
        break;
    case RT_VK_TRIM_ARGS_VIEW_INFO:
        view_created(t, object, ((const struct rt_vk_args_vkCreateImageView *)args)->pCreateInfo);
        break;
    case RT_VK_TRIM_ARGS_RENDER_PASS_INFO:
        pass1_created(t, object, ((const struct rt_vk_args_vkCreateRenderPass *)args)->pCreateInfo);
        break;
    case RT_VK_TRIM_ARGS_RENDER_PASS2_INFO:
        pass2_created(t, object, ((const struct rt_vk_args_vkCreateRenderPass2 *)args)->pCreateInfo);
        break;
    case RT_VK_TRIM_ARGS_FRAMEBUFFER_INFO:
        framebuffer_created(t, object, ((const struct rt_vk_args_vkCreateFramebuffer *)args)->pCreateInfo);
        break;
    case RT_VK_TRIM_ARGS_BUFFER_INFO:
        buffer_created(o, ((const struct rt_vk_args_vkCreateBuffer *)args)->pCreateInfo);
        break;
    case RT_VK_TRIM_ARGS_SEMAPHORE_INFO:
        semaphore = ((const struct rt_vk_args_vkCreateSemaphore *)args)->pCreateInfo;
        o->timeline = semaphore && timeline_type(semaphore->pNext);
        break;
    case RT_VK_TRIM_ARGS_ALLOCATE_COMMAND_BUFFERS:
        cmdbuf_created(t, object);
        break;
    case RT_VK_TRIM_ARGS_QUERY_POOL_INFO:
        query_pool_created(o, ((const struct rt_vk_args_vkCreateQueryPool *)args)->pCreateInfo);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ recording */

static struct trim_cmdbuf *cmdbuf(struct trim_state *t, uint32_t cb)
{
    return cb != TRIM_NONE && t->objects[cb].info != TRIM_NONE ? &t->cmdbufs[t->objects[cb].info] : NULL;
}

static void push(struct trim_state *t, uint32_t cb, const struct trim_transition *tr)
{
    struct trim_cmdbuf *c = cmdbuf(t, cb);
    if (c && trim_grow((void **)&c->transitions, &c->transition_cap, c->transition_count, sizeof *c->transitions))
        c->transitions[c->transition_count++] = *tr;
}

static void barrier(struct trim_state *t, uint32_t cb, uint64_t image, VkImageLayout from, VkImageLayout to,
                    VkImageSubresourceRange range)
{
    if (from == to) /* no layout change: an ownership transfer or a plain dependency */
        return;
    struct trim_transition tr = {.image = trim_object_find(t, VK_OBJECT_TYPE_IMAGE, image), .exec = TRIM_NONE,
                                 .layout = to, .base_mip = range.baseMipLevel, .mips = range.levelCount,
                                 .base_layer = range.baseArrayLayer, .layers = range.layerCount};
    if (tr.image != TRIM_NONE)
        push(t, cb, &tr);
}

static void barriers1(struct trim_state *t, uint32_t cb, uint32_t n, const VkImageMemoryBarrier *b)
{
    for (uint32_t i = 0; b && i < n; i++)
        barrier(t, cb, ID(b[i].image), b[i].oldLayout, b[i].newLayout, b[i].subresourceRange);
}

static void dependency(struct trim_state *t, uint32_t cb, const VkDependencyInfo *d)
{
    for (uint32_t i = 0; d && d->pImageMemoryBarriers && i < d->imageMemoryBarrierCount; i++) {
        const VkImageMemoryBarrier2 *b = &d->pImageMemoryBarriers[i];
        barrier(t, cb, ID(b->image), b->oldLayout, b->newLayout, b->subresourceRange);
    }
}

static const VkImageView *begin_views(const VkRenderPassBeginInfo *b, uint32_t *count)
{
    for (const VkBaseInStructure *n = b->pNext; n; n = n->pNext)
        if (n->sType == VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO) {
            const VkRenderPassAttachmentBeginInfo *a = (const void *)n;
            *count = a->attachmentCount;
            return a->pAttachments;
        }
    return NULL;
}

/* A render pass leaves each attachment in its final layout. */
static void render_pass(struct trim_state *t, uint32_t cb, const VkRenderPassBeginInfo *b)
{
    uint32_t rp = b ? trim_object_find(t, VK_OBJECT_TYPE_RENDER_PASS, ID(b->renderPass)) : TRIM_NONE;
    uint32_t fb = b ? trim_object_find(t, VK_OBJECT_TYPE_FRAMEBUFFER, ID(b->framebuffer)) : TRIM_NONE;
    if (rp == TRIM_NONE || fb == TRIM_NONE || t->objects[rp].info == TRIM_NONE || t->objects[fb].info == TRIM_NONE)
        return;
    const struct trim_pass *pass = &t->passes[t->objects[rp].info];
    const struct trim_framebuffer *f = &t->framebuffers[t->objects[fb].info];
    uint32_t imageless_count = 0;
    const VkImageView *imageless = begin_views(b, &imageless_count);
    for (uint32_t i = 0; i < pass->count; i++) {
        uint32_t view = imageless && i < imageless_count ? trim_object_find(t, VK_OBJECT_TYPE_IMAGE_VIEW, ID(imageless[i]))
                        : i < f->count ? f->views[i] : TRIM_NONE;
        if (view == TRIM_NONE || t->objects[view].info == TRIM_NONE)
            continue;
        const struct trim_view *v = &t->views[t->objects[view].info];
        struct trim_transition tr = {.image = v->image, .exec = TRIM_NONE, .layout = pass->final_layouts[i],
                                     .base_mip = v->range.baseMipLevel, .mips = v->range.levelCount,
                                     .base_layer = v->range.baseArrayLayer, .layers = v->range.layerCount};
        if (tr.image != TRIM_NONE)
            push(t, cb, &tr);
    }
}

static void execute(struct trim_state *t, uint32_t cb, const struct rt_vk_args_vkCmdExecuteCommands *a)
{
    for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++) {
        struct trim_transition tr = {.image = TRIM_NONE,
            .exec = trim_object_find(t, VK_OBJECT_TYPE_COMMAND_BUFFER, ID(a->pCommandBuffers[i]))};
        if (tr.exec != TRIM_NONE)
            push(t, cb, &tr);
    }
}

static void wait_events2(struct trim_state *t, uint32_t cb, const struct rt_vk_args_vkCmdWaitEvents2 *a)
{
    for (uint32_t i = 0; a->pDependencyInfos && i < a->eventCount; i++)
        dependency(t, cb, &a->pDependencyInfos[i]);
}

void trim_layouts_record(struct trim_state *t, uint32_t cb, enum rt_vk_cmd cmd, const void *args)
{
    const struct rt_vk_args_vkCmdPipelineBarrier *barrier = args;
    const struct rt_vk_args_vkCmdWaitEvents *wait = args;
    switch ((enum rt_vk_trim_args)rt_vk_commands[cmd].trim_args) {
    case RT_VK_TRIM_ARGS_BARRIER:
        barriers1(t, cb, barrier->imageMemoryBarrierCount, barrier->pImageMemoryBarriers);
        break;
    case RT_VK_TRIM_ARGS_WAIT_EVENTS:
        barriers1(t, cb, wait->imageMemoryBarrierCount, wait->pImageMemoryBarriers);
        break;
    case RT_VK_TRIM_ARGS_DEPENDENCY:
        dependency(t, cb, ((const struct rt_vk_args_vkCmdPipelineBarrier2 *)args)->pDependencyInfo);
        break;
    case RT_VK_TRIM_ARGS_DEPENDENCIES:
        wait_events2(t, cb, args);
        break;
    case RT_VK_TRIM_ARGS_RENDER_PASS_BEGIN:
        render_pass(t, cb, ((const struct rt_vk_args_vkCmdBeginRenderPass *)args)->pRenderPassBegin);
        break;
    case RT_VK_TRIM_ARGS_RENDER_PASS_BEGIN2:
        render_pass(t, cb, ((const struct rt_vk_args_vkCmdBeginRenderPass2 *)args)->pRenderPassBegin);
        break;
    case RT_VK_TRIM_ARGS_EXECUTE_COMMANDS:
        execute(t, cb, args);
        break;
    default:
        break;
    }
}

static void apply(struct trim_state *t, const struct trim_transition *tr)
{
    if (t->objects[tr->image].info == TRIM_NONE)
        return;
    struct trim_image *img = &t->images[t->objects[tr->image].info];
    if (!img->layouts)
        return;
    uint32_t mips = tr->mips == VK_REMAINING_MIP_LEVELS ? img->mips - tr->base_mip : tr->mips;
    uint32_t layers = tr->layers == VK_REMAINING_ARRAY_LAYERS ? img->layers - tr->base_layer : tr->layers;
    for (uint32_t m = tr->base_mip; m < tr->base_mip + mips && m < img->mips; m++)
        for (uint32_t l = tr->base_layer; l < tr->base_layer + layers && l < img->layers; l++)
            img->layouts[(size_t)m * img->layers + l] = tr->layout;
}

static void run(struct trim_state *t, uint32_t cb, unsigned depth)
{
    struct trim_cmdbuf *c = cmdbuf(t, cb);
    for (uint32_t i = 0; c && depth < 4 && i < c->transition_count; i++) {
        if (c->transitions[i].image != TRIM_NONE)
            apply(t, &c->transitions[i]);
        else
            run(t, c->transitions[i].exec, depth + 1);
    }
}

void trim_layouts_submit(struct trim_state *t, uint32_t cb)
{
    run(t, cb, 0);
}

void trim_track_snapshot(struct trim_state *t, const struct rt_trace_packet *p)
{
    struct rt_trace_image_content c;
    struct rt_trace_sync_state s;
    if (rt_trace_image_content_decode(p, &c)) {
        struct trim_transition tr = {.image = trim_object_find(t, VK_OBJECT_TYPE_IMAGE, c.image_id),
                                     .layout = (VkImageLayout)c.layout, .base_mip = c.mip, .mips = 1,
                                     .base_layer = c.layer, .layers = 1};
        if (tr.image != TRIM_NONE)
            apply(t, &tr);
    } else if (rt_trace_sync_state_decode(p, &s) && s.object_type == VK_OBJECT_TYPE_SEMAPHORE && !s.timeline) {
        uint32_t o = trim_object_find(t, VK_OBJECT_TYPE_SEMAPHORE, s.object_id);
        if (o != TRIM_NONE)
            t->objects[o].signaled = s.value != 0;
    }
}
