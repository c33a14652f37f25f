/*
 * Unit tests for trace/: writer/reader round trips, concurrency, and the
 * reader on hostile input (every prefix, every bit flip, crafted headers and
 * blocks), plus abnormal-exit flushing via tests/cli/make_trace.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_internal.h"

static const char *const names[] = {"vkCreateInstance", "vkQueueSubmit", "vkCmdDraw",
                                    "vkQueuePresentKHR"};
#define NAME_COUNT 4u

static char tmpdir[64];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/rt_trace_test_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(trace, .init = make_tmpdir, .fini = remove_tmpdir);

/* A few rotating buffers, so two paths can be alive at once. */
static char *tmp_path(const char *name)
{
    static char paths[4][128];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, 128, "%s/%s", tmpdir, name);
    return path;
}

static void test_device(struct rt_trace_device_info *d)
{
    memset(d, 0, sizeof *d);
    d->vendor_id = 0x10005;
    d->device_id = 7;
    d->driver_id = 13;
    d->api_version = 1u << 22 | 3u << 12 | 239;
    strcpy(d->device_name, "llvmpipe (test)");
    strcpy(d->driver_name, "llvmpipe");
    d->pipeline_cache_uuid[3] = 0x33;
    d->memory_type_count = 3;
    d->memory_types[2] = (struct rt_trace_memory_type){0xf, 1};
    d->memory_heap_count = 2;
    d->memory_heaps[1] = (struct rt_trace_memory_heap){1ull << 33, 1};
}

static struct rt_trace_writer *open_writer(const char *path, enum rt_trace_compression c,
                                           size_t block_size, bool with_device)
{
    static struct rt_trace_device_info dev;
    test_device(&dev);
    struct rt_trace_writer_options o = {
        .path = path, .compression = c, .block_size = block_size,
        .application_name = "unit", .application_version = 42, .engine_name = "eng",
        .vk_header_version = 239, .settings = "a=b", .command_names = names,
        .command_count = NAME_COUNT, .device = with_device ? &dev : NULL};
    struct rt_trace_writer *w;
    rt_status s = rt_trace_writer_create(&o, &w);
    cr_assert(rt_ok(&s), "%s", s.msg);
    return w;
}

#define OK(expr)                                           \
    do {                                                   \
        rt_status ok__ = (expr);                           \
        cr_assert(rt_ok(&ok__), "%s: %s", #expr, ok__.msg); \
    } while (0)

/* frames frames of `draws` draw calls, a submit, a memory update and a present. */
static void write_frames(struct rt_trace_writer *w, int frames, int draws)
{
    for (int f = 1; f <= frames; f++) {
        for (int i = 0; i < draws; i++) {
            uint32_t p[2] = {(uint32_t)f, (uint32_t)i};
            OK(rt_trace_writer_call(w, 2, 1, 0, p, sizeof p, NULL));
        }
        OK(rt_trace_writer_call(w, 1, 1, 0, NULL, 0, NULL));
        uint8_t mem[64];
        memset(mem, f, sizeof mem);
        OK(rt_trace_writer_memory_update(w, 9, (uint64_t)f * 64, mem, sizeof mem));
        OK(rt_trace_writer_call(w, 3, 1, (uint64_t)f, NULL, 0, NULL));
        OK(rt_trace_writer_frame_end(w));
    }
}

static uint8_t *slurp(const char *path, size_t *size_out)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n ? (size_t)n : 1);
    cr_assert_eq(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size_out = (size_t)n;
    return data;
}

struct summary {
    uint64_t packets, calls, frames, memory_bytes, annotations, unsupported, devices;
    struct rt_trace_progress progress;
    rt_status status;
    bool opened;
};

/* Reads a whole trace from memory; s->status is how it ended. */
static void read_all(const void *data, size_t size, struct summary *s)
{
    memset(s, 0, sizeof *s);
    struct rt_trace_reader *r;
    s->status = rt_trace_reader_open_memory(data, size, &r);
    if (!rt_ok(&s->status))
        return;
    s->opened = true;
    struct rt_trace_packet p;
    uint64_t seq = 0;
    for (;;) {
        s->status = rt_trace_reader_next(r, &p);
        if (!rt_ok(&s->status) || p.type == RT_TRACE_PACKET_END)
            break;
        cr_assert_geq(p.seq, seq);
        seq = p.seq + 1;
        s->packets++;
        s->calls += p.type == RT_TRACE_PACKET_CALL;
        s->frames += p.type == RT_TRACE_PACKET_FRAME_END;
        s->annotations += p.type == RT_TRACE_PACKET_ANNOTATION;
        s->unsupported += p.type == RT_TRACE_PACKET_UNSUPPORTED;
        s->devices += p.type == RT_TRACE_PACKET_DEVICE_INFO;
        if (p.type == RT_TRACE_PACKET_MEMORY_UPDATE)
            s->memory_bytes += p.u.memory.size;
    }
    rt_trace_reader_progress(r, &s->progress);
    rt_trace_reader_destroy(r);
}

/* Writes the standard small trace and returns its bytes. */
static uint8_t *small_trace(enum rt_trace_compression c, int frames, size_t *size_out)
{
    char *path = tmp_path("small.rtrace");
    struct rt_trace_writer *w = open_writer(path, c, 0, true);
    write_frames(w, frames, 3);
    OK(rt_trace_writer_close(w, NULL));
    return slurp(path, size_out);
}

/* ------------------------------------------------------------- round trips */

static void check_header(const struct rt_trace_header *h)
{
    cr_assert_eq(h->version_major, RT_FORMAT_VERSION_MAJOR);
    cr_assert_eq(h->version_minor, RT_FORMAT_VERSION_MINOR);
    cr_assert_str_eq(h->application_name, "unit");
    cr_assert_eq(h->application_version, 42);
    cr_assert_str_eq(h->engine_name, "eng");
    cr_assert_str_eq(h->settings, "a=b");
    cr_assert_eq(h->vk_header_version, 239);
    cr_assert_eq(h->pointer_size, sizeof(void *));
    cr_assert_eq(h->command_count, NAME_COUNT);
    for (uint32_t i = 0; i < NAME_COUNT; i++)
        cr_assert_str_eq(h->command_names[i], names[i]);
}

