/* tests/apps/common/app_target.c — render targets (XCB swapchain or offscreen
 * images), per-frame synchronisation and the frame loop. */
#include "app.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const VkFormat target_formats[] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM};

static rt_status create_window(struct rt_app *app)
{
    int screen_num = 0;
    xcb_connection_t *c = xcb_connect(NULL, &screen_num);
    /* A loaded test machine's Xvfb sometimes refuses a connection for a
     * moment (seen a few times in hundreds of windowed runs): try again for
     * up to 2 s before calling the display missing. */
    for (int tries = 0; xcb_connection_has_error(c) && getenv("DISPLAY") && tries < 20; tries++) {
        xcb_disconnect(c);
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
        c = xcb_connect(NULL, &screen_num);
    }
    if (xcb_connection_has_error(c)) {
        xcb_disconnect(c);
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot open an X display (DISPLAY=%s); "
                         "use --offscreen", getenv("DISPLAY") ? getenv("DISPLAY") : "unset");
    }
    app->xcb = c;
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
    for (int i = 0; i < screen_num; i++)
        xcb_screen_next(&it);
    xcb_screen_t *screen = it.data;
    app->window = xcb_generate_id(c);
    uint32_t values[] = {screen->black_pixel};
    xcb_create_window(c, XCB_COPY_FROM_PARENT, app->window, screen->root, 0, 0,
                      (uint16_t)app->args.width, (uint16_t)app->args.height, 0,
                      XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, XCB_CW_BACK_PIXEL,
                      values);
    char title[64];
    int len = snprintf(title, sizeof title, "rt_app_%s", app->desc->name);
    xcb_change_property(c, XCB_PROP_MODE_REPLACE, app->window, XCB_ATOM_WM_NAME,
                        XCB_ATOM_STRING, 8, (uint32_t)len, title);
    xcb_map_window(c, app->window);
    xcb_flush(c);
    VkXcbSurfaceCreateInfoKHR info = {
        .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
        .connection = c,
        .window = app->window,
    };
    RT_VK(vkCreateXcbSurfaceKHR(app->instance, &info, NULL, &app->surface));
    VkBool32 present = VK_FALSE;
    RT_VK(vkGetPhysicalDeviceSurfaceSupportKHR(app->physical, app->queue_family,
                                               app->surface, &present));
    if (!present)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the queue cannot present to the window");
    return rt_ok_status();
}

static rt_status pick_surface_format(struct rt_app *app, VkSurfaceFormatKHR *format_out)
{
    VkSurfaceFormatKHR formats[64];
    uint32_t count = 64;
    VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(app->physical, app->surface, &count,
                                                      formats);
    if (r < 0)
        RT_VK(r);
    for (size_t want = 0; want < 2; want++)
        for (uint32_t i = 0; i < count; i++)
            if (formats[i].format == target_formats[want] &&
                formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
                *format_out = formats[i];
                return rt_ok_status();
            }
    return rt_errorf(RT_ERR_CANNOT_REPLAY, "the surface offers neither BGRA8 nor RGBA8 UNORM");
}

static rt_status create_swapchain(struct rt_app *app)
{
    VkSurfaceCapabilitiesKHR caps;
    RT_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(app->physical, app->surface, &caps));
    VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                              VK_IMAGE_USAGE_TRANSFER_SRC_BIT; /* screenshots copy it */
    if ((caps.supportedUsageFlags & usage) != usage)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "swapchain images cannot be copied from");
    VkSurfaceFormatKHR format = {0};
    RT_TRY(pick_surface_format(app, &format));
    app->format = format.format;
    app->extent = (VkExtent2D){app->args.width, app->args.height};
    if (caps.currentExtent.width != UINT32_MAX)
        app->extent = caps.currentExtent; /* the window's size decides */
    uint32_t images = caps.minImageCount + 1;
    if (caps.maxImageCount != 0 && images > caps.maxImageCount)
        images = caps.maxImageCount;
    VkSwapchainCreateInfoKHR info = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
        .surface = app->surface,
        .minImageCount = images,
        .imageFormat = format.format,
        .imageColorSpace = format.colorSpace,
        .imageExtent = app->extent,
        .imageArrayLayers = 1,
        .imageUsage = usage,
        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
        .compositeAlpha = (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
                              ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
                              : VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR,
        .presentMode = VK_PRESENT_MODE_FIFO_KHR, /* the one every driver has */
        .clipped = VK_TRUE,
    };
    if (!(caps.supportedTransforms & VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR))
        info.preTransform = caps.currentTransform;
    RT_VK(vkCreateSwapchainKHR(app->device, &info, NULL, &app->swapchain));
    uint32_t count = 0;
    RT_VK(vkGetSwapchainImagesKHR(app->device, app->swapchain, &count, NULL));
    if (count > RT_APP_MAX_IMAGES)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "%u swapchain images: more than %d", count,
                         RT_APP_MAX_IMAGES);
    app->image_count = count;
    RT_VK(vkGetSwapchainImagesKHR(app->device, app->swapchain, &count, app->images));
    return rt_ok_status();
}

