/* readback/staging.c — staging buffers and one-shot command buffers (staging.h). */
#include "staging.h"
#include "vk_tables_gen.h"

#define VK_TRY(call, what)                                                                              \
    do {                                                                                                \
        VkResult vk_try_ = (call);                                                                      \
        if (vk_try_ != VK_SUCCESS)                                                                      \
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "staging: %s failed (%s)", what,                    \
                             rt_staging_result_name(vk_try_));                                          \
    } while (0)

const char *rt_staging_result_name(VkResult result)
{
    const struct rt_vk_enum_desc *e = &rt_vk_enums[RT_VK_ENUM_VkResult];
    for (uint32_t i = 0; i < e->count; i++)
        if (e->values[i].value == result)
            return e->values[i].full;
    return "unknown VkResult";
}

static rt_status make_buffer(const struct rt_readback_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                             VkBuffer *buffer, VkDeviceMemory *memory)
{
    const struct rt_vk_device_dispatch *d = dev->dispatch;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size ? size : 1,
                               .usage = usage};
    VK_TRY(d->vkCreateBuffer(dev->device, &info, NULL, buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    d->vkGetBufferMemoryRequirements(dev->device, *buffer, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
    if (!rt_readback_host_memory_type(dev->memory, req.memoryTypeBits, &alloc.memoryTypeIndex))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "staging: the device has no host-visible coherent memory");
    VK_TRY(d->vkAllocateMemory(dev->device, &alloc, NULL, memory), "vkAllocateMemory");
    VK_TRY(d->vkBindBufferMemory(dev->device, *buffer, *memory, 0), "vkBindBufferMemory");
    return rt_ok_status();
}

rt_status rt_staging_buffer(const struct rt_readback_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                            VkBuffer *buffer_out, VkDeviceMemory *memory_out)
{
    *buffer_out = VK_NULL_HANDLE;
    *memory_out = VK_NULL_HANDLE;
    rt_status s = make_buffer(dev, size, usage, buffer_out, memory_out);
    if (!rt_ok(&s)) {
        if (*buffer_out)
            dev->dispatch->vkDestroyBuffer(dev->device, *buffer_out, NULL);
        if (*memory_out)
            dev->dispatch->vkFreeMemory(dev->device, *memory_out, NULL);
        *buffer_out = VK_NULL_HANDLE;
        *memory_out = VK_NULL_HANDLE;
    }
    return s;
}

static rt_status make_commands(struct rt_staging *s, uint32_t family)
{
    const struct rt_vk_device_dispatch *d = s->dev.dispatch;
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT, .queueFamilyIndex = family};
    VK_TRY(d->vkCreateCommandPool(s->dev.device, &pool, NULL, &s->pool), "vkCreateCommandPool");
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_TRY(d->vkCreateFence(s->dev.device, &fence, NULL, &s->fence), "vkCreateFence");
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = s->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    VK_TRY(d->vkAllocateCommandBuffers(s->dev.device, &alloc, &s->cmd), "vkAllocateCommandBuffers");
    /* A dispatchable object a layer made: the loader must find its dispatch
     * table through it. */
    if (s->dev.set_loader_data)
        VK_TRY(s->dev.set_loader_data(s->dev.device, s->cmd), "vkSetDeviceLoaderData");
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_TRY(d->vkBeginCommandBuffer(s->cmd, &begin), "vkBeginCommandBuffer");
    return rt_ok_status();
}

rt_status rt_staging_begin(const struct rt_readback_device *dev, uint32_t family, VkDeviceSize size,
                           VkBufferUsageFlags usage, struct rt_staging *s)
{
    *s = (struct rt_staging){.dev = *dev};
    rt_status st = make_buffer(dev, size, usage, &s->buffer, &s->memory);
    if (rt_ok(&st)) {
        VkResult res = dev->dispatch->vkMapMemory(dev->device, s->memory, 0, VK_WHOLE_SIZE, 0, &s->map);
        if (res != VK_SUCCESS)
            st = rt_errorf(RT_ERR_CANNOT_REPLAY, "staging: vkMapMemory failed (%s)", rt_staging_result_name(res));
    }
    if (rt_ok(&st))
        st = make_commands(s, family);
    if (!rt_ok(&st))
        rt_staging_end(s);
    return st;
}

rt_status rt_staging_submit(struct rt_staging *s, VkQueue queue, uint32_t wait_count, const VkSemaphore *waits,
                            bool *waited_out)
{
    if (waited_out)
        *waited_out = false;
    const struct rt_vk_device_dispatch *d = s->dev.dispatch;
    VkPipelineStageFlags stages[16];
    if (wait_count > 16)
        return rt_errorf(RT_ERR_INTERNAL, "staging: %u semaphores to wait for (at most 16)", wait_count);
    for (uint32_t i = 0; i < wait_count; i++)
        stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    /* The copies' writes reach the host's reads after the wait (and any
     * later command's reads: a snapshot's writes are read by the frames). */
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_MEMORY_READ_BIT};
    d->vkCmdPipelineBarrier(s->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &to_host, 0, NULL,
                            0, NULL);
    VK_TRY(d->vkEndCommandBuffer(s->cmd), "vkEndCommandBuffer");
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = wait_count,
                           .pWaitSemaphores = waits, .pWaitDstStageMask = stages, .commandBufferCount = 1,
                           .pCommandBuffers = &s->cmd};
    VK_TRY(d->vkQueueSubmit(queue, 1, &submit, s->fence), "vkQueueSubmit");
    if (waited_out)
        *waited_out = true;
    VK_TRY(d->vkWaitForFences(s->dev.device, 1, &s->fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    return rt_ok_status();
}

void rt_staging_end(struct rt_staging *s)
{
    const struct rt_vk_device_dispatch *d = s->dev.dispatch;
    if (!d)
        return;
    if (s->pool)
        d->vkDestroyCommandPool(s->dev.device, s->pool, NULL);
    if (s->fence)
        d->vkDestroyFence(s->dev.device, s->fence, NULL);
    if (s->buffer)
        d->vkDestroyBuffer(s->dev.device, s->buffer, NULL);
    if (s->memory)
        d->vkFreeMemory(s->dev.device, s->memory, NULL);
    *s = (struct rt_staging){0};
}