/* Field by field: the heap struct has padding that memcmp would compare. */
static void check_device(const struct rt_trace_device_info *d)
{
    struct rt_trace_device_info w;
    test_device(&w);
    cr_assert_eq(d->vendor_id, w.vendor_id);
    cr_assert_eq(d->device_id, w.device_id);
    cr_assert_eq(d->driver_version, w.driver_version);
    cr_assert_eq(d->driver_id, w.driver_id);
    cr_assert_eq(d->api_version, w.api_version);
    cr_assert_eq(d->device_type, w.device_type);
    cr_assert_str_eq(d->device_name, w.device_name);
    cr_assert_str_eq(d->driver_name, w.driver_name);
    cr_assert_str_eq(d->driver_info, w.driver_info);
    cr_assert_arr_eq(d->pipeline_cache_uuid, w.pipeline_cache_uuid, RT_TRACE_UUID_SIZE);
    cr_assert_arr_eq(d->device_uuid, w.device_uuid, RT_TRACE_UUID_SIZE);
    cr_assert_arr_eq(d->driver_uuid, w.driver_uuid, RT_TRACE_UUID_SIZE);
    cr_assert_eq(d->memory_type_count, w.memory_type_count);
    for (uint32_t i = 0; i < w.memory_type_count; i++) {
        cr_assert_eq(d->memory_types[i].property_flags, w.memory_types[i].property_flags);
        cr_assert_eq(d->memory_types[i].heap_index, w.memory_types[i].heap_index);
    }
    cr_assert_eq(d->memory_heap_count, w.memory_heap_count);
    for (uint32_t i = 0; i < w.memory_heap_count; i++) {
        cr_assert_eq(d->memory_heaps[i].size, w.memory_heaps[i].size);
        cr_assert_eq(d->memory_heaps[i].flags, w.memory_heaps[i].flags);
    }
}

Test(trace, round_trip_every_packet_type)
{
    char *path = tmp_path("rt.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 0, true);
    uint64_t seq0, seq1;
    OK(rt_trace_writer_call(w, 0, 77, 0xfffffffffffffffcull, "abc", 3, &seq0));
    OK(rt_trace_writer_annotation(w, RT_TRACE_ANNOTATION_SCREENSHOT, "frame_0001.png"));
    OK(rt_trace_writer_unsupported(w, 2, 78, "unknown pNext"));
    uint8_t mem[300];
    for (int i = 0; i < 300; i++)
        mem[i] = (uint8_t)(i * 7);
    OK(rt_trace_writer_memory_update(w, 5, 4096, mem, sizeof mem));
    OK(rt_trace_writer_frame_end(w));
    OK(rt_trace_writer_call(w, 3, 77, 0, NULL, 0, &seq1));
    OK(rt_trace_writer_frame_end(w));
    struct rt_trace_writer_stats st;
    OK(rt_trace_writer_close(w, &st));
    cr_assert_eq(seq0, 0);
    cr_assert_eq(seq1, 5);
    cr_assert_eq(st.frames, 2);
    cr_assert_eq(st.calls, 2);
    cr_assert_eq(st.packets, 7);
    cr_assert_eq(st.blocks, 2);
    cr_assert_eq(st.memory_bytes, 300);
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_assert_eq((uint64_t)sb.st_size, st.file_bytes);
    cr_assert_neq(access(tmp_path("rt.rtrace.part"), F_OK), 0, ".part left behind");

    struct rt_trace_reader *r;
    OK(rt_trace_reader_open(path, &r));
    check_header(rt_trace_reader_header(r));
    cr_assert(rt_trace_reader_header(r)->has_device);
    check_device(&rt_trace_reader_header(r)->device);
    struct rt_trace_packet p;
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.type, RT_TRACE_PACKET_CALL);
    cr_assert_eq(p.seq, 0);
    cr_assert_eq(p.u.call.command_id, 0);
    cr_assert_eq(p.u.call.thread_id, 77);
    cr_assert_eq(p.u.call.return_value, 0xfffffffffffffffcull);
    cr_assert_eq(p.u.call.size, 3);
    cr_assert_eq(memcmp(p.u.call.params, "abc", 3), 0);
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.type, RT_TRACE_PACKET_ANNOTATION);
    cr_assert_eq(p.u.annotation.kind, RT_TRACE_ANNOTATION_SCREENSHOT);
    cr_assert_eq(p.u.annotation.length, 14);
    cr_assert_eq(memcmp(p.u.annotation.text, "frame_0001.png", 14), 0);
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.type, RT_TRACE_PACKET_UNSUPPORTED);
    cr_assert_eq(p.seq, 2);
    cr_assert_eq(p.u.unsupported.command_id, 2);
    cr_assert_eq(p.u.unsupported.thread_id, 78);
    cr_assert_eq(memcmp(p.u.unsupported.reason, "unknown pNext", 13), 0);
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.type, RT_TRACE_PACKET_MEMORY_UPDATE);
    cr_assert_eq(p.u.memory.memory_id, 5);
    cr_assert_eq(p.u.memory.offset, 4096);
    cr_assert_eq(p.u.memory.size, 300);
    cr_assert_eq(memcmp(p.u.memory.data, mem, 300), 0);
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.type, RT_TRACE_PACKET_FRAME_END);
    cr_assert_eq(p.u.frame_end.frame, 1);
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.type, RT_TRACE_PACKET_CALL);
    cr_assert_eq(p.seq, 5);
    cr_assert_eq(p.u.call.size, 0);
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.u.frame_end.frame, 2);
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.type, RT_TRACE_PACKET_END);
    OK(rt_trace_reader_next(r, &p)); /* the end stays the end */
    cr_assert_eq(p.type, RT_TRACE_PACKET_END);
    struct rt_trace_progress pr;
    rt_trace_reader_progress(r, &pr);
    cr_assert(pr.ended);
    cr_assert_not(pr.emergency);
    cr_assert_eq(pr.good_bytes, st.file_bytes);
    cr_assert_eq(pr.raw_bytes, st.raw_bytes);
    cr_assert_eq(pr.frames, 2);
    cr_assert_eq(pr.calls, 2);
    cr_assert_eq(pr.blocks, 2);
    rt_trace_reader_destroy(r);
}

Test(trace, large_memory_update_is_split_and_reassembles)
{
    char *path = tmp_path("big.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_NONE, 4096, true);
    size_t n = 100000;
    uint8_t *mem = malloc(n);
    for (size_t i = 0; i < n; i++)
        mem[i] = (uint8_t)(i * 2654435761u >> 13);
    OK(rt_trace_writer_memory_update(w, 1, 1000, mem, n));
    OK(rt_trace_writer_frame_end(w));
    OK(rt_trace_writer_close(w, NULL));

    uint8_t *back = calloc(1, n);
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open(path, &r));
    struct rt_trace_packet p;
    size_t got = 0, packets = 0;
    for (;;) {
        OK(rt_trace_reader_next(r, &p));
        if (p.type == RT_TRACE_PACKET_END)
            break;
        if (p.type != RT_TRACE_PACKET_MEMORY_UPDATE)
            continue;
        cr_assert_leq(p.u.memory.offset - 1000 + p.u.memory.size, n);
        memcpy(back + p.u.memory.offset - 1000, p.u.memory.data, p.u.memory.size);
        got += p.u.memory.size;
        packets++;
    }
    cr_assert_eq(got, n);
    cr_assert_gt(packets, 20, "a 100 kB update in 4 kB blocks must be split");
    cr_assert_eq(memcmp(back, mem, n), 0);
    struct rt_trace_progress pr;
    rt_trace_reader_progress(r, &pr);
    cr_assert_gt(pr.blocks, 20);
    rt_trace_reader_destroy(r);
    free(back);
    free(mem);
}

