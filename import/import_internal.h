/*
 * import/import_internal.h — the importer's state, shared by its files:
 * gfxr_file.c (the file), import.c (the block loop), import_calls.c (function
 * calls), import_meta.c (metadata and annotations). Private to import/.
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

#define IMPORT_MAX_NOTES 16

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
};

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
rt_status import_annotation(struct importer *im, const struct gfxr_block *b);

#endif
