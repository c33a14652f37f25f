/* replay/workarounds/zero_init.c — zero-init: every new allocation filled
 * with zeros before anything is bound to it, so buffers and images start as
 * zeros and reading memory nothing wrote gives the same result, replay after
 * replay. */
#include <string.h>

#include "workaround.h"

#define ID RT_WA_ZERO_INIT

struct counters {
    uint64_t allocations_zeroed, filled_on_gpu;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static rt_status zero_mapped(struct replay_device *dev, VkDeviceMemory memory, VkDeviceSize size, bool coherent)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    void *p = NULL;
    if (d->vkMapMemory(dev->handle, memory, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "zero-init: cannot map a new allocation");
    memset(p, 0, size);
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory, .size = VK_WHOLE_SIZE};
    if (!coherent)
        d->vkFlushMappedMemoryRanges(dev->handle, 1, &range);
    d->vkUnmapMemory(dev->handle, memory);
    return rt_ok_status();
}

/* Device-only memory: a transfer buffer over all of it, filled on the GPU. */
static rt_status zero_on_gpu(struct replay *r, struct replay_device *dev, VkDeviceMemory memory, VkDeviceSize size,
                             uint32_t type_index)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkBufferCreateInfo binfo = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                                .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkMemoryRequirements req;
    if (d->vkCreateBuffer(dev->handle, &binfo, NULL, &buffer) != VK_SUCCESS)
        return rt_ok_status(); /* too large for one buffer: left as it is, not counted */
    d->vkGetBufferMemoryRequirements(dev->handle, buffer, &req);
    VkCommandPoolCreateInfo pinfo = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                     .queueFamilyIndex = dev->any_queue_family};
    VkCommandBufferAllocateInfo cinfo = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    bool done = (req.memoryTypeBits & (1u << type_index)) && req.size <= size &&
                d->vkBindBufferMemory(dev->handle, buffer, memory, 0) == VK_SUCCESS &&
                d->vkCreateCommandPool(dev->handle, &pinfo, NULL, &pool) == VK_SUCCESS &&
                (cinfo.commandPool = pool) && d->vkAllocateCommandBuffers(dev->handle, &cinfo, &cmd) == VK_SUCCESS &&
                d->vkBeginCommandBuffer(cmd, &begin) == VK_SUCCESS;
    if (done) {
        d->vkCmdFillBuffer(cmd, buffer, 0, VK_WHOLE_SIZE, 0);
        VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
        done = d->vkEndCommandBuffer(cmd) == VK_SUCCESS && d->vkQueueSubmit(dev->any_queue, 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS &&
               d->vkQueueWaitIdle(dev->any_queue) == VK_SUCCESS;
    }
    if (pool)
        d->vkDestroyCommandPool(dev->handle, pool, NULL);
    d->vkDestroyBuffer(dev->handle, buffer, NULL);
    if (done) {
        counters(r)->allocations_zeroed++;
        counters(r)->filled_on_gpu++;
    }
    return rt_ok_status();
}

static rt_status new_memory(struct replay *r, struct replay_device *dev, VkDeviceMemory memory, VkDeviceSize size,
                            uint32_t type_index)
{
    if (!dev || type_index >= r->gpu_memory.memoryTypeCount)
        return rt_ok_status();
    VkMemoryPropertyFlags flags = r->gpu_memory.memoryTypes[type_index].propertyFlags;
    if (!(flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        return zero_on_gpu(r, dev, memory, size, type_index);
    RT_TRY(zero_mapped(dev, memory, size, flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    counters(r)->allocations_zeroed++;
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, allocations_zeroed),
                                                        REPLAY_WA_COUNTER(struct counters, filled_on_gpu)};

const struct replay_workaround replay_wa_zero_init = {
    .info = {"zero-init", "fill every new allocation with zeros, so buffers and images start as zeros",
             "memory: every vkAllocateMemory (and every allocation rebinding makes) is filled with zeros\n"
             "before anything is bound to it: through a mapping where the memory is host-visible, else\n"
             "with vkCmdFillBuffer over a buffer covering it. Buffers and images bound to it start as\n"
             "zeros (an image in a layout that compresses may still read other values on some GPUs), so\n"
             "reading memory nothing wrote gives the same result, replay after replay."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .new_memory = new_memory,
};
