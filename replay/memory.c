/* replay/memory.c — device memory: type translation, every captured
 * allocation made again (its "home", memory.h), memory updates at their
 * captured offsets, reads for --verify and read-backs, and the buffer and
 * image records. In direct mode resources bind to the home as captured; in
 * rebind mode (a device whose sizes, alignments or memory types differ)
 * rebind.c places them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "memory.h"
#include "replay_config.h"

struct replay_memory *replay_memory_of(struct replay *r, uint64_t captured)
{
    uint64_t value = 0;
    return rt_hashmap_get(&r->memories, captured, &value) ? (struct replay_memory *)(uintptr_t)value : NULL;
}

static VkMemoryPropertyFlags captured_type_flags(const struct replay *r, uint32_t index)
{
    const struct rt_trace_device_info *c = &r->header->device;
    return r->header->has_device && index < c->memory_type_count ? c->memory_types[index].property_flags : 0;
}

/* Direct mode: a type with every flag the capture's had. */
static bool exact_type(const struct replay *r, VkMemoryPropertyFlags need, uint32_t *out)
{
    for (uint32_t i = 0; i < r->gpu_memory.memoryTypeCount; i++)
        if ((r->gpu_memory.memoryTypes[i].propertyFlags & need) == need) {
            *out = i;
            return true;
        }
    return false;
}

/* Rebind mode: host-visible where the capture's was (memory updates land
 * there), otherwise the allowed type sharing most of the capture's flags;
 * device-local counts most, as images can usually bind only there. */
static bool nearest_type(const struct replay *r, uint32_t allowed, VkMemoryPropertyFlags captured, uint32_t *out)
{
    static const VkMemoryPropertyFlags weights[][2] = {
        {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 8}, {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 4},
        {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 2}, {VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, 1}};
    VkMemoryPropertyFlags need = captured & (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_PROTECTED_BIT);
    int best = -1;
    for (uint32_t i = 0; i < r->gpu_memory.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = r->gpu_memory.memoryTypes[i].propertyFlags;
        if (!(allowed & (1u << i)) || (f & need) != need)
            continue;
        int score = 0;
        for (size_t k = 0; k < sizeof weights / sizeof weights[0]; k++)
            score += (int)(weights[k][1] * (((f & captured) & weights[k][0]) != 0));
        if (score > best) {
            best = score;
            *out = i;
        }
    }
    return best >= 0;
}

/* Imports of external memory cannot be repeated here: allocate plain memory. */
static const void *without_import_nodes(const void *chain)
{
    const VkBaseInStructure *head = chain, **link = (const VkBaseInStructure **)&head;
    while (*link) {
        VkStructureType t = (*link)->sType;
        if (t == VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR || t == VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT ||
            t == VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO)
            *link = (*link)->pNext;
        else
            link = (const VkBaseInStructure **)&(*link)->pNext;
    }
    return head;
}

/* Rebind mode: a dedicated allocation is as large as its resource needs
 * here, of a type it can bind to (allowed). */
static void size_dedicated(struct replay_device *dev, VkMemoryAllocateInfo *info, uint32_t *allowed)
{
    const VkMemoryDedicatedAllocateInfo *ded = NULL;
    for (const VkBaseInStructure *n = info->pNext; n; n = n->pNext)
        if (n->sType == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO)
            ded = (const VkMemoryDedicatedAllocateInfo *)n;
    if (!ded || (!ded->image && !ded->buffer))
        return;
    VkMemoryRequirements req;
    if (ded->image)
        dev->dispatch.device.vkGetImageMemoryRequirements(dev->handle, ded->image, &req);
    else
        dev->dispatch.device.vkGetBufferMemoryRequirements(dev->handle, ded->buffer, &req);
    info->allocationSize = req.size;
    *allowed &= req.memoryTypeBits;
}

/* The capture's new memory reads as zeros (the layer's fresh mappings, a
 * driver's fresh pages): a host-visible home starts so, mapped for good. */