Test(trace, device_set_after_the_header_becomes_a_packet)
{
    char *path = tmp_path("late.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 0, false);
    write_frames(w, 1, 1); /* seals the header without a device */
    struct rt_trace_device_info dev;
    test_device(&dev);
    OK(rt_trace_writer_set_device_info(w, &dev));
    write_frames(w, 1, 1);
    OK(rt_trace_writer_close(w, NULL));
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open(path, &r));
    cr_assert_not(rt_trace_reader_header(r)->has_device);
    struct rt_trace_packet p;
    int devices = 0;
    do {
        OK(rt_trace_reader_next(r, &p));
        if (p.type == RT_TRACE_PACKET_DEVICE_INFO) {
            check_device(p.u.device);
            devices++;
        }
    } while (p.type != RT_TRACE_PACKET_END);
    cr_assert_eq(devices, 1);
    rt_trace_reader_destroy(r);
}

Test(trace, device_set_before_the_first_block_lands_in_the_header)
{
    char *path = tmp_path("early.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 0, false);
    OK(rt_trace_writer_call(w, 0, 1, 0, NULL, 0, NULL));
    struct rt_trace_device_info dev;
    test_device(&dev);
    OK(rt_trace_writer_set_device_info(w, &dev));
    OK(rt_trace_writer_close(w, NULL));
    size_t size;
    uint8_t *data = slurp(path, &size);
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open_memory(data, size, &r));
    cr_assert(rt_trace_reader_header(r)->has_device);
    check_device(&rt_trace_reader_header(r)->device);
    rt_trace_reader_destroy(r);
    struct summary s;
    read_all(data, size, &s);
    cr_assert(rt_ok(&s.status), "%s", s.status.msg);
    cr_assert_eq(s.devices, 0);
    cr_assert_eq(s.calls, 1);
    free(data);
    rt_status_free(&s.status);
}

