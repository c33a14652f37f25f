/*
 * trace/include/format.h — the .rtrace byte layout's constants: magic, versions,
 * block and packet type numbers, size limits. trace/FORMAT.md is the grammar;
 * this file and FORMAT.md change together.
 *
 * Owns: numbers that are written to files. Must not touch: Vulkan headers.
 *
 * WARNING: type numbers are APPEND-ONLY. Never renumber, reuse or remove a
 * value: traces already written carry them. A new packet or block type takes
 * the next free number and bumps RT_FORMAT_VERSION_MINOR; readers of an older
 * minor skip it because every block and packet carries its length.
 */
#ifndef RT_FORMAT_H
#define RT_FORMAT_H

#include <stdint.h>

/* "RTRC\r\n\x1a\n": the CR LF / ^Z / LF bytes catch text-mode mangling (as PNG's do). */
#define RT_FORMAT_MAGIC "RTRC\r\n\x1a\n"
#define RT_FORMAT_MAGIC_SIZE 8

/* Major: a reader refuses a larger one. Minor: additive; a reader reads it. */
#define RT_FORMAT_VERSION_MAJOR 1
#define RT_FORMAT_VERSION_MINOR 5

/* magic[8] major u16 minor u16 flags u32 body_size u32 body_checksum u64 */
#define RT_FORMAT_FILE_HEADER_SIZE 28
/* A header body larger than this is corrupt (names, settings, command table). */
#define RT_FORMAT_MAX_HEADER_BODY (16u << 20)

/* "RTBK" little-endian */
#define RT_FORMAT_BLOCK_MAGIC 0x4b425452u
#define RT_FORMAT_BLOCK_HEADER_SIZE 48
/* Raw (uncompressed) block payloads are at most 64 MiB; readers reject larger
 * sizes before allocating, so memory stays bounded by one block. */
#define RT_FORMAT_MAX_RAW_BLOCK (64u << 20)
/* Stored payloads may exceed raw slightly when compression expands (zstd
 * bound is raw + raw/256 + 128 KiB); the writer stores such blocks raw, but
 * the limit tolerates any valid zstd frame of a maximal block. */
#define RT_FORMAT_MAX_STORED_BLOCK (RT_FORMAT_MAX_RAW_BLOCK + (RT_FORMAT_MAX_RAW_BLOCK >> 8) + (128u << 10))

/* type u16, body_size u32 */
#define RT_FORMAT_PACKET_HEADER_SIZE 6

/* Block types (u8). APPEND-ONLY. */
enum rt_format_block_type {
    RT_FORMAT_BLOCK_PACKETS = 1, /* a payload of packets */
    RT_FORMAT_BLOCK_END = 2,     /* last block; empty payload; flags say how it ended */
};

/* Block compression (u8). APPEND-ONLY. */
enum rt_format_compression {
    RT_FORMAT_COMPRESSION_NONE = 0,
    RT_FORMAT_COMPRESSION_ZSTD = 1, /* one zstd frame */
};

/* Flags of an END block. */
#define RT_FORMAT_END_EMERGENCY 0x1u /* written by the abnormal-exit flush */

/* Packet types (u16). APPEND-ONLY. 0 is never written. */
enum rt_format_packet_type {
    RT_FORMAT_PACKET_CALL = 1,
    RT_FORMAT_PACKET_MEMORY_UPDATE = 2,
    RT_FORMAT_PACKET_FRAME_END = 3,
    RT_FORMAT_PACKET_ANNOTATION = 4,
    RT_FORMAT_PACKET_UNSUPPORTED = 5,
    RT_FORMAT_PACKET_DEVICE_INFO = 6,
    RT_FORMAT_PACKET_VERIFY = 7, /* 1.1: hashes of memory the application read back */
    RT_FORMAT_PACKET_SNAPSHOT_BEGIN = 8,  /* 1.2: a trimmed trace's state snapshot starts */
    RT_FORMAT_PACKET_SNAPSHOT_END = 9,    /* 1.2: ... and ends */
    RT_FORMAT_PACKET_BUFFER_CONTENT = 10, /* 1.2: bytes of a buffer at the snapshot */
    RT_FORMAT_PACKET_IMAGE_CONTENT = 11,  /* 1.2: texels of an image subresource region */
    RT_FORMAT_PACKET_SYNC_STATE = 12,     /* 1.2: a fence, semaphore or event's state */
    RT_FORMAT_PACKET_QUERY_STATE = 13,    /* 1.3: which queries of a query pool are available */
    RT_FORMAT_PACKET_IMAGE_SAMPLES = 14,  /* 1.4: every sample of a multisampled image region */
    RT_FORMAT_PACKET_CALL_COMPACT = 15,   /* 1.5: a CALL whose sequence number is implied */
    /* next: 16 (planned: memory update by reference) */
};

