/*
 * trace/include/trace.h — the .rtrace file: a thread-safe streaming writer, a
 * streaming reader that is safe on untrusted input, and the flush that
 * finishes a file on abnormal exit (the caller owns the signal handlers that
 * call it: capture/signals.c in the layer). The byte layout is trace/FORMAT.md (constants in format.h).
 *
 * Owns: the file header (application, capture settings, capture device
 * identity as plain integers, the trace's command-name table), blocks (zstd or
 * raw, sizes, XXH3 checksums, counts) and packets (call, memory update, frame
 * end, annotation, unsupported command, device info).
 * Must not touch: Vulkan (no Vulkan headers, no Vulkan calls): call parameters
 * are opaque bytes encoded by the generated codec.
 * Entry points: rt_trace_writer_create / _call / _frame_end / _close,
 * rt_trace_writer_emergency_flush, rt_trace_reader_open / _next.
 */
#ifndef RT_TRACE_H
#define RT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Same limits as Vulkan's VK_MAX_* so a capture copies without truncating. */
#define RT_TRACE_UUID_SIZE 16
#define RT_TRACE_NAME_SIZE 256
#define RT_TRACE_MAX_MEMORY_TYPES 32
#define RT_TRACE_MAX_MEMORY_HEAPS 16

struct rt_trace_memory_type {
    uint32_t property_flags; /* VkMemoryPropertyFlags */
    uint32_t heap_index;
};

struct rt_trace_memory_heap {
    uint64_t size;
    uint32_t flags; /* VkMemoryHeapFlags */
};

/** The capture device's identity, as plain integers (no Vulkan types). */
struct rt_trace_device_info {
    uint32_t vendor_id, device_id, driver_version;
    uint32_t driver_id;   /* VkDriverId, 0 if unknown */
    uint32_t api_version; /* the device's apiVersion */
    uint32_t device_type; /* VkPhysicalDeviceType */
    char device_name[RT_TRACE_NAME_SIZE]; /* NUL-terminated */
    char driver_name[RT_TRACE_NAME_SIZE];
    char driver_info[RT_TRACE_NAME_SIZE];
    uint8_t pipeline_cache_uuid[RT_TRACE_UUID_SIZE];
    uint8_t device_uuid[RT_TRACE_UUID_SIZE];
    uint8_t driver_uuid[RT_TRACE_UUID_SIZE];
    uint32_t memory_type_count;
    struct rt_trace_memory_type memory_types[RT_TRACE_MAX_MEMORY_TYPES];
    uint32_t memory_heap_count;
    struct rt_trace_memory_heap memory_heaps[RT_TRACE_MAX_MEMORY_HEAPS];
};

/** Annotation kinds (u32 in the file). APPEND-ONLY. */
enum rt_trace_annotation_kind {
    RT_TRACE_ANNOTATION_NOTE = 0,       /* free text */
    RT_TRACE_ANNOTATION_DEBUG_LABEL = 1, /* a debug-utils label */
    RT_TRACE_ANNOTATION_SCREENSHOT = 2, /* a capture-time screenshot's file name */
    RT_TRACE_ANNOTATION_EXTERNAL_MEMORY = 3, /* memory whose content the capture cannot read */
};

/**
 * One range of a verification point: the bytes [offset, offset + size) of a
 * memory object as the application could read them, hashed piece by piece
 * (piece k covers piece_size bytes from offset + k * piece_size; the last
 * may be shorter), so a replay can say which bytes differ.
 */
struct rt_trace_verify_range {
    uint64_t memory_id, offset;
    uint32_t size, piece_size;
    uint32_t piece_count;   /* ceil(size / piece_size) */
    const uint64_t *hashes; /* writer: piece_count hashes (XXH3_64bits of each piece) */
    const uint8_t *raw;     /* reader: the same as little-endian bytes, unaligned */
};

/** Hash of piece k of a range the reader delivered. */
uint64_t rt_trace_verify_piece_hash(const struct rt_trace_verify_range *range, uint32_t k);

