/* replay/swapchain.c — headless presentation: surfaces become placeholders,
 * a swapchain becomes ordinary images in its format and extent, acquiring
 * returns the captured index, presenting waits for its semaphores, counts a
 * frame and takes the screenshots asked for. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "readback.h"
#include "replay_config.h"

#define MAX_IMAGES 16
#define MAX_PRESENT_WAITS 32

struct replay_swapchain {
    struct replay_device *dev;
    VkImageCreateInfo image_info;
    bool opaque; /* VK_COMPOSITE_ALPHA_OPAQUE_KHR: screenshots keep no alpha, as the compositor shows it */
    uint32_t image_count;
    VkImage images[MAX_IMAGES];
    VkDeviceMemory memory[MAX_IMAGES];
};

static struct replay_swapchain *swapchain_of(struct replay *r, uint64_t captured)
{
    uint64_t value = 0;
    return rt_hashmap_get(&r->swapchains, captured, &value) ? (struct replay_swapchain *)(uintptr_t)value : NULL;
}

/* Surfaces and swapchains keep their captured ids as their "live" handles:
 * nothing but this file ever looks at them. */
static rt_status placeholder(struct replay *r, VkObjectType type, uint64_t captured)
{
    if (!rt_typed_map_put(&r->handles, type, captured, captured))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    return rt_ok_status();
}

rt_status replay_create_surface(struct replay *r, void *args, uint64_t captured_result)
{
    /* Every vkCreate*SurfaceKHR takes (instance, pCreateInfo, pAllocator,
     * pSurface): one argument-block layout serves them all. */
    const struct rt_vk_args_vkCreateHeadlessSurfaceEXT *a = args;
    (void)captured_result;
    r->result->skipped_calls++;
    return placeholder(r, VK_OBJECT_TYPE_SURFACE_KHR, (uint64_t)(uintptr_t)*a->pSurface);
}

static rt_status create_images(struct replay *r, struct replay_swapchain *sc, uint32_t count)
{
    const struct rt_vk_device_dispatch *d = &sc->dev->dispatch.device;
    VkDevice device = sc->dev->handle;
    for (uint32_t i = sc->image_count; i < count; i++) {
        VkMemoryRequirements req;
        RT_TRY(replay_check_result(r, RT_VK_CMD_vkCreateImage, VK_SUCCESS,
                                   d->vkCreateImage(device, &sc->image_info, NULL, &sc->images[i])));
        d->vkGetImageMemoryRequirements(device, sc->images[i], &req);
        VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
        for (alloc.memoryTypeIndex = 0; alloc.memoryTypeIndex < r->gpu_memory.memoryTypeCount; alloc.memoryTypeIndex++)
            if (req.memoryTypeBits & (1u << alloc.memoryTypeIndex))
                break;
        RT_TRY(replay_check_result(r, RT_VK_CMD_vkAllocateMemory, VK_SUCCESS,
                                   d->vkAllocateMemory(device, &alloc, NULL, &sc->memory[i])));
        RT_TRY(replay_check_result(r, RT_VK_CMD_vkBindImageMemory, VK_SUCCESS,
                                   d->vkBindImageMemory(device, sc->images[i], sc->memory[i], 0)));
        sc->image_count = i + 1;
    }
    return rt_ok_status();
}

static void destroy_swapchain(struct replay *r, struct replay_swapchain *sc)
{
    const struct rt_vk_device_dispatch *d = &sc->dev->dispatch.device;
    d->vkDeviceWaitIdle(sc->dev->handle);
    for (uint32_t i = 0; i < sc->image_count; i++) {
        replay_resources_remove_image(&r->resources, (uint64_t)(uintptr_t)sc->images[i]);
        d->vkDestroyImage(sc->dev->handle, sc->images[i], NULL);
        d->vkFreeMemory(sc->dev->handle, sc->memory[i], NULL);
    }
    free(sc);
}

