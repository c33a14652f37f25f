/*
 * trim/trim_internal.h — what trim's files share: the objects the source
 * made (one entry per object life: a handle reused after a destroy is a new
 * entry), the calls that may go into the snapshot (records), and per-type
 * facts the snapshot needs (image shape and layouts, buffer size, command
 * buffer recordings and the layout changes they make when submitted).
 */
#ifndef RT_TRIM_INTERNAL_H
#define RT_TRIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#include "hashmap.h"
#include "status.h"
#include "trace.h"
#include "trim.h"
#include "typedmap.h"
#include "vk_commands_gen.h"

#define TRIM_NONE UINT32_MAX

enum trim_record_kind {
    TRIM_CREATE,    /* makes its subjects: kept when one is needed */
    TRIM_STATE_ANY, /* sets state of its subjects (bind, descriptor update, map): kept when one is needed */
    TRIM_STATE_ALL, /* anything else: kept when all its subjects are needed */
    TRIM_RECORDING, /* a command buffer's recording: kept when the buffer is needed */
    TRIM_DESTROY,   /* ends its subjects: kept when they were needed (and so made again) */
};

struct trim_record {
    uint64_t seq;
    uint32_t first, count; /* refs[first .. first + count): subjects, then inputs */
    uint16_t subjects;
    uint8_t kind;
    bool dropped; /* superseded: a recording begun again, a map unmapped */
    bool kept;
};

struct trim_image {
    VkFormat format;
    VkImageType type;
    VkExtent3D extent;
    uint32_t mips, layers;
    VkSampleCountFlagBits samples;
    bool swapchain, transient, sparse;
    VkImageLayout *layouts; /* mips * layers, as submitted work leaves them */
};

/* A layout change a command buffer makes when it runs. */
struct trim_transition {
    uint32_t image;     /* object index; TRIM_NONE: run secondary `exec` */
    uint32_t exec;      /* vkCmdExecuteCommands: the secondary's object index */
    VkImageLayout layout;
    uint32_t base_mip, mips, base_layer, layers;
};

struct trim_cmdbuf {
    uint32_t *recording; /* record indices of the current recording */
    uint32_t recording_count, recording_cap;
    struct trim_transition *transitions;
    uint32_t transition_count, transition_cap;
    bool one_time;
    bool begun;
};

struct trim_object {
    VkObjectType type;
    uint64_t id;      /* the trace's handle */
    uint32_t created; /* record index, or TRIM_NONE */
    uint32_t owner;   /* object whose end ends this one (pool, device, swapchain), or TRIM_NONE */
    uint32_t info;    /* index into the per-type array below, or TRIM_NONE */
    uint32_t memory;  /* buffers and images: the memory object bound, or TRIM_NONE */
    uint32_t map;     /* memory: its vkMapMemory record while mapped, or TRIM_NONE */
    uint64_t size;    /* buffers: their size */
    bool alive, needed;
    bool timeline, signaled; /* semaphores: timeline type; binary signaled by submitted work */
    bool sparse;      /* buffers: sparse binding (contents not read) */
    uint32_t query_type, query_count, query_values; /* query pools: VkQueryType, queries, result values each */
};

struct trim_view {
    uint32_t image; /* object index */
    VkImageSubresourceRange range;
};

struct trim_pass {
    uint32_t count;
    VkImageLayout *final_layouts;
};

struct trim_framebuffer {
    uint32_t count;
    uint32_t *views; /* object indices; none for an imageless framebuffer */
};

struct trim_state {
    const struct rt_trim_options *opts;
    struct rt_trim_result *result;
    struct rt_typed_map current; /* (type, id) -> object index + 1 of its live entry */
    struct trim_object *objects;
    uint32_t object_count, object_cap;
    struct trim_record *records;
    uint32_t record_count, record_cap;
    uint32_t *refs;
    uint64_t ref_count, ref_cap;
    struct trim_image *images;
    uint32_t image_count, image_cap;
    struct trim_cmdbuf *cmdbufs;
    uint32_t cmdbuf_count, cmdbuf_cap;
    struct trim_view *views;
    uint32_t view_count, view_cap;
    struct trim_pass *passes;
    uint32_t pass_count, pass_cap;
    struct trim_framebuffer *framebuffers;
    uint32_t framebuffer_count, framebuffer_cap;
    uint64_t calls_seen;
    rt_status error; /* the first tracking failure (out of memory) */
};

/* objects.c */
void trim_state_init(struct trim_state *t);
void trim_state_finish(struct trim_state *t);
/** The live entry of (type, id), or TRIM_NONE. */
uint32_t trim_object_find(const struct trim_state *t, VkObjectType type, uint64_t id);
/** A new entry for (type, id), replacing the current one; TRIM_NONE when out of memory. */
uint32_t trim_object_add(struct trim_state *t, VkObjectType type, uint64_t id, uint32_t created, uint32_t owner);
/** Ends the object's life, and those of the objects it owns. */
void trim_object_kill(struct trim_state *t, uint32_t object);
/** Starts a record; refs follow with trim_record_ref. TRIM_NONE when out of memory. */
uint32_t trim_record_add(struct trim_state *t, uint64_t seq, enum trim_record_kind kind);
void trim_record_ref(struct trim_state *t, uint32_t record, uint32_t object, bool subject);
/** Which records the snapshot keeps: the closure over what is alive. */
void trim_state_close(struct trim_state *t);
/** Grows ARRAY (of element SIZE) to hold COUNT + 1; false when out of memory. */
bool trim_grow(void **array, uint32_t *cap, uint32_t count, size_t size);

/* calls.c: what each call before frame A does to the tracked state. */
rt_status trim_track_call(void *user, const struct rt_trace_packet *p, enum rt_vk_cmd cmd, const void *args);

/** A snapshot packet of IN (itself trimmed): the layouts and signals it sets. */
void trim_track_snapshot(struct trim_state *t, const struct rt_trace_packet *p);

/* layouts.c */
/** The layout changes of a recorded command (barriers, render passes, secondaries). */
void trim_layouts_record(struct trim_state *t, uint32_t cmdbuf, enum rt_vk_cmd cmd, const void *args);
/** Runs a submitted command buffer's layout changes. */
void trim_layouts_submit(struct trim_state *t, uint32_t cmdbuf);
/** Per-type facts at creation: image shape, views, render passes, framebuffers. */
void trim_layouts_created(struct trim_state *t, enum rt_vk_cmd cmd, const void *args, uint32_t object,
                          uint32_t index);

/* contents.c: the snapshot's BUFFER_CONTENT, IMAGE_CONTENT, SYNC_STATE and QUERY_STATE packets. */
struct replay;
struct rt_trace_writer;
rt_status trim_write_contents(struct trim_state *t, struct replay *r, struct rt_trace_writer *w, uint32_t samples_guard,
                              uint64_t *packets, uint64_t *bytes) RT_MUST_CHECK;

/** RT_ERR_CANNOT_REPLAY naming the first live object whose state a snapshot
 * cannot carry (sparse resources, planar images with content); warns of
 * multisampled images with content (not carried). */
rt_status trim_check_contents(const struct trim_state *t, uint64_t frame) RT_MUST_CHECK;

#endif
