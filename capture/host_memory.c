/* capture/host_memory.c — memory the application did not get from vkMapMemory.
 *
 * Memory imported from a host pointer (VK_EXT_external_memory_host: ffmpeg's
 * Vulkan filters upload frames this way) is the application's own
 * allocation: it writes there directly, so no shadow can stand in between.
 * Its pages are hashed at every submit instead, and the pages whose bytes
 * changed since the trace last held them are recorded as memory updates
 * (bytes the GPU wrote there too: the trace cannot tell them apart).
 * Such memory gives no verification points: its pages are the program's
 * heap pages, which malloc and the program change between a submit and a
 * wait (seen with ffmpeg), so a change seen after a wait is not the GPU's.
 * Memory imported from anything the capture cannot read (file descriptors,
 * dma-bufs, Android hardware buffers, other processes' handles) is recorded
 * as an annotation, so `retrace info` lists it and replay warns that its
 * content is not reproduced. Other new host-visible memory is zeroed
 * (zero_new_memory says why).
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "capture.h"
#include "fresh_pages.h"
#include "log.h"
#include "trace.h"

#define HOST_PIECE 4096u

struct host_import {
    uint64_t memory_id;
    const uint8_t *bytes;
    size_t size;
    uint64_t *known; /* per piece: hash of the bytes the trace holds; 0 = none yet */
    struct host_import *next;
};

static pthread_mutex_t imports_lock = PTHREAD_MUTEX_INITIALIZER;
static struct host_import *imports;
static _Atomic size_t import_count; /* read without the lock at every submit */

static uint64_t handle_id(VkDeviceMemory memory) { return (uint64_t)(uintptr_t)memory; }

/* What an import structure is, or NULL for a structure that imports nothing. */
static const char *import_kind(const VkBaseInStructure *node, uint32_t *handle_type_out)
{
    switch (node->sType) {
    case VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR:
        *handle_type_out = ((const VkImportMemoryFdInfoKHR *)node)->handleType;
        return "a file descriptor";
    case VK_STRUCTURE_TYPE_IMPORT_ANDROID_HARDWARE_BUFFER_INFO_ANDROID:
        return "an Android hardware buffer";
    case VK_STRUCTURE_TYPE_IMPORT_MEMORY_WIN32_HANDLE_INFO_KHR:
    case VK_STRUCTURE_TYPE_IMPORT_MEMORY_WIN32_HANDLE_INFO_NV:
        return "a Win32 handle";
    case VK_STRUCTURE_TYPE_IMPORT_MEMORY_ZIRCON_HANDLE_INFO_FUCHSIA:
    case VK_STRUCTURE_TYPE_IMPORT_MEMORY_BUFFER_COLLECTION_FUCHSIA:
        return "a Fuchsia handle";
    case VK_STRUCTURE_TYPE_IMPORT_METAL_BUFFER_INFO_EXT:
        return "a Metal buffer";
    default:
        return NULL;
    }
}

static void record_external(VkDeviceMemory memory, VkDeviceSize size, const char *kind, uint32_t handle_type)
{
    char text[256];
    snprintf(text, sizeof text, "memory 0x%" PRIx64 " (%" PRIu64 " bytes) imported from %s (handle type 0x%x): "
             "its content is not in the trace", handle_id(memory), (uint64_t)size, kind, handle_type);
    capture_record_annotation(RT_TRACE_ANNOTATION_EXTERNAL_MEMORY, text);
    rt_log(RT_LOG_WARN, "capture: %s", text);
}

static void track_host_pointer(VkDeviceMemory memory, const void *pointer, VkDeviceSize size)
{
    struct host_import *h = calloc(1, sizeof *h);
    size_t pieces = ((size_t)size + HOST_PIECE - 1) / HOST_PIECE;
    if (h)
        h->known = calloc(pieces ? pieces : 1, sizeof *h->known);
    if (!h || !h->known) {
        free(h);
        rt_log(RT_LOG_ERROR, "capture: out of memory: writes to imported host memory will be missed");
        return;
    }
    *h = (struct host_import){.memory_id = handle_id(memory), .bytes = pointer, .size = (size_t)size,
                              .known = h->known};
    pthread_mutex_lock(&imports_lock);
    h->next = imports;
    imports = h;
    atomic_fetch_add(&import_count, 1);
    pthread_mutex_unlock(&imports_lock);
}

