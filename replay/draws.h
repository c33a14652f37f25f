/*
 * replay/draws.h — per-draw work inside a replay: --skip-draws leaves draws
 * of one frame unrecorded, --dump-draws saves what each draw of one frame
 * wrote (docs/FORMATS.md section 7). A draw is a command of gen/'s DRAWS
 * category, numbered from 1 in recording order within its frame.
 *
 * Owns: the draw counter, what it must know to name and read back a draw's
 * output (images, views, framebuffers, render passes and their store/resume
 * variants, bound pipelines and shader hashes, per command buffer state),
 * the render pass split (draws_split.c), the staging copies and DIR/draws.json
 * (draws_save.c), the scan for recordings an earlier frame made that the
 * frame submits (draws_scan.c). Engine hooks: before a call (may skip it), after a call
 * that succeeded, after a submission, at a frame's end, at the replay's end.
 * Must not touch: the trace, compare, anything the program sees (a split is
 * invisible in the frame's final image).
 */
#ifndef RT_REPLAY_DRAWS_H
#define RT_REPLAY_DRAWS_H

#include "replay_internal.h"

struct cJSON;

#define DRAW_MAX_ATTACHMENTS 10
#define DRAW_MAX_SETS 8

struct draw_image {
    VkFormat format;
    VkExtent3D extent;
    VkSampleCountFlagBits samples;
    VkImageUsageFlags usage;
    uint64_t captured;
};

/* A buffer (live handle -> this): what a copy of it needs. */
struct draw_buffer {
    VkDeviceSize size;
    VkBufferUsageFlags usage;
    uint64_t captured;
};

/* One storage descriptor of a set (live handles), as vkUpdateDescriptorSets wrote it. */
struct draw_descriptor {
    uint32_t binding, element;
    VkDescriptorType type;
    VkImageView view;
    VkImageLayout layout;
    VkBuffer buffer;
    VkDeviceSize offset, range;
};

#define DRAW_MAX_DESCRIPTORS 32
struct draw_set {
    uint32_t count;
    struct draw_descriptor d[DRAW_MAX_DESCRIPTORS]; /* storage images and buffers only */
    uint32_t binding_count; /* its layout's bindings (a write past one binding's end goes on in the next) */
    struct {
        uint32_t binding, count;
    } bindings[DRAW_MAX_DESCRIPTORS];
};

struct draw_view {
    VkImage image;
    VkFormat format;
    uint32_t mip, layer;
};

struct draw_framebuffer {
    uint32_t count, width, height;
    bool imageless;
    VkImageView views[DRAW_MAX_ATTACHMENTS];
};

#define DRAW_MAX_SUBPASSES 8

/* A subpass's attachments (indices into the render pass's; VK_ATTACHMENT_UNUSED for none). */
struct draw_subpass {
    uint32_t colour_count;
    uint32_t colour[DRAW_MAX_ATTACHMENTS];
    uint32_t depth;
};

struct draw_render_pass {
    VkDevice device;
    const struct replay_device *dev;
    uint32_t subpasses, count;
    VkImageLayout final_layout[DRAW_MAX_ATTACHMENTS];
    struct draw_subpass sub[DRAW_MAX_SUBPASSES];
    VkRenderPass store, resume; /* variants: every store STORE; every load LOAD from the final layout */
    uint64_t store_id;          /* the stand-in captured id that maps to store */
};

/* One image copied out after a draw, saved after its submission. */
/* What a resolve of multisampled depth/stencil made beside its image (draws_resolve.c). */
struct draw_resolve_objects {
    VkRenderPass pass;
    VkImageView views[2]; /* the multisampled image's, ours */
    VkFramebuffer framebuffer;
};

struct draw_copy {
    struct cJSON *entry; /* the draw's object in the index */
    char role[32];
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkFormat format;
    VkImageAspectFlags aspect;
    uint32_t width, height;
    uint64_t image; /* captured id */
    uint64_t bytes; /* of its staging buffer */
    bool saved;
    bool raw;               /* a buffer's bytes (role bufferS.B or dst), saved as .bin + .json */
    uint64_t source;        /* a buffer copy's: the buffer's captured id */
    VkDeviceSize source_offset;
    int set, binding;       /* a storage descriptor's, or -1 */
    VkImage temp;           /* a multisampled image's resolve, copied from (ours: freed with the copy) */
    VkDeviceMemory temp_memory;
    uint32_t samples;       /* of the image it was resolved from (1: not resolved) */
    struct draw_resolve_objects resolve; /* ours, freed with the copy (with temp) */
};

