/* replay/memory.c — device memory: type translation, memory updates, and
 * rebinding. In direct mode every captured allocation is made again, with the
 * same layout, and memory updates land at their captured offsets. In rebind
 * mode (a device whose sizes, alignments or memory types differ) captured
 * allocations are only ranges; every buffer and image gets an allocation
 * made for the replay device when it is bound, and memory updates are routed
 * to the buffers bound over the bytes they touch. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "replay_config.h"

struct binding {
    bool is_image;
    uint64_t resource;     /* live handle */
    VkDeviceSize offset;   /* where the capture bound it in its allocation */
    VkDeviceSize size;     /* bytes of the allocation it covered at capture */
    VkDeviceMemory memory; /* the allocation made for it here */
    uint8_t *mapped;       /* host-visible rebound buffers only */
    bool coherent;
};

struct replay_memory {
    struct replay_device *dev;
    VkDeviceSize size;
    VkMemoryPropertyFlags captured_flags;
    VkDeviceMemory live;   /* direct mode */
    uint8_t *mapped;       /* direct mode, mapped on the first memory update */
    bool coherent;
    struct binding *bindings; /* rebind mode */
    size_t binding_count, binding_capacity;
    bool warned_image_update;
};

static struct replay_memory *memory_of(struct replay *r, uint64_t captured)
{
    uint64_t value = 0;
    return rt_hashmap_get(&r->memories, captured, &value) ? (struct replay_memory *)(uintptr_t)value : NULL;
}

static bool find_type(const struct replay *r, uint32_t allowed, VkMemoryPropertyFlags need,
                      VkMemoryPropertyFlags prefer, uint32_t *out)
{
    for (int pass = 0; pass < 2; pass++) {
        VkMemoryPropertyFlags want = pass == 0 ? need | prefer : need;
        for (uint32_t i = 0; i < r->gpu_memory.memoryTypeCount; i++) {
            if ((allowed & (1u << i)) && (r->gpu_memory.memoryTypes[i].propertyFlags & want) == want) {
                *out = i;
                return true;
            }
        }
    }
    return false;
}

