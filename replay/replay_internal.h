/*
 * replay/replay_internal.h — what the replay engine's files share.
 */
#ifndef RT_REPLAY_INTERNAL_H
#define RT_REPLAY_INTERNAL_H

#include <volk.h>

#include "arena.h"
#include "hashmap.h"
#include "typedmap.h"
#include "replay.h"
#include "replay_calls.h"
#include "resources.h"
#include "trace.h"
#include "vkcodec.h"

#define REPLAY_MAX_FAMILIES 32

struct address_range;
struct handle_walk;
struct replay_window;
struct replay_verify;
struct replay_config_state;

/* One per live VkInstance: a program may keep several (a probe instance
 * alongside the real one). */
struct replay_instance {
    VkInstance handle;
    struct rt_vk_instance_dispatch dispatch;
    VkPhysicalDevice gpu; /* the device every physical device of this instance maps to */
    VkDebugUtilsMessengerEXT messenger; /* --validate */
    struct replay_own_queries {
        /* What replay's own queries (features, properties around device
         * creation) may call on this instance: the core 1.1 command where
         * the trace's instance asked for API 1.1, the KHR one where it
         * enabled VK_KHR_get_physical_device_properties2, else NULL (only
         * the 1.0 queries: calling these would be a validation error the
         * program never made). */
        PFN_vkGetPhysicalDeviceFeatures2 features2;
        PFN_vkGetPhysicalDeviceProperties2 properties2;
    } own;
};

struct replay_device {
    VkDevice handle;
    struct replay_instance *instance;
    struct replay_dispatch dispatch;
    VkQueue any_queue;    /* for the submits the virtual swapchain makes */
    uint32_t any_queue_family;
};

struct replay {
    const struct rt_replay_options *opts;
    struct rt_replay_result *result;
    const struct rt_trace_header *header;
    enum rt_vk_cmd *commands; /* trace command id -> codec command (RT_VK_CMD_COUNT if unknown) */
    struct rt_arena arena;    /* one decoded call's memory; reset after each call */
    struct handle_walk *walk; /* handle mapping state, reused by every call (engine.c) */
    struct rt_typed_map handles; /* captured handle id -> live handle, per VkObjectType */
    struct rt_hashmap instances; /* dispatch key -> struct replay_instance * */
    /* The current instance (instance.c: newest, or the one last enumerated or
     * made a device from), its dispatch table and its chosen device. */
    struct rt_vk_instance_dispatch instance_dispatch;
    struct replay_own_queries own; /* the current instance's */
    /* > 0 while replay makes calls of its own (device checks, screenshots):
     * validation messages then are replay's, counted apart (instance.c). */
    unsigned own_depth;
    VkInstance instance;
    VkPhysicalDevice gpu;
    VkPhysicalDeviceProperties gpu_properties;
    VkPhysicalDeviceMemoryProperties gpu_memory;
    struct rt_hashmap devices; /* dispatch key -> struct replay_device * */
    struct replay_device *device; /* the last device created */
    bool rebind;                  /* memory mode chosen for this trace */
    struct rt_hashmap memories;   /* captured VkDeviceMemory id -> struct replay_memory * */
    struct rt_hashmap swapchains; /* captured VkSwapchainKHR id -> struct replay_swapchain * */
    struct replay_resources resources; /* live buffers and images: one record each (resources.h) */
    struct rt_hashmap queue_families; /* live VkQueue -> its family; removed with its device */
    struct rt_hashmap recorded_copies; /* live VkCommandBuffer -> image-to-buffer copies (readbacks.c) */
    uint64_t readbacks_saved;
    struct replay_window *window; /* --window (window.c) */
    struct replay_present_waits *present_waits; /* a present's semaphores, not waited yet (swapchain.c) */
    struct address_range *address_ranges; /* captured buffer device addresses (addresses.c) */
    size_t address_range_count;
    bool device_address_enabled;    /* bufferDeviceAddress was enabled on the device */
    bool address_replay;            /* ...with the trace's opaque capture addresses (addresses.c) */
    uint32_t captured_family_count;  /* queue families the application saw (queues.c) */
    VkQueueFlags captured_family_flags[REPLAY_MAX_FAMILIES];
    uint32_t pass;                /* 1-based pass of --loop */
    uint64_t frame;               /* frames completed so far; the one being replayed is frame + 1 */
    uint64_t call_seq;            /* sequence number of the packet being replayed */
    /* The call packet being replayed (NULL between calls): draws_mirror.c
     * records it again into a command buffer of its own. */
    const struct rt_trace_packet *packet;
    /* What crash.c names when a fatal signal comes: the call in progress,
     * and the last submit (a driver's queue thread runs it later). */
    bool in_call;
    enum rt_vk_cmd current_cmd;
    uint64_t last_submit_seq, last_submit_frame;
    enum rt_vk_cmd last_submit_cmd;
    struct replay_verify *verify; /* --verify state (verify.c) */
    uint64_t *calls_per_command;
    double *seconds_per_command;
    struct replay_config_state *config; /* workarounds and delays (replay_config.h); NULL = none */
    struct replay_draws *draws; /* --skip-draws, --dump-draws (draws.h); NULL = neither */
    bool in_snapshot;        /* between a trimmed trace's snapshot begin and end (snapshot_apply.c) */
    uint32_t snapshot_guard; /* the trace's id of the snapshot guard command, or UINT32_MAX */
    uint32_t snapshot_samples_guard; /* ... of the 1.4 samples guard, or UINT32_MAX */
};

