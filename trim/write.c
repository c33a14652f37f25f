/*
 * trim/write.c — the trimmed file: IN's header (its command table, plus the
 * snapshot guard command), the snapshot (begin, guard call, the kept calls
 * copied from IN in IN's order, contents, end), then IN's packets of frames
 * A..B as they are, frame ends renumbered from 1 by the writer. For A = 1
 * nothing is replayed: the snapshot is empty, or, when IN is itself
 * trimmed, IN's own snapshot (with this trim's begin and end).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "trace_snapshot.h"
#include "trim_write.h"

#define PACKET_OVERHEAD 6

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* IN's table, plus the snapshot guards where IN has none: the samples
 * guard is named even when no samples follow (a name alone changes nothing
 * for a 1.3 reader; only the call stops it). */
static rt_status open_writer(struct trim_writer *tw)
{
    const struct rt_trace_header *h = tw->header;
    tw->guard = tw->samples_guard = UINT32_MAX;
    for (uint32_t i = 0; i < h->command_count; i++) {
        if (!strcmp(h->command_names[i], rt_trace_snapshot_guard))
            tw->guard = i;
        if (!strcmp(h->command_names[i], rt_trace_snapshot_samples_guard))
            tw->samples_guard = i;
    }
    uint32_t count = h->command_count + (tw->guard == UINT32_MAX) + (tw->samples_guard == UINT32_MAX);
    const char **names = calloc(count, sizeof *names);
    if (!names)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    memcpy(names, h->command_names, h->command_count * sizeof *names);
    uint32_t next = h->command_count;
    if (tw->guard == UINT32_MAX)
        names[tw->guard = next++] = rt_trace_snapshot_guard;
    if (tw->samples_guard == UINT32_MAX)
        names[tw->samples_guard = next++] = rt_trace_snapshot_samples_guard;
    struct rt_trace_writer_options o = {
        .path = tw->opts->out, .application_name = h->application_name, .engine_name = h->engine_name,
        .application_version = h->application_version, .engine_version = h->engine_version,
        .api_version = h->api_version, .vk_header_version = h->vk_header_version, .settings = h->settings,
        .command_names = names, .command_count = count, .device = h->has_device ? &h->device : NULL,
        .header_flags = RT_FORMAT_FLAG_SNAPSHOT,
        /* Sealed by size, not per frame: a trim of a long range then
         * compresses as well as the capture it came from (issue 16's
         * note: frames 213-20631 of glmark2 were 108 MB, the capture 69.6). */
        .frame_seal_ms = RT_TRACE_SEAL_WHEN_FULL};
    rt_status s = rt_trace_writer_create(&o, &tw->w);
    free(names);
    return s;
}

static rt_status begin_snapshot(struct trim_writer *tw)
{
    struct rt_trace_snapshot_begin b = {.first_frame = tw->opts->first, .last_frame = tw->last,
                                        .source_frames = tw->source_frames, .source = tw->source_name,
                                        .source_length = strlen(tw->source_name)};
    memcpy(b.source_sha256, tw->source_sha256, sizeof b.source_sha256);
    RT_TRY(rt_trace_writer_snapshot_begin(tw->w, &b));
    tw->snapshot_packets = 1;
    tw->snapshot_bytes = PACKET_OVERHEAD + 60 + b.source_length;
    return rt_ok_status();
}

static rt_status end_snapshot(struct trim_writer *tw)
{
    struct rt_trace_snapshot_end e = {tw->snapshot_packets, tw->snapshot_bytes};
    tw->result->snapshot_packets = tw->snapshot_packets;
    tw->result->snapshot_bytes = tw->snapshot_bytes;
    return rt_trace_writer_snapshot_end(tw->w, &e);
}

static rt_status call(struct trim_writer *tw, const struct rt_trace_packet *p)
{
    RT_TRY(rt_trace_writer_call(tw->w, p->u.call.command_id, p->u.call.thread_id, p->u.call.return_value,
                                p->u.call.params, p->u.call.size, NULL));
    if (tw->in_snapshot) {
        tw->snapshot_packets++;
        tw->snapshot_bytes += PACKET_OVERHEAD + 24 + p->u.call.size;
    }
    return rt_ok_status();
}

