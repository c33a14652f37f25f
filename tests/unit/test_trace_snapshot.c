/* tests/unit/test_trace_snapshot.c — the state snapshot packets of a trimmed
 * trace (trace/trace_snapshot.h): every packet round-trips through the writer
 * and the reader; the header flag marks the file; the reader refuses header
 * flags it does not know, snapshot packets after a frame, a second snapshot,
 * content outside one, an image region that is empty, a query state
 * whose size is not its query count, and image samples whose size is not
 * their region's or whose sample count is not a power of two (1.4). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_internal.h"
#include "trace_snapshot.h"

#define OK(expr)                                                         \
    do {                                                                 \
        rt_status ok_ = (expr);                                          \
        cr_assert(rt_ok(&ok_), "%s: %s", #expr, ok_.msg);               \
    } while (0)

static const char *const names[] = {"vkCreateBuffer", "retrace-snapshot (trace format 1.2: update retrace)"};

static char *tmp_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/rt-snap-%d-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(),
             name);
    return path;
}

static struct rt_trace_writer *open_writer(const char *path, uint32_t flags)
{
    struct rt_trace_writer_options o = {.path = path, .compression = RT_TRACE_COMPRESSION_NONE,
                                        .command_names = names, .command_count = 2, .header_flags = flags};
    struct rt_trace_writer *w = NULL;
    OK(rt_trace_writer_create(&o, &w));
    return w;
}

static void write_snapshot(struct rt_trace_writer *w)
{
    struct rt_trace_snapshot_begin b = {.first_frame = 300, .last_frame = 310, .source_frames = 1000,
                                        .source = "game.rtrace", .source_length = 11};
    memset(b.source_sha256, 0xab, sizeof b.source_sha256);
    OK(rt_trace_writer_snapshot_begin(w, &b));
    OK(rt_trace_writer_call(w, 1, 0, 0, NULL, 0, NULL));
    static const uint8_t bytes[5] = {1, 2, 3, 4, 5};
    struct rt_trace_buffer_content bc = {.buffer_id = 0x77, .offset = 4096, .data = bytes, .size = 5};
    OK(rt_trace_writer_buffer_content(w, &bc));
    struct rt_trace_image_content ic = {.image_id = 0x88, .aspect = 2, .mip = 1, .layer = 3, .layout = 5,
                                        .y = 8, .width = 16, .height = 8, .depth = 1, .data = bytes, .size = 4};
    OK(rt_trace_writer_image_content(w, &ic));
    struct rt_trace_sync_state ss = {.object_type = 5, .timeline = 1, .object_id = 0x99, .value = 42};
    OK(rt_trace_writer_sync_state(w, &ss));
    static const uint8_t available[3] = {1, 0, 1};
    struct rt_trace_query_state qs = {.pool_id = 0xaa, .query_type = 2, .count = 3, .available = available};
    OK(rt_trace_writer_query_state(w, &qs));
    static const uint32_t words[2 * 1 * 4 * 4] = {[0] = 0x3f800000u, [31] = 7};
    struct rt_trace_image_samples is = {.image_id = 0xbb, .aspect = 1, .layer = 2, .layout = 2, .samples = 4,
                                        .kind = RT_TRACE_SAMPLES_UINT, .x = 0, .y = 6, .width = 2, .height = 1,
                                        .data = words, .size = sizeof words};
    OK(rt_trace_writer_image_samples(w, &is));
    struct rt_trace_snapshot_end e = {.packet_count = 5, .bytes = 1234};
    OK(rt_trace_writer_snapshot_end(w, &e));
}

static void next(struct rt_trace_reader *r, struct rt_trace_packet *p, enum rt_trace_packet_type type)
{
    OK(rt_trace_reader_next(r, p));
    cr_assert_eq(p->type, type);
}

Test(trace_snapshot, every_packet_round_trips)
{
    char *path = tmp_path("round.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_FORMAT_FLAG_SNAPSHOT);
    write_snapshot(w);
    OK(rt_trace_writer_frame_end(w));
    OK(rt_trace_writer_close(w, NULL));
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open(path, &r));
    cr_assert_eq(rt_trace_reader_header(r)->flags, RT_FORMAT_FLAG_SNAPSHOT | RT_FORMAT_FLAG_COMPACT_CALLS);
    cr_assert_eq(rt_trace_reader_header(r)->version_minor, RT_FORMAT_VERSION_MINOR);
    struct rt_trace_packet p;
    struct rt_trace_snapshot_begin b;
    next(r, &p, RT_TRACE_PACKET_SNAPSHOT_BEGIN);
    cr_assert(rt_trace_snapshot_begin_decode(&p, &b));
    cr_assert_eq(b.first_frame, 300);
    cr_assert_eq(b.last_frame, 310);
    cr_assert_eq(b.source_frames, 1000);
    cr_assert_eq(b.source_sha256[31], 0xab);
    cr_assert_eq(b.source_length, 11);
    cr_assert_eq(memcmp(b.source, "game.rtrace", 11), 0);
    next(r, &p, RT_TRACE_PACKET_CALL);
    cr_assert_str_eq(rt_trace_reader_header(r)->command_names[p.u.call.command_id], rt_trace_snapshot_guard);
    struct rt_trace_buffer_content bc;
    next(r, &p, RT_TRACE_PACKET_BUFFER_CONTENT);
    cr_assert(rt_trace_buffer_content_decode(&p, &bc));
    cr_assert(bc.buffer_id == 0x77 && bc.offset == 4096 && bc.size == 5 && ((const uint8_t *)bc.data)[4] == 5);
    struct rt_trace_image_content ic;
    next(r, &p, RT_TRACE_PACKET_IMAGE_CONTENT);
    cr_assert(rt_trace_image_content_decode(&p, &ic));
    cr_assert(ic.image_id == 0x88 && ic.aspect == 2 && ic.mip == 1 && ic.layer == 3 && ic.layout == 5);
    cr_assert(ic.y == 8 && ic.width == 16 && ic.height == 8 && ic.depth == 1 && ic.size == 4);
    cr_assert_not(rt_trace_buffer_content_decode(&p, &bc), "a packet decodes only as its own type");
    struct rt_trace_sync_state ss;
    next(r, &p, RT_TRACE_PACKET_SYNC_STATE);
    cr_assert(rt_trace_sync_state_decode(&p, &ss));
    cr_assert(ss.object_type == 5 && ss.timeline == 1 && ss.object_id == 0x99 && ss.value == 42);
    struct rt_trace_query_state qs;
    next(r, &p, RT_TRACE_PACKET_QUERY_STATE);
    cr_assert(rt_trace_query_state_decode(&p, &qs));
    cr_assert(qs.pool_id == 0xaa && qs.query_type == 2 && qs.count == 3);
    cr_assert(qs.available[0] == 1 && qs.available[1] == 0 && qs.available[2] == 1);
    cr_assert(rt_trace_packet_is_snapshot(RT_TRACE_PACKET_QUERY_STATE));
    struct rt_trace_image_samples is;
    next(r, &p, RT_TRACE_PACKET_IMAGE_SAMPLES);
    cr_assert(rt_trace_image_samples_decode(&p, &is));
    cr_assert(is.image_id == 0xbb && is.aspect == 1 && is.layer == 2 && is.layout == 2 && is.samples == 4);
    cr_assert(is.kind == RT_TRACE_SAMPLES_UINT && is.y == 6 && is.width == 2 && is.height == 1 && is.size == 128);
    uint32_t first, last; /* the body is not aligned: copied out, as replay does */
    memcpy(&first, is.data, 4);
    memcpy(&last, (const uint8_t *)is.data + 31 * 4, 4);
    cr_assert(first == 0x3f800000u && last == 7);
    cr_assert(rt_trace_packet_is_snapshot(RT_TRACE_PACKET_IMAGE_SAMPLES));
    struct rt_trace_snapshot_end e;
    next(r, &p, RT_TRACE_PACKET_SNAPSHOT_END);
    cr_assert(rt_trace_snapshot_end_decode(&p, &e));
    cr_assert(e.packet_count == 5 && e.bytes == 1234);
    next(r, &p, RT_TRACE_PACKET_FRAME_END);
    next(r, &p, RT_TRACE_PACKET_END);
    rt_trace_reader_destroy(r);
    unlink(path);
}

