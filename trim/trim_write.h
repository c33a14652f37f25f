/* trim/trim_write.h — the trimmed file's writer state (write.c), set up by trim.c. */
#ifndef RT_TRIM_WRITE_H
#define RT_TRIM_WRITE_H

#include "trace_snapshot.h"
#include "trim_internal.h"

struct trim_writer {
    const struct rt_trim_options *opts;
    struct rt_trim_result *result;
    uint64_t last;          /* the last frame written: opts->last, or less for a damaged IN */
    uint64_t source_frames; /* IN's (complete) frames */
    uint8_t source_sha256[RT_TRACE_SHA256_SIZE];
    const char *source_name; /* IN's file name, no directories */
    const uint64_t *kept;    /* sequence numbers of the calls kept, ascending */
    uint64_t kept_count, next_kept;
    /* set by trim_write */
    const struct rt_trace_header *header;
    struct rt_trace_writer *w;
    uint32_t guard, samples_guard; /* command ids of the snapshot guards */
    uint64_t frame; /* IN's frame ends read */
    bool in_snapshot;
    uint64_t snapshot_packets, snapshot_bytes;
};

/** Writes the trimmed trace; R is the replay stopped at frame A (NULL when A = 1). */
rt_status trim_write(struct trim_writer *tw, struct trim_state *t, struct replay *r) RT_MUST_CHECK;

#endif