static rt_status create_views(struct rt_app *app)
{
    for (uint32_t i = 0; i < app->image_count; i++) {
        VkImageViewCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = app->images[i],
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = app->format,
            .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
        };
        RT_VK(vkCreateImageView(app->device, &info, NULL, &app->views[i]));
    }
    return rt_ok_status();
}

/* Ordinary images in the format a window would most likely have given. */
static rt_status create_offscreen(struct rt_app *app)
{
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
                                VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
    app->format = VK_FORMAT_UNDEFINED;
    for (size_t i = 0; i < 2 && app->format == VK_FORMAT_UNDEFINED; i++) {
        VkFormatProperties p;
        vkGetPhysicalDeviceFormatProperties(app->physical, target_formats[i], &p);
        if ((p.optimalTilingFeatures & need) == need)
            app->format = target_formats[i];
    }
    if (app->format == VK_FORMAT_UNDEFINED)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "neither BGRA8 nor RGBA8 can be rendered to");
    app->extent = (VkExtent2D){app->args.width, app->args.height};
    app->image_count = RT_APP_SLOTS;
    for (uint32_t i = 0; i < app->image_count; i++) {
        struct rt_app_image img;
        rt_status st = rt_app_image_create(
            app, app->format, app->extent, 1,
            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
            VK_IMAGE_ASPECT_COLOR_BIT, &img);
        app->images[i] = img.image;
        app->offscreen_memory[i] = img.memory;
        app->views[i] = img.view;
        RT_TRY(st);
    }
    return rt_ok_status();
}

static rt_status create_sync(struct rt_app *app)
{
    VkSemaphoreCreateInfo sem_info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < RT_APP_SLOTS; i++) {
        struct rt_app_slot *s = &app->slots[i];
        VkCommandPoolCreateInfo pool_info = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
            .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
            .queueFamilyIndex = app->queue_family,
        };
        RT_VK(vkCreateCommandPool(app->device, &pool_info, NULL, &s->pool));
        VkCommandBufferAllocateInfo alloc = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .commandPool = s->pool,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            .commandBufferCount = 2,
        };
        RT_VK(vkAllocateCommandBuffers(app->device, &alloc, s->cmd));
        VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
                                        .flags = VK_FENCE_CREATE_SIGNALED_BIT};
        if (!app->desc->sync2)
            RT_VK(vkCreateFence(app->device, &fence_info, NULL, &s->fence));
        if (app->swapchain)
            RT_VK(vkCreateSemaphore(app->device, &sem_info, NULL, &s->acquired));
    }
    /* Per image, not per slot: the semaphore a present waits on may only be
     * reused once that image is acquired again. */
    for (uint32_t i = 0; app->swapchain && i < app->image_count; i++)
        RT_VK(vkCreateSemaphore(app->device, &sem_info, NULL, &app->rendered[i]));
    if (app->desc->sync2) {
        VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                          .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
        sem_info.pNext = &type;
        RT_VK(vkCreateSemaphore(app->device, &sem_info, NULL, &app->timeline));
    }
    VkCommandPoolCreateInfo upload_info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = app->queue_family,
    };
    RT_VK(vkCreateCommandPool(app->device, &upload_info, NULL, &app->upload_pool));
    return rt_ok_status();
}

rt_status rt_app_target_init(struct rt_app *app)
{
    if (app->args.offscreen) {
        RT_TRY(create_offscreen(app));
    } else {
        RT_TRY(create_window(app));
        RT_TRY(create_swapchain(app));
        RT_TRY(create_views(app));
    }
    RT_TRY(create_sync(app));
    if (app->args.screenshot_dir) {
        if (mkdir(app->args.screenshot_dir, 0777) != 0 && errno != EEXIST)
            return rt_errorf(RT_ERR_INTERNAL, "cannot create %s: %s", app->args.screenshot_dir,
                             strerror(errno));
        RT_TRY(rt_app_buffer_create(app, (VkDeviceSize)app->extent.width * app->extent.height * 4,
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &app->shot));
    }
    return rt_ok_status();
}

void rt_app_target_finish(struct rt_app *app)
{
    VkDevice dev = app->device;
    rt_app_buffer_destroy(app, &app->shot);
    for (uint32_t i = 0; i < RT_APP_SLOTS; i++) {
        vkDestroyCommandPool(dev, app->slots[i].pool, NULL);
        vkDestroyFence(dev, app->slots[i].fence, NULL);
        vkDestroySemaphore(dev, app->slots[i].acquired, NULL);
    }
    vkDestroyCommandPool(dev, app->upload_pool, NULL);
    vkDestroySemaphore(dev, app->timeline, NULL);
    for (uint32_t i = 0; i < app->image_count; i++) {
        vkDestroySemaphore(dev, app->rendered[i], NULL);
        vkDestroyImageView(dev, app->views[i], NULL);
        if (app->args.offscreen) {
            vkDestroyImage(dev, app->images[i], NULL);
            vkFreeMemory(dev, app->offscreen_memory[i], NULL);
        }
    }
    if (app->swapchain) /* the entry point exists only with VK_KHR_swapchain */
        vkDestroySwapchainKHR(dev, app->swapchain, NULL);
    if (app->surface)
        vkDestroySurfaceKHR(app->instance, app->surface, NULL);
    if (app->xcb)
        xcb_disconnect(app->xcb);
}
