/*
 * trim/include/trim.h — `retrace trim`: a trace cut to frames A..B. Replays the
 * source headless up to the start of frame A (replay_trim.h), follows every
 * object's life and every command buffer's recording on the way, then writes
 * a state snapshot (trace/FORMAT.md "State snapshots": the creation calls of
 * what is alive, in the source's order, and every live buffer's and image's
 * contents as the device holds them) and the source's frames A..B verbatim.
 * `--check` replays both and compares their frames.
 *
 * Owns: which calls a snapshot keeps (objects.c, calls.c), image layouts as
 * submitted work leaves them (layouts.c), the contents it reads (contents.c),
 * the trimmed file (write.c), the check (check.c).
 * Must not touch: replay's internals (only replay.h and replay_trim.h), the
 * source trace (never written; -o may not name it).
 * Entry points: rt_trim_run, rt_trim_check.
 */
#ifndef RT_TRIM_H
#define RT_TRIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"
#include "status.h"

struct rt_trim_options {
    const char *in, *out;
    uint64_t first, last;  /* frames A..B of IN, 1-based, first <= last */
    const char *device;    /* replay device (index or name substring); NULL = lavapipe if present */
    enum rt_replay_memory_mode memory_mode;
    bool progress;         /* "frame N of M" on stderr */
    const char *source;    /* what the snapshot names as the source; NULL: IN's file name */
};

struct rt_trim_result {
    uint64_t source_frames;             /* frames IN has (its good part, when damaged) */
    uint64_t kept_calls, dropped_calls; /* of IN's calls before A */
    uint64_t buffers, images, sync_objects; /* contents and states in the snapshot */
    uint64_t query_pools, queries_available;
    uint64_t memories, memory_bytes;    /* host-visible memory bytes outside live buffers */
    uint64_t multisampled_images;       /* whose samples the snapshot carries (1.4) */
    uint64_t samples_not_carried;       /* multisampled layers/aspects with content it could not read */
    uint64_t snapshot_packets, snapshot_bytes, content_bytes;
    uint64_t frames;                    /* frames written */
    uint64_t out_bytes;
    double replay_seconds, read_seconds, write_seconds;
    bool damaged;                       /* IN was damaged: its good part was trimmed */
    char damage[512];
};

/**
 * Writes OUT. RT_ERR_USAGE when OUT names IN or the range starts past IN's
 * last frame (the message names it); RT_ERR_BAD_INPUT for an unreadable
 * trace, or one damaged before frame B (its good part is trimmed when it
 * holds frame A; result->damaged says so).
 */
rt_status rt_trim_run(const struct rt_trim_options *o, struct rt_trim_result *result) RT_MUST_CHECK;

/** The device trim replays on by default: lavapipe's index where there is
 * one (as text, for rt_replay_options.device), else NULL (replay's choice). */
const char *rt_trim_default_device(void);

struct rt_trim_check_result {
    uint64_t frames, identical;
    uint64_t first_different; /* OUT's frame number; 0 when none */
    char detail[256];
};

/** Replays OUT and IN's frames A..B on the same device and compares every
 * frame's screenshot pixel by pixel; RT_ERR_FAILED when one differs. */
rt_status rt_trim_check(const struct rt_trim_options *o, struct rt_trim_check_result *result) RT_MUST_CHECK;

#endif