/* Reads to the end; returns the error, or "" when the trace is good. */
static const char *read_all(const char *path)
{
    static char msg[512];
    struct rt_trace_reader *r = NULL;
    rt_status s = rt_trace_reader_open(path, &r);
    struct rt_trace_packet p;
    while (rt_ok(&s)) {
        s = rt_trace_reader_next(r, &p);
        if (rt_ok(&s) && p.type == RT_TRACE_PACKET_END)
            break;
    }
    rt_trace_reader_destroy(r); /* NULL when the open failed */
    snprintf(msg, sizeof msg, "%s", rt_ok(&s) ? "" : s.msg);
    rt_status_free(&s);
    return msg;
}

Test(trace_snapshot, unknown_header_flags_are_refused)
{
    char *path = tmp_path("flags.rtrace");
    struct rt_trace_writer *w = open_writer(path, 0x4);
    OK(rt_trace_writer_frame_end(w));
    OK(rt_trace_writer_close(w, NULL));
    const char *why = read_all(path);
    cr_assert(strstr(why, "header flags 0x4 of a newer retrace"), "%s", why);
    unlink(path);
}

Test(trace_snapshot, snapshot_packets_only_in_one_snapshot_before_frame_1)
{
    char *path = tmp_path("place.rtrace");
    /* after a frame */
    struct rt_trace_writer *w = open_writer(path, RT_FORMAT_FLAG_SNAPSHOT);
    OK(rt_trace_writer_frame_end(w));
    write_snapshot(w);
    OK(rt_trace_writer_close(w, NULL));
    cr_assert(strstr(read_all(path), "snapshot packet after the first frame"), "%s", read_all(path));
    /* twice */
    w = open_writer(path, RT_FORMAT_FLAG_SNAPSHOT);
    write_snapshot(w);
    write_snapshot(w);
    OK(rt_trace_writer_close(w, NULL));
    cr_assert(strstr(read_all(path), "a second snapshot"), "%s", read_all(path));
    /* content without a begin */
    w = open_writer(path, RT_FORMAT_FLAG_SNAPSHOT);
    struct rt_trace_sync_state ss = {.object_type = 7, .object_id = 1, .value = 1};
    OK(rt_trace_writer_sync_state(w, &ss));
    OK(rt_trace_writer_close(w, NULL));
    cr_assert(strstr(read_all(path), "snapshot packet outside a snapshot"), "%s", read_all(path));
    unlink(path);
}

