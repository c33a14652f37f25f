/*
 * import/import_internal.h — the importer's state, shared by its files:
 * gfxr_file.c (the file), import.c (the block loop), import_calls.c (function
 * calls), import_meta.c (metadata and annotations), gfxr_scan.c (the first
 * read), import_snapshot.c (a trimmed capture's state snapshot). Private to
 * import/.
 */
#ifndef RT_IMPORT_INTERNAL_H
#define RT_IMPORT_INTERNAL_H

#include <inttypes.h>
#include <stdio.h>

#include "arena.h"
#include "codec.h"
#include "hashmap.h"
#include "import.h"
#include "vkcodec.h"

enum gfxr_compression { GFXR_COMPRESSION_NONE = 0, GFXR_COMPRESSION_LZ4 = 1, GFXR_COMPRESSION_ZSTD = 3 };

enum gfxr_block_type {
    GFXR_BLOCK_FRAME_MARKER = 1,
    GFXR_BLOCK_STATE_MARKER = 2,
    GFXR_BLOCK_META = 3,
    GFXR_BLOCK_CALL = 4,
    GFXR_BLOCK_ANNOTATION = 5,
    GFXR_BLOCK_METHOD = 6,
    GFXR_BLOCK_COMPRESSED = 0x80000000u,
};

struct gfxr_file {
    FILE *fp;
    uint64_t size, offset, blocks;
    uint32_t major, minor, compression;
    uint8_t *body, *raw; /* the current block, its decompressed payload */
    size_t body_cap, raw_cap;
};

struct gfxr_block {
    uint64_t index, offset; /* block number from 0, file offset of its header */
    uint32_t type;
    const uint8_t *body; /* size bytes after the 12-byte header; valid until the next block */
    size_t size;
};

rt_status gfxr_open(const char *path, struct gfxr_file *f);
/** The next block; *end at the end of the file. Truncation is an error naming the block. */
rt_status gfxr_next(struct gfxr_file *f, struct gfxr_block *out, bool *end);
/** Decompresses a payload of the file's compression into a buffer owned by f. */
rt_status gfxr_decompress(struct gfxr_file *f, const uint8_t *in, size_t in_size, uint64_t raw_size,
                          const uint8_t **out);
const char *gfxr_compression_name(uint32_t compression);
void gfxr_close(struct gfxr_file *f);

/* What the first read saw (gfxr_scan.c). */
struct gfxr_scan {
    uint64_t presents, submits; /* outside a state snapshot */
    uint64_t state_markers;
    uint8_t sha256[32]; /* of the whole file, when it has state markers */
    bool used[RT_VK_CMD_COUNT]; /* commands its calls will be written as */
};

rt_status gfxr_scan(const struct gfxr_file *f, const char *path, struct gfxr_scan *out);

#define IMPORT_MAX_NOTES 16

struct import_snapshot; /* import_snapshot.c */

enum import_stage { IMPORT_NO_SNAPSHOT, IMPORT_IN_SNAPSHOT, IMPORT_SNAPSHOT_ENDED };

/* A descriptor update template's entries (import_templates.c). */
struct import_template {
    VkDescriptorUpdateTemplateEntry *entries;
    uint32_t count;
    VkPipelineBindPoint bind_point;
};

struct importer {
    const struct rt_import_options *o;
    struct rt_import_summary *sum;
    struct gfxr_file f;
    struct rt_trace_writer *w; /* made at the first call, so the header has vkCreateInstance's names */
    char tmp_path[4096];
    struct rt_arena arena;
    struct rt_enc enc;
    struct rt_hashmap map_offsets; /* VkDeviceMemory id -> offset of its mapping */
    struct rt_hashmap threads;     /* GFXReconstruct thread id -> retrace thread id (1, 2, ...) */
    struct rt_trace_device_info dev;
    bool have_props, have_memory;
    char *notes[IMPORT_MAX_NOTES]; /* annotations met before the writer existed */
    unsigned note_count;
    struct rt_hashmap template_ids; /* VkDescriptorUpdateTemplate id -> index in templates */
    struct import_template *templates;
    size_t template_count, template_cap;
    struct gfxr_scan scan;
    bool submit_frames;        /* frames end at submits, not presents */
    enum import_stage stage;   /* of a trimmed capture's snapshot */
    uint64_t snapshot_frame;   /* the begin marker's frame (A) */
    uint64_t snapshot_packets, snapshot_bytes; /* for SNAPSHOT_END */
    struct import_snapshot *snap; /* what the snapshot created, while inside it */
    uint32_t command_ids[RT_VK_CMD_COUNT]; /* the trace's numbering: used commands only, UINT32_MAX else */
    uint32_t guard_id;                     /* the snapshot guard's, after them */
};

/* Packet overhead (type and size) as SNAPSHOT_END counts bytes. */
#define IMPORT_PACKET_OVERHEAD 6
/** Counts a packet of body_size bytes into the snapshot, when inside one. */
void import_count(struct importer *im, size_t body_size);

/** PATH without its directories. */
const char *import_base_name(const char *path);
/** The trace writer, made now if need be (app names from args, a vkCreateInstance, or NULL). */
rt_status import_writer(struct importer *im, const void *create_instance_args);
/** An annotation note: written, or kept until the writer exists. */
rt_status import_note(struct importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

rt_status import_call(struct importer *im, const struct gfxr_block *b);
/** Writes a decoded call as a CALL packet (and a FRAME_END after a present). */
rt_status import_write_call(struct importer *im, enum rt_vk_cmd cmd, uint32_t thread, const void *args);
/** A template update (its parameters in d) written as the plain update it stands for. */
rt_status import_template_call(struct importer *im, enum rt_vk_cmd cmd, uint32_t thread, struct rt_dec *d);
rt_status import_template_created(struct importer *im, const struct rt_vk_args_vkCreateDescriptorUpdateTemplate *a);
void import_templates_finish(struct importer *im);
rt_status import_meta(struct importer *im, const struct gfxr_block *b);
/** `block N at offset X: metadata T (its name) WHY`, exit 3. */
rt_status import_meta_error(const struct gfxr_block *b, uint32_t type, const char *why);
rt_status import_annotation(struct importer *im, const struct gfxr_block *b);

/* import_snapshot.c */
rt_status import_state_marker(struct importer *im, const struct gfxr_block *b);
/** SNAPSHOT_BEGIN and the guard call, right after the writer is made. */
rt_status import_snapshot_open(struct importer *im);
/** Metadata 4-8 (body: after the metadata id). */
rt_status import_snapshot_meta(struct importer *im, const struct gfxr_block *b, uint32_t type, const uint8_t *body,
                               size_t size);
/** What a snapshot call created, bound or mapped, for the contents after it. */
rt_status import_snapshot_track(struct importer *im, enum rt_vk_cmd cmd, const void *args);
void import_snapshot_free(struct importer *im);
/** Whether a call of THREAD inside the snapshot is another thread's (not the state writer's). */
bool import_snapshot_holds(struct importer *im, enum rt_vk_cmd cmd, uint64_t thread);
/** Keeps a copy of that call's block, imported right after the snapshot ends. */
rt_status import_snapshot_hold(struct importer *im, const struct gfxr_block *b);

#endif
