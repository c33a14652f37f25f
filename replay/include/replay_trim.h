/*
 * replay/include/replay_trim.h — what `retrace trim` asks of the replay engine: a
 * look at every call before it is replayed (handles still the trace's ids),
 * a stop at the start of a chosen frame with the device idle, and reads of
 * the live state there: a buffer's bytes, an image subresource's texels (in
 * the layout the caller tracked), a fence's, event's or timeline
 * semaphore's state. All by the trace's ids; the live handles stay inside.
 *
 * Owns: nothing but these entry points (snapshot_read.c); the snapshot
 * packets a trimmed trace replays are replay's own (snapshot_apply.c).
 * Must not touch: the trace writer (trim/ writes the new trace).
 * Contents are read and written on the last device the trace created.
 */
#ifndef RT_REPLAY_TRIM_H
#define RT_REPLAY_TRIM_H

#include <stdint.h>

#include "status.h"
#include "trace.h"
#include "vk_commands_gen.h"

struct replay; /* the engine's state at the stop */

struct rt_replay_trim_hooks {
    void *user;
    uint64_t stop_frame; /* replay stops where this frame (>= 2) begins */
    /** Before each call is replayed; args hold the trace's handle ids. An error stops the replay. */
    rt_status (*call)(void *user, const struct rt_trace_packet *p, enum rt_vk_cmd cmd, const void *args);
    /** Each state snapshot packet of a trimmed trace being trimmed again, after it was replayed. */
    rt_status (*snapshot)(void *user, const struct rt_trace_packet *p);
    /** At the stop, every device idle. An error is the replay's result. */
    rt_status (*stopped)(void *user, struct replay *r);
};

/** Bytes [offset, offset + size) of buffer BUFFER (a trace id) into OUT. */
rt_status rt_replay_read_buffer(struct replay *r, uint64_t buffer, uint64_t offset, uint64_t size,
                                void *out) RT_MUST_CHECK;

/** Reads region (x..z, width..depth) of subresource (aspect, mip, layer) of
 * image IMAGE, which is in LAYOUT, into OUT (SIZE bytes, tightly packed);
 * the image is left in LAYOUT. */
struct rt_replay_image_region {
    uint32_t aspect, mip, layer, layout;
    uint32_t x, y, z, width, height, depth;
};
rt_status rt_replay_read_image(struct replay *r, uint64_t image, const struct rt_replay_image_region *region,
                               void *out, uint64_t size) RT_MUST_CHECK;

/** Why aspect ASPECT (colour or depth) of multisampled image IMAGE (a trace
 * id) with SAMPLES cannot be read here, or NULL when it can: a stencil
 * aspect, a format the device cannot sample at that count (trim gives the
 * image SAMPLED usage only where it can), a first queue without compute. */
const char *rt_replay_samples_unreadable(struct replay *r, uint64_t image, uint32_t aspect, uint32_t samples);

/** Every sample of REGION (its aspect, layer, layout, x, y, width, height;
 * mip 0, one slice) of multisampled image IMAGE with SAMPLES into OUT: SIZE
 * = width * height * samples * RT_TRACE_SAMPLE_BYTES bytes, the words of an
 * IMAGE_SAMPLES packet (trace_snapshot.h); *kind_out is their kind. */
rt_status rt_replay_read_samples(struct replay *r, uint64_t image, const struct rt_replay_image_region *region,
                                 uint32_t samples, void *out, uint64_t size, uint32_t *kind_out) RT_MUST_CHECK;

/** Receives one run of a memory object's bytes (rt_replay_memory_holes). */
typedef rt_status (*rt_replay_bytes_fn)(void *user, uint64_t offset, const void *data, size_t size);

/** The bytes of memory object MEMORY (a trace id, host-visible at capture)
 * that no live buffer or image bound to it covers, as the replay holds them, in runs
 * of at most MAX bytes given to EMIT in offset order; memory the host cannot
 * see here gives none. Why they matter: a capture records a mapped write
 * only where it changed the memory's bytes, so a buffer bound there after
 * the snapshot may find its bytes in what earlier, freed, resources left. */
rt_status rt_replay_memory_holes(struct replay *r, uint64_t memory, size_t max, rt_replay_bytes_fn emit,
                                 void *user) RT_MUST_CHECK;

/** A fence's or event's state (1 signaled/set, 0 not), or a timeline
 * semaphore's counter, of OBJECT (VkObjectType TYPE, a trace id). */
rt_status rt_replay_read_sync(struct replay *r, uint32_t type, uint64_t object, uint64_t *value_out) RT_MUST_CHECK;

/** Which of the COUNT queries of query pool POOL (a trace id) are available
 * (AVAILABLE[i] = 1) once the device is idle; VALUES is how many result
 * values one query of the pool has (a pipeline statistics pool: one per
 * statistic). */
rt_status rt_replay_read_queries(struct replay *r, uint64_t pool, uint32_t count, uint32_t values,
                                 uint8_t *available) RT_MUST_CHECK;

#endif