/** XXH3_64bits of bytes: the hash verification points use (no xxhash.h needed). */
uint64_t rt_trace_hash(const void *bytes, size_t size);

/* ------------------------------------------------------------------ writer */

enum rt_trace_compression {
    RT_TRACE_COMPRESSION_DEFAULT = 0, /* zstd */
    RT_TRACE_COMPRESSION_ZSTD,
    RT_TRACE_COMPRESSION_NONE,
};

#define RT_TRACE_SEAL_WHEN_FULL UINT32_MAX

struct rt_trace_writer_options {
    const char *path; /* final name; written as PATH.part and renamed on close */
    enum rt_trace_compression compression;
    int compression_level; /* zstd level; 0 = 3 */
    size_t block_size;     /* raw bytes per block before it is sealed; 0 = 1 MiB */
    /* A FRAME_END seals the block only once the block has been open this
     * long (0: at every FRAME_END). Fewer, larger blocks compress better
     * (frames repeat) and cost fewer hand-overs to the writer thread; a
     * SIGKILL then loses up to this long of frames, a signal or exit()
     * nothing (the emergency flush writes the open block).
     * RT_TRACE_SEAL_WHEN_FULL: frame ends never seal, only a full block
     * does (an offline writer, such as trim, that no kill threatens). */
    uint32_t frame_seal_ms;
    const char *application_name, *engine_name; /* may be NULL */
    uint32_t application_version, engine_version, api_version;
    uint32_t vk_header_version; /* VK_HEADER_VERSION_COMPLETE of the capture */
    const char *settings;       /* capture settings as text; may be NULL */
    const char *const *command_names; /* the trace's command numbering */
    uint32_t command_count;
    const struct rt_trace_device_info *device; /* may be NULL: set later */
    uint32_t header_flags; /* RT_FORMAT_FLAG_* (format.h): SNAPSHOT for a trimmed trace */
};

struct rt_trace_writer_stats {
    uint64_t frames, calls, packets, blocks;
    uint64_t memory_bytes; /* bytes of memory-update data */
    uint64_t raw_bytes;    /* header + block headers + raw payloads */
    uint64_t file_bytes;   /* size of the file written */
};

struct rt_trace_writer;

/**
 * Opens PATH.part for writing and starts the writer thread. The header is
 * written lazily when the first block is sealed, so a device set before then
 * lands in the header. Copies everything in options.
 */
RT_MUST_CHECK rt_status rt_trace_writer_create(const struct rt_trace_writer_options *options,
                                               struct rt_trace_writer **writer_out);

/** Sets the capture device: into the header if it is not sealed yet, else as a
 * device-info packet. Thread-safe. */
RT_MUST_CHECK rt_status rt_trace_writer_set_device_info(struct rt_trace_writer *w,
                                                        const struct rt_trace_device_info *dev);

/**
 * Appends an API call. Thread-safe: the global sequence number is taken under
 * the writer's lock, so file order is sequence order. params (size bytes) are
 * copied. seq_out may be NULL.
 */
RT_MUST_CHECK rt_status rt_trace_writer_call(struct rt_trace_writer *w, uint32_t command_id,
                                             uint32_t thread_id, uint64_t return_value,
                                             const void *params, size_t size, uint64_t *seq_out);

/** Appends bytes written to mapped memory (split into several packets when
 * larger than a block). */
RT_MUST_CHECK rt_status rt_trace_writer_memory_update(struct rt_trace_writer *w, uint64_t memory_id,
                                                      uint64_t offset, const void *data, size_t size);

/** Ends the current frame and seals the block: a crash loses at most the
 * frame in progress. */
RT_MUST_CHECK rt_status rt_trace_writer_frame_end(struct rt_trace_writer *w);

RT_MUST_CHECK rt_status rt_trace_writer_annotation(struct rt_trace_writer *w,
                                                   enum rt_trace_annotation_kind kind,
                                                   const char *text);

/** Appends a verification point: what the application could read back after
 * a wait (several packets when it outgrows a block). */
