/* tests/apps/race.c — rt_app_race: the readback race. Each frame draws the
 * grid into an image of its own and submits the draws under fence A; a second
 * submission copies the image into a host buffer under fence B, and the app
 * waits only for B before reading the buffer. Nothing orders the copy after
 * the draws: no barrier, no semaphore, no wait on A. A driver that runs
 * submissions in order (lavapipe) reads the right pixels anyway, so the app's
 * check of every cell passes there; Khronos synchronization validation
 * reports the hazard, and `retrace replay --workarounds readback-barrier`
 * removes it. The presented frame draws the same grid again, properly. */
#include "grid.h"

#include <stdio.h>

struct race {
    struct rt_app_image image;   /* what the draws render into */
    struct rt_app_buffer cells;  /* the grid's colours, rewritten each frame */
    struct rt_app_buffer host;   /* the read-back pixels */
    VkRenderPass pass, frame_pass;
    VkFramebuffer framebuffer, frame_framebuffers[RT_APP_MAX_IMAGES];
    VkCommandPool pool;
    VkCommandBuffer draw_cmd, copy_cmd;
    VkFence draw_fence, copy_fence;
    struct grid grid, frame_grid; /* one per render pass */
    uint32_t checked;
};

/* The draws leave the image ready to be copied: the race is in what orders
 * the copy after them (nothing does). */
static rt_status create_pass(struct rt_app *app, struct race *rc)
{
    VkAttachmentDescription att = {
        .format = app->format, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
    };
    VkAttachmentReference ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                    .colorAttachmentCount = 1, .pColorAttachments = &ref};
    VkRenderPassCreateInfo info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
                                   .pAttachments = &att, .subpassCount = 1, .pSubpasses = &subpass};
    RT_VK(vkCreateRenderPass(app->device, &info, NULL, &rc->pass));
    VkFramebufferCreateInfo fb = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = rc->pass,
                                  .attachmentCount = 1, .pAttachments = &rc->image.view,
                                  .width = app->extent.width, .height = app->extent.height, .layers = 1};
    RT_VK(vkCreateFramebuffer(app->device, &fb, NULL, &rc->framebuffer));
    return rt_ok_status();
}

static rt_status create_submissions(struct rt_app *app, struct race *rc)
{
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = app->queue_family};
    RT_VK(vkCreateCommandPool(app->device, &pool, NULL, &rc->pool));
    VkCommandBuffer cmds[2];
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = rc->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 2};
    RT_VK(vkAllocateCommandBuffers(app->device, &alloc, cmds));
    rc->draw_cmd = cmds[0];
    rc->copy_cmd = cmds[1];
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    RT_VK(vkCreateFence(app->device, &fence, NULL, &rc->draw_fence));
    RT_VK(vkCreateFence(app->device, &fence, NULL, &rc->copy_fence));
    return rt_ok_status();
}

static rt_status race_setup(struct rt_app *app, void *user)
{
    struct race *rc = user;
    VkDeviceSize pixels = (VkDeviceSize)app->extent.width * app->extent.height * 4;
    RT_TRY(rt_app_image_create(app, app->format, app->extent, 1,
                               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                               VK_IMAGE_ASPECT_COLOR_BIT, &rc->image));
    RT_TRY(rt_app_buffer_create(app, GRID_CELLS * sizeof(uint32_t), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &rc->cells));
    RT_TRY(rt_app_buffer_create(app, pixels, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &rc->host));
    RT_TRY(create_pass(app, rc));
    RT_TRY(create_submissions(app, rc));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &rc->frame_pass));
    RT_TRY(rt_app_framebuffers(app, rc->frame_pass, VK_NULL_HANDLE, rc->frame_framebuffers));
    RT_TRY(grid_setup(app, &rc->frame_grid, rc->frame_pass, rc->cells.buffer));
    return grid_setup(app, &rc->grid, rc->pass, rc->cells.buffer);
}

static rt_status submit(struct rt_app *app, VkCommandBuffer cmd, VkFence fence)
{
    RT_VK(vkEndCommandBuffer(cmd));
    VkSubmitInfo info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    RT_VK(vkQueueSubmit(app->queue, 1, &info, fence));
    return rt_ok_status();
}

static rt_status begin(VkCommandBuffer cmd)
{
    VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                     .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    RT_VK(vkBeginCommandBuffer(cmd, &info));
    return rt_ok_status();
}