/* One image a draw wrote, as the copy sees it. */
struct draw_target {
    VkImage image;
    VkFormat format;
    uint32_t mip, layer, width, height;
    VkImageLayout layout;
    VkImageAspectFlags only; /* the aspects to save (0: all the format has) */
    const char *role;        /* "color0", "dst"; depth and stencil aspects are named so */
    VkImage temp;            /* set by the resolve of a multisampled image: what is copied */
    VkDeviceMemory temp_memory;
    uint32_t samples;
    const struct draw_resolve_objects *resolve; /* depth/stencil's: go with temp */
    bool temp_given;         /* an earlier copy (depth before stencil) took temp and resolve */
};

enum draw_rendering_kind { DRAW_OUTSIDE, DRAW_RENDER_PASS, DRAW_DYNAMIC };

/* A call recorded into a secondary that continues its primary's rendering, in
 * the dump frame: replayed again into the primary that executes it
 * (draws_mirror.c), where the pass can be split after each draw. */
struct draw_logged {
    enum rt_vk_cmd cmd;
    struct rt_trace_packet packet; /* its params are ours (malloc'd) */
    struct cJSON *entry;           /* a draw to dump after it, or NULL */
    uint32_t number;
    bool skipped;                  /* a --skip-draws draw: not called, only dumped */
};

struct draw_cmdbuf {
    VkCommandBuffer handle; /* live */
    VkCommandPool pool;     /* live */
    VkCommandBufferLevel level;
    /* --skip-draws F:N in a recording made before frame F: a second recording of
     * ours with every call, the skipped draw too, which every frame but F
     * submits instead (draws_mirror.c); shadow_id is its stand-in captured id. */
    VkCommandBuffer shadow;
    uint64_t shadow_id;
    bool shadowing;        /* the current recording is mirrored into the shadow */
    /* --dump-draws: the calls of a secondary recorded to continue a render pass */
    struct draw_logged *log;
    size_t log_count, log_capacity;
    bool logging, inlined; /* being recorded; already replayed into a primary */
    /* --dump-draws: the frame's draw numbers this recording runs, in its command
     * order (a secondary's, inlined, in the primary's); listed in draws.json's
     * "executed" at the frame's first submission of it */
    uint32_t *runs;
    size_t run_count, run_capacity;
    bool runs_listed;
    const struct replay_device *dev; /* of its copies (the handle may be freed when they go) */
    uint64_t captured;
    uint64_t pipeline[2];   /* captured ids: graphics, compute */
    uint64_t sets[2][DRAW_MAX_SETS];
    struct draw_set *pushed[2][DRAW_MAX_SETS]; /* vkCmdPushDescriptorSetKHR's (malloc'd), where no set is bound */
    enum draw_rendering_kind kind;
    bool continues_pass;    /* a secondary recorded to run inside its primary's render pass */
    bool early_dump, early_skip; /* its recording, made before the dump (skip) frame, runs in it */
    VkRenderPass pass;      /* live original */
    VkFramebuffer framebuffer;
    uint64_t pass_captured, framebuffer_captured;
    VkRect2D area;
    VkImageView views[DRAW_MAX_ATTACHMENTS]; /* live: an imageless framebuffer's, from the begin */
    uint32_t view_count;
    VkSubpassContents contents;
    uint32_t subpass;
    struct {
        VkRenderingInfo info;
        VkRenderingAttachmentInfo color[DRAW_MAX_ATTACHMENTS], depth, stencil;
    } dynamic;
    struct draw_copy *copies;
    size_t copy_count, copy_capacity;
};

/* The draw being recorded (before_call to after_call). */
struct draw_pending {
    bool active;
    struct cJSON *entry;
    struct draw_cmdbuf *cb;
    uint32_t number;
};

struct replay_draws {
    const struct rt_replay_draw_options *opts;
    struct rt_skip_draws skip;
    uint32_t dump_draws, skip_draws; /* the dump (skip) frame's draws counted so far */
    bool skip_early_warned; /* a skipped draw of an earlier recording was said once */
    struct rt_hashmap dump_early, skip_early; /* recordings (their begin's seq) made before the frame that it runs */
    struct rt_hashmap images, views, framebuffers, render_passes, cmdbufs; /* live handle -> record */
    struct rt_hashmap pipelines; /* captured pipeline -> struct cJSON * (its "shaders" array) */
    /* captured pipeline -> N of "<VkPipeline N>": `retrace dump` numbers each
     * type's handles in order of first appearance, which for a pipeline is the
     * call that made it; a captured id made again keeps its first number, as there. */
    struct rt_hashmap pipeline_numbers;
    uint64_t pipelines_numbered;
    struct rt_hashmap modules;   /* captured shader module -> XXH3-128 hex (malloc'd) */
    struct rt_hashmap swapchains; /* captured swapchain -> struct draw_image * (format, extent) */
    struct rt_hashmap buffers;    /* live buffer -> struct draw_buffer * */
    struct rt_hashmap sets;       /* live descriptor set -> struct draw_set * */
    struct rt_hashmap layouts;    /* live descriptor set layout -> struct draw_set * (its bindings only) */
    uint64_t buffer_captured;     /* vkCreateBuffer's output id, between its hooks */
    uint64_t next_stand_in;
    uint64_t image_captured;      /* vkCreateImage's output id, between its hooks */
    struct cJSON *index;          /* {"frame", "draws": [...]} */
    struct draw_pending pending;
    struct draw_cmdbuf *current; /* the command buffer the call records into (not a begin), or NULL */
    uint64_t saved_files;
    uint64_t staging_bytes; /* held by copies not yet released, at most DRAW_MAX_STAGING */
    struct rt_arena mirror_arena; /* one call decoded again (draws_mirror.c) */
};

