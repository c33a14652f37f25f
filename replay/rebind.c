/* replay/rebind.c — rebind mode: buffers and images bound into a captured
 * allocation's home at their captured offsets where the replay device's
 * requirements allow it, into allocations of their own ("moved") otherwise
 * (memory.h says how the bytes stay the capture's). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "memory.h"
#include "replay_config.h"

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

static bool choose_type(const struct replay *r, uint32_t allowed, VkMemoryPropertyFlags need,
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

/* A moved resource's own allocation: host-visible when it is a buffer or a
 * linear image in host-visible captured memory (memory updates reach it),
 * device-local otherwise. */
static rt_status allocate_moved(struct replay *r, struct replay_memory *m, const VkMemoryRequirements *req,
                                struct binding *b)
{
    bool host = b->linear && (m->captured_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    VkMemoryPropertyFlags need = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT : 0;
    VkMemoryPropertyFlags prefer = host ? VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                       .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req->size,
                                 .pNext = !b->is_image && r->device_address_enabled ? &flags : NULL};
    if (!choose_type(r, req->memoryTypeBits, need, prefer, &info.memoryTypeIndex))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": no memory type on %s can hold this %s%s",
                         r->call_seq, r->gpu_properties.deviceName, b->is_image ? "image" : "buffer",
                         host ? " where the host writes it" : "");
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkAllocateMemory, VK_SUCCESS,
                               d->vkAllocateMemory(m->dev->handle, &info, NULL, &b->memory)));
    RT_TRY(replay_config_new_memory(r, m->dev, b->memory, info.allocationSize, info.memoryTypeIndex));
    b->coherent = r->gpu_memory.memoryTypes[info.memoryTypeIndex].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (host && d->vkMapMemory(m->dev->handle, b->memory, 0, VK_WHOLE_SIZE, 0, (void **)&b->mapped) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": cannot map memory for a moved buffer", r->call_seq);
    return rt_ok_status();
}

/* The part of [lo, lo + n) inside the home, as a length (0 when none is). */
static size_t inside_home(const struct replay_memory *m, VkDeviceSize lo, VkDeviceSize n)
{
    return lo >= m->live_size ? 0 : (size_t)(n < m->live_size - lo ? n : m->live_size - lo);
}

/* A moved binding starts with the home's bytes at its captured offset:
 * written before the bind, under an earlier resource, or the zeros of new memory. */
static void fill_from_home(struct replay_memory *m, const struct binding *b)
{
    if (!b->mapped || !m->mapped)
        return;
    if (!m->coherent)
        replay_memory_invalidate(m->dev, m->live);
    memcpy(b->mapped, m->mapped + b->at.offset, inside_home(m, b->at.offset, b->at.capture_size));
    if (!b->coherent)
        replay_memory_flush(m->dev, b->memory);
}

/* RETRACE_REBIND_MOVE_ALL=1: nothing stays at its captured offset, as on a
 * device where nothing fits: what a replay elsewhere loses, shown here. */
static bool move_all(void)
{
    const char *v = getenv("RETRACE_REBIND_MOVE_ALL");
    return v && *v && strcmp(v, "0") != 0;
}

static bool placed_in_home(struct replay *r, const struct replay_memory *m, const VkMemoryRequirements *req,
                           struct replay_extent at)
{
    if (move_all())
        return false;
    struct replay_extent *placed = rt_arena_calloc(&r->arena, m->binding_count + 1, sizeof *placed, 8);
    size_t count = 0;
    for (size_t i = 0; placed && i < m->binding_count; i++)
        if (!m->bindings[i].moved)
            placed[count++] = m->bindings[i].at;
    return placed && replay_fits_in_place(req, m->type, m->live_size, at, placed, count);
}

/* A moved resource that overlapped another at capture: host writes reach
 * both here (memory updates go to each), GPU writes only the one written.
 * Where no host wrote the memory (device-local at capture) only the GPU's
 * writes could have been shared: the replay cannot be faithful, and stops. */