/* Submission A: the grid's draws, under their own fence. */
static rt_status draw(struct rt_app *app, struct race *rc, uint32_t frame)
{
    uint32_t *cells = rc->cells.mapped;
    for (uint32_t i = 0; i < GRID_CELLS; i++)
        cells[i] = grid_color(i, frame);
    RT_TRY(begin(rc->draw_cmd));
    VkClearValue clear = {.color = {{0, 0, 0, 1}}};
    rt_app_begin_render_pass(app, rc->draw_cmd, rc->pass, rc->framebuffer,
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    grid_draw(&rc->grid, rc->draw_cmd, app->extent);
    vkCmdEndRenderPass(rc->draw_cmd);
    return submit(app, rc->draw_cmd, rc->draw_fence);
}

/* Submission B: the copy, with no barrier from the draws (the race). */
static rt_status copy(struct rt_app *app, struct race *rc)
{
    RT_TRY(begin(rc->copy_cmd));
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {app->extent.width, app->extent.height, 1}};
    vkCmdCopyImageToBuffer(rc->copy_cmd, rc->image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rc->host.buffer, 1,
                           &region);
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(rc->copy_cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                         NULL, 0, NULL);
    return submit(app, rc->copy_cmd, rc->copy_fence);
}

/* Every cell's centre in the read-back pixels, as the grid draws it. */
static rt_status check(struct rt_app *app, struct race *rc, uint32_t frame)
{
    const uint8_t *px = rc->host.mapped;
    bool bgra = app->format == VK_FORMAT_B8G8R8A8_UNORM;
    for (uint32_t i = 0; i < GRID_CELLS; i++) {
        uint32_t x = (i % GRID_COLS) * app->extent.width / GRID_COLS + app->extent.width / GRID_COLS / 2;
        uint32_t y = (i / GRID_COLS) * app->extent.height / GRID_ROWS + app->extent.height / GRID_ROWS / 2;
        const uint8_t *p = px + 4 * ((size_t)y * app->extent.width + x);
        uint32_t got = (uint32_t)p[bgra ? 2 : 0] | (uint32_t)p[1] << 8 | (uint32_t)p[bgra ? 0 : 2] << 16 |
                       (uint32_t)p[3] << 24;
        if (got != grid_color(i, frame))
            return rt_errorf(RT_ERR_FAILED, "race: frame %u cell %u: RGBA %08x, expected %08x", frame, i, got,
                             grid_color(i, frame));
        rc->checked++;
    }
    return rt_ok_status();
}

/* The presented frame: the same grid, drawn in the frame's own submission. */
static void draw_frame(struct rt_app *app, struct race *rc, struct rt_app_frame *f)
{
    VkClearValue clear = {.color = {{0, 0, 0, 1}}};
    rt_app_begin_render_pass(app, f->cmd, rc->frame_pass, rc->frame_framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    grid_draw(&rc->frame_grid, f->cmd, app->extent);
    vkCmdEndRenderPass(f->cmd);
}

static rt_status race_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct race *rc = user;
    RT_VK(vkQueueWaitIdle(app->queue)); /* the last frame read the cells this one rewrites */
    RT_TRY(draw(app, rc, f->number));
    RT_TRY(copy(app, rc));
    RT_VK(vkWaitForFences(app->device, 1, &rc->copy_fence, VK_TRUE, UINT64_MAX)); /* only the copy's */
    RT_TRY(check(app, rc, f->number));
    /* Before the command buffers and the image are used again. */
    RT_VK(vkWaitForFences(app->device, 1, &rc->draw_fence, VK_TRUE, UINT64_MAX));
    VkFence fences[2] = {rc->draw_fence, rc->copy_fence};
    RT_VK(vkResetFences(app->device, 2, fences));
    draw_frame(app, rc, f);
    if (f->number == app->args.frames)
        printf("rt_app_race: %u cells checked over %u frames, all as drawn\n", rc->checked, f->number);
    return rt_ok_status();
}

static void race_teardown(struct rt_app *app, void *user)
{
    struct race *rc = user;
    grid_teardown(app, &rc->grid);
    grid_teardown(app, &rc->frame_grid);
    vkDestroyFence(app->device, rc->draw_fence, NULL);
    vkDestroyFence(app->device, rc->copy_fence, NULL);
    vkDestroyCommandPool(app->device, rc->pool, NULL);
    vkDestroyFramebuffer(app->device, rc->framebuffer, NULL);
    rt_app_framebuffers_destroy(app, rc->frame_framebuffers);
    vkDestroyRenderPass(app->device, rc->frame_pass, NULL);
    vkDestroyRenderPass(app->device, rc->pass, NULL);
    rt_app_buffer_destroy(app, &rc->host);
    rt_app_buffer_destroy(app, &rc->cells);
    rt_app_image_destroy(app, &rc->image);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "race",
        .summary = "The readback race: draws under one fence, the copy in a second submission\n"
                   "that waits only its own fence, no barrier between them; checks every cell.",
        .setup = race_setup,
        .record = race_record,
        .teardown = race_teardown,
    };
    struct race rc = {0};
    return rt_app_main(&desc, &rc, argc, argv);
}
