/* replay/workarounds/serialize_submits.c — serialize-submits: the queue
 * goes idle after every submission, so no two ever overlap on the GPU. */
#include "workaround.h"

#define ID RT_WA_SERIALIZE_SUBMITS

struct counters {
    uint64_t queue_waits;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static rt_status after_submit(struct replay *r, struct replay_device *dev, VkQueue queue)
{
    dev->dispatch.device.vkQueueWaitIdle(queue);
    r->config->submissions_in_flight = 0;
    counters(r)->queue_waits++;
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, queue_waits)};

const struct replay_workaround replay_wa_serialize_submits = {
    .info = {"serialize-submits", "wait for the queue to go idle after every submission",
             "submission: vkQueueWaitIdle after every vkQueueSubmit, vkQueueSubmit2 and vkQueueBindSparse,\n"
             "so no two submissions ever overlap on the GPU."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .after_submit = after_submit,
};