static rt_status check_moved_alias(struct replay *r, struct replay_memory *m, const struct binding *b,
                                   const VkMemoryRequirements *req)
{
    for (size_t i = 0; i < m->binding_count; i++) {
        const struct binding *o = &m->bindings[i];
        if (!replay_extents_alias(b->at, o->at) || (!b->linear && !o->linear))
            continue; /* optimal images alone: their shared bytes have no defined meaning */
        char why[200], need[96] = "RETRACE_REBIND_MOVE_ALL moves it";
        if (!move_all())
            snprintf(need, sizeof need, "here it needs %" PRIu64 " bytes aligned to %" PRIu64 " of types 0x%x",
                     (uint64_t)req->size, (uint64_t)req->alignment, req->memoryTypeBits);
        snprintf(why, sizeof why, "the %s at offset %" PRIu64 " of captured memory overlaps another resource there, "
                 "but does not fit at that offset (%s)", b->is_image ? "image" : "buffer", (uint64_t)b->at.offset, need);
        if (!(m->captured_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": %s; aliased memory cannot be placed on %s",
                             r->call_seq, why, r->gpu_properties.deviceName);
        if (!m->warned_alias)
            rt_log(RT_LOG_WARN, "replay: call %" PRIu64 ": %s; it gets memory of its own, and GPU writes through one "
                   "alias no longer reach the other", r->call_seq, why);
        m->warned_alias = true;
        return rt_ok_status();
    }
    return rt_ok_status();
}

static rt_status place(struct replay *r, struct replay_memory *m, const VkMemoryRequirements *req, struct binding *b)
{
    b->moved = !placed_in_home(r, m, req, b->at);
    if (!b->moved) {
        r->result->rebind_placed++;
        return rt_ok_status();
    }
    r->result->rebind_moved++;
    RT_TRY(check_moved_alias(r, m, b, req));
    RT_TRY(allocate_moved(r, m, req, b));
    fill_from_home(m, b);
    return rt_ok_status();
}

static struct replay_memory *bound_memory(struct replay *r, uint64_t captured_memory, rt_status *st)
{
    struct replay_memory *m = replay_memory_of(r, captured_memory);
    *st = m ? rt_ok_status()
            : rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": binds memory the trace never allocated", r->call_seq);
    return m;
}

rt_status replay_rebind_buffer(struct replay *r, VkBuffer buffer, uint64_t captured_memory, VkDeviceSize offset)
{
    rt_status st;
    struct replay_memory *m = bound_memory(r, captured_memory, &st);
    if (!m)
        return st;
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    VkMemoryRequirements req;
    d->vkGetBufferMemoryRequirements(m->dev->handle, buffer, &req);
    VkDeviceSize size = replay_buffer_size(r, buffer);
    struct binding b = {.linear = true, .resource = (uint64_t)(uintptr_t)buffer,
                        .at = {.offset = offset, .capture_size = size, .replay_size = size}};
    RT_TRY(place(r, m, &req, &b));
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkBindBufferMemory, VK_SUCCESS,
                               d->vkBindBufferMemory(m->dev->handle, buffer, b.moved ? b.memory : m->live,
                                                     b.moved ? 0 : offset)));
    return add_binding(m, &b);
}

rt_status replay_rebind_image(struct replay *r, VkImage image, uint64_t captured_memory, VkDeviceSize offset)
{
    rt_status st;
    struct replay_memory *m = bound_memory(r, captured_memory, &st);
    if (!m)
        return st;
    const struct rt_vk_device_dispatch *d = &m->dev->dispatch.device;
    VkMemoryRequirements req;
    d->vkGetImageMemoryRequirements(m->dev->handle, image, &req);
    const struct replay_image *record = replay_resources_image(&r->resources, (uint64_t)(uintptr_t)image);
    /* Linear images keep their bytes at the same offsets: right whenever the
     * row pitch is the same on both devices. */
    struct binding b = {.is_image = true, .linear = record && record->linear, .resource = (uint64_t)(uintptr_t)image,
                        .at = {.offset = offset, .capture_size = record && record->captured_size ? record->captured_size
                                                                                                 : req.size,
                               .replay_size = req.size}};
    RT_TRY(place(r, m, &req, &b));
    RT_TRY(replay_check_result(r, RT_VK_CMD_vkBindImageMemory, VK_SUCCESS,
                               d->vkBindImageMemory(m->dev->handle, image, b.moved ? b.memory : m->live,
                                                    b.moved ? 0 : offset)));
    return add_binding(m, &b);
}

/* What the GPU wrote into a moved resource is the capture's memory too: a
 * resource bound over those bytes later must find it. */
static void copy_back(struct replay_memory *m, const struct binding *b)
{
    if (!b->mapped || !m->mapped)
        return;
    if (!b->coherent)
        replay_memory_invalidate(m->dev, b->memory);
    memcpy(m->mapped + b->at.offset, b->mapped, inside_home(m, b->at.offset, b->at.capture_size));
    if (!m->coherent)
        replay_memory_flush(m->dev, m->live);
}

