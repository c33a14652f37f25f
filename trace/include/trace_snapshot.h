/*
 * trace/include/trace_snapshot.h — the state snapshot packets of a trimmed trace
 * (format 1.2, FORMAT.md "State snapshots"): their in-memory form, the
 * writer calls that append them and the decoders that read them back. One
 * codec for both directions, so the two cannot drift.
 *
 * Owns: the bytes of SNAPSHOT_BEGIN, SNAPSHOT_END, BUFFER_CONTENT,
 * IMAGE_CONTENT, SYNC_STATE, QUERY_STATE (1.3) and IMAGE_SAMPLES (1.4)
 * bodies, and where in a
 * trace they may come.
 * Must not touch: Vulkan (values are plain integers: VkObjectType,
 * VkImageLayout, VkImageAspectFlags as u32), what a replay does with them.
 * Decoders are safe on untrusted input (the reader validates every packet
 * with them before delivering it).
 */
#ifndef RT_TRACE_SNAPSHOT_H
#define RT_TRACE_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "trace.h"

#define RT_TRACE_SHA256_SIZE 32

/** The name of the command a snapshot calls first (format.h says why). */
extern const char rt_trace_snapshot_guard[];
/** The command called before a snapshot's first IMAGE_SAMPLES packet (1.4). */
extern const char rt_trace_snapshot_samples_guard[];

struct rt_trace_snapshot_begin {
    uint64_t first_frame, last_frame; /* the source's frames A..B */
    uint64_t source_frames;           /* how many frames the source has */
    uint8_t source_sha256[RT_TRACE_SHA256_SIZE];
    const char *source; /* file name, no directories; not NUL-terminated when decoded */
    size_t source_length;
};

struct rt_trace_snapshot_end {
    uint64_t packet_count; /* BEGIN up to the last packet before END */
    uint64_t bytes;        /* their packet bytes, headers included, uncompressed */
};

struct rt_trace_buffer_content {
    uint64_t buffer_id, offset;
    const void *data;
    size_t size;
};

struct rt_trace_image_content {
    uint64_t image_id;
    uint32_t aspect, mip, layer, layout; /* VkImageAspectFlagBits, VkImageLayout */
    uint32_t x, y, z, width, height, depth;
    const void *data; /* tightly packed, as VkBufferImageCopy with row length 0 */
    size_t size;
};

struct rt_trace_sync_state {
    uint32_t object_type; /* VkObjectType: fence, semaphore or event */
    uint32_t timeline;    /* 1 for a timeline semaphore, else 0 */
    uint64_t object_id;
    uint64_t value;       /* 1 = signaled / set; a timeline semaphore's counter */
};

/* Which queries of a pool are available at the snapshot (1.3): the rest are
 * reset (unavailable). */
struct rt_trace_query_state {
    uint64_t pool_id;
    uint32_t query_type;     /* VkQueryType */
    uint32_t count;          /* the pool's queries */
    const uint8_t *available; /* count bytes: 1 available, 0 not */
};

/* Every sample of rows y..y+height of one layer of a multisampled 2D image
 * (1.4): for each texel, row by row, for each sample, four 32-bit words,
 * one per channel (R, G, B, A; depth and stencil in the first), as a shader
 * reads them: KIND says how to read the words. */
enum rt_trace_sample_kind {
    RT_TRACE_SAMPLES_FLOAT = 0, /* float bits (float, normalized, sRGB-decoded and scaled formats) */
    RT_TRACE_SAMPLES_SINT = 1,  /* two's complement */
    RT_TRACE_SAMPLES_UINT = 2,
    RT_TRACE_SAMPLES_DEPTH = 3, /* depth aspect: float bits in the first word */
};
#define RT_TRACE_SAMPLE_BYTES 16 /* four words a sample */

struct rt_trace_image_samples {
    uint64_t image_id;
    uint32_t aspect, layer, layout; /* VkImageAspectFlagBits, VkImageLayout */
    uint32_t samples;               /* the image's VkSampleCountFlagBits: 2..64 */
    uint32_t kind;                  /* enum rt_trace_sample_kind */
    uint32_t x, y, width, height;
    const void *data; /* width * height * samples * RT_TRACE_SAMPLE_BYTES */
    size_t size;
};

/* Writers: each appends one packet (the writer's own lock and sequence). */
RT_MUST_CHECK rt_status rt_trace_writer_snapshot_begin(struct rt_trace_writer *w,
                                                       const struct rt_trace_snapshot_begin *b);
RT_MUST_CHECK rt_status rt_trace_writer_snapshot_end(struct rt_trace_writer *w,
                                                     const struct rt_trace_snapshot_end *e);
RT_MUST_CHECK rt_status rt_trace_writer_buffer_content(struct rt_trace_writer *w,
                                                       const struct rt_trace_buffer_content *c);
RT_MUST_CHECK rt_status rt_trace_writer_image_content(struct rt_trace_writer *w,
                                                      const struct rt_trace_image_content *c);
RT_MUST_CHECK rt_status rt_trace_writer_sync_state(struct rt_trace_writer *w,
                                                   const struct rt_trace_sync_state *s);
RT_MUST_CHECK rt_status rt_trace_writer_query_state(struct rt_trace_writer *w,
                                                    const struct rt_trace_query_state *q);
RT_MUST_CHECK rt_status rt_trace_writer_image_samples(struct rt_trace_writer *w,
                                                      const struct rt_trace_image_samples *c);

/** The largest data a content packet may carry (it must fit one block). */
size_t rt_trace_snapshot_max_data(void);

/* Decoders for packets the reader delivered (validated: they cannot fail
 * then; on a body that does not decode they return false). */
bool rt_trace_snapshot_begin_decode(const struct rt_trace_packet *p, struct rt_trace_snapshot_begin *out);
bool rt_trace_snapshot_end_decode(const struct rt_trace_packet *p, struct rt_trace_snapshot_end *out);
bool rt_trace_buffer_content_decode(const struct rt_trace_packet *p, struct rt_trace_buffer_content *out);
bool rt_trace_image_content_decode(const struct rt_trace_packet *p, struct rt_trace_image_content *out);
bool rt_trace_sync_state_decode(const struct rt_trace_packet *p, struct rt_trace_sync_state *out);
bool rt_trace_query_state_decode(const struct rt_trace_packet *p, struct rt_trace_query_state *out);
bool rt_trace_image_samples_decode(const struct rt_trace_packet *p, struct rt_trace_image_samples *out);

/** Whether a packet type is one of the snapshot's. */
bool rt_trace_packet_is_snapshot(enum rt_trace_packet_type type);

/* Reader side (trace/ only): why a snapshot packet's body or place is wrong,
 * or NULL. frames_before: FRAME_ENDs before it; stage (0 none yet, 1 inside,
 * 2 ended) is updated. */
const char *rt_trace_snapshot_check(uint16_t type, const uint8_t *body, size_t size, uint64_t frames_before,
                                    uint8_t *stage);

#endif
