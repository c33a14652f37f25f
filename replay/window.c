/* replay/window.c — `--window`: shows the replayed frames in an X11 window.
 * The replay still renders into its virtual swapchain; at each present the
 * presented image is blitted into a real swapchain of an XCB window. */
#include <stdlib.h>
#include <xcb/xcb.h>

#include "replay_internal.h"

#define MAX_WINDOW_IMAGES 8

struct replay_window {
    xcb_connection_t *conn;
    xcb_window_t window;
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    VkImage images[MAX_WINDOW_IMAGES];
    uint32_t count;
    VkExtent2D extent;
    VkSemaphore acquired, blitted;
    VkFence fence;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    struct replay_device *dev;
};

static rt_status open_window(struct replay_window *w, VkExtent2D extent)
{
    w->conn = xcb_connect(NULL, NULL);
    if (!w->conn || xcb_connection_has_error(w->conn))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "--window needs an X11 display (DISPLAY is not usable)");
    xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(w->conn)).data;
    w->window = xcb_generate_id(w->conn);
    xcb_create_window(w->conn, XCB_COPY_FROM_PARENT, w->window, screen->root, 0, 0, (uint16_t)extent.width,
                      (uint16_t)extent.height, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, 0, NULL);
    xcb_change_property(w->conn, XCB_PROP_MODE_REPLACE, w->window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 7,
                        "retrace");
    xcb_map_window(w->conn, w->window);
    xcb_flush(w->conn);
    return rt_ok_status();
}

static rt_status make_swapchain(struct replay_window *w, VkExtent2D extent)
{
    const struct rt_vk_device_dispatch *d = &w->dev->dispatch.device;
    const struct replay_instance *inst = w->dev->instance; /* the window's device's, of those alive */
    VkXcbSurfaceCreateInfoKHR si = {.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR, .connection = w->conn,
                                    .window = w->window};
    /* Platform entries are PFN_vkVoidFunction in the shared table layout. */
    PFN_vkCreateXcbSurfaceKHR create = (PFN_vkCreateXcbSurfaceKHR)inst->dispatch.vkCreateXcbSurfaceKHR;
    if (!create || create(inst->handle, &si, NULL, &w->surface) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "--window: cannot create an XCB surface");
    VkSurfaceCapabilitiesKHR caps;
    inst->dispatch.vkGetPhysicalDeviceSurfaceCapabilitiesKHR(inst->gpu, w->surface, &caps);
    w->extent = caps.currentExtent.width == UINT32_MAX ? extent : caps.currentExtent;
    VkSwapchainCreateInfoKHR ci = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = w->surface,
        .minImageCount = caps.minImageCount, .imageFormat = VK_FORMAT_B8G8R8A8_UNORM,
        .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR, .imageExtent = w->extent, .imageArrayLayers = 1,
        .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT, .preTransform = caps.currentTransform,
        .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR, .presentMode = VK_PRESENT_MODE_FIFO_KHR, .clipped = VK_TRUE};
    if (!d->vkCreateSwapchainKHR || d->vkCreateSwapchainKHR(w->dev->handle, &ci, NULL, &w->swapchain) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "--window: cannot create a swapchain for the window");
    w->count = MAX_WINDOW_IMAGES;
    d->vkGetSwapchainImagesKHR(w->dev->handle, w->swapchain, &w->count, w->images);
    return rt_ok_status();
}

static rt_status make_sync(struct replay_window *w, uint32_t family)
{
    const struct rt_vk_device_dispatch *d = &w->dev->dispatch.device;
    VkSemaphoreCreateInfo sem = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = family};
    if (d->vkCreateSemaphore(w->dev->handle, &sem, NULL, &w->acquired) != VK_SUCCESS ||
        d->vkCreateSemaphore(w->dev->handle, &sem, NULL, &w->blitted) != VK_SUCCESS ||
        d->vkCreateFence(w->dev->handle, &fence, NULL, &w->fence) != VK_SUCCESS ||
        d->vkCreateCommandPool(w->dev->handle, &pool, NULL, &w->pool) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "--window: cannot create synchronisation objects");
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = w->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    if (d->vkAllocateCommandBuffers(w->dev->handle, &alloc, &w->cmd) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "--window: cannot allocate a command buffer");
    return rt_ok_status();
}