static rt_status map_and_zero(struct replay *r, struct replay_memory *m)
{
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    if (!(r->gpu_memory.memoryTypes[m->type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        return rt_ok_status();
    if (d->vkMapMemory(m->dev->handle, m->live, 0, VK_WHOLE_SIZE, 0, (void **)&m->mapped) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": cannot map new memory to zero it", r->call_seq);
    memset(m->mapped, 0, (size_t)m->live_size);
    if (!m->coherent)
        replay_memory_flush(m->dev, m->live);
    return rt_ok_status();
}

static rt_status remember_memory(struct replay *r, uint64_t captured, struct replay_memory *m)
{
    struct replay_memory *copy = malloc(sizeof *copy);
    if (!copy || !rt_hashmap_put(&r->memories, captured, (uint64_t)(uintptr_t)copy)) {
        free(copy);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    *copy = *m;
    return rt_ok_status();
}

/* Rebind mode may fall back to a home the host cannot see: the memory of a
 * dedicated image that binds only to device-local memory here. */
static rt_status choose_home_type(struct replay *r, struct replay_memory *m, VkMemoryAllocateInfo *info,
                                  uint32_t allowed)
{
    if (r->rebind)
        size_dedicated(m->dev, info, &allowed);
    if (r->rebind ? nearest_type(r, allowed, m->captured_flags, &info->memoryTypeIndex) ||
                        nearest_type(r, allowed, m->captured_flags & ~VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                                     &info->memoryTypeIndex)
                  : exact_type(r, m->captured_flags, &info->memoryTypeIndex))
        return rt_ok_status();
    return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": no memory type on %s has the flags 0x%x the trace needs",
                     r->call_seq, r->gpu_properties.deviceName, m->captured_flags);
}

rt_status replay_allocate_memory(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkAllocateMemory *a = args;
    uint64_t captured = (uint64_t)(uintptr_t)*a->pMemory;
    if ((VkResult)(int32_t)captured_result != VK_SUCCESS)
        return replay_skip(r, args, captured_result); /* nothing was allocated at capture */
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkAllocateMemory, args));
    struct replay_memory m = {.dev = replay_device_of(r, a->device), .size = a->pAllocateInfo->allocationSize,
                              .captured_flags = captured_type_flags(r, a->pAllocateInfo->memoryTypeIndex)};
    if (!m.dev)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": vkAllocateMemory on an unknown device", r->call_seq);
    VkMemoryAllocateInfo info = *a->pAllocateInfo;
    info.pNext = without_import_nodes(info.pNext);
    replay_strip_memory_address(r, &info);
    uint32_t allowed = ~0u;
    VkResult result = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    /* Rebind mode: a heap that is full (a small BAR heap) gives way to the next nearest type. */
    while (result == VK_ERROR_OUT_OF_DEVICE_MEMORY && allowed) {
        RT_TRY(choose_home_type(r, &m, &info, allowed));
        result = m.dev->dispatch.device.vkAllocateMemory(m.dev->handle, &info, NULL, &m.live);
        allowed = r->rebind ? allowed & ~(1u << info.memoryTypeIndex) : 0;
    }
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkAllocateMemory, VK_SUCCESS, result));
    m.type = info.memoryTypeIndex;
    m.live_size = info.allocationSize;
    m.coherent = r->gpu_memory.memoryTypes[m.type].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    RT_TRY(replay_config_new_memory(r, m.dev, m.live, info.allocationSize, info.memoryTypeIndex));
    RT_TRY(map_and_zero(r, &m));
    RT_TRY(replay_remember(r, VK_OBJECT_TYPE_DEVICE_MEMORY, captured, (uint64_t)(uintptr_t)m.live));
    return remember_memory(r, captured, &m);
}

static void release(struct replay_memory *m)
{
    replay_rebind_release(m);
    m->dev->dispatch.device.vkFreeMemory(m->dev->handle, m->live, NULL); /* frees the mapping too */
    free(m);
}

rt_status replay_free_memory(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkFreeMemory *a = args;
    (void)captured_result;
    uint64_t captured = (uint64_t)(uintptr_t)a->memory;
    struct replay_memory *m = replay_memory_of(r, captured);
    if (m) {
        release(m);
        rt_hashmap_remove(&r->memories, captured);
    }
    return rt_ok_status();
}

void replay_memory_finish_device(struct replay *r, const struct replay_device *dev)
{
    struct rt_hashmap_iter it;
    uint64_t key, value;
    rt_hashmap_iter_init(&it, &r->memories);
    while (rt_hashmap_iter_next(&it, &key, &value)) {
        struct replay_memory *m = (struct replay_memory *)(uintptr_t)value;
        if (dev && m->dev != dev)
            continue;
        release(m);
        rt_hashmap_remove(&r->memories, key);
    }
}

