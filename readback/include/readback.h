/*
 * readback/include/readback.h — copies an image that is about to be presented into
 * host memory and writes it as a PNG (convert.h: every VkFormat, with a
 * documented mapping, or raw bytes with a JSON sidecar).
 *
 * Owns: the copy (a full barrier, a copy to a host-visible buffer, waiting
 * for it), the VkFormat table (formats.h) and texel conversion. Shared by the
 * capture layer (capture-time screenshots) and the replayer (replay
 * screenshots), so that both read pixels the same way. It makes its own
 * objects through the dispatch table it is given and records nothing.
 * Must not touch: the trace, capture or replay state.
 */
#ifndef RT_READBACK_H
#define RT_READBACK_H

#include <stdbool.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "status.h"
#include "vk_dispatch_gen.h"

struct rt_readback_device {
    VkDevice device;
    const struct rt_vk_device_dispatch *dispatch;
    const VkPhysicalDeviceMemoryProperties *memory;
    PFN_vkSetDeviceLoaderData set_loader_data; /* a layer's callback for objects it makes; NULL elsewhere */
};

/**
 * Waits for WAITS (binary semaphores, may be 0), copies IMAGE (in LAYOUT,
 * which it is left in) on QUEUE of FAMILY, and writes PATH. FORMAT must be
 * one rt_readback_supported accepts. *waited_out tells whether WAITS were
 * consumed (then a present must not wait for them again), error or not.
 * OPAQUE (a swapchain made with VK_COMPOSITE_ALPHA_OPAQUE_KHR): alpha is
 * saved as fully opaque, as the compositor shows the image, whatever the
 * program left in it.
 */
rt_status rt_readback_png(const struct rt_readback_device *dev, VkQueue queue, uint32_t family, VkImage image,
                          VkImageLayout layout, VkFormat format, VkExtent2D extent, uint32_t wait_count,
                          const VkSemaphore *waits, bool opaque, const char *path, bool *waited_out) RT_MUST_CHECK;

/** Any format this build's vk.xml defines (written as PNG, or raw with a sidecar). */
bool rt_readback_supported(VkFormat format);

/* The first memory type in ALLOWED (a memoryTypeBits mask) that is host
 * visible and coherent, as every staging copy here and in replay/ needs. */
bool rt_readback_host_memory_type(const VkPhysicalDeviceMemoryProperties *memory, uint32_t allowed,
                                  uint32_t *index_out);

#endif