rt_status replay_create_swapchain(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCreateSwapchainKHR *a = args;
    uint64_t captured = (uint64_t)(uintptr_t)*a->pSwapchain;
    if ((VkResult)(int32_t)captured_result != VK_SUCCESS)
        return replay_skip(r, args, captured_result);
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkCreateSwapchainKHR, args));
    const VkSwapchainCreateInfoKHR *info = a->pCreateInfo;
    struct replay_swapchain *sc = calloc(1, sizeof *sc);
    if (!sc || !rt_hashmap_put(&r->swapchains, captured, (uint64_t)(uintptr_t)sc)) {
        free(sc);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    sc->dev = replay_device_of(r, a->device);
    sc->opaque = info->compositeAlpha == VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    sc->image_info = (VkImageCreateInfo){
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D, .format = info->imageFormat,
        .extent = {info->imageExtent.width, info->imageExtent.height, 1}, .mipLevels = 1,
        .arrayLayers = info->imageArrayLayers, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
        /* screenshots copy from them; a trimmed trace's snapshot copies its
         * images' contents in */
        .usage = info->imageUsage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                 (r->in_snapshot ? VK_IMAGE_USAGE_TRANSFER_DST_BIT : 0),
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    if (!sc->dev)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": a swapchain on an unknown device", r->call_seq);
    if (!rt_readback_supported(info->imageFormat) && r->opts->screenshot_dir)
        rt_log(RT_LOG_WARN, "replay: swapchain format %d is not one this build knows; no screenshots",
               (int)info->imageFormat);
    return placeholder(r, VK_OBJECT_TYPE_SWAPCHAIN_KHR, captured);
}

rt_status replay_destroy_swapchain(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkDestroySwapchainKHR *a = args;
    (void)captured_result;
    uint64_t captured = (uint64_t)(uintptr_t)a->swapchain;
    struct replay_swapchain *sc = swapchain_of(r, captured);
    if (sc) {
        destroy_swapchain(r, sc);
        rt_hashmap_remove(&r->swapchains, captured);
    }
    return rt_ok_status();
}

void replay_swapchain_finish_device(struct replay *r, const struct replay_device *dev)
{
    if (r->window && (!dev || replay_window_device(r) == dev))
        replay_window_finish(r);
    struct rt_hashmap_iter it;
    uint64_t key, value;
    rt_hashmap_iter_init(&it, &r->swapchains);
    while (rt_hashmap_iter_next(&it, &key, &value)) {
        struct replay_swapchain *sc = (struct replay_swapchain *)(uintptr_t)value;
        if (dev && sc->dev != dev)
            continue;
        destroy_swapchain(r, sc);
        rt_hashmap_remove(&r->swapchains, key);
    }
}

void replay_swapchain_finish(struct replay *r)
{
    replay_swapchain_finish_device(r, NULL);
    rt_hashmap_finish(&r->swapchains);
    rt_hashmap_init(&r->swapchains);
}

rt_status replay_get_swapchain_images(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetSwapchainImagesKHR *a = args;
    struct replay_swapchain *sc = swapchain_of(r, (uint64_t)(uintptr_t)a->swapchain);
    if (!sc)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": images of an unknown swapchain", r->call_seq);
    if (!a->pSwapchainImages || !a->pSwapchainImageCount)
        return replay_skip(r, args, captured_result);
    uint32_t count = *a->pSwapchainImageCount;
    if (count > MAX_IMAGES)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "a swapchain of %u images (at most %d)", count, MAX_IMAGES);
    RT_TRY(create_images(r, sc, count));
    for (uint32_t i = 0; i < count; i++) {
        RT_TRY(replay_remember(r, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->pSwapchainImages[i],
                               (uint64_t)(uintptr_t)sc->images[i]));
        /* A program may copy its presented image into a buffer (--readbacks needs its format). */
        struct replay_image *record = replay_resources_add_image(&r->resources, (uint64_t)(uintptr_t)sc->images[i]);
        if (!record)
            return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
        record->format = sc->image_info.format;
    }
    return rt_ok_status();
}

/* The capture's acquire signalled its semaphore and fence; so does ours,
 * with an empty submission on the device's queue. */
static rt_status signal(struct replay *r, struct replay_device *dev, VkSemaphore semaphore, VkFence fence)
{
    if (!semaphore && !fence)
        return rt_ok_status();
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .signalSemaphoreCount = semaphore ? 1 : 0,
                           .pSignalSemaphores = &semaphore};
    return replay_check_result(r, RT_VK_CMD_vkQueueSubmit, VK_SUCCESS,
                               dev->dispatch.device.vkQueueSubmit(dev->any_queue, 1, &submit, fence));
}