RT_MUST_CHECK rt_status rt_trace_writer_verify(struct rt_trace_writer *w,
                                               const struct rt_trace_verify_range *ranges,
                                               size_t count);

/** Records that a call was forwarded but could not be encoded (and why). */
RT_MUST_CHECK rt_status rt_trace_writer_unsupported(struct rt_trace_writer *w, uint32_t command_id,
                                                    uint32_t thread_id, const char *reason);

/**
 * Flushes, writes the end block, fsyncs, renames PATH.part to PATH and frees
 * the writer (also on error). stats_out may be NULL.
 */
RT_MUST_CHECK rt_status rt_trace_writer_close(struct rt_trace_writer *w,
                                              struct rt_trace_writer_stats *stats_out);

/**
 * The same as close without freeing: for a writer other threads may still be
 * calling (a process exiting while its threads run). Every later append fails
 * with an error and touches nothing but the writer's lock; w stays valid.
 * Finishing twice is an error; close after finish only frees.
 */
RT_MUST_CHECK rt_status rt_trace_writer_finish(struct rt_trace_writer *w,
                                               struct rt_trace_writer_stats *stats_out);

/**
 * Async-signal-safe (see crash.c for the one caveat, a trylock), for a
 * handler of a signal that is about to end the process (SIGTERM, SIGSEGV,
 * ...), on whichever thread: writes every sealed block (uncompressed if it
 * was still queued), then the block in progress unless a thread was inside
 * an append, an end block marked "emergency", and renames the file. Runs at
 * most once per writer; later appends fail and close reports it. Returns
 * false if w was already flushed.
 */
bool rt_trace_writer_emergency_flush(struct rt_trace_writer *w);

/** The same, but when another thread's flush is under way (it took a signal
 * at the same moment), waits for it to finish: returning would let this
 * thread's signal end the process halfway through it. */
bool rt_trace_writer_emergency_flush_or_wait(struct rt_trace_writer *w);

/**
 * For exit() without close (an atexit hook; not a signal context): seals the
 * block in progress, gives the writer thread a moment to write what is
 * queued (compressed), then finishes the file with the emergency flush.
 * Does nothing for a writer already finished.
 */
void rt_trace_writer_exit_flush(struct rt_trace_writer *w);

/** True once the emergency flush has finished w's file: appends after it
 * fail by design (other threads go on until the process ends). */
bool rt_trace_writer_flushed_in_emergency(struct rt_trace_writer *w);

/* ------------------------------------------------------------------ reader */

struct rt_trace_header {
    uint16_t version_major, version_minor;
    uint32_t flags;
    uint32_t vk_header_version;
    uint8_t pointer_size;
    uint8_t compression; /* enum rt_format_compression the writer chose */
    const char *application_name; /* never NULL ("" when absent) */
    const char *engine_name;
    uint32_t application_version, engine_version, api_version;
    const char *settings;
    bool has_device;
    struct rt_trace_device_info device;
    uint32_t command_count;
    const char *const *command_names;
};

enum rt_trace_packet_type {
    RT_TRACE_PACKET_END = 0, /* not in files: the trace ended cleanly */
    RT_TRACE_PACKET_CALL = 1,
    RT_TRACE_PACKET_MEMORY_UPDATE = 2,
    RT_TRACE_PACKET_FRAME_END = 3,
    RT_TRACE_PACKET_ANNOTATION = 4,
    RT_TRACE_PACKET_UNSUPPORTED = 5,
    RT_TRACE_PACKET_DEVICE_INFO = 6,
    RT_TRACE_PACKET_VERIFY = 7,
    /* 1.2 state snapshot (trace_snapshot.h decodes their bodies) */
    RT_TRACE_PACKET_SNAPSHOT_BEGIN = 8,
    RT_TRACE_PACKET_SNAPSHOT_END = 9,
    RT_TRACE_PACKET_BUFFER_CONTENT = 10,
    RT_TRACE_PACKET_IMAGE_CONTENT = 11,
    RT_TRACE_PACKET_SYNC_STATE = 12,
    RT_TRACE_PACKET_QUERY_STATE = 13, /* 1.3 */
    RT_TRACE_PACKET_IMAGE_SAMPLES = 14, /* 1.4 */
};

