/*
 * replay/replay_config.h — how the engine applies a replay configuration.
 * The engine's files call these hooks at the points the workarounds and
 * delays concern (a call, device creation, a submission, a frame's end);
 * everything else about them lives in the files named below. Each hook does
 * nothing when the replay has no configuration.
 */
#ifndef RT_REPLAY_CONFIG_INTERNAL_H
#define RT_REPLAY_CONFIG_INTERNAL_H

#include "config.h"
#include "replay_internal.h"

#define REPLAY_MAX_STRIPPED 64
#define REPLAY_MAX_STALLS 8
#define REPLAY_LATE_MAX_CMDS 16
#define REPLAY_LATE_RECORDS 64

struct replay_gpu_stall;
struct replay_pipeline_cache;

struct replay_config_state {
    const struct rt_replay_config *cfg;
    const struct rt_replay_delay *delay[RT_DELAY_EVENT_COUNT]; /* NULL: no delay for the event */
    struct rt_jitter jitter;
    double frame_start; /* CLOCK_MONOTONIC seconds */
    /* strip-unsupported (strip.c) */
    char stripped_extensions[REPLAY_MAX_STRIPPED][VK_MAX_EXTENSION_NAME_SIZE];
    uint32_t stripped_extension_count;
    char stripped_features[REPLAY_MAX_STRIPPED][96]; /* member names */
    uint32_t stripped_feature_count;
    /* readback-barrier: command buffers holding copies into buffers */
    struct rt_hashmap readback_cmds;
    /* submissions made since the device was last idle (readback-barrier waits
     * for them; the serialize-* workarounds' waits clear it) */
    uint64_t submissions_in_flight;
    /* gpu delay (gpu_stall.c), per device */
    struct replay_gpu_stall *stalls[REPLAY_MAX_STALLS];
    /* --pipeline-cache (pipeline_cache.c), the first device's */
    struct replay_pipeline_cache *cache;
    /* test-flip-blend (test_flip_blend.c): a broken pipeline whose blending is
     * dynamic state, and the command buffer it is bound in (captured ids) */
    struct replay_flip_blend {
        uint64_t broken, bound_cb;
        bool flipped;
        uint64_t state_cb; /* the command buffer the program last set blending in */
        bool have_enable, have_equation;
        VkBool32 enable; /* the program's, for the first attachment, in state_cb */
        VkColorBlendEquationEXT equation;
    } flip_blend;
    /* test-unchecked-reads (test_unchecked_reads.c): the device bounds-checks
     * nothing (no robustness), and the size of the buffer being made twice */
    bool unchecked_reads;
    VkDeviceSize widened_size;
    /* test-late-submits (test_late_submits.c): the submission held back (captured
     * ids), the fence to signal after the one that carries it (live), and what the
     * recent recordings record (stage classes) and wait for (barriers' sources) */
    struct replay_late_submits {
        bool held;
        uint64_t queue, fence;
        uint32_t count;
        uint64_t cmds[REPLAY_LATE_MAX_CMDS];
        VkQueue signal_queue;
        VkFence signal_fence;
        struct replay_late_record {
            uint64_t cb;
            uint8_t stages, orders;
            bool in_pass;
        } records[REPLAY_LATE_RECORDS];
        uint32_t next_record;
    } late;
};

/* configure.c */
rt_status replay_config_begin(struct replay *r) RT_MUST_CHECK;
void replay_config_finish(struct replay *r);
bool replay_workaround(const struct replay *r, enum rt_workaround w);
/** Before a call: delays, the workarounds' hooks (replay/workarounds/workaround.h) and
 * their changes to its decoded arguments (handles still captured ids). */
