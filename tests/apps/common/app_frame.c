/* tests/apps/common/app_frame.c — the frame loop: acquire, record, submit,
 * screenshot, present. Fences pace the frames, or in sync2 mode one timeline
 * semaphore whose value counts submissions. */
#include "app.h"

#include <stdio.h>

static rt_status wait_slot(struct rt_app *app, const struct rt_app_slot *s)
{
    if (!app->desc->sync2) {
        RT_VK(vkWaitForFences(app->device, 1, &s->fence, VK_TRUE, UINT64_MAX));
        return rt_ok_status();
    }
    VkSemaphoreWaitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &app->timeline,
        .pValues = &s->done_value,
    };
    RT_VK(vkWaitSemaphores(app->device, &info, UINT64_MAX));
    return rt_ok_status();
}

rt_status rt_app_frame_wait(struct rt_app *app, const struct rt_app_frame *frame)
{
    return wait_slot(app, &app->slots[frame->slot]);
}

static rt_status begin_cmd(VkCommandBuffer cmd)
{
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    RT_VK(vkBeginCommandBuffer(cmd, &begin));
    return rt_ok_status();
}

static rt_status frame_begin(struct rt_app *app, uint32_t number, struct rt_app_frame *f)
{
    uint32_t slot = (number - 1) % RT_APP_SLOTS;
    struct rt_app_slot *s = &app->slots[slot];
    RT_TRY(wait_slot(app, s));
    if (s->fence)
        RT_VK(vkResetFences(app->device, 1, &s->fence));
    RT_VK(vkResetCommandPool(app->device, s->pool, 0));
    uint32_t index = slot; /* offscreen: one image per slot */
    if (app->swapchain) {
        VkResult r = vkAcquireNextImageKHR(app->device, app->swapchain, UINT64_MAX,
                                           s->acquired, VK_NULL_HANDLE, &index);
        if (r != VK_SUBOPTIMAL_KHR)
            RT_VK(r);
    }
    *f = (struct rt_app_frame){
        .number = number,
        .slot = slot,
        .image_index = index,
        .image = app->images[index],
        .view = app->views[index],
        .cmd = s->cmd[0],
        .layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
        .access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
        .kept = app->desc->keeps_target && app->shown[index] != VK_IMAGE_LAYOUT_UNDEFINED,
    };
    RT_TRY(begin_cmd(f->cmd));
    /* Old contents are discarded (unless the app keeps them). The source
     * stages chain with the acquire semaphore's wait stage and cover the
     * last frame's screenshot copy. */
    rt_app_image_barrier(app, f->cmd, f->image, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1,
                         f->kept ? app->shown[index] : VK_IMAGE_LAYOUT_UNDEFINED,
                         VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                             VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                         0, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                         VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT |
                             VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    return rt_ok_status();
}

static rt_status submit_sync2(struct rt_app *app, struct rt_app_frame *f, bool wait_acquire,
                              bool signal_rendered)
{
    struct rt_app_slot *s = &app->slots[f->slot];
    VkSemaphoreSubmitInfo wait = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
        .semaphore = s->acquired,
        .stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
    };
    s->done_value = ++app->timeline_value;
    VkSemaphoreSubmitInfo signals[2] = {
        {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
         .semaphore = app->timeline,
         .value = s->done_value,
         .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
        {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
         .semaphore = app->rendered[f->image_index],
         .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
    };
    VkCommandBufferSubmitInfo cmd = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                     .commandBuffer = f->cmd};
    VkSubmitInfo2 info = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
        .waitSemaphoreInfoCount = wait_acquire ? 1 : 0,
        .pWaitSemaphoreInfos = &wait,
        .commandBufferInfoCount = 1,
        .pCommandBufferInfos = &cmd,
        .signalSemaphoreInfoCount = signal_rendered ? 2 : 1,
        .pSignalSemaphoreInfos = signals,
    };
    RT_VK(vkQueueSubmit2(app->queue, 1, &info, VK_NULL_HANDLE));
    return rt_ok_status();
}

/* Ends and submits frame->cmd; the last submission of a frame signals the
 * slot's fence (whose scope covers every earlier submission) and the image's
 * rendered semaphore. */