void replay_memory_finish(struct replay *r)
{
    replay_memory_finish_device(r, NULL);
    rt_hashmap_finish(&r->memories);
    rt_hashmap_init(&r->memories);
}

static rt_status remember_buffer_binding(struct replay *r, VkBuffer buffer, uint64_t captured_memory,
                                         VkDeviceSize offset)
{
    struct replay_buffer *b = replay_resources_buffer(&r->resources, (uint64_t)(uintptr_t)buffer);
    if (b)
        *b = (struct replay_buffer){.size = b->size, .bound = true, .memory = captured_memory, .offset = offset};
    return rt_ok_status();
}

static void remember_image_binding(struct replay *r, VkImage image, uint64_t captured_memory, VkDeviceSize offset)
{
    struct replay_image *i = replay_resources_image(&r->resources, (uint64_t)(uintptr_t)image);
    if (i) {
        i->bound = true;
        i->memory = captured_memory;
        i->offset = offset;
    }
}

static rt_status rebind_buffer(struct replay *r, VkBuffer buffer, uint64_t captured_memory, VkDeviceSize offset)
{
    RT_TRY(replay_rebind_buffer(r, buffer, captured_memory, offset));
    return remember_buffer_binding(r, buffer, captured_memory, offset);
}

static rt_status rebind_image(struct replay *r, VkImage image, uint64_t captured_memory, VkDeviceSize offset)
{
    RT_TRY(replay_rebind_image(r, image, captured_memory, offset));
    remember_image_binding(r, image, captured_memory, offset);
    return rt_ok_status();
}

rt_status replay_bind_buffer_memory(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkBindBufferMemory *a = args;
    uint64_t captured_memory = (uint64_t)(uintptr_t)a->memory;
    if (!r->rebind) {
        RT_TRY(replay_generic_call(r, RT_VK_CMD_vkBindBufferMemory, args, captured_result));
        return remember_buffer_binding(r, a->buffer, captured_memory, a->memoryOffset);
    }
    a->memory = VK_NULL_HANDLE; /* not a live handle in rebind mode */
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkBindBufferMemory, args));
    return rebind_buffer(r, a->buffer, captured_memory, a->memoryOffset);
}

rt_status replay_bind_image_memory(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkBindImageMemory *a = args;
    uint64_t captured_memory = (uint64_t)(uintptr_t)a->memory;
    if (!r->rebind) { /* remembered for trim (replay_trim.h: the memory no resource covers) */
        RT_TRY(replay_generic_call(r, RT_VK_CMD_vkBindImageMemory, args, captured_result));
        remember_image_binding(r, a->image, captured_memory, a->memoryOffset);
        return rt_ok_status();
    }
    a->memory = VK_NULL_HANDLE;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkBindImageMemory, args));
    return rebind_image(r, a->image, captured_memory, a->memoryOffset);
}

rt_status replay_bind_buffer_memory2(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkBindBufferMemory2 *a = args;
    VkBindBufferMemoryInfo *infos = (VkBindBufferMemoryInfo *)a->pBindInfos;
    uint64_t *captured = rt_arena_calloc(&r->arena, a->bindInfoCount + 1, sizeof *captured, 8);
    if (!captured)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (uint32_t i = 0; i < a->bindInfoCount; i++)
        captured[i] = (uint64_t)(uintptr_t)infos[i].memory;
    if (!r->rebind) {
        RT_TRY(replay_generic_call(r, RT_VK_CMD_vkBindBufferMemory2, args, captured_result));
        for (uint32_t i = 0; i < a->bindInfoCount; i++)
            RT_TRY(remember_buffer_binding(r, infos[i].buffer, captured[i], infos[i].memoryOffset));
        return rt_ok_status();
    }
    for (uint32_t i = 0; i < a->bindInfoCount; i++)
        infos[i].memory = VK_NULL_HANDLE;
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkBindBufferMemory2, args));
    for (uint32_t i = 0; i < a->bindInfoCount; i++)
        RT_TRY(rebind_buffer(r, infos[i].buffer, captured[i], infos[i].memoryOffset));
    return rt_ok_status();
}