/* Copies wait in host memory until their submission ends: a frame of 1,276
 * draws of 1024x768 colour and depth (extremetuxracer) would hold 8 GB. */
#define DRAW_MAX_STAGING ((uint64_t)1 << 30)

/* draws_scan.c */
/** Fills OUT (seq of a vkBeginCommandBuffer -> 1) with the recordings begun before FRAME that FRAME submits. */
rt_status replay_draws_scan(struct replay *r, uint64_t frame, struct rt_hashmap *out) RT_MUST_CHECK;

/* draws.c */
rt_status replay_draws_begin(struct replay *r) RT_MUST_CHECK;
/** Before a call (handles captured): counts draws; *skip tells the engine to leave it out. */
rt_status replay_draws_before_call(struct replay *r, enum rt_vk_cmd cmd, void *args, bool *skip) RT_MUST_CHECK;
/** After a call that succeeded (handles live). */
rt_status replay_draws_after_call(struct replay *r, enum rt_vk_cmd cmd, void *args) RT_MUST_CHECK;
/** After a submission of COUNT live command buffers on QUEUE: saves their copies. */
rt_status replay_draws_submitted(struct replay *r, VkQueue queue, const VkCommandBuffer *cmds,
                                 uint32_t count) RT_MUST_CHECK;
void replay_draws_frame_end(struct replay *r);
/** Writes DIR/draws.json (dump mode) and frees everything; devices still alive. */
rt_status replay_draws_finish(struct replay *r) RT_MUST_CHECK;
struct draw_cmdbuf *replay_draws_cmdbuf(struct replay *r, VkCommandBuffer live, bool create);
/** Draw NUMBER of the dump frame runs next in CB. */
rt_status replay_draws_runs(struct replay *r, struct draw_cmdbuf *cb, uint32_t number) RT_MUST_CHECK;
/** What a recorded call (captured handles) binds, followed as before_call does (draws_mirror.c's calls). */
rt_status replay_draws_track(struct replay *r, enum rt_vk_cmd cmd, void *args) RT_MUST_CHECK;
/** The same after the call (live handles): push descriptors. */
rt_status replay_draws_track_after(struct replay *r, enum rt_vk_cmd cmd, void *args) RT_MUST_CHECK;
/** The device's objects of ours go (before vkDestroyDevice). */
void replay_draws_device_gone(struct replay *r, VkDevice device);

/* draws_split.c: after draw P->number was recorded into P->cb */
rt_status replay_draws_dump(struct replay *r, struct draw_pending *p, enum rt_vk_cmd cmd, const void *args) RT_MUST_CHECK;
/** The store and resume variants of a render pass the program made. */
rt_status replay_draws_render_pass_variants(struct replay *r, VkDevice device, const VkRenderPassCreateInfo *info,
                                            struct draw_render_pass *rp) RT_MUST_CHECK;
/** The same for a render pass made with vkCreateRenderPass2. */
rt_status replay_draws_render_pass2_variants(struct replay *r, VkDevice device, const VkRenderPassCreateInfo2 *info,
                                             struct draw_render_pass *rp) RT_MUST_CHECK;
void replay_draws_render_pass_free(struct replay *r, struct draw_render_pass *rp);

/** Copies TARGET out after P's draw (into staging, saved after the submission). */
rt_status replay_draws_copy_out(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                                const struct draw_target *t) RT_MUST_CHECK;
/** Copies SIZE bytes of BUFFER from OFFSET out after P's draw, as ROLE. */
rt_status replay_draws_copy_buffer(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                                   VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size, const char *role,
                                   int set, int binding) RT_MUST_CHECK;
/* draws_resolve.c */
/** A single-sample image of T's format and extent with USAGE, ours; false when none could be made. */
bool replay_draws_temp_image(const struct replay_device *dev, const struct draw_target *t, VkImageUsageFlags usage,
                             VkImage *image, VkDeviceMemory *memory);
/** Multisampled depth/stencil T (in TRANSFER_SRC, left so) resolved, sample 0, by a render pass of ours recorded
 * into CMD: ONE->temp holds it, in TRANSFER_SRC; O what must go with it. False: nothing made, nothing to free. */
