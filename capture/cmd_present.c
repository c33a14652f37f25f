/* capture/cmd_present.c — swapchains, queues and presents: where frames end
 * and capture-time screenshots are taken. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "log.h"
#include "screenshots.h"
#include "trace.h"

static uint64_t id_of(const void *handle) { return (uint64_t)(uintptr_t)handle; }

static void *lookup(struct capture_device *dev, struct rt_hashmap *map, uint64_t key)
{
    uint64_t value = 0;
    pthread_mutex_lock(&dev->present_lock);
    bool found = rt_hashmap_get(map, key, &value);
    pthread_mutex_unlock(&dev->present_lock);
    return found ? (void *)(uintptr_t)value : NULL;
}

static void remember(struct capture_device *dev, struct rt_hashmap *map, uint64_t key, uint64_t value)
{
    pthread_mutex_lock(&dev->present_lock);
    rt_hashmap_put(map, key, value);
    pthread_mutex_unlock(&dev->present_lock);
}

/* Screenshots copy from the swapchain image, which needs TRANSFER_SRC usage:
 * add it where the surface allows, and record the application's original. */
static bool can_add_transfer_src(struct capture_device *dev, VkSurfaceKHR surface)
{
    VkSurfaceCapabilitiesKHR caps;
    const struct rt_vk_instance_dispatch *d = &dev->instance->dispatch;
    if (!d->vkGetPhysicalDeviceSurfaceCapabilitiesKHR ||
        d->vkGetPhysicalDeviceSurfaceCapabilitiesKHR(dev->physical_device, surface, &caps) != VK_SUCCESS)
        return false;
    return (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *info,
                                                           const VkAllocationCallbacks *allocator,
                                                           VkSwapchainKHR *swapchain_out)
{
    struct capture_device *dev = capture_device_of(device);
    VkSwapchainCreateInfoKHR changed = *info;
    bool readable = (info->imageUsage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
    if (!readable && capture_screenshot_dir()[0] && can_add_transfer_src(dev, info->surface)) {
        changed.imageUsage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
        readable = true;
    }
    VkResult result = dev->dispatch.vkCreateSwapchainKHR(device, &changed, allocator, swapchain_out);
    if (result == VK_SUCCESS) {
        struct capture_swapchain *sc = malloc(sizeof *sc);
        if (sc) {
            *sc = (struct capture_swapchain){info->imageFormat, info->imageExtent, readable,
                                             info->compositeAlpha == VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR};
            remember(dev, &dev->swapchains, id_of(*swapchain_out), (uint64_t)(uintptr_t)sc);
        }
    }
    struct rt_vk_args_vkCreateSwapchainKHR args = {device, info, allocator, swapchain_out, result};
    capture_record_call(RT_VK_CMD_vkCreateSwapchainKHR, &args, (uint64_t)(int64_t)result);
    return result;
}

VKAPI_ATTR void VKAPI_CALL capture_vkDestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                        const VkAllocationCallbacks *allocator)
{
    struct capture_device *dev = capture_device_of(device);
    dev->dispatch.vkDestroySwapchainKHR(device, swapchain, allocator);
    free(lookup(dev, &dev->swapchains, id_of(swapchain)));
    pthread_mutex_lock(&dev->present_lock);
    rt_hashmap_remove(&dev->swapchains, id_of(swapchain));
    pthread_mutex_unlock(&dev->present_lock);
    struct rt_vk_args_vkDestroySwapchainKHR args = {device, swapchain, allocator};
    capture_record_call(RT_VK_CMD_vkDestroySwapchainKHR, &args, 0);
}

VKAPI_ATTR void VKAPI_CALL capture_vkGetDeviceQueue(VkDevice device, uint32_t family, uint32_t index,
                                                   VkQueue *queue_out)
{
    struct capture_device *dev = capture_device_of(device);
    dev->dispatch.vkGetDeviceQueue(device, family, index, queue_out);
    if (*queue_out)
        remember(dev, &dev->queue_families, id_of(*queue_out), family);
    struct rt_vk_args_vkGetDeviceQueue args = {device, family, index, queue_out};
    capture_record_call(RT_VK_CMD_vkGetDeviceQueue, &args, 0);
}

VKAPI_ATTR void VKAPI_CALL capture_vkGetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info,
                                                    VkQueue *queue_out)
{
    struct capture_device *dev = capture_device_of(device);
    dev->dispatch.vkGetDeviceQueue2(device, info, queue_out);
    if (*queue_out)
        remember(dev, &dev->queue_families, id_of(*queue_out), info->queueFamilyIndex);
    struct rt_vk_args_vkGetDeviceQueue2 args = {device, info, queue_out};
    capture_record_call(RT_VK_CMD_vkGetDeviceQueue2, &args, 0);
}