/* crash.c: the replay a fatal signal interrupts (NULL: none). */
void replay_crash_watch(struct replay *r);

/* decode.c */
/** Trace command ids -> codec commands (RT_VK_CMD_COUNT where unknown), malloc'd. */
rt_status replay_map_commands(const struct rt_trace_header *h, enum rt_vk_cmd **out);
/** Decodes call packet P into ARENA (reset first); refuses what replay cannot run. */
rt_status replay_decode_call(const struct rt_trace_header *h, const enum rt_vk_cmd *commands,
                             const struct rt_trace_packet *p, struct rt_arena *arena, enum rt_vk_cmd *cmd_out,
                             void **args_out);

/* engine.c */
/** Maps input handles, calls, maps outputs, checks the result: the path of
 * every command without a handler. */
rt_status replay_generic_call(struct replay *r, enum rt_vk_cmd cmd, void *args, uint64_t captured_result);
/* multi_draw.c: moves the elements of a strided multi-draw array recorded
 * without its stride (count * elem bytes) to their dense places; returns how
 * many of the first elements it holds (count where nothing was lost). */
uint32_t replay_multi_draw_recover(void *elements, uint32_t count, uint32_t stride, size_t elem);
rt_status replay_cmd_draw_multi(struct replay *r, void *args, uint64_t captured_result);
/** Replaces every input handle in args by its live handle. */
rt_status replay_map_inputs(struct replay *r, enum rt_vk_cmd cmd, void *args);
/** The live handle for a captured id, or an error naming the call. */
rt_status replay_live(struct replay *r, VkObjectType type, uint64_t captured, uint64_t *live_out);
/** Maps a captured handle to its live one; a failed insertion is an internal error. */
rt_status replay_remember(struct replay *r, VkObjectType type, uint64_t captured, uint64_t live);
struct replay_device *replay_device_of(struct replay *r, const void *live_dispatchable);
replay_handler_fn replay_handler(enum rt_vk_cmd cmd);
const char *replay_result_name(VkResult result);
/** Compares a replay result with the captured one; a success that became a failure is an error. */
rt_status replay_check_result(struct replay *r, enum rt_vk_cmd cmd, VkResult captured, VkResult replayed);

