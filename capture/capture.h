/*
 * capture/capture.h — VK_LAYER_RETRACE_capture: records an application's
 * Vulkan calls and its writes to mapped memory into a .rtrace file.
 *
 * Owns: the layer's entry points (layer.c), per-instance and per-device
 * dispatch data found by dispatch key (objects.c), the capture session: the
 * trace writer, settings and memory tracker (record.c), hand-written
 * commands (cmd_*.c), and the generated intercepts (capture_intercepts_gen.c
 * from gen/emit_capture.py). Must not touch: replay, compare, server; it
 * never changes what the application asked for except where a capture
 * feature needs it (TRANSFER_SRC on swapchains for screenshots), and then
 * records the original call (the PRESERVE principle).
 */
#ifndef RT_CAPTURE_H
#define RT_CAPTURE_H

#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "arena.h"
#include "vkcodec.h"
#include "hashmap.h"
#include "vk_dispatch_gen.h"
#include "settings.h"
#include "trace.h"

#define CAPTURE_LAYER_NAME RT_CAPTURE_LAYER_NAME /* settings.h: one place */

/* An entry point's arena of per-call copies, its first 4 KiB on the
 * caller's stack (rt_arena_init_on): a malloc'd block per call, freed at
 * its end, cost glxgears through zink 9 mallocs of 4 KiB a frame, each free
 * coalescing. Declared in the entry point, never copied (the arena points
 * into it); rt_arena_finish(&scratch.arena) at the end. */
#define CAPTURE_CALL_ARENA_BYTES 4096
struct capture_call_arena {
    max_align_t first_block[CAPTURE_CALL_ARENA_BYTES / sizeof(max_align_t)];
    struct rt_arena arena;
};

static inline struct rt_arena *capture_call_arena_init(struct capture_call_arena *scratch)
{
    rt_arena_init_on(&scratch->arena, scratch->first_block, sizeof scratch->first_block, CAPTURE_CALL_ARENA_BYTES, 0);
    return &scratch->arena;
}

struct capture_instance {
    VkInstance handle;
    PFN_vkGetInstanceProcAddr next_gipa;
    struct rt_vk_instance_dispatch dispatch;
    uint32_t api_version;
};

struct capture_device {
    VkDevice handle;
    VkPhysicalDevice physical_device;
    struct capture_instance *instance;
    PFN_vkGetDeviceProcAddr next_gdpa;
    struct rt_vk_device_dispatch dispatch;
    VkPhysicalDeviceMemoryProperties memory_properties;
    PFN_vkSetDeviceLoaderData set_loader_data; /* for command buffers we allocate */
    bool address_replay; /* bufferDeviceAddressCaptureReplay is on (cmd_addresses.c) */
    pthread_mutex_t memory_lock;
    struct rt_hashmap memories; /* VkDeviceMemory -> struct capture_memory * */
    pthread_mutex_t present_lock;
    struct rt_hashmap swapchains;     /* VkSwapchainKHR -> struct capture_swapchain * */
    struct rt_hashmap queue_families; /* VkQueue -> family index */
    /* Templates are the device's own: handles of two devices may be equal. */
    pthread_mutex_t template_lock;
    struct rt_hashmap templates; /* VkDescriptorUpdateTemplate -> struct capture_template * */
};

/* What screenshots need to know of a swapchain (cmd_present.c). */
struct capture_swapchain {
    VkFormat format;
    VkExtent2D extent;
    bool readable; /* created with TRANSFER_SRC usage */
    bool opaque;   /* VK_COMPOSITE_ALPHA_OPAQUE_KHR: screenshots keep no alpha */
};

/* cmd_present.c: what the device's swapchains and queues were created with. */
void capture_forget_swapchains(struct capture_device *dev);
uint32_t capture_queue_family(struct capture_device *dev, VkQueue queue);
const struct capture_swapchain *capture_swapchain_of(struct capture_device *dev, VkSwapchainKHR swapchain);

/* What the layer remembers of each allocation (cmd_memory.c). */
struct capture_memory {
    uint32_t type_index;
    VkDeviceSize size;
    bool mapped;
};

/* objects.c: dispatch-key maps. Physical devices share their instance's key;
 * queues and command buffers share their device's. */
