/* replay/waits.c — what the application observed of the GPU, reproduced:
 * a fence, semaphore value, event or query the capture saw ready is waited
 * for, so the replay never runs ahead of what the capture had seen. What the
 * capture saw not ready is not waited for. */
#include <inttypes.h>
#include <time.h>

#include "log.h"
#include "replay_internal.h"

static bool observed_ready(uint64_t captured_result)
{
    return (VkResult)(int32_t)captured_result == VK_SUCCESS;
}

static const struct rt_vk_device_dispatch *device_table(struct replay *r, VkDevice device)
{
    struct replay_device *dev = replay_device_of(r, device);
    return dev ? &dev->dispatch.device : NULL;
}

static rt_status wait_fences(struct replay *r, VkDevice device, uint32_t count, const VkFence *fences, VkBool32 all)
{
    const struct rt_vk_device_dispatch *d = device_table(r, device);
    if (!d)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": a wait on an unknown device", r->call_seq);
    return replay_check_result(r, RT_VK_CMD_vkWaitForFences, VK_SUCCESS,
                               d->vkWaitForFences(device, count, fences, all, UINT64_MAX));
}

rt_status replay_wait_for_fences(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkWaitForFences *a = args;
    if (!observed_ready(captured_result))
        return replay_skip(r, args, captured_result);
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkWaitForFences, args));
    return wait_fences(r, a->device, a->fenceCount, a->pFences, a->waitAll);
}

rt_status replay_get_fence_status(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetFenceStatus *a = args;
    if (!observed_ready(captured_result))
        return replay_skip(r, args, captured_result);
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkGetFenceStatus, args));
    return wait_fences(r, a->device, 1, &a->fence, VK_TRUE);
}

rt_status replay_get_event_status(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetEventStatus *a = args;
    if ((VkResult)(int32_t)captured_result != VK_EVENT_SET)
        return replay_skip(r, args, captured_result);
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkGetEventStatus, args));
    const struct rt_vk_device_dispatch *d = device_table(r, a->device);
    if (!d)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": an event on an unknown device", r->call_seq);
    /* Events have no blocking wait on the host: poll, for at most 10 s. */
    for (int i = 0; i < 10000; i++) {
        VkResult status = d->vkGetEventStatus(a->device, a->event);
        if (status == VK_EVENT_SET)
            return rt_ok_status();
        if (status < 0)
            return replay_check_result(r, RT_VK_CMD_vkGetEventStatus, VK_EVENT_SET, status);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": an event the capture saw set never became set",
                     r->call_seq);
}

static rt_status wait_value(struct replay *r, VkDevice device, VkSemaphore semaphore, uint64_t value)
{
    const struct rt_vk_device_dispatch *d = device_table(r, device);
    if (!d || !d->vkWaitSemaphores)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": timeline semaphores are not available", r->call_seq);
    VkSemaphoreWaitInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                                .pSemaphores = &semaphore, .pValues = &value};
    return replay_check_result(r, RT_VK_CMD_vkWaitSemaphores, VK_SUCCESS, d->vkWaitSemaphores(device, &info, UINT64_MAX));
}

rt_status replay_get_semaphore_counter_value(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetSemaphoreCounterValue *a = args;
    if (!observed_ready(captured_result) || !a->pValue)
        return replay_skip(r, args, captured_result);
    uint64_t value = *a->pValue; /* what the application saw */
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkGetSemaphoreCounterValue, args));
    return wait_value(r, a->device, a->semaphore, value);
}

rt_status replay_wait_semaphores(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkWaitSemaphores *a = args;
    if (!observed_ready(captured_result))
        return replay_skip(r, args, captured_result);
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkWaitSemaphores, args));
    const struct rt_vk_device_dispatch *d = device_table(r, a->device);
    if (!d)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": a wait on an unknown device", r->call_seq);
    return replay_check_result(r, RT_VK_CMD_vkWaitSemaphores, VK_SUCCESS,
                               d->vkWaitSemaphores(a->device, a->pWaitInfo, UINT64_MAX));
}

rt_status replay_get_query_pool_results(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetQueryPoolResults *a = args;
    if (!observed_ready(captured_result) || !a->pData)
        return replay_skip(r, args, captured_result);
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkGetQueryPoolResults, args));
    const struct rt_vk_device_dispatch *d = device_table(r, a->device);
    if (!d)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": queries on an unknown device", r->call_seq);
    /* The capture read them ready: read them only once they are ready here too. */
    VkResult result = d->vkGetQueryPoolResults(a->device, a->queryPool, a->firstQuery, a->queryCount, a->dataSize,
                                               a->pData, a->stride, a->flags | VK_QUERY_RESULT_WAIT_BIT);
    /* A driver that does not wait for queries nothing wrote (lavapipe) says
     * so; another waits forever there: name the call while it can be named. */
    if (result == VK_NOT_READY)
        rt_log(RT_LOG_WARN, "call %" PRIu64 ": vkGetQueryPoolResults: queries %u-%u, which the capture read ready, "
               "were never written in this replay (a device that waits for them would wait forever)", r->call_seq,
               a->firstQuery, a->firstQuery + a->queryCount - 1);
    return replay_check_result(r, RT_VK_CMD_vkGetQueryPoolResults, VK_SUCCESS, result);
}