static bool swapchain_image(struct capture_device *dev, VkSwapchainKHR swapchain, uint32_t index, VkImage *out)
{
    uint32_t count = 0;
    VkImage images[64];
    const struct rt_vk_device_dispatch *d = &dev->dispatch;
    if (d->vkGetSwapchainImagesKHR(dev->handle, swapchain, &count, NULL) != VK_SUCCESS || count > 64 ||
        index >= count || d->vkGetSwapchainImagesKHR(dev->handle, swapchain, &count, images) != VK_SUCCESS)
        return false;
    *out = images[index];
    return true;
}

/* Takes the screenshot of this frame if one is wanted; returns true when the
 * present's semaphores were already waited for (so the present must not
 * wait for them again). */
static bool screenshot_before_present(struct capture_device *dev, VkQueue queue, const VkPresentInfoKHR *info)
{
    uint64_t frame = capture_current_frame();
    if (!capture_screenshot_wanted(frame) || info->swapchainCount == 0)
        return false;
    char path[PATH_MAX + 32];
    char name[64];
    rt_capture_screenshot_name(frame, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", capture_screenshot_dir(), name);
    const struct capture_swapchain *sc = capture_swapchain_of(dev, info->pSwapchains[0]);
    const struct capture_screenshots *shots = capture_screenshots();
    VkImage image;
    if (!shots)
        return false; /* capture_screenshots said why */
    if (!sc || !sc->readable || !shots->supported(sc->format) ||
        !swapchain_image(dev, info->pSwapchains[0], info->pImageIndices[0], &image)) {
        rt_log(RT_LOG_WARN, "capture: cannot take %s: the swapchain image is not readable", path);
        return false;
    }
    struct rt_readback_device rd = {dev->handle, &dev->dispatch, &dev->memory_properties, dev->set_loader_data};
    bool waited = false;
    rt_status s = shots->png(&rd, queue, capture_queue_family(dev, queue), image, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                             sc->format, sc->extent, info->waitSemaphoreCount, info->pWaitSemaphores, sc->opaque,
                             path, &waited);
    if (rt_ok(&s))
        capture_record_annotation(RT_TRACE_ANNOTATION_SCREENSHOT, path);
    else
        rt_log(RT_LOG_ERROR, "capture: screenshot %s: %s", path, s.msg);
    return waited;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkQueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
    struct capture_device *dev = capture_device_of(queue);
    VkPresentInfoKHR forwarded = *info;
    if (screenshot_before_present(dev, queue, info)) {
        forwarded.waitSemaphoreCount = 0; /* our copy waited for them, and finished */
        forwarded.pWaitSemaphores = NULL;
    }
    VkResult result = dev->dispatch.vkQueuePresentKHR(queue, &forwarded);
    struct rt_vk_args_vkQueuePresentKHR args = {queue, info, result};
    capture_record_call(RT_VK_CMD_vkQueuePresentKHR, &args, (uint64_t)(int64_t)result);
    if (!capture_frame_delimiter_is_submit())
        capture_end_frame();
    return result;
}

void capture_forget_swapchains(struct capture_device *dev)
{
    struct rt_hashmap_iter it;
    uint64_t value;
    rt_hashmap_iter_init(&it, &dev->swapchains);
    while (rt_hashmap_iter_next(&it, NULL, &value))
        free((void *)(uintptr_t)value);
    rt_hashmap_finish(&dev->swapchains);
    rt_hashmap_finish(&dev->queue_families);
}

uint32_t capture_queue_family(struct capture_device *dev, VkQueue queue)
{
    return (uint32_t)(uintptr_t)lookup(dev, &dev->queue_families, id_of(queue));
}

const struct capture_swapchain *capture_swapchain_of(struct capture_device *dev, VkSwapchainKHR swapchain)
{
    return lookup(dev, &dev->swapchains, id_of(swapchain));
}