rt_status replay_bind_image_memory2(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkBindImageMemory2 *a = args;
    VkBindImageMemoryInfo *infos = (VkBindImageMemoryInfo *)a->pBindInfos;
    uint64_t *captured = rt_arena_calloc(&r->arena, a->bindInfoCount + 1, sizeof *captured, 8);
    if (!captured)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    if (!r->rebind) { /* a swapchain image's binding names no memory */
        for (uint32_t i = 0; i < a->bindInfoCount; i++)
            captured[i] = (uint64_t)(uintptr_t)infos[i].memory;
        RT_TRY(replay_generic_call(r, RT_VK_CMD_vkBindImageMemory2, args, captured_result));
        for (uint32_t i = 0; i < a->bindInfoCount; i++)
            if (captured[i])
                remember_image_binding(r, infos[i].image, captured[i], infos[i].memoryOffset);
        return rt_ok_status();
    }
    for (uint32_t i = 0; i < a->bindInfoCount; i++) {
        captured[i] = (uint64_t)(uintptr_t)infos[i].memory;
        infos[i].memory = VK_NULL_HANDLE;
    }
    RT_TRY(replay_map_inputs(r, RT_VK_CMD_vkBindImageMemory2, args));
    for (uint32_t i = 0; i < a->bindInfoCount; i++)
        RT_TRY(rebind_image(r, infos[i].image, captured[i], infos[i].memoryOffset));
    return rt_ok_status();
}

rt_status replay_create_buffer(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCreateBuffer *a = args;
    VkDeviceSize size = a->pCreateInfo->size;
    replay_strip_buffer_address(r, (VkBufferCreateInfo *)a->pCreateInfo); /* decoded: ours to change */
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkCreateBuffer, args, captured_result));
    if (a->result != VK_SUCCESS)
        return rt_ok_status();
    struct replay_buffer *b = replay_resources_add_buffer(&r->resources, (uint64_t)(uintptr_t)*a->pBuffer);
    if (!b)
        return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
    b->size = size;
    return rt_ok_status();
}

rt_status replay_create_image(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCreateImage *a = args;
    bool linear = a->pCreateInfo->tiling == VK_IMAGE_TILING_LINEAR;
    VkFormat format = a->pCreateInfo->format;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkCreateImage, args, captured_result));
    if (a->result != VK_SUCCESS)
        return rt_ok_status();
    struct replay_image *i = replay_resources_add_image(&r->resources, (uint64_t)(uintptr_t)*a->pImage);
    if (!i)
        return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
    i->format = format;
    i->linear = linear;
    return rt_ok_status();
}

/* What the capture's device said an image needs: its bytes at capture, for
 * rebind mode's placement (memory.h). The call itself runs as generated. */
static void remember_captured_size(struct replay *r, VkImage live, VkDeviceSize size)
{
    struct replay_image *i = replay_resources_image(&r->resources, (uint64_t)(uintptr_t)live);
    if (i)
        i->captured_size = size;
}

rt_status replay_get_image_memory_requirements(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetImageMemoryRequirements *a = args;
    VkDeviceSize size = a->pMemoryRequirements ? a->pMemoryRequirements->size : 0;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkGetImageMemoryRequirements, args, captured_result));
    remember_captured_size(r, a->image, size);
    return rt_ok_status();
}

rt_status replay_get_image_memory_requirements2(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkGetImageMemoryRequirements2 *a = args;
    VkDeviceSize size = a->pMemoryRequirements ? a->pMemoryRequirements->memoryRequirements.size : 0;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkGetImageMemoryRequirements2, args, captured_result));
    if (a->pInfo)
        remember_captured_size(r, a->pInfo->image, size);
    return rt_ok_status();
}

rt_status replay_destroy_buffer(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkDestroyBuffer *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkDestroyBuffer, args, captured_result));
    uint64_t buffer = (uint64_t)(uintptr_t)a->buffer;
    const struct replay_buffer *b = replay_resources_buffer(&r->resources, buffer);
    if (b && b->bound && r->rebind)
        replay_rebind_drop(r, b->memory, buffer);
    replay_resources_remove_buffer(&r->resources, buffer);
    replay_forget_buffer_address(r, buffer);
    return rt_ok_status();
}

rt_status replay_destroy_image(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkDestroyImage *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkDestroyImage, args, captured_result));
    uint64_t image = (uint64_t)(uintptr_t)a->image;
    const struct replay_image *i = replay_resources_image(&r->resources, image);
    if (i && i->bound && r->rebind)
        replay_rebind_drop(r, i->memory, image);
    replay_resources_remove_image(&r->resources, image);
    return rt_ok_status();
}