/* *OUT: the capture's acquire gave an image (so it signalled its semaphore
 * and fence); then the inputs are mapped to live handles. */
static rt_status acquired(struct replay *r, void *args, enum rt_vk_cmd cmd, uint64_t captured_result, bool *out)
{
    VkResult captured = (VkResult)(int32_t)captured_result;
    *out = captured == VK_SUCCESS || captured == VK_SUBOPTIMAL_KHR;
    if (!*out)
        return replay_skip(r, args, captured_result); /* nothing was acquired or signalled */
    return replay_map_inputs(r, cmd, args);
}

rt_status replay_acquire_next_image(struct replay *r, void *args, uint64_t captured_result)
{
    bool got;
    RT_TRY(acquired(r, args, RT_VK_CMD_vkAcquireNextImageKHR, captured_result, &got));
    struct rt_vk_args_vkAcquireNextImageKHR *a = args;
    return got ? signal(r, replay_device_of(r, a->device), a->semaphore, a->fence) : rt_ok_status();
}

rt_status replay_acquire_next_image2(struct replay *r, void *args, uint64_t captured_result)
{
    bool got;
    RT_TRY(acquired(r, args, RT_VK_CMD_vkAcquireNextImage2KHR, captured_result, &got));
    struct rt_vk_args_vkAcquireNextImage2KHR *a = args;
    return got ? signal(r, replay_device_of(r, a->device), a->pAcquireInfo->semaphore, a->pAcquireInfo->fence)
               : rt_ok_status();
}

static rt_status screenshot(struct replay *r, struct replay_device *dev, VkQueue queue, uint32_t family,
                            struct replay_swapchain *sc, uint32_t index, const VkPresentInfoKHR *info,
                            uint64_t frame, bool *waited)
{
    char path[PATH_MAX + 64];
    replay_output_stem(r, r->opts->screenshot_dir, "frame", frame, path, sizeof path - 4);
    strcat(path, ".png");
    if (index >= sc->image_count)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": presents image %u of %u", r->call_seq, index,
                         sc->image_count);
    struct rt_readback_device rd = {dev->handle, &dev->dispatch.device, &r->gpu_memory, NULL};
    VkExtent2D extent = {sc->image_info.extent.width, sc->image_info.extent.height};
    r->own_depth++;
    rt_status s = rt_readback_png(&rd, queue, family, sc->images[index], VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                                  sc->image_info.format, extent, info->waitSemaphoreCount, info->pWaitSemaphores,
                                  sc->opaque, path, waited);
    r->own_depth--;
    if (rt_ok(&s)) {
        r->result->screenshots++;
        replay_config_screenshot(r, frame, path);
    } else if (s.code != RT_ERR_INTERNAL) { /* a format that cannot be written: said, and the replay goes on */
        rt_log(RT_LOG_WARN, "replay: screenshot not saved: %s", s.msg);
        r->result->conversion_warnings++;
        s = rt_ok_status();
    }
    return s;
}

/* Waits for the present's semaphores, as presenting would. */
static rt_status consume_waits(struct replay *r, struct replay_device *dev, VkQueue queue, uint32_t count,
                               const VkSemaphore *semaphores)
{
    VkPipelineStageFlags stages[MAX_PRESENT_WAITS];
    uint32_t n = count < MAX_PRESENT_WAITS ? count : MAX_PRESENT_WAITS;
    if (n == 0)
        return rt_ok_status();
    for (uint32_t i = 0; i < n; i++)
        stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = n,
                           .pWaitSemaphores = semaphores, .pWaitDstStageMask = stages};
    return replay_check_result(r, RT_VK_CMD_vkQueueSubmit, VK_SUCCESS,
                               dev->dispatch.device.vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
}

/*
 * A present's semaphores, waited later. Waiting them is a submission whose
 * waits lavapipe resolves on the calling thread, so at the present it held
 * the replay until the frame was rendered, and the driver then sat idle
 * while the next frame's calls were decoded and recorded. They are waited
 * instead just before the next call that could depend on their state
 * (replay_present_waits_needed): any submission or present (a semaphore is
 * signalled only by those), the destruction of one of the semaphores or of
 * their device, and the replay's own waits for idle (engine.c): nothing the
 * program does sees the difference.
 */
struct replay_present_waits {
    struct replay_device *dev;
    VkQueue queue;
    uint32_t count;
    VkSemaphore semaphores[MAX_PRESENT_WAITS];
};