/** Walks a verify packet's ranges (validated by the reader). */
struct rt_trace_verify_cursor {
    const uint8_t *pos;
    size_t left;
    uint32_t remaining;
};

/** A packet view; its pointers stay valid until the next rt_trace_reader_next. */
struct rt_trace_packet {
    enum rt_trace_packet_type type;
    uint64_t seq;    /* global sequence number (every packet has one) */
    uint64_t offset; /* file offset of the packet's block */
    union {
        struct { uint32_t command_id, thread_id; uint64_t return_value;
                 const uint8_t *params; size_t size; } call;
        struct { uint64_t memory_id, offset; const uint8_t *data; size_t size; } memory;
        struct { uint64_t frame; } frame_end; /* frames count from 1 */
        struct { uint32_t kind; const char *text; size_t length; } annotation;
        struct { uint32_t command_id, thread_id; const char *reason; size_t length; } unsupported;
        const struct rt_trace_device_info *device;
        struct { uint32_t count; const uint8_t *ranges; size_t size; } verify;
        struct { const uint8_t *body; size_t size; } snapshot; /* the snapshot packets' bodies */
    } u;
};

/** How far the trace read so far is good: counts whole validated blocks. */
struct rt_trace_progress {
    uint64_t good_bytes;      /* file header plus validated blocks */
    uint64_t blocks, packets, calls, frames; /* frames = complete frames */
    uint64_t raw_bytes;       /* uncompressed size of the same */
    bool ended;               /* the end block was read and nothing follows */
    bool emergency;           /* ... and it says the capture died */
};

struct rt_trace_reader;

/** Opens and validates the header. Memory stays bounded by one block. Errors
 * do not name PATH: the caller says which file (a message names it once). */
RT_MUST_CHECK rt_status rt_trace_reader_open(const char *path, struct rt_trace_reader **reader_out);

/** Same over bytes in memory (not copied; they must outlive the reader). */
RT_MUST_CHECK rt_status rt_trace_reader_open_memory(const void *data, size_t size,
                                                    struct rt_trace_reader **reader_out);

const struct rt_trace_header *rt_trace_reader_header(const struct rt_trace_reader *r);

/**
 * The next packet, or type RT_TRACE_PACKET_END when the trace ended cleanly.
 * RT_ERR_BAD_INPUT names the block, its offset and what is wrong; after an
 * error every later call returns the same error. Unknown packet and block
 * types of a newer minor version are skipped.
 */
RT_MUST_CHECK rt_status rt_trace_reader_next(struct rt_trace_reader *r, struct rt_trace_packet *out);

/** Starts walking the ranges of a verify packet. */
void rt_trace_verify_begin(const struct rt_trace_packet *p, struct rt_trace_verify_cursor *c);
/** The next range, or false after the last. */
bool rt_trace_verify_next(struct rt_trace_verify_cursor *c, struct rt_trace_verify_range *out);

void rt_trace_reader_progress(const struct rt_trace_reader *r, struct rt_trace_progress *out);

void rt_trace_reader_destroy(struct rt_trace_reader *r);

/** "zstd", "none" or "unknown". */
const char *rt_trace_compression_name(unsigned compression);

/**
 * Finishes PATH.part that a dead process left (SIGKILL, the OOM killer, a
 * handler that called _exit): keeps every whole block, cuts what follows,
 * appends an end block marked "emergency" and renames it to PATH. Refuses
 * (RT_ERR_BAD_INPUT) while a live writer holds the file's lock, and when the
 * file holds no whole header (nothing to keep; an empty file is removed).
 * progress_out (may be NULL) describes what was kept.
 */
RT_MUST_CHECK rt_status rt_trace_finish_part(const char *path, struct rt_trace_progress *progress_out);

#endif
