/*
 * capture/screenshots.h — capture-time screenshots live in a module of their
 * own, libVkLayer_RETRACE_capture_screenshots.so beside the layer (readback/
 * and png/, which bring libpng, libdeflate and ISA-L): the layer loads it at
 * the first screenshot, so a capture without --screenshots never maps those
 * libraries (issue 21: ~50 page faults and ~0.6 ms of every start).
 */
#ifndef RT_CAPTURE_SCREENSHOTS_H
#define RT_CAPTURE_SCREENSHOTS_H

#include "readback.h"

#define CAPTURE_SCREENSHOTS_LIBRARY "libVkLayer_RETRACE_capture_screenshots.so"
#define CAPTURE_SCREENSHOTS_SYMBOL "rt_capture_screenshots"

/* What the module gives: readback.h's functions of the same names. */
struct capture_screenshots {
    bool (*supported)(VkFormat format);
    rt_status (*png)(const struct rt_readback_device *dev, VkQueue queue, uint32_t family, VkImage image,
                     VkImageLayout layout, VkFormat format, VkExtent2D extent, uint32_t wait_count,
                     const VkSemaphore *waits, bool opaque, const char *path, bool *waited_out);
};

/* The module beside the layer, loaded at the first call; NULL when it cannot
 * be (said once, as an error). */
const struct capture_screenshots *capture_screenshots(void);

#endif