static VkMemoryPropertyFlags captured_type_flags(const struct replay *r, uint32_t index)
{
    const struct rt_trace_device_info *c = &r->header->device;
    return r->header->has_device && index < c->memory_type_count ? c->memory_types[index].property_flags : 0;
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

static void flush(const struct replay_device *dev, VkDeviceMemory memory);

/* --verify: bytes nobody wrote read as zeros, as the capture layer makes them
 * (a page the program reads back holds them beside the GPU's results). */
static rt_status zero_for_verify(struct replay *r, struct replay_memory *m)
{
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    if (!r->opts->verify || !(m->captured_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        return rt_ok_status();
    if (d->vkMapMemory(m->dev->handle, m->live, 0, VK_WHOLE_SIZE, 0, (void **)&m->mapped) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot map new memory to zero it");
    memset(m->mapped, 0, (size_t)m->size);
    if (!m->coherent)
        flush(m->dev, m->live);
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
    if (r->rebind)
        return remember_memory(r, captured, &m);
    VkMemoryAllocateInfo info = *a->pAllocateInfo;
    info.pNext = without_import_nodes(info.pNext);
    replay_strip_memory_address(r, &info);
    if (!find_type(r, ~0u, m.captured_flags, 0, &info.memoryTypeIndex))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "no memory type on %s has the flags 0x%x the trace needs",
                         r->gpu_properties.deviceName, m.captured_flags);
    m.coherent = r->gpu_memory.memoryTypes[info.memoryTypeIndex].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkResult result = m.dev->dispatch.device.vkAllocateMemory(m.dev->handle, &info, NULL, &m.live);
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkAllocateMemory, VK_SUCCESS, result));
    RT_TRY(zero_for_verify(r, &m));

    RT_TRY(replay_config_new_memory(r, m.dev, m.live, info.allocationSize, info.memoryTypeIndex));
    RT_TRY(replay_remember(r, VK_OBJECT_TYPE_DEVICE_MEMORY, captured, (uint64_t)(uintptr_t)m.live));
    return remember_memory(r, captured, &m);
}

static void release(struct replay_memory *m)
{
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    if (m->live)
        d->vkFreeMemory(m->dev->handle, m->live, NULL); /* frees the mapping too */
    for (size_t i = 0; i < m->binding_count; i++)
        d->vkFreeMemory(m->dev->handle, m->bindings[i].memory, NULL);
    free(m->bindings);
    free(m);
}

rt_status replay_free_memory(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkFreeMemory *a = args;
    (void)captured_result;
    uint64_t captured = (uint64_t)(uintptr_t)a->memory;
    struct replay_memory *m = memory_of(r, captured);
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

/* --- rebind mode: one allocation per resource ----------------------------- */

static rt_status add_binding(struct replay_memory *m, const struct binding *b)
{
    if (m->binding_count == m->binding_capacity) {
        size_t capacity = m->binding_capacity ? m->binding_capacity * 2 : 4;
        struct binding *grown = realloc(m->bindings, capacity * sizeof *grown);
        if (!grown)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        m->bindings = grown;
        m->binding_capacity = capacity;
    }
    m->bindings[m->binding_count++] = *b;
    return rt_ok_status();
}

/* Allocates what the replay device wants for the resource: host-visible for
 * buffers in host-visible captured memory (memory updates land there),
 * device-local otherwise. */
static rt_status allocate_for(struct replay *r, struct replay_memory *m, const VkMemoryRequirements *req,
                              bool is_image, bool linear, struct binding *b)
{
    bool host = (!is_image || linear) && (m->captured_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    VkMemoryPropertyFlags need = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT : 0;
    VkMemoryPropertyFlags prefer = host ? VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                       .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req->size,
                                 .pNext = !is_image && r->device_address_enabled ? &flags : NULL};
    if (!find_type(r, req->memoryTypeBits, need, prefer, &info.memoryTypeIndex))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": no suitable memory type for a %s", r->call_seq,
                         is_image ? "image" : "buffer");
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkAllocateMemory, VK_SUCCESS,
                               d->vkAllocateMemory(m->dev->handle, &info, NULL, &b->memory)));
    RT_TRY(replay_config_new_memory(r, m->dev, b->memory, info.allocationSize, info.memoryTypeIndex));
    b->coherent = r->gpu_memory.memoryTypes[info.memoryTypeIndex].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (host && d->vkMapMemory(m->dev->handle, b->memory, 0, VK_WHOLE_SIZE, 0, (void **)&b->mapped) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot map memory for a rebound buffer");
    if (host && r->opts->verify) { /* as zero_for_verify */
        memset(b->mapped, 0, (size_t)req->size);
        if (!b->coherent)
            flush(m->dev, b->memory);
    }
    return rt_ok_status();
}

static rt_status remember_buffer_binding(struct replay *r, VkBuffer buffer, uint64_t captured_memory,
                                         VkDeviceSize offset)
{
    struct replay_buffer *b = replay_resources_buffer(&r->resources, (uint64_t)(uintptr_t)buffer);
    if (b)
        *b = (struct replay_buffer){.size = b->size, .bound = true, .memory = captured_memory, .offset = offset};
    return rt_ok_status();
}

static void remember_image_binding(struct replay *r, VkImage image, uint64_t captured_memory)
{
    struct replay_image *i = replay_resources_image(&r->resources, (uint64_t)(uintptr_t)image);
    if (i) {
        i->bound = true;
        i->memory = captured_memory;
    }
}

static rt_status rebind_buffer(struct replay *r, VkBuffer buffer, uint64_t captured_memory, VkDeviceSize offset)
{
    struct replay_memory *m = memory_of(r, captured_memory);
    if (!m)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": binds memory the trace never allocated", r->call_seq);
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    VkMemoryRequirements req;
    d->vkGetBufferMemoryRequirements(m->dev->handle, buffer, &req);
    struct binding b = {.resource = (uint64_t)(uintptr_t)buffer, .offset = offset,
                        .size = replay_buffer_size(r, buffer)};
    RT_TRY(allocate_for(r, m, &req, false, false, &b));
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkBindBufferMemory, VK_SUCCESS,
                               d->vkBindBufferMemory(m->dev->handle, buffer, b.memory, 0)));
    RT_TRY(remember_buffer_binding(r, buffer, captured_memory, offset));
    return add_binding(m, &b);
}