Test(trace_snapshot, an_empty_image_region_is_refused)
{
    char *path = tmp_path("empty.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_FORMAT_FLAG_SNAPSHOT);
    struct rt_trace_snapshot_begin b = {.first_frame = 1, .last_frame = 1, .source = "x", .source_length = 1};
    OK(rt_trace_writer_snapshot_begin(w, &b));
    static const uint8_t bytes[4] = {0};
    struct rt_trace_image_content ic = {.image_id = 1, .width = 0, .height = 1, .depth = 1, .data = bytes, .size = 4};
    OK(rt_trace_writer_image_content(w, &ic));
    OK(rt_trace_writer_close(w, NULL));
    const char *why = read_all(path);
    cr_assert(strstr(why, "image content with an empty region"), "%s", why);
    unlink(path);
}

Test(trace_snapshot, a_query_state_shorter_than_its_count_is_refused)
{
    char *path = tmp_path("query.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_FORMAT_FLAG_SNAPSHOT);
    struct rt_trace_snapshot_begin b = {.first_frame = 1, .last_frame = 1, .source = "x", .source_length = 1};
    OK(rt_trace_writer_snapshot_begin(w, &b));
    uint8_t body[RT_FORMAT_QUERY_STATE_FIXED + 2] = {0};
    body[8] = 1;  /* occlusion */
    body[12] = 3; /* three queries, two bytes follow */
    OK(rt_trace_writer_raw_packet(w, RT_FORMAT_PACKET_QUERY_STATE, body, sizeof body));
    OK(rt_trace_writer_close(w, NULL));
    const char *why = read_all(path);
    cr_assert(strstr(why, "query state whose size is not its query count"), "%s", why);
    unlink(path);
}

static const char *samples_refusal(uint32_t samples, size_t words)
{
    char *path = tmp_path("samples.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_FORMAT_FLAG_SNAPSHOT);
    struct rt_trace_snapshot_begin b = {.first_frame = 1, .last_frame = 1, .source = "x", .source_length = 1};
    OK(rt_trace_writer_snapshot_begin(w, &b));
    static const uint32_t data[64] = {0};
    struct rt_trace_image_samples is = {.image_id = 1, .aspect = 1, .samples = samples, .width = 1, .height = 1,
                                        .data = data, .size = words * 4};
    OK(rt_trace_writer_image_samples(w, &is));
    OK(rt_trace_writer_close(w, NULL));
    const char *why = read_all(path);
    unlink(path);
    return why;
}

Test(trace_snapshot, image_samples_not_filling_their_region_are_refused)
{
    cr_assert_str_eq(samples_refusal(4, 16), "", "one texel of 4 samples is 16 words");
    const char *why = samples_refusal(4, 15);
    cr_assert(strstr(why, "image samples whose size is not its region's samples"), "%s", why);
    why = samples_refusal(3, 12);
    cr_assert(strstr(why, "image samples whose size"), "3 samples: %s", why);
    why = samples_refusal(1, 4);
    cr_assert(strstr(why, "image samples whose size"), "1 sample: %s", why);
}
