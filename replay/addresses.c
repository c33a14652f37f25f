/* replay/addresses.c — buffer device addresses. A trace holds the addresses
 * the capture device gave; the replay device gives others. Each address the
 * application asked for is remembered with its buffer's range, and 64-bit
 * values inside such a range, where shaders read addresses from (push
 * constants and the bytes written to mapped memory, at 8-byte alignment),
 * are moved to the replay buffer's address. A value that merely looks like a
 * captured address would be moved too; with 64-bit addresses that is
 * vanishingly unlikely, and it needs no bufferDeviceAddressCaptureReplay,
 * which many drivers (lavapipe among them) lack. */
#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"

struct address_range {
    uint64_t captured, replayed, size;
    uint64_t buffer; /* live: the range goes when the buffer is destroyed */
};

/* Newest first: a range the capture reused for a later buffer is that buffer's. */
static bool translate(const struct replay *r, uint64_t *value)
{
    const struct address_range *ranges = r->address_ranges;
    for (size_t i = r->address_range_count; i-- > 0;) {
        if (*value >= ranges[i].captured && *value - ranges[i].captured < ranges[i].size) {
            *value = ranges[i].replayed + (*value - ranges[i].captured);
            return true;
        }
    }
    return false;
}

bool replay_addresses_active(const struct replay *r) { return r->address_range_count > 0; }

void replay_translate_addresses(const struct replay *r, uint64_t base_offset, uint8_t *bytes, size_t size)
{
    if (!r->address_range_count)
        return;
    /* Positions 8-byte aligned in the destination, not in this buffer. */
    size_t first = (size_t)((8 - base_offset % 8) % 8);
    for (size_t i = first; i + 8 <= size; i += 8) {
        uint64_t v;
        memcpy(&v, bytes + i, 8);
        if (v && translate(r, &v))
            memcpy(bytes + i, &v, 8);
    }
}

void replay_forget_buffer_address(struct replay *r, uint64_t buffer)
{
    for (size_t i = 0; i < r->address_range_count;) {
        if (r->address_ranges[i].buffer == buffer)
            memmove(&r->address_ranges[i], &r->address_ranges[i + 1],
                    (--r->address_range_count - i) * sizeof r->address_ranges[0]); /* keeps the order */
        else
            i++;
    }
}

static rt_status remember(struct replay *r, uint64_t buffer, uint64_t captured, uint64_t replayed, uint64_t size)
{
    if (!captured || captured == replayed)
        return rt_ok_status();
    replay_forget_buffer_address(r, buffer);
    struct address_range *grown = realloc(r->address_ranges, (r->address_range_count + 1) * sizeof *grown);
    if (!grown)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->address_ranges = grown;
    r->address_ranges[r->address_range_count++] = (struct address_range){captured, replayed, size, buffer};
    return rt_ok_status();
}

rt_status replay_get_buffer_device_address(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetBufferDeviceAddress *a = args;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkGetBufferDeviceAddress, args));
    struct replay_device *dev = replay_device_of(r, a->device);
    if (!dev || !dev->dispatch.device.vkGetBufferDeviceAddress)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the trace uses buffer device addresses, which %s does not offer",
                         r->gpu_properties.deviceName);
    uint64_t replayed = dev->dispatch.device.vkGetBufferDeviceAddress(a->device, a->pInfo);
    return remember(r, (uint64_t)(uintptr_t)a->pInfo->buffer, captured_result, replayed,
                    replay_buffer_size(r, a->pInfo->buffer));
}

rt_status replay_cmd_push_constants(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCmdPushConstants *a = args;
    if (r->address_range_count && a->pValues) /* decoded into the call's arena: writable */
        replay_translate_addresses(r, a->offset, (uint8_t *)a->pValues, a->size);
    return replay_generic_call(r, RT_VK_CMD_vkCmdPushConstants, args, captured_result);
}

void replay_addresses_finish(struct replay *r)
{
    free(r->address_ranges);
    r->address_ranges = NULL;
    r->address_range_count = 0;
}

/* --- opaque capture addresses (bufferDeviceAddressCaptureReplay) ----------- */

static bool offers_capture_replay(const struct replay *r)
{
    if (!r->own.features2)
        return false;
    VkPhysicalDeviceBufferDeviceAddressFeatures bda = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
    VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &bda};
    r->own.features2(r->gpu, &features);
    return bda.bufferDeviceAddressCaptureReplay;
}

void replay_enable_address_replay(struct replay *r, VkDeviceCreateInfo *info)
{
    r->address_replay = false;
    /* Opaque addresses only mean something to the kind of device that made them. */
    if (r->rebind || !offers_capture_replay(r))
        return;
    for (VkBaseOutStructure *s = (VkBaseOutStructure *)info->pNext; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES &&
            ((VkPhysicalDeviceVulkan12Features *)s)->bufferDeviceAddress) {
            ((VkPhysicalDeviceVulkan12Features *)s)->bufferDeviceAddressCaptureReplay = VK_TRUE;
            r->address_replay = true;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES &&
                   ((VkPhysicalDeviceBufferDeviceAddressFeatures *)s)->bufferDeviceAddress) {
            ((VkPhysicalDeviceBufferDeviceAddressFeatures *)s)->bufferDeviceAddressCaptureReplay = VK_TRUE;
            r->address_replay = true;
        }
    }
}

/* Unlinks every node of type STYPE from a decoded (writable) chain. */
static void unlink_nodes(const void **chain, VkStructureType stype)
{
    const VkBaseInStructure **link = (const VkBaseInStructure **)chain;
    while (*link) {
        if ((*link)->sType == stype)
            *link = (*link)->pNext;
        else
            link = (const VkBaseInStructure **)&(*link)->pNext;
    }
}

void replay_strip_buffer_address(const struct replay *r, VkBufferCreateInfo *info)
{
    if (r->address_replay)
        return;
    info->flags &= ~(VkBufferCreateFlags)VK_BUFFER_CREATE_DEVICE_ADDRESS_CAPTURE_REPLAY_BIT;
    unlink_nodes(&info->pNext, VK_STRUCTURE_TYPE_BUFFER_OPAQUE_CAPTURE_ADDRESS_CREATE_INFO);
}

void replay_strip_memory_address(const struct replay *r, VkMemoryAllocateInfo *info)
{
    if (r->address_replay)
        return;
    unlink_nodes(&info->pNext, VK_STRUCTURE_TYPE_MEMORY_OPAQUE_CAPTURE_ADDRESS_ALLOCATE_INFO);
    for (VkBaseOutStructure *s = (VkBaseOutStructure *)info->pNext; s; s = s->pNext)
        if (s->sType == VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO)
            ((VkMemoryAllocateFlagsInfo *)s)->flags &= ~(VkMemoryAllocateFlags)VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_CAPTURE_REPLAY_BIT;
}