static rt_status rebind_image(struct replay *r, VkImage image, uint64_t captured_memory, VkDeviceSize offset)
{
    struct replay_memory *m = memory_of(r, captured_memory);
    if (!m)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": binds memory the trace never allocated", r->call_seq);
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    VkMemoryRequirements req;
    d->vkGetImageMemoryRequirements(m->dev->handle, image, &req);
    struct binding b = {.is_image = true, .resource = (uint64_t)(uintptr_t)image, .offset = offset, .size = req.size};
    /* Linear images written through a mapping get their bytes at the same
     * offsets: right whenever the row pitch is the same on both devices. */
    const struct replay_image *record = replay_resources_image(&r->resources, (uint64_t)(uintptr_t)image);
    RT_TRY(allocate_for(r, m, &req, true, record && record->linear, &b));
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkBindImageMemory, VK_SUCCESS,
                               d->vkBindImageMemory(m->dev->handle, image, b.memory, 0)));
    remember_image_binding(r, image, captured_memory);
    return add_binding(m, &b);
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
    if (!r->rebind)
        return replay_generic_call(r, RT_VK_CMD_vkBindImageMemory, args, captured_result);
    uint64_t captured_memory = (uint64_t)(uintptr_t)a->memory;
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
    if (!r->rebind)
        return replay_generic_call(r, RT_VK_CMD_vkBindImageMemory2, args, captured_result);
    VkBindImageMemoryInfo *infos = (VkBindImageMemoryInfo *)a->pBindInfos;
    uint64_t *captured = rt_arena_calloc(&r->arena, a->bindInfoCount + 1, sizeof *captured, 8);
    if (!captured)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
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

/* A rebound resource's own allocation goes with it: a later object under the
 * same handle must not find it. */
static void drop_binding(struct replay *r, uint64_t captured_memory, uint64_t resource)
{
    struct replay_memory *m = memory_of(r, captured_memory);
    for (size_t i = 0; m && i < m->binding_count; i++) {
        if (m->bindings[i].resource != resource)
            continue;
        m->dev->dispatch.device.vkFreeMemory(m->dev->handle, m->bindings[i].memory, NULL);
        m->bindings[i] = m->bindings[--m->binding_count];
        return;
    }
}

rt_status replay_destroy_buffer(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkDestroyBuffer *a = args;
    RT_TRY(replay_generic_call(r, RT_VK_CMD_vkDestroyBuffer, args, captured_result));
    uint64_t buffer = (uint64_t)(uintptr_t)a->buffer;
    const struct replay_buffer *b = replay_resources_buffer(&r->resources, buffer);
    if (b && b->bound && r->rebind)
        drop_binding(r, b->memory, buffer);
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
        drop_binding(r, i->memory, image);
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

/* --- memory updates --------------------------------------------------------- */

static void flush(const struct replay_device *dev, VkDeviceMemory memory)
{
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory,
                                 .size = VK_WHOLE_SIZE};
    dev->dispatch.device.vkFlushMappedMemoryRanges(dev->handle, 1, &range);
}