struct capture_instance *capture_instance_of(const void *dispatchable);
struct capture_device *capture_device_of(const void *dispatchable);
bool capture_instance_add(struct capture_instance *instance);
/** Whether the next layer of one of our instances gives NAME (*gives_out);
 * false when there is no instance. For vkGetInstanceProcAddr(NULL, ...). */
bool capture_any_instance_gives(const char *name, bool *gives_out);
void capture_instance_remove(struct capture_instance *instance);
bool capture_device_add(struct capture_device *device);
void capture_device_remove(struct capture_device *device);

/* record.c: the capture session, shared by every instance of the process. */
VkResult capture_session_open(const VkInstanceCreateInfo *info);
void capture_session_close(void);
void capture_session_set_device(const struct capture_instance *instance, VkPhysicalDevice gpu);
/** Encodes and appends one call; an unencodable call becomes an "unsupported"
 * packet and a warning printed once per command. */
void capture_record_call(enum rt_vk_cmd cmd, const void *args, uint64_t return_value);
void capture_end_frame(void);
void capture_record_annotation(unsigned kind, const char *text);
bool capture_frame_delimiter_is_submit(void);
uint64_t capture_current_frame(void); /* 1-based: the frame being recorded */
struct rt_memory_tracker *capture_tracker(void);
/** rt_track_dirty_fn that appends a memory-update packet. */
void capture_record_memory(void *ctx, uint64_t memory_id, uint64_t offset, const void *data,
                           size_t size);
/** rt_track_verify_fn that appends a verification point. */
void capture_record_verify(void *ctx, const struct rt_trace_verify_range *ranges, size_t count);
const char *capture_screenshot_dir(void);
bool capture_screenshot_wanted(uint64_t frame);

/* cmd_addresses.c: opaque capture addresses for buffer device addresses. */
const void *capture_enable_address_replay(const struct capture_instance *instance, VkPhysicalDevice gpu,
                                          const void *chain, struct rt_arena *arena, bool *enabled_out);
const VkMemoryAllocateInfo *capture_address_allocation(struct capture_device *dev, const VkMemoryAllocateInfo *info,
                                                       struct rt_arena *arena, VkMemoryAllocateInfo *copy);
const VkMemoryAllocateInfo *capture_address_record(struct capture_device *dev, const VkMemoryAllocateInfo *sent,
                                                   VkDeviceMemory memory, struct rt_arena *arena,
                                                   VkMemoryAllocateInfo *copy);

/* host_memory.c: new memory. Host pointers are hashed at every submit
 * (their changed pages become memory updates); other imports are recorded as
 * memory whose content is not in the trace; the rest, host-visible, starts zeroed. */
void capture_new_memory(struct capture_device *dev, const VkMemoryAllocateInfo *info, VkDeviceMemory memory);
void capture_forget_import(VkDeviceMemory memory);
void capture_collect_imports(void);

/* cmd_templates.c: frees the device's templates (at vkDestroyDevice). */
void capture_forget_templates(struct capture_device *dev);

/* cmd_memory.c: frees what the device's allocations left (at vkDestroyDevice). */
void capture_forget_memories(struct capture_device *device);

/* unrecorded.c: a command looked up that the layer has no recorder for
 * (warned once and noted in the trace); the test switch that makes one. */
void capture_note_unrecorded(const char *name);
bool capture_test_unrecorded(const char *name);
/** The generated detector for NAME (a window-system command of a platform
 * this build has no header for), which will call NEXT; or NULL. */
PFN_vkVoidFunction capture_unrecorded_detector(const char *name, PFN_vkVoidFunction next);
/** A detector's call: warns and notes at the first. */
void capture_unrecorded_called(const char *name, bool creates);

/* Hooks the generated intercepts call around submits and waits. */
void capture_before_submit(const void *queue);
void capture_after_submit(const void *queue);
void capture_after_sync(const void *dispatchable);

/* The generated entry table, sorted by name. */
struct capture_entry {
    const char *name;
    PFN_vkVoidFunction function;
    bool device_level;
    enum rt_vk_cmd cmd; /* its level and flags: rt_vk_cmd_level, rt_vk_cmd_flags */
};
extern const struct capture_entry capture_entries[];
extern const size_t capture_entry_count;
/* Detectors for commands of platforms the build has no header for (sorted by
 * name): each calls what the next layer gave at its lookup. That is the
 * loader's terminator, the same for every instance: one slot per command. */