rt_status replay_present_waits_flush(struct replay *r, bool until_done)
{
    struct replay_present_waits *p = r->present_waits;
    if (!p)
        return rt_ok_status();
    r->present_waits = NULL;
    rt_status s = consume_waits(r, p->dev, p->queue, p->count, p->semaphores);
    if (rt_ok(&s) && until_done) /* a semaphore is destroyed next: its last batch must be done */
        s = replay_check_result(r, RT_VK_CMD_vkQueueWaitIdle, VK_SUCCESS,
                                p->dev->dispatch.device.vkQueueWaitIdle(p->queue));
    free(p);
    return s;
}

/* Whether CMD (ARGS not mapped yet) must come after the put-off waits. */
bool replay_present_waits_needed(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    const struct replay_present_waits *p = r->present_waits;
    if (!p)
        return false;
    if ((rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_SUBMITS) || (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_PRESENTS))
        return true;
    if (!(rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_DESTROYS))
        return false;
    /* a destruction: of one of those semaphores, or of their device (zink destroys a semaphore a frame) */
    const void *slot = rt_vk_cmd_arg(cmd, args, rt_vk_cmd_destroyed_arg(cmd));
    uint64_t captured = 0, live = 0;
    if (!slot)
        return true;
    memcpy(&captured, slot, sizeof captured);
    if (rt_typed_map_get(&r->handles, VK_OBJECT_TYPE_DEVICE, captured, &live))
        return true; /* another device's too: cheap, and rare */
    if (!rt_typed_map_get(&r->handles, VK_OBJECT_TYPE_SEMAPHORE, captured, &live))
        return false;
    for (uint32_t i = 0; i < p->count; i++)
        if ((uint64_t)(uintptr_t)p->semaphores[i] == live)
            return true;
    return false;
}

static rt_status defer_waits(struct replay *r, struct replay_device *dev, VkQueue queue,
                             const VkPresentInfoKHR *info)
{
    if (!info->waitSemaphoreCount)
        return rt_ok_status();
    struct replay_present_waits *p = malloc(sizeof *p);
    if (!p)
        return consume_waits(r, dev, queue, info->waitSemaphoreCount, info->pWaitSemaphores);
    p->dev = dev;
    p->queue = queue;
    p->count = info->waitSemaphoreCount < MAX_PRESENT_WAITS ? info->waitSemaphoreCount : MAX_PRESENT_WAITS;
    memcpy(p->semaphores, info->pWaitSemaphores, p->count * sizeof *p->semaphores);
    r->present_waits = p;
    return rt_ok_status();
}

rt_status replay_queue_present(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkQueuePresentKHR *a = args;
    (void)captured_result;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkQueuePresentKHR, args));
    struct replay_device *dev = replay_device_of(r, a->queue);
    if (!dev)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": a present on an unknown queue", r->call_seq);
    uint64_t frame = r->frame + 1; /* the frame-end packet follows the present */
    const VkPresentInfoKHR *info = a->pPresentInfo;
    struct replay_swapchain *sc = info->swapchainCount ? swapchain_of(r, (uint64_t)(uintptr_t)info->pSwapchains[0]) : NULL;
    bool waited = false;
    rt_status s = rt_ok_status();
    if (sc && r->opts->screenshot_dir && rt_frame_list_contains(&r->opts->frames, frame))
        s = screenshot(r, dev, a->queue, replay_queue_family(r, a->queue), sc, info->pImageIndices[0], info, frame,
                       &waited);
    if (!waited) { /* --window presents at once: it needs the frame now */
        rt_status w = r->opts->window ? consume_waits(r, dev, a->queue, info->waitSemaphoreCount,
                                                      info->pWaitSemaphores)
                                      : defer_waits(r, dev, a->queue, info);
        if (rt_ok(&s))
            s = w;
        else
            rt_status_free(&w);
    }
    uint32_t index = info->swapchainCount ? info->pImageIndices[0] : 0;
    if (rt_ok(&s) && sc && r->opts->window && index < sc->image_count)
        s = replay_window_present(r, dev, a->queue, replay_queue_family(r, a->queue), sc->images[index],
                                  (VkExtent2D){sc->image_info.extent.width, sc->image_info.extent.height});
    return s;
}