static rt_status update_direct(struct replay *r, struct replay_memory *m, uint64_t offset, const void *data,
                               size_t size)
{
    if (offset > m->size || size > m->size - offset)
        return rt_errorf(RT_ERR_BAD_INPUT, "packet %" PRIu64 ": a memory update past the end of its allocation",
                         r->call_seq);
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    if (!m->mapped && d->vkMapMemory(m->dev->handle, m->live, 0, VK_WHOLE_SIZE, 0, (void **)&m->mapped) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot map memory to apply the trace's writes");
    memcpy(m->mapped + offset, data, size);
    if (!m->coherent)
        flush(m->dev, m->live);
    return rt_ok_status();
}

/* Routes the bytes to every buffer bound over them, at the same distance
 * from the buffer's start as at capture. */
static void update_rebound(struct replay_memory *m, uint64_t offset, const uint8_t *data, size_t size)
{
    uint64_t end = offset + size;
    for (size_t i = 0; i < m->binding_count; i++) {
        struct binding *b = &m->bindings[i];
        uint64_t lo = offset > b->offset ? offset : b->offset;
        uint64_t hi = end < b->offset + b->size ? end : b->offset + b->size;
        if (lo >= hi)
            continue;
        if (!b->mapped) {
            if (b->is_image && !m->warned_image_update) {
                rt_log(RT_LOG_WARN, "replay: mapped writes to an image's memory cannot be moved to another device's layout");
                m->warned_image_update = true;
            }
            continue;
        }
        memcpy(b->mapped + (lo - b->offset), data + (lo - offset), hi - lo);
        if (!b->coherent)
            flush(m->dev, b->memory);
    }
}

rt_status replay_memory_update(struct replay *r, uint64_t memory_id, uint64_t offset, const void *data, size_t size)
{
    struct replay_memory *m = memory_of(r, memory_id);
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
    rt_status s = rt_ok_status();
    if (!r->rebind)
        s = update_direct(r, m, offset, data, size);
    else
        update_rebound(m, offset, data, size);
    free(moved);
    return s;
}

const uint8_t *replay_buffer_host_pointer(struct replay *r, VkBuffer buffer)
{
    const struct replay_buffer *b = replay_resources_buffer(&r->resources, (uint64_t)(uintptr_t)buffer);
    if (!b || !b->bound)
        return NULL;
    uint64_t offset = b->offset;
    struct replay_memory *m = memory_of(r, b->memory);
    if (!m)
        return NULL;
    if (r->rebind) {
        for (size_t i = 0; i < m->binding_count; i++)
            if (m->bindings[i].resource == (uint64_t)(uintptr_t)buffer)
                return m->bindings[i].mapped;
        return NULL;
    }
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    if (!m->mapped && d->vkMapMemory(m->dev->handle, m->live, 0, VK_WHOLE_SIZE, 0, (void **)&m->mapped) != VK_SUCCESS)
        return NULL;
    return m->mapped + offset;
}

/* Copies binding b's share of [offset, offset + size) to out and marks it in
 * covered (may be NULL); false if b holds none of it. */
static bool copy_binding(const struct binding *b, uint64_t offset, size_t size, uint8_t *out, uint8_t *covered)
{
    uint64_t end = offset + size;
    uint64_t lo = offset > b->offset ? offset : b->offset;
    uint64_t hi = end < b->offset + b->size ? end : b->offset + b->size;
    if (lo >= hi || !b->mapped)
        return false;
    memcpy(out + (lo - offset), b->mapped + (lo - b->offset), hi - lo);
    if (covered)
        memset(covered + (lo - offset), 1, hi - lo);
    return true;
}

/* Rebind mode: the bytes come from the live buffers bound over them; bytes
 * no host-visible buffer covers (never bound, or their buffer is destroyed)
 * do not exist here: zeros, left unmarked in covered. Buffers the capture
 * bound over the same bytes (aliases) each have their own copy here: the
 * later binding wins, or the alias-th one (from 1) when asked. */
static bool read_rebound(const struct replay_memory *m, uint64_t offset, size_t size, unsigned alias,
                         uint8_t *out, uint8_t *covered)
{
    unsigned found = 0;
    memset(out, 0, size);
    if (covered)
        memset(covered, 0, size);
    for (size_t i = 0; i < m->binding_count; i++)
        found += copy_binding(&m->bindings[i], offset, size, out, covered);
    for (size_t i = 0, k = 0; alias && i < m->binding_count; i++)
        if (copy_binding(&m->bindings[i], offset, size, out, NULL) && ++k == alias)
            return true;
    return found && !alias;
}

bool replay_memory_read(struct replay *r, uint64_t memory_id, uint64_t offset, size_t size, unsigned alias,
                        uint8_t *out, uint8_t *covered)
{
    struct replay_memory *m = memory_of(r, memory_id);
    if (!m || offset > m->size || size > m->size - offset)
        return false;
    if (r->rebind)
        return read_rebound(m, offset, size, alias, out, covered);
    if (alias)
        return false; /* one allocation: no aliases */
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    if (!(m->captured_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        return false;
    if (!m->mapped && d->vkMapMemory(m->dev->handle, m->live, 0, VK_WHOLE_SIZE, 0, (void **)&m->mapped) != VK_SUCCESS)
        return false;
    if (!m->coherent) {
        VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = m->live,
                                     .size = VK_WHOLE_SIZE};
        d->vkInvalidateMappedMemoryRanges(m->dev->handle, 1, &range);
    }
    memcpy(out, m->mapped + offset, size);
    if (covered)
        memset(covered, 1, size);
    return true;
}