VkDeviceSize replay_buffer_size(struct replay *r, VkBuffer buffer)
{
    const struct replay_buffer *b = replay_resources_buffer(&r->resources, (uint64_t)(uintptr_t)buffer);
    return b ? b->size : 0;
}

VkFormat replay_image_format(struct replay *r, VkImage image)
{
    const struct replay_image *i = replay_resources_image(&r->resources, (uint64_t)(uintptr_t)image);
    return i ? i->format : VK_FORMAT_UNDEFINED;
}

/* --- memory updates and reads ------------------------------------------------- */

void replay_memory_flush(const struct replay_device *dev, VkDeviceMemory memory)
{
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory,
                                 .size = VK_WHOLE_SIZE};
    dev->dispatch.device.vkFlushMappedMemoryRanges(dev->handle, 1, &range);
}

void replay_memory_invalidate(const struct replay_device *dev, VkDeviceMemory memory)
{
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory,
                                 .size = VK_WHOLE_SIZE};
    dev->dispatch.device.vkInvalidateMappedMemoryRanges(dev->handle, 1, &range);
}

/* The bytes land in the home at their captured offset (a dedicated home
 * smaller here keeps what fits), then in moved resources over them. */
static rt_status apply_update(struct replay *r, struct replay_memory *m, uint64_t offset, const uint8_t *data,
                              size_t size)
{
    if (offset > m->size || size > m->size - offset)
        return rt_errorf(RT_ERR_BAD_INPUT, "packet %" PRIu64 ": a memory update past the end of its allocation",
                         r->call_seq);
    if (!m->mapped && !r->rebind)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "packet %" PRIu64 ": a memory update for memory that is not "
                         "host-visible here", r->call_seq);
    if (m->mapped && offset < m->live_size) {
        memcpy(m->mapped + offset, data, (size_t)(size < m->live_size - offset ? size : m->live_size - offset));
        if (!m->coherent)
            replay_memory_flush(m->dev, m->live);
    }
    if (r->rebind)
        replay_rebind_update(m, offset, data, size, m->mapped != NULL);
    return rt_ok_status();
}

rt_status replay_memory_update(struct replay *r, uint64_t memory_id, uint64_t offset, const void *data, size_t size)
{
    struct replay_memory *m = replay_memory_of(r, memory_id);
    if (!m)
        return rt_errorf(RT_ERR_BAD_INPUT, "packet %" PRIu64 ": a memory update for memory the trace never allocated",
                         r->call_seq);
    uint8_t *moved = NULL;
    if (r->address_range_count) { /* addresses written for shaders to read */
        moved = malloc(size ? size : 1);
        if (!moved)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        memcpy(moved, data, size);
        replay_translate_addresses(r, offset, moved, size);
        data = moved;
    }
    rt_status s = apply_update(r, m, offset, data, size);
    free(moved);
    return s;
}

const uint8_t *replay_buffer_host_pointer(struct replay *r, VkBuffer buffer)
{
    const struct replay_buffer *b = replay_resources_buffer(&r->resources, (uint64_t)(uintptr_t)buffer);
    struct replay_memory *m = b && b->bound ? replay_memory_of(r, b->memory) : NULL;
    if (!m)
        return NULL;
    if (r->rebind)
        return replay_rebind_host_pointer(m, (uint64_t)(uintptr_t)buffer, b->offset);
    return m->mapped ? m->mapped + b->offset : NULL;
}

/* The home's bytes (the capture's layout), with moved resources' bytes over
 * them in rebind mode. */
bool replay_memory_read(struct replay *r, uint64_t memory_id, uint64_t offset, size_t size, unsigned alias,
                        uint8_t *out, uint8_t *covered)
{
    struct replay_memory *m = replay_memory_of(r, memory_id);
    if (!m || offset > m->size || size > m->size - offset)
        return false;
    if (alias && !r->rebind)
        return false; /* one allocation: no copies of aliases */
    memset(out, 0, size);
    if (covered)
        memset(covered, 0, size);
    if (m->mapped && !alias && offset < m->live_size) {
        size_t n = (size_t)(size < m->live_size - offset ? size : m->live_size - offset);
        if (!m->coherent)
            replay_memory_invalidate(m->dev, m->live);
        memcpy(out, m->mapped + offset, n);
        if (covered)
            memset(covered, 1, n);
    }
    if (r->rebind)
        return replay_rebind_read(m, offset, size, alias, out, covered);
    return m->mapped != NULL;
}