static rt_status verify(struct trim_writer *tw, const struct rt_trace_packet *p)
{
    struct rt_trace_verify_cursor c;
    struct rt_trace_verify_range g;
    rt_trace_verify_begin(p, &c);
    rt_status s = rt_ok_status();
    while (rt_ok(&s) && rt_trace_verify_next(&c, &g)) {
        uint64_t *hashes = malloc((g.piece_count ? g.piece_count : 1) * sizeof *hashes);
        if (!hashes)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        for (uint32_t k = 0; k < g.piece_count; k++)
            hashes[k] = rt_trace_verify_piece_hash(&g, k);
        g.hashes = hashes;
        s = rt_trace_writer_verify(tw->w, &g, 1);
        free(hashes);
    }
    return s;
}

static rt_status text_packet(struct trim_writer *tw, const struct rt_trace_packet *p)
{
    bool note = p->type == RT_TRACE_PACKET_ANNOTATION;
    char *text = note ? strndup(p->u.annotation.text, p->u.annotation.length)
                      : strndup(p->u.unsupported.reason, p->u.unsupported.length);
    if (!text)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status s = note ? rt_trace_writer_annotation(tw->w, p->u.annotation.kind, text)
                       : rt_trace_writer_unsupported(tw->w, p->u.unsupported.command_id, p->u.unsupported.thread_id,
                                                     text);
    free(text);
    return s;
}

/* IN's own snapshot, copied when it is frame 1's start (A = 1 of a trimmed trace). */
static rt_status inner_snapshot(struct trim_writer *tw, const struct rt_trace_packet *p)
{
    struct rt_trace_buffer_content b;
    struct rt_trace_image_content i;
    struct rt_trace_sync_state s;
    struct rt_trace_query_state q;
    struct rt_trace_image_samples m;
    if (p->type == RT_TRACE_PACKET_SNAPSHOT_BEGIN || p->type == RT_TRACE_PACKET_SNAPSHOT_END)
        return rt_ok_status(); /* this trim writes its own */
    tw->snapshot_packets++;
    tw->snapshot_bytes += PACKET_OVERHEAD + p->u.snapshot.size;
    if (rt_trace_buffer_content_decode(p, &b))
        return rt_trace_writer_buffer_content(tw->w, &b);
    if (rt_trace_image_content_decode(p, &i))
        return rt_trace_writer_image_content(tw->w, &i);
    if (rt_trace_sync_state_decode(p, &s))
        return rt_trace_writer_sync_state(tw->w, &s);
    if (rt_trace_query_state_decode(p, &q))
        return rt_trace_writer_query_state(tw->w, &q);
    if (rt_trace_image_samples_decode(p, &m))
        return rt_trace_writer_image_samples(tw->w, &m);
    return rt_ok_status();
}

/* One packet of frames A..B, as it is. */
static rt_status verbatim(struct trim_writer *tw, const struct rt_trace_packet *p)
{
    switch (p->type) {
    case RT_TRACE_PACKET_CALL:
        return p->u.call.command_id == tw->guard ? rt_ok_status() : call(tw, p);
    case RT_TRACE_PACKET_MEMORY_UPDATE:
        return rt_trace_writer_memory_update(tw->w, p->u.memory.memory_id, p->u.memory.offset, p->u.memory.data,
                                             p->u.memory.size);
    case RT_TRACE_PACKET_FRAME_END:
        tw->result->frames++;
        return rt_trace_writer_frame_end(tw->w);
    case RT_TRACE_PACKET_ANNOTATION:
    case RT_TRACE_PACKET_UNSUPPORTED:
        return text_packet(tw, p);
    case RT_TRACE_PACKET_DEVICE_INFO:
        return rt_trace_writer_set_device_info(tw->w, p->u.device);
    case RT_TRACE_PACKET_VERIFY:
        return verify(tw, p);
    case RT_TRACE_PACKET_END:
        return rt_ok_status();
    default:
        return inner_snapshot(tw, p);
    }
}