/* instance.c */
rt_status replay_create_instance(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_enumerate_physical_devices(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_create_device(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_destroy_device(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_device_queue(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_device_queue2(struct replay *r, void *args, uint64_t captured_result);
uint32_t replay_queue_family(struct replay *r, VkQueue queue);
/** The live instance a live instance or physical device belongs to, or NULL. */
struct replay_instance *replay_instance_of(struct replay *r, const void *live_dispatchable);
rt_status replay_destroy_instance(struct replay *r, void *args, uint64_t captured_result);
void replay_instance_finish(struct replay *r);

/* features.c: names the first enabled feature the replay device lacks. */
rt_status replay_check_features(struct replay *r, const VkDeviceCreateInfo *info);

/* queues.c */
rt_status replay_queue_family_properties(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_queue_family_properties2(struct replay *r, void *args, uint64_t captured_result);
/** Names the first queue family the trace uses that the replay device lacks. */
rt_status replay_check_queue_families(struct replay *r, const VkDeviceCreateInfo *info);

/* memory.c */
rt_status replay_allocate_memory(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_free_memory(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_bind_buffer_memory(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_bind_image_memory(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_bind_buffer_memory2(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_bind_image_memory2(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_create_buffer(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_create_image(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_destroy_buffer(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_destroy_image(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_image_memory_requirements(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_image_memory_requirements2(struct replay *r, void *args, uint64_t captured_result);
VkDeviceSize replay_buffer_size(struct replay *r, VkBuffer buffer);
/** The format an image was created with; VK_FORMAT_UNDEFINED for one replay did not create. */
VkFormat replay_image_format(struct replay *r, VkImage image);
rt_status replay_memory_update(struct replay *r, uint64_t memory_id, uint64_t offset, const void *data, size_t size);
void replay_memory_finish(struct replay *r);
/** Frees the allocations made on DEV only (vkDestroyDevice with other devices alive). */
void replay_memory_finish_device(struct replay *r, const struct replay_device *dev);

/* swapchain.c */
rt_status replay_create_surface(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_create_swapchain(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_destroy_swapchain(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_swapchain_images(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_acquire_next_image(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_acquire_next_image2(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_queue_present(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_skip(struct replay *r, void *args, uint64_t captured_result);
void replay_swapchain_finish(struct replay *r);
/** Waits the last present's semaphores on its queue now, if that was put off (swapchain.c);
 * UNTIL_DONE: and waits for that queue to be idle. */
rt_status replay_present_waits_flush(struct replay *r, bool until_done);
/** Whether CMD (its ARGS still the captured ones) must not run before those waits. */
bool replay_present_waits_needed(struct replay *r, enum rt_vk_cmd cmd, void *args);
void replay_swapchain_finish_device(struct replay *r, const struct replay_device *dev);

/* readbacks.c */
rt_status replay_begin_command_buffer(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_allocate_command_buffers(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_free_command_buffers(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_destroy_command_pool(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_cmd_copy_image_to_buffer(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_cmd_copy_image_to_buffer2(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_cmd_copy_image_to_buffer2_khr(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_save_readbacks(struct replay *r, VkQueue queue, const VkCommandBuffer *cmds, uint32_t count);
void replay_readbacks_finish(struct replay *r);
rt_status replay_queue_submit(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_queue_submit2(struct replay *r, void *args, uint64_t captured_result);
/** memory.c: where the bytes of a buffer bound to host-visible memory are, or NULL. */
const uint8_t *replay_buffer_host_pointer(struct replay *r, VkBuffer buffer);
/** memory.c: copies the replay's bytes of captured memory [offset, offset + size) to out, at
 * the captured offsets; false where they are not host-visible here. covered (size bytes, may
 * be NULL) gets 1 for each byte that exists here (in rebind mode, a home the host cannot see
 * has only the bytes of resources moved out of it). alias 0 reads what a plain read sees; in
 * rebind mode, alias k >= 1 reads the k-th moved resource over those bytes (false past the last). */
bool replay_memory_read(struct replay *r, uint64_t memory_id, uint64_t offset, size_t size, unsigned alias,
                        uint8_t *out, uint8_t *covered);

/* verify.c: --verify, and warnings for memory the trace could not hold. */
rt_status replay_verify_packet(struct replay *r, const struct rt_trace_packet *p);
void replay_verify_annotation(struct replay *r, const struct rt_trace_packet *p);
void replay_verify_before_call(struct replay *r, enum rt_vk_cmd cmd, const void *args, uint64_t captured_result);
rt_status replay_verify_after_call(struct replay *r, enum rt_vk_cmd cmd, const void *args, uint64_t seq) RT_MUST_CHECK;
/* Queries a snapshot made available (MADE[i] = 1) in live query pool POOL:
 * --verify does not compare their results until the frames reset them. */
rt_status replay_verify_made_queries(struct replay *r, uint64_t pool, uint32_t count, const uint8_t *made) RT_MUST_CHECK;
/* Query pools whose type --verify keeps (the live ones). */
size_t replay_verify_query_pools(const struct replay *r);
void replay_verify_finish(struct replay *r);
/* --validate: counts a message under its id (validation.c); true when
 * --validate-ignore names the id (the message counts in no total). */
bool replay_validation_count(struct replay *r, const char *id, uint32_t severity);

/* snapshot_apply.c: a trimmed trace's state snapshot, and trim's needs. */
uint32_t replay_snapshot_guard_id(const struct rt_trace_header *h);
/* The 1.4 guard before a snapshot's multisampled contents, or UINT32_MAX. */
uint32_t replay_snapshot_samples_guard_id(const struct rt_trace_header *h);
void replay_snapshot_adjust(struct replay *r, enum rt_vk_cmd cmd, void *args);
rt_status replay_snapshot_packet(struct replay *r, const struct rt_trace_packet *p) RT_MUST_CHECK;

/* objects.c: calls naming objects by (type, uint64_t). */
rt_status replay_set_object_name(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_set_object_tag(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_set_private_data(struct replay *r, void *args, uint64_t captured_result);

/* addresses.c */
rt_status replay_get_buffer_device_address(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_cmd_push_constants(struct replay *r, void *args, uint64_t captured_result);
/** Turns bufferDeviceAddressCaptureReplay on (in the decoded chain) where the
 * trace's opaque addresses can be reused: the same kind of device. */
void replay_enable_address_replay(struct replay *r, VkDeviceCreateInfo *info);
/** Drops opaque capture addresses (and their flags) the replay cannot use. */
void replay_strip_buffer_address(const struct replay *r, VkBufferCreateInfo *info);
void replay_strip_memory_address(const struct replay *r, VkMemoryAllocateInfo *info);
/** Moves captured buffer device addresses in BYTES (to land at BASE_OFFSET) to the replay's. */
void replay_translate_addresses(const struct replay *r, uint64_t base_offset, uint8_t *bytes, size_t size);
/** A destroyed buffer's captured address range goes with it. */
void replay_forget_buffer_address(struct replay *r, uint64_t buffer);
void replay_addresses_finish(struct replay *r);

/* window.c: --window shows each presented image in an X11 window. */
rt_status replay_window_present(struct replay *r, struct replay_device *dev, VkQueue queue, uint32_t family,
                                VkImage image, VkExtent2D extent);
void replay_window_finish(struct replay *r);
/** The device the --window swapchain belongs to, or NULL. */
const struct replay_device *replay_window_device(const struct replay *r);

/* outputs.c: DIR/STEM_NNNNNN, or DIR/STEM_NNNNNN_loopK under --loop N > 1 (no extension). */
void replay_output_stem(const struct replay *r, const char *dir, const char *stem, uint64_t number, char *out,
                        size_t size);

/* waits.c */
rt_status replay_wait_for_fences(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_fence_status(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_event_status(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_semaphore_counter_value(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_wait_semaphores(struct replay *r, void *args, uint64_t captured_result);
rt_status replay_get_query_pool_results(struct replay *r, void *args, uint64_t captured_result);

#endif