struct capture_detector {
    const char *name;
    PFN_vkVoidFunction function;
    _Atomic(PFN_vkVoidFunction) *next;
};
extern const struct capture_detector capture_detectors[];
extern const size_t capture_detector_count;

/* Hand-written commands (see gen/handwritten.py). */
VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateInstance(const VkInstanceCreateInfo *, const VkAllocationCallbacks *, VkInstance *);
VKAPI_ATTR void VKAPI_CALL capture_vkDestroyInstance(VkInstance, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateDevice(VkPhysicalDevice, const VkDeviceCreateInfo *, const VkAllocationCallbacks *, VkDevice *);
VKAPI_ATTR void VKAPI_CALL capture_vkDestroyDevice(VkDevice, const VkAllocationCallbacks *);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL capture_vkGetInstanceProcAddr(VkInstance, const char *);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL capture_vkGetDeviceProcAddr(VkDevice, const char *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkEnumerateInstanceLayerProperties(uint32_t *, VkLayerProperties *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkEnumerateInstanceExtensionProperties(const char *, uint32_t *, VkExtensionProperties *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkEnumerateDeviceLayerProperties(VkPhysicalDevice, uint32_t *, VkLayerProperties *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkEnumerateDeviceExtensionProperties(VkPhysicalDevice, const char *, uint32_t *, VkExtensionProperties *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateBuffer(VkDevice, const VkBufferCreateInfo *, const VkAllocationCallbacks *, VkBuffer *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkAllocateMemory(VkDevice, const VkMemoryAllocateInfo *, const VkAllocationCallbacks *, VkDeviceMemory *);
VKAPI_ATTR void VKAPI_CALL capture_vkFreeMemory(VkDevice, VkDeviceMemory, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkMapMemory(VkDevice, VkDeviceMemory, VkDeviceSize, VkDeviceSize, VkMemoryMapFlags, void **);
VKAPI_ATTR void VKAPI_CALL capture_vkUnmapMemory(VkDevice, VkDeviceMemory);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkFlushMappedMemoryRanges(VkDevice, uint32_t, const VkMappedMemoryRange *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkQueuePresentKHR(VkQueue, const VkPresentInfoKHR *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateSwapchainKHR(VkDevice, const VkSwapchainCreateInfoKHR *, const VkAllocationCallbacks *, VkSwapchainKHR *);
VKAPI_ATTR void VKAPI_CALL capture_vkDestroySwapchainKHR(VkDevice, VkSwapchainKHR, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateDescriptorUpdateTemplate(VkDevice, const VkDescriptorUpdateTemplateCreateInfo *, const VkAllocationCallbacks *, VkDescriptorUpdateTemplate *);
VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateDescriptorUpdateTemplateKHR(VkDevice, const VkDescriptorUpdateTemplateCreateInfo *, const VkAllocationCallbacks *, VkDescriptorUpdateTemplate *);
VKAPI_ATTR void VKAPI_CALL capture_vkDestroyDescriptorUpdateTemplate(VkDevice, VkDescriptorUpdateTemplate, const VkAllocationCallbacks *);
VKAPI_ATTR void VKAPI_CALL capture_vkDestroyDescriptorUpdateTemplateKHR(VkDevice, VkDescriptorUpdateTemplate, const VkAllocationCallbacks *);
VKAPI_ATTR void VKAPI_CALL capture_vkUpdateDescriptorSetWithTemplate(VkDevice, VkDescriptorSet, VkDescriptorUpdateTemplate, const void *);
VKAPI_ATTR void VKAPI_CALL capture_vkUpdateDescriptorSetWithTemplateKHR(VkDevice, VkDescriptorSet, VkDescriptorUpdateTemplate, const void *);
VKAPI_ATTR void VKAPI_CALL capture_vkCmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer, VkDescriptorUpdateTemplate, VkPipelineLayout, uint32_t, const void *);
VKAPI_ATTR void VKAPI_CALL capture_vkGetDeviceQueue(VkDevice, uint32_t, uint32_t, VkQueue *);
VKAPI_ATTR void VKAPI_CALL capture_vkGetDeviceQueue2(VkDevice, const VkDeviceQueueInfo2 *, VkQueue *);

#endif