/* File header flags (u32). APPEND-ONLY. A reader refuses bits it does not know. */
#define RT_FORMAT_FLAG_SNAPSHOT 0x1u /* 1.2: the trace starts with a state snapshot */
/* 1.5: calls are CALL_COMPACT packets. A reader that predates them would skip
 * every call as an unknown packet: the flag makes it refuse the trace instead. */
#define RT_FORMAT_FLAG_COMPACT_CALLS 0x2u
#define RT_FORMAT_KNOWN_FLAGS (RT_FORMAT_FLAG_SNAPSHOT | RT_FORMAT_FLAG_COMPACT_CALLS)

/* The command a snapshot calls first: replays older than 1.2 do not know it
 * and stop there (they skip the snapshot's packet types, so without it they
 * would replay a trimmed trace without its contents). */
#define RT_FORMAT_SNAPSHOT_GUARD "retrace-snapshot (trace format 1.2: update retrace)"
/* Called before a snapshot's first IMAGE_SAMPLES packet (1.4): replays
 * older than 1.4 stop there instead of skipping the samples silently. */
#define RT_FORMAT_SNAPSHOT_SAMPLES_GUARD "retrace-snapshot-samples (trace format 1.4: update retrace)"

/* Fixed body prefixes (bytes) before the variable tail of each packet type. */
#define RT_FORMAT_CALL_FIXED 24        /* command u32, thread u32, seq u64, ret u64 */
/* command u32, thread u32, ret u64: the sequence number, first_seq + the
 * packet's index in its block, is not stored. A stored one changed in every
 * packet, and zstd paid a literal and a new match for it at each call. */
#define RT_FORMAT_CALL_COMPACT_FIXED 16
#define RT_FORMAT_MEMORY_FIXED 16      /* memory id u64, offset u64 */
#define RT_FORMAT_FRAME_FIXED 8        /* frame number u64 */
#define RT_FORMAT_ANNOTATION_FIXED 4   /* kind u32 */
#define RT_FORMAT_UNSUPPORTED_FIXED 16 /* command u32, thread u32, seq u64 */
#define RT_FORMAT_VERIFY_FIXED 4       /* range count u32 */
#define RT_FORMAT_VERIFY_RANGE_FIXED 24 /* memory id u64, offset u64, size u32, piece size u32 */
#define RT_FORMAT_SNAPSHOT_BEGIN_FIXED 60 /* first, last, source frames u64, sha256[32], name length u32 */
#define RT_FORMAT_SNAPSHOT_END_FIXED 16   /* packet count u64, bytes u64 */
#define RT_FORMAT_BUFFER_CONTENT_FIXED 16 /* buffer id u64, offset u64 */
#define RT_FORMAT_IMAGE_CONTENT_FIXED 48  /* image id u64, aspect mip layer layout x y z w h d u32 */
#define RT_FORMAT_SYNC_STATE_FIXED 24     /* object type u32, timeline u32, id u64, value u64 */
#define RT_FORMAT_QUERY_STATE_FIXED 16    /* pool id u64, query type u32, query count u32; then u8 per query */
#define RT_FORMAT_IMAGE_SAMPLES_FIXED 44  /* image id u64, aspect layer layout samples kind x y w h u32 */

#endif