/* Bytes nobody wrote are what the driver left there: zeros from the kernel,
 * or whatever a recycled allocation held. The program may read them with
 * the GPU's results on the same page (verification points hash whole
 * pages), so new host-visible memory starts zeroed, as replay --verify
 * zeroes its own: bytes nobody wrote then compare equal. */
static void zero_new_memory(struct capture_device *dev, const VkMemoryAllocateInfo *info, VkDeviceMemory memory)
{
    if (info->memoryTypeIndex >= dev->memory_properties.memoryTypeCount)
        return;
    const VkMemoryType *type = &dev->memory_properties.memoryTypes[info->memoryTypeIndex];
    if (!(type->propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        return;
    void *p = NULL;
    if (dev->dispatch.vkMapMemory(dev->handle, memory, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS)
        return;
    rt_zero_fresh(p, (size_t)info->allocationSize); /* without populating it */
    if (!(type->propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
        VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory,
                                     .size = VK_WHOLE_SIZE};
        dev->dispatch.vkFlushMappedMemoryRanges(dev->handle, 1, &range);
    }
    dev->dispatch.vkUnmapMemory(dev->handle, memory);
}

void capture_new_memory(struct capture_device *dev, const VkMemoryAllocateInfo *info, VkDeviceMemory memory)
{
    bool imported = false;
    for (const VkBaseInStructure *n = info->pNext; n; n = n->pNext) {
        uint32_t handle_type = 0;
        const char *kind = import_kind(n, &handle_type);
        if (n->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT)
            track_host_pointer(memory, ((const VkImportMemoryHostPointerInfoEXT *)n)->pHostPointer,
                               info->allocationSize);
        else if (kind)
            record_external(memory, info->allocationSize, kind, handle_type);
        imported = imported || kind || n->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
    }
    if (!imported)
        zero_new_memory(dev, info, memory);
}

void capture_forget_import(VkDeviceMemory memory)
{
    pthread_mutex_lock(&imports_lock);
    for (struct host_import **link = &imports; *link; link = &(*link)->next) {
        if ((*link)->memory_id == handle_id(memory)) {
            struct host_import *h = *link;
            *link = h->next;
            atomic_fetch_sub(&import_count, 1);
            free(h->known);
            free(h);
            break;
        }
    }
    pthread_mutex_unlock(&imports_lock);
}

/* Records the runs of pieces whose bytes changed since the trace last held them. */
static void collect_import(struct host_import *h)
{
    size_t run_lo = 0, run_hi = 0;
    for (size_t at = 0; at < h->size; at += HOST_PIECE) {
        size_t n = h->size - at < HOST_PIECE ? h->size - at : HOST_PIECE;
        uint64_t hash = XXH3_64bits(h->bytes + at, n) | 1; /* never 0: 0 means "not held yet" */
        uint64_t *known = &h->known[at / HOST_PIECE];
        if (hash != *known) {
            *known = hash;
            if (run_hi != at) {
                if (run_hi > run_lo)
                    capture_record_memory(NULL, h->memory_id, run_lo, h->bytes + run_lo, run_hi - run_lo);
                run_lo = at;
            }
            run_hi = at + n;
        }
    }
    if (run_hi > run_lo)
        capture_record_memory(NULL, h->memory_id, run_lo, h->bytes + run_lo, run_hi - run_lo);
}

void capture_collect_imports(void)
{
    if (!atomic_load(&import_count))
        return;
    pthread_mutex_lock(&imports_lock);
    for (struct host_import *h = imports; h; h = h->next)
        collect_import(h);
    pthread_mutex_unlock(&imports_lock);
}