bool replay_draws_resolve_depth(const struct replay_device *dev, VkCommandBuffer cmd, const struct draw_target *t,
                                VkSampleCountFlagBits samples, VkImageAspectFlags aspects, struct draw_target *one,
                                struct draw_resolve_objects *o);
void replay_draws_resolve_free(const struct replay_device *dev, struct draw_resolve_objects *o);
/** A full barrier moving IMAGE's subresource from one layout to another (draws_split.c). */
void replay_draws_image_barrier(const struct rt_vk_device_dispatch *d, VkCommandBuffer cmd, VkImage image,
                                VkImageAspectFlags aspects, uint32_t mip, uint32_t layer, VkImageLayout from,
                                VkImageLayout to);

/** "ROLE: WHY" into P's not_saved list. */
rt_status replay_draws_not_saved(struct replay *r, struct cJSON *entry, const char *role, const char *why) RT_MUST_CHECK;

/* draws_storage.c: storage descriptors and buffers */
rt_status replay_draws_create_buffer(struct replay *r, void *args) RT_MUST_CHECK;  /* before */
rt_status replay_draws_created_buffer(struct replay *r, void *args) RT_MUST_CHECK; /* after */
rt_status replay_draws_destroyed_buffer(struct replay *r, void *args) RT_MUST_CHECK;
rt_status replay_draws_allocated_sets(struct replay *r, void *args) RT_MUST_CHECK;
rt_status replay_draws_created_set_layout(struct replay *r, void *args) RT_MUST_CHECK;
rt_status replay_draws_updated_sets(struct replay *r, void *args) RT_MUST_CHECK;
/** vkCmdPushDescriptorSetKHR (live handles): the storage descriptors it pushes, for its command buffer. */
rt_status replay_draws_pushed_set(struct replay *r, void *args) RT_MUST_CHECK;
/** CB's pushed sets go (a new recording, or CB itself). */
void replay_draws_forget_pushed(struct draw_cmdbuf *cb);
/** After P's draw or dispatch: the storage images (and, with --dump-buffers, buffers) its sets at POINT hold. */
rt_status replay_draws_dump_storage(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                                    int point) RT_MUST_CHECK;
/** With --dump-buffers: the buffer a copy, fill or update wrote (false where CMD writes none). */
bool replay_draws_buffer_dst(enum rt_vk_cmd cmd, const void *args, VkBuffer *buffer, VkDeviceSize *offset,
                             VkDeviceSize *size);

/* draws_split.c */
/** Why CB's render pass or dynamic rendering cannot be ended and resumed (NULL: it can). */
const char *replay_draws_split_why(struct replay *r, const struct draw_cmdbuf *cb);
/** Ends CB's rendering and resumes it (loads) with CB's contents, copying nothing. */
rt_status replay_draws_restart(struct replay *r, struct draw_cmdbuf *cb, const struct replay_device *dev) RT_MUST_CHECK;

/* draws_mirror.c: second recordings made from the same call packets */
/** After vkBeginCommandBuffer of CB: starts its shadow or its log where it needs one. */
rt_status replay_draws_mirror_begun(struct replay *r, struct draw_cmdbuf *cb) RT_MUST_CHECK;
/** Before a recorded call into CB (after it was counted): logs it; *DEFER: its dump waits for the primary. */
rt_status replay_draws_mirror_log(struct replay *r, enum rt_vk_cmd cmd, struct draw_cmdbuf *cb, bool skipped,
                                  bool *defer) RT_MUST_CHECK;
/** After a recorded call (or a skipped draw) into a shadowed command buffer: records it into the shadow. */
rt_status replay_draws_mirror_call(struct replay *r, enum rt_vk_cmd cmd) RT_MUST_CHECK;
/** Before a submission or vkCmdExecuteCommands (captured handles): shadows for other frames, logged
 * secondaries replayed into their primary (*SKIP: the call was made here). */
rt_status replay_draws_mirror_runs(struct replay *r, enum rt_vk_cmd cmd, void *args, bool *skip) RT_MUST_CHECK;
/** CB's shadow and log go (it is freed, or its recording begins again). */
void replay_draws_mirror_forget(struct replay *r, struct draw_cmdbuf *cb, bool free_shadow);

/* draws_save.c */
rt_status replay_draws_add_copy(struct replay *r, struct draw_cmdbuf *cb, const struct draw_copy *c) RT_MUST_CHECK;
rt_status replay_draws_save(struct replay *r, struct draw_cmdbuf *cb) RT_MUST_CHECK;
/** Frees CB's copies (waiting for its device first when it has any). */
void replay_draws_release(struct replay *r, struct draw_cmdbuf *cb);
rt_status replay_draws_write_index(struct replay *r) RT_MUST_CHECK;

#endif
