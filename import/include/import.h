/*
 * import/include/import.h — `retrace import`: a GFXReconstruct capture (.gfxr)
 * converted into a .rtrace that every retrace command accepts.
 *
 * Owns: reading GFXReconstruct files (header, options, blocks, LZ4 and zstd
 * payloads) and mapping their blocks onto retrace packets, as
 * docs/FORMATS.md §20 lays down: function calls (decoded by gen/gfxr's
 * generated tables), memory fills, device properties, frames, annotations,
 * and a trimmed capture's state snapshot (retrace's snapshot packets).
 * Must not touch: replay, Vulkan (nothing is executed), the store.
 * Entry point: rt_import_gfxr.
 */
#ifndef RT_IMPORT_H
#define RT_IMPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"
#include "trace.h"

/* What ends a frame (FORMATS §20 "Frames"): AUTO is present, or submit
 * for a capture that never presents. */
enum rt_import_delimiter { RT_IMPORT_DELIMITER_AUTO, RT_IMPORT_DELIMITER_PRESENT, RT_IMPORT_DELIMITER_SUBMIT };

struct rt_import_options {
    const char *in;  /* the .gfxr capture */
    const char *out; /* the .rtrace to write (replaced only on success) */
    /* On a block that is not imported: keep the trace up to it and say what
     * was left (else nothing is written). */
    bool keep_going;
    enum rt_trace_compression compression;
    enum rt_import_delimiter delimiter;
};

/** What an import saw and wrote. */
struct rt_import_summary {
    char gfxr_version[64];   /* from the capture's operation annotation, "" if none */
    const char *compression; /* "none", "lz4", "zstd" */
    uint32_t file_major, file_minor;
    uint64_t bytes_in;
    uint64_t blocks, calls, fills, fill_bytes, frames, annotations, markers, device_blocks;
    uint64_t threads;
    bool submit_frames; /* frames end at submits (the delimiter used) */
    /* a trimmed capture: its frames A..B and what its snapshot became */
    bool trimmed;
    uint64_t first_frame, last_frame;
    uint64_t buffer_inits, image_inits, content_packets, content_bytes, layout_only_images;
    uint64_t swapchain_images; /* put in their snapshot layout (zeros: GFXReconstruct keeps no content) */
    /* where the import stopped early (truncated input, or a refused block
     * under --keep-going); stopped is false when every block was imported */
    bool stopped;
    uint64_t stop_block, stop_offset;
    uint64_t blocks_left; /* blocks after the stop, not imported */
    char stop_reason[512];
    struct rt_trace_writer_stats out; /* the trace written */
};

/**
 * Imports o->in into o->out. RT_ERR_BAD_INPUT (exit 3) names the block, its
 * offset and what was not understood; then nothing is written, except for a
 * truncated file (its good part is kept, summary->stopped says where it
 * ended) and under keep_going (the part before the refused block). summary
 * is filled as far as the import went.
 */
RT_MUST_CHECK rt_status rt_import_gfxr(const struct rt_import_options *o, struct rt_import_summary *summary);

#endif
