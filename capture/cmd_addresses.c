/* capture/cmd_addresses.c — buffer device addresses that replay can
 * reproduce. Where the application enables bufferDeviceAddress and the device
 * offers bufferDeviceAddressCaptureReplay, the layer turns the latter on too,
 * creates address-visible buffers and allocations with the capture-replay
 * flags, and records each one's opaque capture address in the recorded
 * create info (VkBufferOpaqueCaptureAddressCreateInfo,
 * VkMemoryOpaqueCaptureAddressAllocateInfo), with the flag. A replay on the
 * same kind of device then gets the very same addresses; elsewhere it drops
 * them and moves addresses itself (replay/addresses.c). */
#include <string.h>

#include "capture.h"
#include "log.h"

static bool device_offers_capture_replay(const struct capture_instance *instance, VkPhysicalDevice gpu)
{
    if (!instance->dispatch.vkGetPhysicalDeviceFeatures2 || instance->api_version < VK_API_VERSION_1_1)
        return false;
    VkPhysicalDeviceBufferDeviceAddressFeatures bda = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
    VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &bda};
    instance->dispatch.vkGetPhysicalDeviceFeatures2(gpu, &features);
    return bda.bufferDeviceAddressCaptureReplay;
}

/* A copy of the chain the driver may be given; NULL when a node is unknown. */
static const void *copy_chain(const void *chain, struct rt_arena *arena)
{
    const VkBaseInStructure *head = NULL;
    VkBaseInStructure **tail = (VkBaseInStructure **)&head;
    for (const VkBaseInStructure *s = chain; s; s = s->pNext) {
        enum rt_vk_struct_type type;
        size_t size = s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO ? sizeof(VkLayerDeviceCreateInfo)
                      : rt_vk_struct_from_stype((uint32_t)s->sType, &type) ? rt_vk_struct_size(type)
                                                                             : 0;
        VkBaseInStructure *copy = size ? rt_arena_alloc(arena, size, 16) : NULL;
        if (!copy)
            return NULL;
        memcpy(copy, s, size);
        copy->pNext = NULL;
        *tail = copy;
        tail = (VkBaseInStructure **)&copy->pNext;
    }
    return head;
}

/* Turns bufferDeviceAddressCaptureReplay on in a copy of the chain, next to
 * the bufferDeviceAddress the application enabled. */
const void *capture_enable_address_replay(const struct capture_instance *instance, VkPhysicalDevice gpu,
                                          const void *chain, struct rt_arena *arena, bool *enabled_out)
{
    *enabled_out = false;
    if (!device_offers_capture_replay(instance, gpu))
        return chain;
    const VkBaseInStructure *copy = copy_chain(chain, arena);
    for (VkBaseInStructure *s = (VkBaseInStructure *)copy; s; s = (VkBaseInStructure *)s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES &&
            ((VkPhysicalDeviceVulkan12Features *)s)->bufferDeviceAddress) {
            ((VkPhysicalDeviceVulkan12Features *)s)->bufferDeviceAddressCaptureReplay = VK_TRUE;
            *enabled_out = true;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES &&
                   ((VkPhysicalDeviceBufferDeviceAddressFeatures *)s)->bufferDeviceAddress) {
            ((VkPhysicalDeviceBufferDeviceAddressFeatures *)s)->bufferDeviceAddressCaptureReplay = VK_TRUE;
            *enabled_out = true;
        }
    }
    return *enabled_out ? copy : chain;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateBuffer(VkDevice device, const VkBufferCreateInfo *info,
                                                     const VkAllocationCallbacks *allocator, VkBuffer *buffer_out)
{
    struct capture_device *dev = capture_device_of(device);
    VkBufferCreateInfo changed = *info;
    bool addressed = dev->address_replay && (info->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT);
    if (addressed)
        changed.flags |= VK_BUFFER_CREATE_DEVICE_ADDRESS_CAPTURE_REPLAY_BIT;
    VkResult result = dev->dispatch.vkCreateBuffer(device, &changed, allocator, buffer_out);
    VkBufferOpaqueCaptureAddressCreateInfo address = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_OPAQUE_CAPTURE_ADDRESS_CREATE_INFO, .pNext = info->pNext};
    if (result == VK_SUCCESS && addressed) {
        VkBufferDeviceAddressInfo which = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = *buffer_out};
        address.opaqueCaptureAddress = dev->dispatch.vkGetBufferOpaqueCaptureAddress(device, &which);
        changed.pNext = &address;
    }
    struct rt_vk_args_vkCreateBuffer args = {device, &changed, allocator, buffer_out, result};
    capture_record_call(RT_VK_CMD_vkCreateBuffer, &args, (uint64_t)(int64_t)result);
    return result;
}

static bool wants_address(const VkMemoryAllocateInfo *info)
{
    for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
        if (s->sType == VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO &&
            (((const VkMemoryAllocateFlagsInfo *)s)->flags & VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT))
            return true;
    return false;
}

/* The allocate info the driver gets: capture-replay flags where addresses
 * are asked for. Nodes are copied into ARENA. */
const VkMemoryAllocateInfo *capture_address_allocation(struct capture_device *dev, const VkMemoryAllocateInfo *info,
                                                       struct rt_arena *arena, VkMemoryAllocateInfo *copy)
{
    if (!dev->address_replay || !wants_address(info))
        return info;
    *copy = *info;
    copy->pNext = copy_chain(info->pNext, arena);
    for (VkBaseInStructure *s = (VkBaseInStructure *)copy->pNext; s; s = (VkBaseInStructure *)s->pNext)
        if (s->sType == VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO)
            ((VkMemoryAllocateFlagsInfo *)s)->flags |= VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_CAPTURE_REPLAY_BIT;
    return copy->pNext ? copy : info;
}

/* What to record: the driver's allocate info plus the opaque address. */
const VkMemoryAllocateInfo *capture_address_record(struct capture_device *dev, const VkMemoryAllocateInfo *sent,
                                                   VkDeviceMemory memory, struct rt_arena *arena,
                                                   VkMemoryAllocateInfo *copy)
{
    if (sent == copy || (dev->address_replay && wants_address(sent))) {
        VkMemoryOpaqueCaptureAddressAllocateInfo *address = rt_arena_calloc(arena, 1, sizeof *address, 16);
        VkDeviceMemoryOpaqueCaptureAddressInfo which = {
            .sType = VK_STRUCTURE_TYPE_DEVICE_MEMORY_OPAQUE_CAPTURE_ADDRESS_INFO, .memory = memory};
        if (address) {
            address->sType = VK_STRUCTURE_TYPE_MEMORY_OPAQUE_CAPTURE_ADDRESS_ALLOCATE_INFO;
            address->pNext = sent->pNext;
            address->opaqueCaptureAddress = dev->dispatch.vkGetDeviceMemoryOpaqueCaptureAddress(dev->handle, &which);
            *copy = *sent;
            copy->pNext = address;
            return copy;
        }
    }
    return sent;
}
