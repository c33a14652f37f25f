/* capture/screenshots_module.c — the screenshot module's one export
 * (screenshots.h): readback/'s image-to-PNG for the layer, which loads this
 * library only when a capture takes screenshots. */
#include "screenshots.h"

__attribute__((visibility("default"))) const struct capture_screenshots rt_capture_screenshots = {
    .supported = rt_readback_supported,
    .png = rt_readback_png,
};