Test(trace, empty_trace_has_header_and_end_only)
{
    char *path = tmp_path("empty.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 0, true);
    OK(rt_trace_writer_close(w, NULL));
    size_t size;
    uint8_t *data = slurp(path, &size);
    struct summary s;
    read_all(data, size, &s);
    cr_assert(rt_ok(&s.status), "%s", s.status.msg);
    cr_assert_eq(s.packets, 0);
    cr_assert(s.progress.ended);
    free(data);
    rt_status_free(&s.status);
}

Test(trace, writer_rejects_bad_arguments)
{
    struct rt_trace_writer *w;
    struct rt_trace_writer_options o = {.path = "/nonexistent-dir/x.rtrace",
                                        .command_names = names, .command_count = NAME_COUNT};
    rt_status s = rt_trace_writer_create(&o, &w);
    cr_assert_eq(s.code, RT_ERR_INTERNAL);
    cr_assert_not_null(strstr(s.msg, "/nonexistent-dir/x.rtrace.part"), "%s", s.msg);
    cr_assert_null(w);
    w = open_writer(tmp_path("bad.rtrace"), RT_TRACE_COMPRESSION_DEFAULT, 0, true);
    rt_status_free(&s);
    s = rt_trace_writer_call(w, NAME_COUNT, 1, 0, NULL, 0, NULL);
    cr_assert_neq(s.code, RT_OK);
    rt_status_free(&s);
    s = rt_trace_writer_unsupported(w, 99, 1, "x");
    cr_assert_neq(s.code, RT_OK);
    OK(rt_trace_writer_close(w, NULL));
    rt_status_free(&s);
}

/* ------------------------------------------------------------- concurrency */

#define THREADS 4
#define CALLS_PER_THREAD 3000

struct thread_arg {
    struct rt_trace_writer *w;
    uint32_t id;
    uint64_t seqs[CALLS_PER_THREAD];
};

static void *append_calls(void *p)
{
    struct thread_arg *a = p;
    for (uint32_t i = 0; i < CALLS_PER_THREAD; i++) {
        uint32_t params[2] = {a->id, i};
        rt_status s = rt_trace_writer_call(a->w, 2, a->id, i, params, sizeof params, &a->seqs[i]);
        if (!rt_ok(&s))
            return "call failed";
        if (a->id == 0 && i % 500 == 499) {
            s = rt_trace_writer_frame_end(a->w);
            if (!rt_ok(&s))
                return "frame end failed";
        }
    }
    return NULL;
}

Test(trace, concurrent_appends_keep_file_order_equal_to_sequence_order)
{
    char *path = tmp_path("mt.rtrace");
    /* Small blocks so the slot ring fills and back-pressure is exercised. */
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 4096, true);
    static struct thread_arg args[THREADS];
    pthread_t threads[THREADS];
    for (uint32_t t = 0; t < THREADS; t++) {
        args[t].w = w;
        args[t].id = t;
        cr_assert_eq(pthread_create(&threads[t], NULL, append_calls, &args[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        void *ret;
        pthread_join(threads[t], &ret);
        cr_assert_null(ret, "%s", (char *)ret);
    }
    struct rt_trace_writer_stats st;
    OK(rt_trace_writer_close(w, &st));
    cr_assert_eq(st.calls, THREADS * CALLS_PER_THREAD);

    struct rt_trace_reader *r;
    OK(rt_trace_reader_open(path, &r));
    struct rt_trace_packet p;
    uint32_t next[THREADS] = {0};
    uint64_t expect_seq = 0, calls = 0;
    for (;;) {
        OK(rt_trace_reader_next(r, &p));
        if (p.type == RT_TRACE_PACKET_END)
            break;
        cr_assert_eq(p.seq, expect_seq++, "sequence numbers must be consecutive in file order");
        if (p.type != RT_TRACE_PACKET_CALL)
            continue;
        uint32_t t, i;
        memcpy(&t, p.u.call.params, 4);
        memcpy(&i, p.u.call.params + 4, 4);
        cr_assert_lt(t, THREADS);
        cr_assert_eq(i, next[t]++, "thread %u's calls out of order", t);
        cr_assert_eq(args[t].seqs[i], p.seq, "seq_out disagrees with the file");
        calls++;
    }
    cr_assert_eq(calls, THREADS * CALLS_PER_THREAD);
    rt_trace_reader_destroy(r);
}

/* ---------------------------------------------------- hostile input: cuts */

/* File offsets where the good prefix may end: header end, then each block end. */
static size_t good_ends(const uint8_t *data, size_t size, uint64_t *ends, size_t max)
{
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open_memory(data, size, &r));
    struct rt_trace_progress pr;
    rt_trace_reader_progress(r, &pr);
    size_t n = 0;
    ends[n++] = pr.good_bytes;
    struct rt_trace_packet p;
    do {
        OK(rt_trace_reader_next(r, &p));
        rt_trace_reader_progress(r, &pr);
        if (pr.good_bytes != ends[n - 1] && n < max)
            ends[n++] = pr.good_bytes;
    } while (p.type != RT_TRACE_PACKET_END);
    rt_trace_reader_destroy(r);
    return n;
}

/* A prefix of len bytes must fail, and report exactly the blocks inside it. */
static void check_prefix(const uint8_t *data, size_t len, const uint64_t *ends, size_t n_ends)
{
    uint8_t *copy = malloc(len ? len : 1); /* exact size, so ASan sees any overread */
    memcpy(copy, data, len);
    struct summary s;
    read_all(copy, len, &s);
    cr_assert_eq(s.status.code, RT_ERR_BAD_INPUT, "prefix %zu: %s", len, s.status.msg);
    cr_assert_neq(s.status.msg[0], '\0');
    if (len < ends[0]) {
        cr_assert_not(s.opened, "prefix %zu opened without a whole header", len);
    } else {
        uint64_t good = ends[0];
        for (size_t i = 0; i < n_ends; i++)
            if (ends[i] <= len)
                good = ends[i];
        cr_assert_eq(s.progress.good_bytes, good, "prefix %zu", len);
        cr_assert_leq(s.progress.good_bytes, len);
        cr_assert_eq(s.progress.frames, s.frames, "prefix %zu", len);
        cr_assert_eq(s.progress.calls, s.calls, "prefix %zu", len);
    }
    free(copy);
    rt_status_free(&s.status);
}

Test(trace, every_prefix_of_a_small_trace_is_an_error_with_the_right_good_prefix)
{
    size_t size;
    uint8_t *data = small_trace(RT_TRACE_COMPRESSION_DEFAULT, 6, &size);
    uint64_t ends[64];
    size_t n = good_ends(data, size, ends, 64);
    cr_assert_eq(n, 8, "header + 6 frame blocks + end block");
    cr_assert_eq(ends[n - 1], size);
    for (size_t len = 0; len < size; len++)
        check_prefix(data, len, ends, n - 1);
    struct summary s;
    read_all(data, size, &s);
    cr_assert(rt_ok(&s.status), "%s", s.status.msg);
    cr_assert_eq(s.frames, 6);
    free(data);
    rt_status_free(&s.status);
}

Test(trace, every_prefix_of_first_and_last_blocks_of_a_larger_trace)
{
    char *path = tmp_path("large.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 4096, true);
    write_frames(w, 20, 300);
    OK(rt_trace_writer_close(w, NULL));
    size_t size;
    uint8_t *data = slurp(path, &size);
    uint64_t ends[512];
    size_t n = good_ends(data, size, ends, 512);
    cr_assert_gt(n, 40, "expected many blocks, got %zu", n);
    for (size_t len = 0; len < ends[1]; len++)
        check_prefix(data, len, ends, n - 1);
    for (size_t len = ends[n - 3]; len < size; len++)
        check_prefix(data, len, ends, n - 1);
    free(data);
}

/* ----------------------------------------------- hostile input: corruption */

Test(trace, every_single_bit_flip_is_detected)
{
    size_t size;
    uint8_t *data = small_trace(RT_TRACE_COMPRESSION_DEFAULT, 3, &size);
    uint8_t *copy = malloc(size);
    for (size_t bit = 0; bit < size * 8; bit++) {
        memcpy(copy, data, size);
        copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        struct summary s;
        read_all(copy, size, &s);
        cr_assert_eq(s.status.code, RT_ERR_BAD_INPUT, "flip of bit %zu not detected", bit);
        rt_status_free(&s.status);
    }
    free(copy);
    free(data);
}

Test(trace, random_corruption_is_an_error_never_a_crash)
{
    size_t size;
    uint8_t *data = small_trace(RT_TRACE_COMPRESSION_NONE, 20, &size);
    uint8_t *copy = malloc(size);
    uint64_t state = 0x9e3779b97f4a7c15ull; /* fixed seed: reproducible */
    for (int round = 0; round < 2000; round++) {
        memcpy(copy, data, size);
        int changes = 1 + round % 8;
        for (int c = 0; c < changes; c++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(state >> 33) % size;
            copy[at] ^= (uint8_t)(1 + (state >> 20) % 255);
        }
        struct summary s;
        read_all(copy, size, &s);
        cr_assert_eq(s.status.code, RT_ERR_BAD_INPUT, "round %d not detected", round);
        cr_assert_leq(s.progress.good_bytes, size);
        rt_status_free(&s.status);
    }
    free(copy);
    free(data);
}

/* ------------------------------------------- hostile input: crafted files */

static void craft_header(struct rt_enc *e, uint16_t major, uint16_t minor)
{
    struct rt_trace_header h = {.version_major = major, .version_minor = minor,
                                .application_name = "craft", .engine_name = "", .settings = "",
                                .command_names = names, .command_count = NAME_COUNT};
    rt_format_encode_file_header(e, &h);
}

/* Rewrites the header's body size and checksum after its body was edited;
 * a body size past the real body (an absurd one) gets no valid checksum. */
static void reseal_header(uint8_t *file, uint32_t body_size, size_t real_body)
{
    for (int i = 0; i < 4; i++)
        file[16 + i] = (uint8_t)(body_size >> (8 * i));
    if (body_size > real_body)
        return;
    uint64_t sum = rt_format_header_checksum(file, file + RT_FORMAT_FILE_HEADER_SIZE, body_size);
    for (int i = 0; i < 8; i++)
        file[20 + i] = (uint8_t)(sum >> (8 * i));
}

static void craft_packet(struct rt_enc *payload, uint16_t type, const void *body, size_t n)
{
    rt_enc_u16(payload, type);
    rt_enc_u32(payload, (uint32_t)n);
    rt_enc_bytes(payload, body, n);
}

static void craft_call(struct rt_enc *payload, uint32_t cmd, uint64_t seq)
{
    uint8_t body[RT_FORMAT_CALL_FIXED] = {0};
    memcpy(body, &cmd, 4); /* the test host is little-endian, like the format */
    memcpy(body + 8, &seq, 8);
    craft_packet(payload, RT_FORMAT_PACKET_CALL, body, sizeof body);
}

static void craft_block(struct rt_enc *e, struct rt_block_header h, const void *payload)
{
    if (!h.stored_size)
        h.stored_size = h.raw_size;
    h.payload_checksum = rt_format_checksum(payload ? payload : "", h.stored_size);
    uint8_t head[RT_FORMAT_BLOCK_HEADER_SIZE];
    rt_format_block_header_pack(&h, head);
    rt_enc_bytes(e, head, sizeof head);
    rt_enc_bytes(e, payload, h.stored_size);
}

static void craft_end(struct rt_enc *e)
{
    craft_block(e, (struct rt_block_header){.type = RT_FORMAT_BLOCK_END}, NULL);
}

static rt_status read_crafted(struct rt_enc *e, struct summary *s)
{
    cr_assert_not(e->failed);
    read_all(e->data, e->size, s);
    return s->status;
}

#define ASSERT_BAD(e, needle)                                                             \
    do {                                                                                  \
        struct summary s__;                                                               \
        rt_status st__ = read_crafted((e), &s__);                                         \
        cr_assert_eq(st__.code, RT_ERR_BAD_INPUT, "expected an error about '%s'", needle); \
        cr_assert_not_null(strstr(st__.msg, needle), "'%s' lacks '%s'", st__.msg, needle); \
        rt_status_free(&st__);                                                            \
    } while (0)

Test(trace, empty_short_and_wrong_magic_files_are_refused)
{
    struct rt_enc e;
    rt_enc_init(&e);
    ASSERT_BAD(&e, "empty file");
    rt_enc_bytes(&e, "RTR", 3);
    ASSERT_BAD(&e, "wrong magic");
    rt_enc_reset(&e);
    rt_enc_bytes(&e, "GIF89a\0\0 and more bytes than a header", 38);
    ASSERT_BAD(&e, "wrong magic");
    rt_enc_reset(&e);
    rt_enc_bytes(&e, RT_FORMAT_MAGIC "\1\0", 10);
    ASSERT_BAD(&e, "file header at offset 0: truncated");
    rt_enc_finish(&e);
    struct rt_trace_reader *r;
    rt_status st = rt_trace_reader_open(tmp_path("does-not-exist.rtrace"), &r);
    cr_assert_eq(st.code, RT_ERR_BAD_INPUT);
    cr_assert_null(r);
    rt_status_free(&st);
}

Test(trace, newer_major_version_is_refused_with_a_clear_message)
{
    struct rt_enc e;
    rt_enc_init(&e);
    craft_header(&e, RT_FORMAT_VERSION_MAJOR + 1, 0);
    craft_end(&e);
    ASSERT_BAD(&e, "newer than this retrace reads");
    rt_enc_finish(&e);
}

Test(trace, absurd_sizes_are_rejected_before_allocating)
{
    struct rt_enc e;
    rt_enc_init(&e);
    craft_header(&e, 1, 0);
    reseal_header(e.data, 0xffffffffu, e.size - RT_FORMAT_FILE_HEADER_SIZE);
    ASSERT_BAD(&e, "header size 4294967295 exceeds");

    rt_enc_reset(&e);
    craft_header(&e, 1, 0);
    uint8_t payload[16] = {0};
    struct rt_block_header h = {.type = RT_FORMAT_BLOCK_PACKETS,
                                .compression = RT_FORMAT_COMPRESSION_ZSTD,
                                .raw_size = 0xfffffff0u, .stored_size = 16};
    craft_block(&e, h, payload);
    ASSERT_BAD(&e, "raw size 4294967280 exceeds");

    rt_enc_reset(&e);
    craft_header(&e, 1, 0);
    h.raw_size = 16;
    h.stored_size = 0x7fffffffu;
    h.payload_checksum = 0;
    uint8_t head[RT_FORMAT_BLOCK_HEADER_SIZE];
    rt_format_block_header_pack(&h, head);
    rt_enc_bytes(&e, head, sizeof head);
    ASSERT_BAD(&e, "stored size 2147483647 exceeds");
    rt_enc_finish(&e);
}

Test(trace, newer_minor_fields_packets_and_blocks_are_skipped)
{
    struct rt_enc e, pl;
    rt_enc_init(&e);
    rt_enc_init(&pl);
    craft_header(&e, 1, RT_FORMAT_VERSION_MINOR + 3);
    /* A newer minor appends header fields: the body grows, the reader ignores the tail. */
    uint32_t body = (uint32_t)(e.size - RT_FORMAT_FILE_HEADER_SIZE);
    rt_enc_bytes(&e, "\x01\x02\x03\x04\x05", 5);
    reseal_header(e.data, body + 5, body + 5);
    craft_call(&pl, 0, 0);
    craft_packet(&pl, 42, "future!!!!", 10);
    craft_call(&pl, 1, 2);
    craft_block(&e, (struct rt_block_header){.type = RT_FORMAT_BLOCK_PACKETS,
                                             .raw_size = (uint32_t)pl.size, .packet_count = 3,
                                             .call_count = 2}, pl.data);
    craft_block(&e, (struct rt_block_header){.type = 77, .raw_size = 4}, "abcd");
    rt_enc_reset(&pl);
    craft_packet(&pl, RT_FORMAT_PACKET_FRAME_END, "\x01\0\0\0\0\0\0\0", 8);
    craft_block(&e, (struct rt_block_header){.type = RT_FORMAT_BLOCK_PACKETS, .first_seq = 3,
                                             .raw_size = (uint32_t)pl.size, .packet_count = 1,
                                             .frame_count = 1}, pl.data);
    craft_end(&e);
    struct summary s;
    rt_status st = read_crafted(&e, &s);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_eq(s.packets, 3, "the unknown packet is skipped");
    cr_assert_eq(s.calls, 2);
    cr_assert_eq(s.frames, 1);
    cr_assert(s.progress.ended);
    rt_enc_finish(&pl);
    rt_enc_finish(&e);
}

/* A header, one block holding pl (with the given counts), and maybe an end block. */
static void one_block_file(struct rt_enc *e, struct rt_enc *pl, uint32_t packets, uint32_t calls,
                           uint64_t first_seq, bool end)
{
    rt_enc_reset(e);
    craft_header(e, 1, 0);
    craft_block(e, (struct rt_block_header){.type = RT_FORMAT_BLOCK_PACKETS,
                                            .raw_size = (uint32_t)pl->size, .first_seq = first_seq,
                                            .packet_count = packets, .call_count = calls},
                pl->data);
    if (end)
        craft_end(e);
}

Test(trace, malformed_blocks_are_named_with_their_offset)
{
    struct rt_enc e, pl;
    rt_enc_init(&e);
    rt_enc_init(&pl);
    craft_call(&pl, 0, 0);
    one_block_file(&e, &pl, 1, 1, 0, false);
    ASSERT_BAD(&e, "without an end block");
    one_block_file(&e, &pl, 1, 1, 0, true);
    rt_enc_bytes(&e, "junk", 4);
    ASSERT_BAD(&e, "unexpected bytes after the end block");
    one_block_file(&e, &pl, 1, 1, 5, true);
    ASSERT_BAD(&e, "a block is missing or out of order");
    one_block_file(&e, &pl, 2, 1, 0, true);
    ASSERT_BAD(&e, "its header says 2, 1, 0");
    rt_enc_reset(&pl);
    craft_call(&pl, NAME_COUNT, 0);
    one_block_file(&e, &pl, 1, 1, 0, true);
    ASSERT_BAD(&e, "command id outside");
    rt_enc_reset(&pl);
    craft_call(&pl, 0, 1);
    one_block_file(&e, &pl, 1, 1, 0, true);
    ASSERT_BAD(&e, "sequence number out of order");
    rt_enc_reset(&pl);
    rt_enc_u16(&pl, RT_FORMAT_PACKET_CALL);
    rt_enc_u32(&pl, 1000);
    rt_enc_bytes(&pl, "short", 5);
    one_block_file(&e, &pl, 1, 1, 0, true);
    ASSERT_BAD(&e, "runs past the block");
    uint64_t header_end = e.size - 11 - 2 * RT_FORMAT_BLOCK_HEADER_SIZE;
    char where[64];
    snprintf(where, sizeof where, "block 1 at offset %llu", (unsigned long long)header_end);
    ASSERT_BAD(&e, where);
    rt_enc_finish(&pl);
    rt_enc_finish(&e);
}

static void craft_compact_call(struct rt_enc *payload, uint32_t cmd, uint64_t return_value)
{
    uint8_t body[RT_FORMAT_CALL_COMPACT_FIXED + 3] = {0};
    memcpy(body, &cmd, 4);
    memcpy(body + 8, &return_value, 8);
    memcpy(body + RT_FORMAT_CALL_COMPACT_FIXED, "abc", 3);
    craft_packet(payload, RT_FORMAT_PACKET_CALL_COMPACT, body, sizeof body);
}

/* 1.5: the writer stores no sequence number in a call (it is the block's
 * first_seq plus the packet's index), and says so in the header's flags. */
Test(trace, calls_are_written_without_a_sequence_number)
{
    char *path = tmp_path("compact.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_NONE, 0, false);
    OK(rt_trace_writer_call(w, 1, 7, 0xfffffffffffffffcull, "xyz", 3, NULL));
    OK(rt_trace_writer_close(w, NULL));
    size_t size;
    uint8_t *file = slurp(path, &size);
    uint32_t flags, body_size;
    memcpy(&flags, file + 12, 4);
    memcpy(&body_size, file + 16, 4);
    cr_assert_eq(flags, RT_FORMAT_FLAG_COMPACT_CALLS);
    const uint8_t *packet = file + RT_FORMAT_FILE_HEADER_SIZE + body_size + RT_FORMAT_BLOCK_HEADER_SIZE;
    uint16_t type;
    uint32_t packet_body;
    memcpy(&type, packet, 2);
    memcpy(&packet_body, packet + 2, 4);
    cr_assert_eq(type, RT_FORMAT_PACKET_CALL_COMPACT);
    cr_assert_eq(packet_body, RT_FORMAT_CALL_COMPACT_FIXED + 3);
    free(file);
    unlink(path);
}

/* Compact calls and 1.4's calls with a stored sequence number in one block:
 * the implied numbers count both, and a stored one is still checked. */
Test(trace, compact_calls_read_with_their_implied_sequence_numbers)
{
    struct rt_enc e, pl;
    rt_enc_init(&e);
    rt_enc_init(&pl);
    craft_compact_call(&pl, 1, 5);
    craft_call(&pl, 0, 1);
    craft_compact_call(&pl, 2, 6);
    one_block_file(&e, &pl, 3, 3, 0, true);
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open_memory(e.data, e.size, &r));
    struct rt_trace_packet p;
    uint64_t want_seq[] = {0, 1, 2}, want_cmd[] = {1, 0, 2}, want_ret[] = {5, 0, 6};
    for (int i = 0; i < 3; i++) {
        OK(rt_trace_reader_next(r, &p));
        cr_assert_eq(p.type, RT_TRACE_PACKET_CALL);
        cr_assert_eq(p.seq, want_seq[i]);
        cr_assert_eq(p.u.call.command_id, want_cmd[i]);
        cr_assert_eq(p.u.call.return_value, want_ret[i]);
        cr_assert_eq(p.u.call.size, i == 1 ? 0 : 3);
    }
    cr_assert_eq(memcmp(p.u.call.params, "abc", 3), 0);
    rt_trace_reader_destroy(r);
    rt_enc_reset(&pl);
    craft_compact_call(&pl, 1, 5);
    craft_call(&pl, 0, 0); /* the compact call before it was 0 */
    one_block_file(&e, &pl, 2, 2, 0, true);
    ASSERT_BAD(&e, "sequence number out of order");
    rt_enc_reset(&pl);
    craft_compact_call(&pl, NAME_COUNT, 0);
    one_block_file(&e, &pl, 1, 1, 0, true);
    ASSERT_BAD(&e, "command id outside");
    rt_enc_reset(&pl);
    craft_packet(&pl, RT_FORMAT_PACKET_CALL_COMPACT, "short", 5);
    one_block_file(&e, &pl, 1, 1, 0, true);
    ASSERT_BAD(&e, "shorter than its fixed fields");
    rt_enc_finish(&pl);
    rt_enc_finish(&e);
}

Test(trace, zstd_garbage_with_a_valid_checksum_is_an_error)
{
    struct rt_enc e;
    rt_enc_init(&e);
    craft_header(&e, 1, 0);
    uint8_t junk[64];
    for (int i = 0; i < 64; i++)
        junk[i] = (uint8_t)(i * 37);
    craft_block(&e, (struct rt_block_header){.type = RT_FORMAT_BLOCK_PACKETS,
                                             .compression = RT_FORMAT_COMPRESSION_ZSTD,
                                             .raw_size = 1000, .stored_size = 64}, junk);
    craft_end(&e);
    ASSERT_BAD(&e, "zstd");
    rt_enc_finish(&e);
}

/* ---------------------------------------------------------- abnormal exit */

/* Runs tests/cli/make_trace with --die HOW; returns its wait status. */
static int run_dying_capture(const char *out, const char *how, int frames)
{
    const char *root = getenv("RT_BUILD_ROOT");
    cr_assert_not_null(root, "RT_BUILD_ROOT is not set");
    char exe[512], nframes[16];
    snprintf(exe, sizeof exe, "%s/tests/cli/make_trace", root);
    snprintf(nframes, sizeof nframes, "%d", frames);
    cr_assert_eq(access(exe, X_OK), 0, "%s is not built", exe);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        /* ASan's own handlers would report the deliberate crash: keep them out. */
        setenv("ASAN_OPTIONS", "handle_segv=0:handle_abort=0:detect_leaks=0", 1);
        execl(exe, exe, out, "--frames", nframes, "--die", how, (char *)NULL);
        _exit(127);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

static void check_flushed(const char *how, int expect_signal, uint64_t extra_calls)
{
    char *path = tmp_path("dying.rtrace");
    char part[160];
    snprintf(part, sizeof part, "%s.part", path);
    int frames = 5;
    int status = run_dying_capture(path, how, frames);
    if (expect_signal) {
        cr_assert(WIFSIGNALED(status), "%s: the default action must still run", how);
        cr_assert_eq(WTERMSIG(status), expect_signal);
    } else {
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %d", how, status);
    }
    cr_assert_eq(access(path, F_OK), 0, "%s: the trace was not renamed", how);
    cr_assert_neq(access(part, F_OK), 0, "%s: .part left behind", how);
    size_t size;
    uint8_t *data = slurp(path, &size);
    struct summary s;
    read_all(data, size, &s);
    cr_assert(rt_ok(&s.status), "%s: %s", how, s.status.msg);
    cr_assert(s.progress.ended && s.progress.emergency, "%s: no emergency end block", how);
    cr_assert_eq(s.frames, (uint64_t)frames, "%s: every completed frame is on disk", how);
    /* make_trace: frames * (4 draws + 2) + 2 calls, then 3 of an unfinished frame
     * that are kept too when no thread was appending at the crash. */
    cr_assert_eq(s.calls, (uint64_t)frames * 6 + 2 + extra_calls, "%s", how);
    free(data);
    rt_status_free(&s.status);
}

Test(trace, abort_flushes_completed_frames_and_renames)
{
    check_flushed("abort", SIGABRT, 3);
}

Test(trace, sigterm_flushes_completed_frames_and_renames)
{
    check_flushed("term", SIGTERM, 3);
}

Test(trace, sigsegv_flushes_completed_frames_and_renames)
{
    check_flushed("segv", SIGSEGV, 3);
}

Test(trace, exit_without_close_flushes_everything_appended)
{
    check_flushed("exit", 0, 3);
}

Test(trace, emergency_flush_before_any_block_was_sealed_keeps_the_calls)
{
    char *path = tmp_path("early-crash.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 0, false);
    struct rt_trace_device_info dev;
    test_device(&dev);
    OK(rt_trace_writer_set_device_info(w, &dev)); /* re-encodes the pending header */
    for (uint32_t i = 0; i < 5; i++)
        OK(rt_trace_writer_call(w, 2, 1, i, &i, sizeof i, NULL));
    cr_assert(rt_trace_writer_emergency_flush(w));
    cr_assert_eq(access(path, F_OK), 0, "renamed although no block was sealed");
    size_t size;
    uint8_t *data = slurp(path, &size);
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open_memory(data, size, &r));
    check_device(&rt_trace_reader_header(r)->device);
    rt_trace_reader_destroy(r);
    struct summary s;
    read_all(data, size, &s);
    cr_assert(rt_ok(&s.status), "%s", s.status.msg);
    cr_assert_eq(s.calls, 5);
    cr_assert(s.progress.emergency);
    free(data);
    cr_assert_neq(rt_status_drop(rt_trace_writer_close(w, NULL)), RT_OK);
    rt_status_free(&s.status);
}

/* Another thread inside an append (it holds the writer's lock) when a
 * signal's flush runs before any block was sealed: the flush waits for the
 * append to finish rather than leave a NAME.part with no header (the
 * killed-threads-50 flake, session 7: 1 run in ~100 of busy_threads segv). */
struct held_lock {
    struct rt_trace_writer *w;
    atomic_bool held;
};

static void *hold_lock_briefly(void *arg)
{
    struct held_lock *h = arg;
    pthread_mutex_lock(&h->w->lock);
    atomic_store(&h->held, true);
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
    pthread_mutex_unlock(&h->w->lock);
    return NULL;
}

Test(trace, emergency_flush_waits_for_an_append_on_another_thread)
{
    char *path = tmp_path("busy-crash.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 0, false);
    for (uint32_t i = 0; i < 5; i++)
        OK(rt_trace_writer_call(w, 2, 1, i, &i, sizeof i, NULL));
    struct held_lock h = {w, false};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, hold_lock_briefly, &h), 0);
    while (!atomic_load(&h.held))
        sched_yield();
    cr_assert(rt_trace_writer_emergency_flush(w));
    pthread_join(t, NULL);
    cr_assert_eq(access(path, F_OK), 0, "not renamed: the flush gave up on the busy lock");
    size_t size;
    uint8_t *data = slurp(path, &size);
    struct summary s;
    read_all(data, size, &s);
    cr_assert(rt_ok(&s.status), "%s", s.status.msg);
    cr_assert_eq(s.calls, 5);
    free(data);
    cr_assert_neq(rt_status_drop(rt_trace_writer_close(w, NULL)), RT_OK);
    rt_status_free(&s.status);
}

Test(trace, emergency_flush_then_close_reports_it_and_keeps_the_file)
{
    char *path = tmp_path("em.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_DEFAULT, 0, true);
    write_frames(w, 4, 10);
    cr_assert(rt_trace_writer_emergency_flush(w));
    cr_assert_not(rt_trace_writer_emergency_flush(w), "runs once");
    rt_status st = rt_trace_writer_call(w, 0, 1, 0, NULL, 0, NULL);
    cr_assert_neq(st.code, RT_OK, "appends after the flush are refused");
    rt_status_free(&st);
    st = rt_trace_writer_close(w, NULL);
    cr_assert_neq(st.code, RT_OK);
    size_t size;
    uint8_t *data = slurp(path, &size);
    struct summary s;
    read_all(data, size, &s);
    cr_assert(rt_ok(&s.status), "%s", s.status.msg);
    cr_assert_eq(s.frames, 4);
    cr_assert(s.progress.emergency);
    free(data);
    rt_status_free(&st);
    rt_status_free(&s.status);
}

/* The capture's setting: frames that repeat share a block (and a zstd frame)
 * until the block has been open frame_seal_ms; 0 seals at every frame end. */
Test(trace, frame_seal_ms_joins_frames_into_one_block)
{
    for (int joined = 0; joined < 2; joined++) {
        char *path = tmp_path(joined ? "joined.rtrace" : "per_frame.rtrace");
        static struct rt_trace_device_info dev;
        test_device(&dev);
        struct rt_trace_writer_options o = {
            .path = path, .compression = RT_TRACE_COMPRESSION_ZSTD, .command_names = names,
            .command_count = NAME_COUNT, .device = &dev, .frame_seal_ms = joined ? 600000 : 0};
        struct rt_trace_writer *w;
        OK(rt_trace_writer_create(&o, &w));
        write_frames(w, 6, 10);
        struct rt_trace_writer_stats st;
        OK(rt_trace_writer_close(w, &st));
        cr_assert_eq(st.frames, 6);
        cr_assert_eq(st.blocks, joined ? 1 : 6, "frame_seal_ms %u: %llu blocks", o.frame_seal_ms,
                     (unsigned long long)st.blocks);
        size_t size;
        uint8_t *data = slurp(path, &size);
        struct summary sum;
        read_all(data, size, &sum);
        cr_assert(rt_ok(&sum.status), "%s", sum.status.msg);
        cr_assert_eq(sum.frames, 6);
        free(data);
    }
}

/* -------------------------------------------------------- compatibility */

Test(trace, a_committed_version_1_0_trace_still_reads)
{
    /* Written by tests/cli/make_trace at format 1.0; never regenerate it: it
     * is how a change that breaks old traces gets noticed. */
    const char *dir = getenv("RT_TEST_DATA");
    cr_assert_not_null(dir, "RT_TEST_DATA is not set");
    char path[512];
    snprintf(path, sizeof path, "%s/traces/v1.0-small.rtrace", dir);
    size_t size;
    uint8_t *data = slurp(path, &size);
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open_memory(data, size, &r));
    const struct rt_trace_header *h = rt_trace_reader_header(r);
    cr_assert_eq(h->version_major, 1);
    cr_assert_eq(h->version_minor, 0);
    cr_assert_str_eq(h->application_name, "make_trace");
    cr_assert_str_eq(h->device.device_name, "Test GPU");
    cr_assert_eq(h->device.vendor_id, 0x1234);
    cr_assert_eq(h->command_count, 6);
    cr_assert_str_eq(h->command_names[3], "vkCmdDraw");
    rt_trace_reader_destroy(r);
    struct summary s;
    read_all(data, size, &s);
    cr_assert(rt_ok(&s.status), "%s", s.status.msg);
    cr_assert_eq(s.frames, 2);
    cr_assert_eq(s.calls, 14);
    cr_assert_eq(s.unsupported, 1);
    cr_assert_eq(s.annotations, 1);
    cr_assert_eq(s.memory_bytes, 512);
    cr_assert(s.progress.ended && !s.progress.emergency);
    free(data);
    rt_status_free(&s.status);
}

/* --- verification points (packet type 7, format 1.1) ----------------------- */

Test(trace, verify_packets_round_trip_with_their_pieces)
{
    char *path = tmp_path("verify.rtrace");
    struct rt_trace_writer *w = open_writer(path, RT_TRACE_COMPRESSION_ZSTD, 0, true);
    uint64_t h1[3] = {11, 22, 33}, h2[1] = {44};
    struct rt_trace_verify_range ranges[2] = {
        {.memory_id = 9, .offset = 4096, .size = 600, .piece_size = 256, .piece_count = 3, .hashes = h1},
        {.memory_id = 10, .offset = 0, .size = 4, .piece_size = 256, .piece_count = 1, .hashes = h2}};
    OK(rt_trace_writer_call(w, 1, 1, 0, NULL, 0, NULL));
    OK(rt_trace_writer_verify(w, ranges, 2));
    OK(rt_trace_writer_close(w, NULL));
    size_t size;
    uint8_t *data = slurp(path, &size);
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open_memory(data, size, &r));
    cr_assert_eq(rt_trace_reader_header(r)->version_minor, RT_FORMAT_VERSION_MINOR);
    struct rt_trace_packet p;
    OK(rt_trace_reader_next(r, &p));
    OK(rt_trace_reader_next(r, &p));
    cr_assert_eq(p.type, RT_TRACE_PACKET_VERIFY);
    cr_assert_eq(p.u.verify.count, 2);
    struct rt_trace_verify_cursor c;
    struct rt_trace_verify_range g;
    rt_trace_verify_begin(&p, &c);
    cr_assert(rt_trace_verify_next(&c, &g));
    cr_assert_eq(g.memory_id, 9);
    cr_assert_eq(g.offset, 4096);
    cr_assert_eq(g.size, 600);
    cr_assert_eq(g.piece_count, 3);
    cr_assert_eq(rt_trace_verify_piece_hash(&g, 2), 33);
    cr_assert(rt_trace_verify_next(&c, &g));
    cr_assert_eq(g.memory_id, 10);
    cr_assert_eq(rt_trace_verify_piece_hash(&g, 0), 44);
    cr_assert_not(rt_trace_verify_next(&c, &g));
    rt_trace_reader_destroy(r);
    free(data);
}

Test(trace, writer_refuses_a_range_whose_pieces_do_not_add_up)
{
    struct rt_trace_writer *w = open_writer(tmp_path("badverify.rtrace"), RT_TRACE_COMPRESSION_NONE, 0, true);
    uint64_t h[2] = {1, 2};
    struct rt_trace_verify_range g = {.memory_id = 1, .size = 600, .piece_size = 256, .piece_count = 2, .hashes = h};
    rt_status s = rt_trace_writer_verify(w, &g, 1);
    cr_assert_eq(s.code, RT_ERR_INTERNAL);
    OK(rt_trace_writer_close(w, NULL));
    rt_status_free(&s);
}

Test(trace, malformed_verify_packets_are_named)
{
    struct rt_enc e, pl;
    rt_enc_init(&e);
    rt_enc_init(&pl);
    /* one range claimed, 24 fixed bytes, piece size 0 */
    uint8_t body[4 + 24] = {1, 0, 0, 0};
    body[4 + 16] = 8; /* size 8 */
    craft_packet(&pl, RT_FORMAT_PACKET_VERIFY, body, sizeof body);
    one_block_file(&e, &pl, 1, 0, 0, true);
    ASSERT_BAD(&e, "verify packet: a malformed range");
    rt_enc_reset(&pl);
    body[4 + 20] = 4; /* piece size 4: two hashes needed, none there */
    craft_packet(&pl, RT_FORMAT_PACKET_VERIFY, body, sizeof body);
    one_block_file(&e, &pl, 1, 0, 0, true);
    ASSERT_BAD(&e, "verify packet");
    rt_enc_reset(&pl);
    uint8_t many[8] = {0xff, 0xff, 0xff, 0xff};
    craft_packet(&pl, RT_FORMAT_PACKET_VERIFY, many, sizeof many);
    one_block_file(&e, &pl, 1, 0, 0, true);
    ASSERT_BAD(&e, "more ranges than bytes");
    rt_enc_finish(&pl);
    rt_enc_finish(&e);
}