void replay_rebind_drop(struct replay *r, uint64_t captured_memory, uint64_t resource)
{
    struct replay_memory *m = replay_memory_of(r, captured_memory);
    for (size_t i = 0; m && i < m->binding_count; i++) {
        struct binding *b = &m->bindings[i];
        if (b->resource != resource)
            continue;
        if (b->moved) {
            copy_back(m, b);
            m->dev->dispatch.device.vkFreeMemory(m->dev->handle, b->memory, NULL);
        }
        m->bindings[i] = m->bindings[--m->binding_count];
        return;
    }
}

void replay_rebind_release(struct replay_memory *m)
{
    for (size_t i = 0; i < m->binding_count; i++)
        if (m->bindings[i].moved)
            m->dev->dispatch.device.vkFreeMemory(m->dev->handle, m->bindings[i].memory, NULL);
    free(m->bindings);
    m->bindings = NULL;
    m->binding_count = m->binding_capacity = 0;
}

/* The bytes of [offset, offset + size) that binding b covered at capture, as
 * [lo, hi); false when none. */
static bool share(const struct binding *b, uint64_t offset, size_t size, uint64_t *lo, uint64_t *hi)
{
    uint64_t end = offset + size;
    *lo = offset > b->at.offset ? offset : b->at.offset;
    *hi = end < b->at.offset + b->at.capture_size ? end : b->at.offset + b->at.capture_size;
    return *lo < *hi;
}

void replay_rebind_update(struct replay_memory *m, uint64_t offset, const uint8_t *data, size_t size, bool in_home)
{
    for (size_t i = 0; i < m->binding_count; i++) {
        struct binding *b = &m->bindings[i];
        uint64_t lo, hi;
        if ((!b->moved && in_home) || !share(b, offset, size, &lo, &hi))
            continue;
        if (!b->mapped) { /* out of the host's reach here: those bytes are lost */
            if (!m->warned_image_update)
                rt_log(RT_LOG_WARN, b->is_image ? "replay: mapped writes to an image's memory cannot be moved to "
                       "another device's layout (the image did not fit at its captured offset)"
                       : "replay: mapped writes to a buffer whose memory the host cannot see here are lost");
            m->warned_image_update = true;
            continue;
        }
        memcpy(b->mapped + (lo - b->at.offset), data + (lo - offset), hi - lo);
        if (!b->coherent)
            replay_memory_flush(m->dev, b->memory);
    }
}

/* Copies binding b's share of [offset, offset + size) to out and marks it in
 * covered (may be NULL); false if b holds none of it here. */
static bool copy_binding(const struct replay_memory *m, const struct binding *b, uint64_t offset, size_t size,
                         uint8_t *out, uint8_t *covered)
{
    uint64_t lo, hi;
    if (!b->moved || !b->mapped || !share(b, offset, size, &lo, &hi))
        return false;
    if (!b->coherent)
        replay_memory_invalidate(m->dev, b->memory);
    memcpy(out + (lo - offset), b->mapped + (lo - b->at.offset), hi - lo);
    if (covered)
        memset(covered + (lo - offset), 1, hi - lo);
    return true;
}

/* Moved resources hold the GPU's writes to them: they win over the home's
 * bytes. Moved aliases of the same bytes each have their own copy: the later
 * binding wins, or the alias-th one (from 1) when asked. */
bool replay_rebind_read(const struct replay_memory *m, uint64_t offset, size_t size, unsigned alias,
                        uint8_t *out, uint8_t *covered)
{
    unsigned found = 0;
    for (size_t i = 0; !alias && i < m->binding_count; i++)
        found += copy_binding(m, &m->bindings[i], offset, size, out, covered);
    for (size_t i = 0, k = 0; alias && i < m->binding_count; i++)
        if (copy_binding(m, &m->bindings[i], offset, size, out, NULL) && ++k == alias)
            return true;
    return !alias && (found || m->mapped);
}

uint8_t *replay_rebind_host_pointer(const struct replay_memory *m, uint64_t buffer, VkDeviceSize offset)
{
    for (size_t i = 0; i < m->binding_count; i++)
        if (m->bindings[i].resource == buffer)
            return m->bindings[i].moved ? m->bindings[i].mapped : m->mapped ? m->mapped + offset : NULL;
    return NULL;
}