/* IN before frame A: only the kept calls (and a late device identity). */
static rt_status before_a(struct trim_writer *tw, const struct rt_trace_packet *p)
{
    if (p->type == RT_TRACE_PACKET_DEVICE_INFO)
        return rt_trace_writer_set_device_info(tw->w, p->u.device);
    if (p->type != RT_TRACE_PACKET_CALL)
        return rt_ok_status();
    while (tw->next_kept < tw->kept_count && tw->kept[tw->next_kept] < p->seq)
        tw->next_kept++;
    bool kept = tw->next_kept < tw->kept_count && tw->kept[tw->next_kept] == p->seq;
    tw->result->kept_calls += kept;
    tw->result->dropped_calls += !kept;
    return kept ? call(tw, p) : rt_ok_status();
}

/* A = 1: IN's own snapshot, when it has one, goes into this one. */
static rt_status copy_until_frames(struct trim_writer *tw, struct rt_trace_reader *in)
{
    struct rt_trace_packet p;
    while (tw->header->flags & RT_FORMAT_FLAG_SNAPSHOT) {
        RT_TRY(rt_trace_reader_next(in, &p));
        if (p.type == RT_TRACE_PACKET_END || p.type == RT_TRACE_PACKET_SNAPSHOT_END)
            break;
        RT_TRY(verbatim(tw, &p));
        if (p.type == RT_TRACE_PACKET_FRAME_END)
            return rt_errorf(RT_ERR_BAD_INPUT, "%s: a frame ends inside its snapshot", tw->opts->in);
    }
    return end_snapshot(tw);
}

/* Reads IN again: the kept calls before A, then (after the snapshot's
 * contents, written by the caller between the two) frames A..B. */
static rt_status copy_pass(struct trim_writer *tw, struct rt_trace_reader *in, bool before)
{
    struct rt_trace_packet p;
    for (;;) {
        if (!before && tw->frame >= tw->last)
            return rt_ok_status();
        if (before && tw->frame + 1 >= tw->opts->first)
            return rt_ok_status();
        RT_TRY(rt_trace_reader_next(in, &p));
        if (p.type == RT_TRACE_PACKET_END)
            return rt_ok_status();
        RT_TRY(before ? before_a(tw, &p) : verbatim(tw, &p));
        if (p.type == RT_TRACE_PACKET_FRAME_END)
            tw->frame++;
    }
}

rt_status trim_write(struct trim_writer *tw, struct trim_state *t, struct replay *r)
{
    double start = now();
    struct rt_trace_reader *in = NULL;
    RT_TRY(rt_trace_reader_open(tw->opts->in, &in));
    tw->header = rt_trace_reader_header(in);
    rt_status s = open_writer(tw);
    tw->in_snapshot = true;
    if (rt_ok(&s))
        s = begin_snapshot(tw);
    if (rt_ok(&s))
        s = rt_trace_writer_call(tw->w, tw->guard, 0, 0, NULL, 0, NULL);
    tw->snapshot_packets++;
    tw->snapshot_bytes += PACKET_OVERHEAD + 24;
    if (rt_ok(&s))
        s = copy_pass(tw, in, true);
    double read_start = now();
    if (rt_ok(&s) && r)
        s = trim_write_contents(t, r, tw->w, tw->samples_guard, &tw->snapshot_packets, &tw->snapshot_bytes);
    tw->result->read_seconds = now() - read_start;
    if (rt_ok(&s) && tw->opts->first > 1)
        s = end_snapshot(tw);
    tw->in_snapshot = tw->opts->first == 1; /* IN's own snapshot packets count as this one's */
    if (rt_ok(&s) && tw->opts->first == 1)
        s = copy_until_frames(tw, in);
    tw->in_snapshot = false;
    if (rt_ok(&s))
        s = copy_pass(tw, in, false);
    struct rt_trace_writer_stats stats = {0};
    rt_status c = tw->w ? rt_trace_writer_close(tw->w, &stats) : rt_ok_status();
    tw->w = NULL;
    tw->result->out_bytes = stats.file_bytes;
    rt_trace_reader_destroy(in);
    tw->result->write_seconds = now() - start - tw->result->read_seconds;
    return rt_ok(&s) ? c : s;
}
