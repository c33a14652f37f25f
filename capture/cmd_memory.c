/* capture/cmd_memory.c — allocation, mapping and flushing: where the
 * application's writes to mapped memory enter the trace. */
#include <stdlib.h>

#include "capture.h"
#include "log.h"
#include "memory_track.h"

static uint64_t handle_id(VkDeviceMemory memory) { return (uint64_t)(uintptr_t)memory; }

static struct capture_memory *memory_of(struct capture_device *dev, VkDeviceMemory memory)
{
    uint64_t value = 0;
    pthread_mutex_lock(&dev->memory_lock);
    bool found = rt_hashmap_get(&dev->memories, handle_id(memory), &value);
    pthread_mutex_unlock(&dev->memory_lock);
    return found ? (struct capture_memory *)(uintptr_t)value : NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkAllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                                                       const VkAllocationCallbacks *allocator,
                                                       VkDeviceMemory *memory_out)
{
    struct capture_device *dev = capture_device_of(device);
    struct capture_call_arena scratch;
    struct rt_arena *arena = capture_call_arena_init(&scratch);
    VkMemoryAllocateInfo copy;
    const VkMemoryAllocateInfo *sent = capture_address_allocation(dev, info, arena, &copy);
    VkResult result = dev->dispatch.vkAllocateMemory(device, sent, allocator, memory_out);
    const VkMemoryAllocateInfo *recorded =
        result == VK_SUCCESS ? capture_address_record(dev, sent, *memory_out, arena, &copy) : info;
    if (result == VK_SUCCESS) {
        struct capture_memory *m = malloc(sizeof *m);
        if (m) {
            *m = (struct capture_memory){.type_index = info->memoryTypeIndex, .size = info->allocationSize};
            pthread_mutex_lock(&dev->memory_lock);
            if (!rt_hashmap_put(&dev->memories, handle_id(*memory_out), (uint64_t)(uintptr_t)m))
                free(m);
            pthread_mutex_unlock(&dev->memory_lock);
        }
    }
    struct rt_vk_args_vkAllocateMemory args = {device, recorded, allocator, memory_out, result};
    capture_record_call(RT_VK_CMD_vkAllocateMemory, &args, (uint64_t)(int64_t)result);
    if (result == VK_SUCCESS)
        capture_new_memory(dev, info, *memory_out); /* host_memory.c */
    rt_arena_finish(arena);
    return result;
}

static void stop_tracking(struct capture_memory *m, VkDeviceMemory memory)
{
    if (m && m->mapped && capture_tracker()) {
        rt_tracker_unmap(capture_tracker(), handle_id(memory), capture_record_memory, NULL);
        m->mapped = false;
    }
}

VKAPI_ATTR void VKAPI_CALL capture_vkFreeMemory(VkDevice device, VkDeviceMemory memory,
                                               const VkAllocationCallbacks *allocator)
{
    struct capture_device *dev = capture_device_of(device);
    struct capture_memory *m = memory ? memory_of(dev, memory) : NULL;
    stop_tracking(m, memory); /* freeing a mapped allocation unmaps it */
    if (memory)
        capture_forget_import(memory);
    dev->dispatch.vkFreeMemory(device, memory, allocator);
    if (m) {
        pthread_mutex_lock(&dev->memory_lock);
        rt_hashmap_remove(&dev->memories, handle_id(memory));
        pthread_mutex_unlock(&dev->memory_lock);
        free(m);
    }
    struct rt_vk_args_vkFreeMemory args = {device, memory, allocator};
    capture_record_call(RT_VK_CMD_vkFreeMemory, &args, 0);
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkMapMemory(VkDevice device, VkDeviceMemory memory, VkDeviceSize offset,
                                                  VkDeviceSize size, VkMemoryMapFlags flags, void **data_out)
{
    struct capture_device *dev = capture_device_of(device);
    void *real = NULL;
    VkResult result = dev->dispatch.vkMapMemory(device, memory, offset, size, flags, &real);
    struct capture_memory *m = memory_of(dev, memory);
    *data_out = real;
    if (result == VK_SUCCESS && m && capture_tracker()) {
        VkDeviceSize mapped = size == VK_WHOLE_SIZE ? m->size - offset : size;
        VkMemoryPropertyFlags props = dev->memory_properties.memoryTypes[m->type_index].propertyFlags;
        rt_status s = rt_tracker_map(capture_tracker(), handle_id(memory), real, offset, (size_t)mapped,
                                     (props & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0, data_out);
        if (rt_ok(&s))
            m->mapped = true;
        else
            rt_log(RT_LOG_ERROR, "capture: writes to this mapping will be missed: %s", s.msg);
    }
    struct rt_vk_args_vkMapMemory args = {device, memory, offset, size, flags, data_out, result};
    capture_record_call(RT_VK_CMD_vkMapMemory, &args, (uint64_t)(int64_t)result);
    return result;
}

VKAPI_ATTR void VKAPI_CALL capture_vkUnmapMemory(VkDevice device, VkDeviceMemory memory)
{
    struct capture_device *dev = capture_device_of(device);
    stop_tracking(memory_of(dev, memory), memory); /* before the real pointer goes */
    dev->dispatch.vkUnmapMemory(device, memory);
    struct rt_vk_args_vkUnmapMemory args = {device, memory};
    capture_record_call(RT_VK_CMD_vkUnmapMemory, &args, 0);
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkFlushMappedMemoryRanges(VkDevice device, uint32_t count,
                                                                const VkMappedMemoryRange *ranges)
{
    struct capture_device *dev = capture_device_of(device);
    for (uint32_t i = 0; i < count && capture_tracker(); i++)
        rt_tracker_flush_range(capture_tracker(), handle_id(ranges[i].memory), ranges[i].offset,
                               ranges[i].size, capture_record_memory, NULL);
    VkResult result = dev->dispatch.vkFlushMappedMemoryRanges(device, count, ranges);
    struct rt_vk_args_vkFlushMappedMemoryRanges args = {device, count, ranges, result};
    capture_record_call(RT_VK_CMD_vkFlushMappedMemoryRanges, &args, (uint64_t)(int64_t)result);
    return result;
}

void capture_forget_memories(struct capture_device *device)
{
    /* The application should have freed everything; free what it did not. */
    struct rt_hashmap_iter it;
    uint64_t key, value;
    rt_hashmap_iter_init(&it, &device->memories);
    while (rt_hashmap_iter_next(&it, &key, &value)) {
        struct capture_memory *m = (struct capture_memory *)(uintptr_t)value;
        stop_tracking(m, (VkDeviceMemory)(uintptr_t)key);
        free(m);
    }
    rt_hashmap_finish(&device->memories);
}
