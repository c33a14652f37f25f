/* replay/workarounds/serialize_frames.c — serialize-frames: the device goes
 * idle after every present, so no two frames overlap. */
#include <string.h>

#include "workaround.h"

#define ID RT_WA_SERIALIZE_FRAMES

struct counters {
    uint64_t device_waits;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static rt_status after_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (!(rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_PRESENTS))
        return rt_ok_status();
    VkQueue queue; /* a present's first argument, mapped to the live queue by the call */
    memcpy(&queue, args, sizeof queue);
    struct replay_device *dev = replay_device_of(r, queue);
    if (dev) {
        dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
        r->config->submissions_in_flight = 0;
        counters(r)->device_waits++;
    }
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, device_waits)};

const struct replay_workaround replay_wa_serialize_frames = {
    .info = {"serialize-frames", "wait for the device to go idle after every present",
             "presentation: vkDeviceWaitIdle after every vkQueuePresentKHR, so no two frames overlap."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .after_call = after_call,
};