static void barrier(const struct rt_vk_device_dispatch *d, VkCommandBuffer cmd, VkImage image, VkImageLayout from,
                    VkImageLayout to, VkAccessFlags src, VkAccessFlags dst)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src,
                              .dstAccessMask = dst, .oldLayout = from, .newLayout = to,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .image = image, .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    d->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL,
                            0, NULL, 1, &b);
}

static void record_blit(struct replay_window *w, VkImage from, VkExtent2D extent, VkImage to)
{
    const struct rt_vk_device_dispatch *d = &w->dev->dispatch.device;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    d->vkBeginCommandBuffer(w->cmd, &begin);
    barrier(d, w->cmd, from, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
            VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    barrier(d, w->cmd, to, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    VkImageBlit region = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                          .srcOffsets = {{0, 0, 0}, {(int32_t)extent.width, (int32_t)extent.height, 1}},
                          .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                          .dstOffsets = {{0, 0, 0}, {(int32_t)w->extent.width, (int32_t)w->extent.height, 1}}};
    d->vkCmdBlitImage(w->cmd, from, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, to, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      1, &region, VK_FILTER_NEAREST);
    barrier(d, w->cmd, to, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
            VK_ACCESS_TRANSFER_WRITE_BIT, 0);
    barrier(d, w->cmd, from, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
            VK_ACCESS_TRANSFER_READ_BIT, 0);
    d->vkEndCommandBuffer(w->cmd);
}

static rt_status open_all(struct replay_window *w, struct replay_device *dev, uint32_t family,
                          VkExtent2D extent)
{
    w->dev = dev;
    RT_TRY(open_window(w, extent));
    RT_TRY(make_swapchain(w, extent));
    return make_sync(w, family);
}

rt_status replay_window_present(struct replay *r, struct replay_device *dev, VkQueue queue, uint32_t family,
                                VkImage image, VkExtent2D extent)
{
    if (!r->window) {
        r->window = calloc(1, sizeof *r->window);
        if (!r->window)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        RT_TRY(open_all(r->window, dev, family, extent));
    }
    struct replay_window *w = r->window;
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    uint32_t index = 0;
    VkResult result = d->vkAcquireNextImageKHR(dev->handle, w->swapchain, UINT64_MAX, w->acquired, VK_NULL_HANDLE, &index);
    if (result < 0 || index >= w->count)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "--window: cannot acquire a window image (%s)", replay_result_name(result));
    record_blit(w, image, extent, w->images[index]);
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &w->acquired, .pWaitDstStageMask = &stage, .commandBufferCount = 1,
                           .pCommandBuffers = &w->cmd, .signalSemaphoreCount = 1, .pSignalSemaphores = &w->blitted};
    d->vkQueueSubmit(queue, 1, &submit, w->fence);
    VkPresentInfoKHR present = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .waitSemaphoreCount = 1,
                                .pWaitSemaphores = &w->blitted, .swapchainCount = 1, .pSwapchains = &w->swapchain,
                                .pImageIndices = &index};
    d->vkQueuePresentKHR(queue, &present);
    d->vkWaitForFences(dev->handle, 1, &w->fence, VK_TRUE, UINT64_MAX);
    d->vkResetFences(dev->handle, 1, &w->fence);
    return rt_ok_status();
}

const struct replay_device *replay_window_device(const struct replay *r)
{
    return r->window ? r->window->dev : NULL;
}

void replay_window_finish(struct replay *r)
{
    struct replay_window *w = r->window;
    if (!w)
        return;
    if (w->dev) {
        const struct rt_vk_device_dispatch *d = &w->dev->dispatch.device;
        d->vkDeviceWaitIdle(w->dev->handle);
        if (w->pool)
            d->vkDestroyCommandPool(w->dev->handle, w->pool, NULL);
        if (w->fence)
            d->vkDestroyFence(w->dev->handle, w->fence, NULL);
        if (w->acquired)
            d->vkDestroySemaphore(w->dev->handle, w->acquired, NULL);
        if (w->blitted)
            d->vkDestroySemaphore(w->dev->handle, w->blitted, NULL);
        if (w->swapchain)
            d->vkDestroySwapchainKHR(w->dev->handle, w->swapchain, NULL);
    }
    if (w->surface && w->dev)
        w->dev->instance->dispatch.vkDestroySurfaceKHR(w->dev->instance->handle, w->surface, NULL);
    if (w->conn)
        xcb_disconnect(w->conn);
    free(w);
    r->window = NULL;
}