static rt_status submit(struct rt_app *app, struct rt_app_frame *f, bool last)
{
    RT_VK(vkEndCommandBuffer(f->cmd));
    bool wait_acquire = app->swapchain && f->submits == 0;
    bool signal_rendered = app->swapchain && last;
    f->submits++;
    if (app->desc->sync2)
        return submit_sync2(app, f, wait_acquire, signal_rendered);
    struct rt_app_slot *s = &app->slots[f->slot];
    VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    VkSubmitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .waitSemaphoreCount = wait_acquire ? 1 : 0,
        .pWaitSemaphores = &s->acquired,
        .pWaitDstStageMask = &wait_stage,
        .commandBufferCount = 1,
        .pCommandBuffers = &f->cmd,
        .signalSemaphoreCount = signal_rendered ? 1 : 0,
        .pSignalSemaphores = &app->rendered[f->image_index],
    };
    RT_VK(vkQueueSubmit(app->queue, 1, &info, last ? s->fence : VK_NULL_HANDLE));
    return rt_ok_status();
}

rt_status rt_app_frame_split(struct rt_app *app, struct rt_app_frame *frame)
{
    if (frame->submits > 0)
        return rt_errorf(RT_ERR_INTERNAL, "a frame splits into two submissions at most");
    RT_TRY(submit(app, frame, false));
    frame->cmd = app->slots[frame->slot].cmd[1];
    return begin_cmd(frame->cmd);
}

void rt_app_frame_copy_to_buffer(struct rt_app *app, struct rt_app_frame *f, VkBuffer buffer)
{
    /* Legacy stage and access bits: they have the same values in sync2. */
    if (f->layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
        rt_app_image_barrier(app, f->cmd, f->image, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, f->layout,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, f->stage, f->access,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region = {
        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {app->extent.width, app->extent.height, 1},
    };
    vkCmdCopyImageToBuffer(f->cmd, f->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1,
                           &region);
    rt_app_memory_barrier(app, f->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                          VK_ACCESS_HOST_READ_BIT);
    f->layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    f->stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    f->access = VK_ACCESS_TRANSFER_READ_BIT;
}

static rt_status present(struct rt_app *app, struct rt_app_frame *f)
{
    VkPresentInfoKHR info = {
        .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
        .waitSemaphoreCount = 1,
        .pWaitSemaphores = &app->rendered[f->image_index],
        .swapchainCount = 1,
        .pSwapchains = &app->swapchain,
        .pImageIndices = &f->image_index,
    };
    VkResult r = vkQueuePresentKHR(app->queue, &info);
    if (r != VK_SUBOPTIMAL_KHR)
        RT_VK(r);
    return rt_ok_status();
}

static rt_status frame_end(struct rt_app *app, struct rt_app_frame *f)
{
    bool shot = rt_app_wants_screenshot(&app->args, f->number);
    if (shot)
        rt_app_frame_copy_to_buffer(app, f, app->shot.buffer);
    if (app->swapchain) {
        /* Presentation is outside any pipeline stage: no destination scope. */
        VkPipelineStageFlags2 dst = app->desc->sync2 ? VK_PIPELINE_STAGE_2_NONE
                                                     : VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT;
        rt_app_image_barrier(app, f->cmd, f->image, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, f->layout,
                             VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, f->stage, f->access, dst, 0);
        f->layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    }
    app->shown[f->image_index] = f->layout;
    RT_TRY(submit(app, f, true));
    if (app->swapchain)
        RT_TRY(present(app, f));
    if (!shot)
        return rt_ok_status();
    RT_TRY(rt_app_frame_wait(app, f));
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/frame_%06u.png", app->args.screenshot_dir,
                     f->number);
    if (n < 0 || (size_t)n >= sizeof path)
        return rt_errorf(RT_ERR_USAGE, "--screenshot-dir is too long");
    return rt_app_write_png(path, app->extent.width, app->extent.height, app->shot.mapped,
                            app->format);
}

rt_status rt_app_run_frames(struct rt_app *app, void *user)
{
    for (uint32_t n = 1; n <= app->args.frames; n++) {
        struct rt_app_frame f;
        RT_TRY(frame_begin(app, n, &f));
        RT_TRY(app->desc->record(app, user, &f));
        RT_TRY(frame_end(app, &f));
        if (app->desc->after_frame)
            RT_TRY(app->desc->after_frame(app, user, &f));
    }
    return rt_ok_status();
}