rt_status replay_config_before_call(struct replay *r, enum rt_vk_cmd cmd, void *args) RT_MUST_CHECK;
/** After a call that succeeded (handles in ARGS are live where the call mapped them). */
rt_status replay_config_after_call(struct replay *r, enum rt_vk_cmd cmd, void *args) RT_MUST_CHECK;
void replay_config_frame_end(struct replay *r);
/** A validation message: counts synchronization hazards. */
void replay_config_validation_message(struct replay *r, const char *message_id);
/** The pNext node enabling synchronization validation for the instance (chained to NEXT), or NEXT. */
const void *replay_config_instance_chain(struct replay *r, const void *next);
/** Device creation: the workarounds' features and extensions, on the decoded (writable) INFO. */
rt_status replay_config_adjust_device(struct replay *r, VkDeviceCreateInfo *info) RT_MUST_CHECK;
rt_status replay_config_device_created(struct replay *r, struct replay_device *dev) RT_MUST_CHECK;
void replay_config_device_destroyed(struct replay *r, struct replay_device *dev);
/** A new allocation: the workarounds' new_memory hooks (zero-init fills it with zeros). */
rt_status replay_config_new_memory(struct replay *r, struct replay_device *dev, VkDeviceMemory memory,
                                   VkDeviceSize size, uint32_t type_index) RT_MUST_CHECK;
void replay_config_screenshot(struct replay *r, uint64_t frame, const char *path);

/* delays.c */
void replay_delay_before_call(struct replay *r, enum rt_vk_cmd cmd);
void rt_replay_delay_text(const struct rt_replay_delay *d, char *buf, size_t size);

/* device_config.c: the tools of workarounds that change device creation */
bool replay_device_has_extension(struct replay *r, const char *name);
rt_status replay_add_device_extension(struct replay *r, VkDeviceCreateInfo *info, const char *name) RT_MUST_CHECK;
/** The node of TYPE in device creation's pNext chain, or NULL. */
VkBaseOutStructure *replay_device_chain_find(VkDeviceCreateInfo *info, VkStructureType type);
/** A new zeroed node of TYPE and SIZE (in the call's arena) at the chain's head; NULL when out of memory. */
void *replay_device_chain_add(struct replay *r, VkDeviceCreateInfo *info, VkStructureType type, size_t size);
/** The base features the device will be created with, writable; NULL when out of memory. */
VkPhysicalDeviceFeatures *replay_device_base_features(struct replay *r, VkDeviceCreateInfo *info);

/* workarounds/no_pipeline_cache.c */
/** no-pipeline-cache: true (and counted) when the --pipeline-cache file must not be loaded. */
bool replay_no_pipeline_cache_skips_file(struct replay *r);

/* workarounds/strip_unsupported.c: strip-unsupported */
/** True (and remembered) when the device lacks extension NAME and the workaround may leave it out. */
bool replay_strip_extension(struct replay *r, const char *name);
/** The same for a feature: clears it in the decoded struct. */
bool replay_strip_feature(struct replay *r, const char *struct_name, const char *member, VkBool32 *value);
/** Unlinks the structures of stripped extensions from device creation's chain. */
void replay_strip_device_chain(struct replay *r, VkDeviceCreateInfo *info);
/** Stops (exit 4) at a call that uses something stripped. */
rt_status replay_strip_check_call(struct replay *r, enum rt_vk_cmd cmd, const void *args) RT_MUST_CHECK;

/* gpu_stall.c: the gpu delay */
rt_status replay_gpu_stall_create(struct replay *r, struct replay_device *dev, struct replay_gpu_stall **out) RT_MUST_CHECK;
/** Submits the stall on QUEUE, ahead of the submission about to be made there. */
rt_status replay_gpu_stall_submit(struct replay *r, struct replay_gpu_stall *stall, VkQueue queue) RT_MUST_CHECK;
void replay_gpu_stall_destroy(struct replay_gpu_stall *stall);

/* pipeline_cache.c: --pipeline-cache */
rt_status replay_pipeline_cache_open(struct replay *r, struct replay_device *dev,
                                     struct replay_pipeline_cache **out) RT_MUST_CHECK;
/** The captured-id stand-in that maps to the cache's live handle. */
uint64_t replay_pipeline_cache_id(const struct replay_pipeline_cache *c);
void replay_pipeline_cache_close(struct replay *r, struct replay_pipeline_cache *c);

#endif
