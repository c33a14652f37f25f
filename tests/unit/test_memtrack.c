/* Unit tests for capture/memory_track: page-guard and full tracking. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fresh_pages.h"
#include "memory_track.h"

#define MAX_REPORTS 64

struct report {
    uint64_t memory_id, offset;
    size_t size;
    uint8_t bytes[65536];
};
static struct report reports[MAX_REPORTS];
static int report_count;

static void on_dirty(void *ctx, uint64_t memory_id, uint64_t offset, const void *data, size_t size)
{
    (void)ctx;
    cr_assert_lt(report_count, MAX_REPORTS);
    struct report *r = &reports[report_count++];
    r->memory_id = memory_id;
    r->offset = offset;
    r->size = size;
    memcpy(r->bytes, data, size < sizeof r->bytes ? size : sizeof r->bytes);
}

static uint8_t *fake_device_memory(size_t size)
{
    uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(p, MAP_FAILED);
    return p;
}

static struct rt_memory_tracker *tracker_of(enum rt_track_mode mode)
{
    struct rt_memory_tracker *t = NULL;
    rt_status s = rt_tracker_create(mode, &t);
    cr_assert(rt_ok(&s), "%s", s.msg);
    report_count = 0;
    return t;
}

static uint8_t *map(struct rt_memory_tracker *t, uint64_t id, void *real, uint64_t offset,
                    size_t size, bool coherent)
{
    void *app = NULL;
    rt_status s = rt_tracker_map(t, id, real, offset, size, coherent, &app);
    cr_assert(rt_ok(&s), "%s", s.msg);
    return app;
}

Test(memtrack, page_guard_reports_only_written_pages)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(16 * ps);
    memset(real, 0xAA, 16 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 7, real, 0, 16 * ps, true);
    cr_assert_eq(app[5 * ps], 0xAA, "reads see the real memory");
    app[3 * ps + 10] = 1;
    app[4 * ps] = 2;   /* adjacent page: one merged report */
    app[9 * ps + 1] = 3;
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 2);
    cr_assert_eq(reports[0].memory_id, 7);
    cr_assert_eq(reports[0].offset, 3 * ps);
    cr_assert_eq(reports[0].size, 2 * ps);
    cr_assert_eq(reports[0].bytes[10], 1);
    cr_assert_eq(reports[0].bytes[ps], 2);
    cr_assert_eq(reports[1].offset, 9 * ps);
    cr_assert_eq(real[3 * ps + 10], 1, "collect copies writes to the real memory");
    cr_assert_eq(real[9 * ps + 1], 3);
    report_count = 0;
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 0, "nothing new was written");
    rt_tracker_destroy(t);
}

Test(memtrack, rewriting_the_same_bytes_reports_nothing)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(4 * ps);
    memset(real, 5, 4 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 1, real, 0, 4 * ps, true);
    memset(app, 5, 4 * ps);
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 0);
    cr_assert_eq(rt_tracker_stats(t).pages_unchanged, 4);
    rt_tracker_destroy(t);
}

Test(memtrack, gpu_writes_are_seen_after_refresh_and_never_reported)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(2 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 1, real, 0, 2 * ps, true);
    cr_assert_eq(app[0], 0);
    real[0] = 42; /* the "GPU" writes */
    rt_tracker_refresh(t);
    cr_assert_eq(app[0], 42, "a clean page is fetched again after refresh");
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 0, "GPU-written bytes are not application writes");
    rt_tracker_destroy(t);
}

Test(memtrack, unaligned_mapping_offsets_are_relative_to_the_memory)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *base = fake_device_memory(8 * ps);
    uint8_t *real = base + 100; /* a driver may return any 64-byte aligned pointer */
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 3, real, 4096, 3 * ps, true);
    cr_assert_eq((uintptr_t)app % ps, 100, "same alignment within a page as the real pointer");
    app[0] = 9;
    app[3 * ps - 1] = 8;
    rt_tracker_collect(t, on_dirty, NULL);
    uint64_t first = reports[0].offset, last_end = reports[report_count - 1].offset +
                                                    reports[report_count - 1].size;
    cr_assert_eq(first, 4096);
    cr_assert_eq(last_end, 4096 + 3 * ps, "never reports bytes outside the mapping");
    cr_assert_eq(real[0], 9);
    cr_assert_eq(real[3 * ps - 1], 8);
    rt_tracker_destroy(t);
}

Test(memtrack, non_coherent_memory_reports_flushed_ranges_exactly)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(4 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 2, real, 0, 4 * ps, false);
    memset(app, 1, 4 * ps);
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 0, "non-coherent writes count only when flushed");
    rt_tracker_flush_range(t, 2, 100, 200, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(reports[0].offset, 100);
    cr_assert_eq(reports[0].size, 200);
    rt_tracker_flush_range(t, 2, 0, UINT64_MAX, on_dirty, NULL);
    cr_assert_eq(report_count, 2);
    cr_assert_eq(reports[1].offset, 0);
    cr_assert_eq(reports[1].size, 4 * ps);
    rt_tracker_destroy(t);
}

Test(memtrack, full_mode_reports_whole_ranges)
{
    uint8_t real[1000] = {0};
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_FULL);
    uint8_t *app = map(t, 4, real, 64, sizeof real, true);
    cr_assert_eq(app, real);
    app[10] = 1;
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(reports[0].offset, 64);
    cr_assert_eq(reports[0].size, sizeof real);
    rt_tracker_unmap(t, 4, on_dirty, NULL);
    cr_assert_eq(report_count, 2, "unmap reports what coherent memory still holds");
    rt_tracker_destroy(t);
}

static sigjmp_buf app_handler_jump;
static void app_segv_handler(int sig)
{
    (void)sig;
    siglongjmp(app_handler_jump, 1);
}

Test(memtrack, unrelated_faults_reach_the_applications_handler)
{
    signal(SIGSEGV, app_segv_handler); /* installed before the tracker's */
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    volatile uint8_t *forbidden = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int reached = 0;
    if (sigsetjmp(app_handler_jump, 1) == 0)
        forbidden[0] = 1;
    else
        reached = 1;
    cr_assert_eq(reached, 1);
    rt_tracker_destroy(t);
}

#include <pthread.h>

struct writer_arg {
    uint8_t *app;
    size_t page_size;
    int index;
};

static void *write_pages(void *p)
{
    struct writer_arg *a = p;
    /* Every thread touches every page: first-touch faults race on purpose. */
    for (int page = 0; page < 32; page++)
        a->app[(size_t)page * a->page_size + (size_t)a->index] = (uint8_t)(a->index + 1);
    return NULL;
}

Test(memtrack, concurrent_first_writes_lose_nothing)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(32 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 1, real, 0, 32 * ps, true);
    pthread_t threads[8];
    struct writer_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (struct writer_arg){app, ps, i};
        pthread_create(&threads[i], NULL, write_pages, &args[i]);
    }
    for (int i = 0; i < 8; i++)
        pthread_join(threads[i], NULL);
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1, "all 32 pages are one contiguous run");
    cr_assert_eq(reports[0].size, 32 * ps);
    for (int page = 0; page < 32; page++)
        for (int i = 0; i < 8; i++)
            cr_assert_eq(real[(size_t)page * ps + (size_t)i], i + 1, "page %d byte %d", page, i);
    rt_tracker_destroy(t);
}

Test(memtrack, refresh_guards_runs_of_clean_pages_and_keeps_dirty_ones)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(8 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 1, real, 0, 8 * ps, true);
    for (size_t p = 0; p < 8; p++)
        cr_assert_eq(app[p * ps], 0); /* every page fetched, clean */
    app[4 * ps + 1] = 7;             /* one dirty page in the middle */
    for (size_t p = 0; p < 8; p++)
        real[p * ps] = (uint8_t)(p + 10); /* the "GPU" writes every page */
    rt_tracker_refresh(t);
    for (size_t p = 0; p < 8; p++)
        if (p != 4)
            cr_assert_eq(app[p * ps], p + 10, "page %zu fetched again", p);
    cr_assert_eq(app[4 * ps + 1], 7, "a dirty page keeps the application's bytes");
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(reports[0].offset, 4 * ps);
    rt_tracker_destroy(t);
}

/* A program writing on one thread while another waits (refresh) and
 * submits (collect) in a loop: every byte written must reach the real
 * memory. A refresh that found a page unwritten and then dropped it could
 * throw away a write landing in between (asynchronous write-protect lets
 * writes through without telling us). */
struct racing_writer {
    uint8_t *app;
    size_t page_size;
    unsigned round;
    atomic_bool done;
};

#define RACE_PAGES 256
#define RACE_BYTES_PER_PAGE 64
#define RACE_ROUNDS 10

static uint8_t race_value(size_t k, unsigned round)
{
    return (uint8_t)(1 + (k + round) % 251);
}

static void *write_while_waiting(void *p)
{
    struct racing_writer *w = p;
    for (size_t k = 0; k < RACE_PAGES * RACE_BYTES_PER_PAGE; k++) {
        volatile uint8_t *at = w->app + (k % RACE_PAGES) * w->page_size + k / RACE_PAGES;
        *at = race_value(k, w->round);
        /* Slower than a refresh: some pages are unwritten at each scan. */
        for (volatile int spin = 0; spin < 200; spin++)
            ;
    }
    atomic_store(&w->done, true);
    return NULL;
}

static void ignore_dirty(void *ctx, uint64_t memory_id, uint64_t offset, const void *data, size_t size)
{
    (void)ctx, (void)memory_id, (void)offset, (void)data, (void)size;
}

/* Without the move (a scan, then MADV_DONTNEED) this lost bytes in 2 of 5
 * runs of one round. */
Test(memtrack, writes_racing_with_waits_and_submits_are_never_lost)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(RACE_PAGES * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 1, real, 0, RACE_PAGES * ps, true);
    for (unsigned round = 0; round < RACE_ROUNDS; round++) {
        struct racing_writer w = {.app = app, .page_size = ps, .round = round};
        pthread_t thread;
        pthread_create(&thread, NULL, write_while_waiting, &w);
        while (!atomic_load(&w.done)) {
            rt_tracker_refresh(t);
            rt_tracker_collect(t, ignore_dirty, NULL);
        }
        pthread_join(thread, NULL);
        rt_tracker_collect(t, ignore_dirty, NULL);
        size_t lost = 0;
        for (size_t k = 0; k < RACE_PAGES * RACE_BYTES_PER_PAGE; k++)
            lost += real[(k % RACE_PAGES) * ps + k / RACE_PAGES] != race_value(k, round);
        cr_assert_eq(lost, 0, "round %u: %zu of %d bytes written never reached the real memory", round, lost,
                     RACE_PAGES * RACE_BYTES_PER_PAGE);
    }
    rt_tracker_destroy(t);
}

/* A page the program rewrites before every submit (a streamed vertex or
 * uniform page) stays writable under asynchronous write-protect: protecting
 * it again at each collect costs a TLB shootdown (an IPI per submit on a
 * virtual machine) and its next write a fault in the kernel. Every write
 * is still reported, and a page left alone is protected again. */
Test(memtrack, a_page_rewritten_at_every_submit_is_not_protected_again)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(4 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    if (rt_tracker_backend(t) != RT_TRACK_WP_ASYNC) {
        rt_tracker_destroy(t);
        cr_skip_test("no asynchronous write-protect on this kernel");
    }
    uint8_t *app = map(t, 1, real, 0, 4 * ps, true);
    for (int round = 0; round < 20; round++) {
        app[ps + (size_t)round] = (uint8_t)(round + 1);
        report_count = 0;
        rt_tracker_collect(t, on_dirty, NULL);
        cr_assert_eq(report_count, 1, "round %d", round);
        cr_assert_eq(reports[0].offset, ps);
        cr_assert_eq(real[ps + (size_t)round], round + 1);
    }
    cr_assert_leq(rt_tracker_stats(t).reprotects, 1, "protected again %llu times",
                  (unsigned long long)rt_tracker_stats(t).reprotects);
    report_count = 0;
    for (int idle = 0; idle < 70; idle++) /* no wait meanwhile: see the next test */
        rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 0);
    cr_assert_geq(rt_tracker_stats(t).reprotects, 1, "a page left alone is protected again");
    app[ps + 100] = 42; /* and a write after that is still seen */
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(real[ps + 100], 42);
    rt_tracker_destroy(t);
}

/* A ring filled page by page (zink's upload buffer): a page the program
 * left is dropped by the next wait without being protected again first (a
 * TLB shootdown each), and its next read sees what the GPU wrote; many pages
 * left at once (more than 16) are protected again at a collect, so collects
 * stop looking at them. */
static struct rt_memory_tracker *async_tracker_or_skip(void)
{
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    if (rt_tracker_backend(t) != RT_TRACK_WP_ASYNC) {
        rt_tracker_destroy(t);
        cr_skip_test("no asynchronous write-protect on this kernel");
    }
    return t;
}

Test(memtrack, a_ring_filled_page_by_page_is_dropped_at_waits_without_protecting)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(24 * ps);
    struct rt_memory_tracker *t = async_tracker_or_skip();
    uint8_t *app = map(t, 1, real, 0, 24 * ps, true);
    for (size_t page = 0; page < 8; page++) {
        for (int submit = 0; submit < 6; submit++) { /* a frame: submits, then a wait */
            if (submit < 2)
                app[page * ps + (size_t)submit] = (uint8_t)(page + 1);
            rt_tracker_collect(t, ignore_dirty, NULL);
        }
        cr_assert_eq(real[page * ps + 1], page + 1);
        rt_tracker_refresh(t);
    }
    cr_assert_eq(rt_tracker_stats(t).reprotects, 0, "protected again %llu times",
                 (unsigned long long)rt_tracker_stats(t).reprotects);
    real[3 * ps + 100] = 42; /* the GPU writes a page the program filled */
    rt_tracker_refresh(t);
    cr_assert_eq(app[3 * ps + 100], 42);
    cr_assert_eq(app[3 * ps + 1], 4);
    memset(app, 7, 24 * ps); /* 24 pages at once, then left */
    for (int idle = 0; idle < 8; idle++)
        rt_tracker_collect(t, ignore_dirty, NULL);
    cr_assert_geq(rt_tracker_stats(t).reprotects, 24, "protected again %llu times",
                  (unsigned long long)rt_tracker_stats(t).reprotects);
    cr_assert_eq(real[23 * ps], 7);
    rt_tracker_destroy(t);
}

/* A collect finds a region's written pages without asking the kernel when
 * every present page is hot (written at every submit, left writable): then
 * those are all it could find. A page the program only read (present,
 * protected) and then writes, which the kernel lets through with no fault,
 * and a page first written, must still be found beside a hot one. */
Test(memtrack, writes_beside_a_hot_page_are_found)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(8 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    volatile uint8_t *app = map(t, 1, real, 0, 8 * ps, true);
    for (int round = 0; round < 4; round++) { /* page 1 goes hot */
        app[ps + (size_t)round] = (uint8_t)(round + 1);
        rt_tracker_collect(t, ignore_dirty, NULL);
    }
    cr_assert_eq(app[5 * ps], 0); /* page 5 read: present, protected */
    app[ps + 10] = 10;
    rt_tracker_collect(t, ignore_dirty, NULL);
    app[ps + 11] = 11;
    rt_tracker_collect(t, ignore_dirty, NULL);
    report_count = 0;
    app[ps + 12] = 12;
    app[5 * ps + 3] = 53; /* no fault: the kernel lets it through */
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 2);
    cr_assert_eq(reports[0].offset, ps);
    cr_assert_eq(reports[1].offset, 5 * ps);
    cr_assert_eq(real[5 * ps + 3], 53);
    cr_assert_eq(real[ps + 12], 12);
    report_count = 0;
    app[ps + 13] = 13;
    app[6 * ps] = 6; /* a first write */
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 2);
    cr_assert_eq(real[6 * ps], 6);
    cr_assert_eq(real[ps + 13], 13);
    rt_tracker_destroy(t);
}

/* A page the program keeps rewriting, then leaves alone over a submit and a
 * wait, shows what the GPU wrote after the wait, as any unwritten page does;
 * one written again since the submit keeps the program's bytes. */
Test(memtrack, a_page_rewritten_at_submits_shows_gpu_writes_after_a_wait)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(2 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 1, real, 0, 2 * ps, true);
    for (int round = 0; round < 3; round++) {
        app[round] = (uint8_t)(round + 1);
        rt_tracker_collect(t, on_dirty, NULL);
    }
    real[64] = 99; /* the GPU writes the page after the last submit */
    rt_tracker_refresh(t);
    cr_assert_eq(app[64], 99, "the GPU's write is seen after the wait");
    cr_assert_eq(app[2], 3, "and the program's earlier writes");
    app[5] = 55;    /* the program writes, then the GPU writes elsewhere on the page */
    real[128] = 77;
    rt_tracker_refresh(t);
    cr_assert_eq(app[5], 55, "a page written since the submit keeps the program's bytes");
    report_count = 0;
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(real[5], 55);
    rt_tracker_destroy(t);
}

/* The same few pages rewritten in bursts with pauses between, while another
 * thread submits and waits in a loop: pages go hot, are found unchanged in a
 * pause, protected again as a burst starts (the write between the look and
 * the protection is the one to keep) and dropped at waits. The last value
 * of every byte must reach the real memory. */
struct burst_writer {
    uint8_t *app;
    size_t page_size;
    atomic_bool done;
};

#define BURST_PAGES 8
#define BURST_WRITES 200000

static void *write_in_bursts(void *p)
{
    struct burst_writer *w = p;
    for (uint32_t k = 0; k < BURST_WRITES; k++) {
        volatile uint8_t *at = w->app + (k % BURST_PAGES) * w->page_size + (k / BURST_PAGES) % 64;
        *at = (uint8_t)(1 + k % 253);
        if (k % 5000 == 4999)
            usleep(2000); /* a pause: several collects find the pages unchanged */
    }
    atomic_store(&w->done, true);
    return NULL;
}

Test(memtrack, pages_rewritten_in_bursts_across_submits_and_waits_lose_no_write)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(BURST_PAGES * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    uint8_t *app = map(t, 1, real, 0, BURST_PAGES * ps, true);
    struct burst_writer w = {.app = app, .page_size = ps};
    pthread_t thread;
    pthread_create(&thread, NULL, write_in_bursts, &w);
    while (!atomic_load(&w.done)) {
        rt_tracker_collect(t, ignore_dirty, NULL);
        rt_tracker_refresh(t);
    }
    pthread_join(thread, NULL);
    rt_tracker_collect(t, ignore_dirty, NULL);
    size_t lost = 0;
    for (uint32_t k = BURST_WRITES - BURST_PAGES * 64; k < BURST_WRITES; k++)
        lost += real[(k % BURST_PAGES) * ps + (k / BURST_PAGES) % 64] != (uint8_t)(1 + k % 253);
    cr_assert_eq(lost, 0, "%zu of the last %d bytes written never reached the real memory", lost,
                 BURST_PAGES * 64);
    rt_tracker_destroy(t);
}

/* --- verification points --------------------------------------------------- */

static struct rt_trace_verify_range seen[16];
static uint64_t seen_hashes[16][64];
static int seen_count, seen_calls;

static void on_verify(void *ctx, const struct rt_trace_verify_range *ranges, size_t count)
{
    (void)ctx;
    seen_calls++;
    for (size_t i = 0; i < count && seen_count < 16; i++) {
        seen[seen_count] = ranges[i];
        cr_assert_leq(ranges[i].piece_count, 64);
        memcpy(seen_hashes[seen_count], ranges[i].hashes, ranges[i].piece_count * sizeof(uint64_t));
        seen[seen_count].hashes = seen_hashes[seen_count];
        seen_count++;
    }
}

Test(memtrack, pages_read_after_a_wait_become_one_verification_point)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(4 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    seen_count = seen_calls = 0;
    rt_tracker_set_verify(t, on_verify, NULL);
    uint8_t *app = map(t, 7, real, 0x10000, 4 * ps, true);
    memset(real + ps, 0x5a, 2 * ps); /* the "GPU" writes pages 1 and 2 */
    rt_tracker_refresh(t);
    volatile uint8_t sum = app[ps] + app[2 * ps + 5]; /* the program reads them back */
    (void)sum;
    app[3 * ps] = 1; /* a write is not a read back */
    rt_tracker_refresh(t); /* the next wait hands the reads over first */
    cr_assert_eq(seen_calls, 1, "one point");
    cr_assert_eq(seen_count, 1, "two neighbouring pages make one range");
    cr_assert_eq(seen[0].memory_id, 7);
    cr_assert_eq(seen[0].offset, 0x10000 + ps);
    cr_assert_eq(seen[0].size, 2 * ps);
    cr_assert_eq(seen[0].piece_size, RT_TRACK_PIECE);
    cr_assert_eq(seen[0].piece_count, 2 * ps / RT_TRACK_PIECE);
    cr_assert_eq(seen_hashes[0][0], rt_trace_hash(real + ps, RT_TRACK_PIECE));
    rt_tracker_take_read_back(t);
    cr_assert_eq(seen_calls, 1, "nothing new was read: no second point");
    rt_tracker_destroy(t);
}

/* The program reads what the GPU wrote after every wait, and each read is a
 * verification point, however the page got where it is: dropped at an
 * earlier wait with waits since where nothing was new, fetched by a read
 * since the last wait, or written, collected and protected again while
 * idle (asynchronous write-protect skips a wait's scan when no page was made
 * present and protected since the last one). */
static void expect_read_point(struct rt_memory_tracker *t, bool points, const char *what)
{
    int before = seen_calls;
    rt_tracker_take_read_back(t);
    if (points)
        cr_assert_eq(seen_calls, before + 1, "a verification point for %s", what);
}

Test(memtrack, reads_after_waits_see_gpu_writes_however_the_page_came_to_be)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(4 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    bool points = rt_tracker_backend(t) != RT_TRACK_SIGNALS;
    seen_count = seen_calls = 0;
    rt_tracker_set_verify(t, on_verify, NULL);
    volatile uint8_t *app = map(t, 3, real, 0, 4 * ps, true);
    rt_tracker_refresh(t);
    cr_assert_eq(app[0], 0);
    expect_read_point(t, points, "the first read");
    rt_tracker_refresh(t); /* drops page 0 */
    rt_tracker_refresh(t); /* nothing new */
    real[0] = 1;
    rt_tracker_refresh(t); /* nothing new */
    cr_assert_eq(app[0], 1, "a page dropped waits ago");
    expect_read_point(t, points, "a page dropped waits ago");
    real[0] = 2; /* page 0 was fetched by that read since the last wait */
    rt_tracker_refresh(t);
    cr_assert_eq(app[0], 2, "a page fetched by a read since the last wait");
    expect_read_point(t, points, "a page fetched by a read since the last wait");
    rt_tracker_refresh(t);
    app[ps + 1] = 5; /* written, then idle over collects: protected again */
    for (int k = 0; k < 8; k++)
        rt_tracker_collect(t, ignore_dirty, NULL);
    cr_assert_eq(real[ps + 1], 5);
    real[ps + 64] = 9;
    rt_tracker_refresh(t);
    cr_assert_eq(app[ps + 64], 9, "a page written, collected and left alone");
    cr_assert_eq(app[ps + 1], 5);
    expect_read_point(t, points, "a page written, collected and left alone");
    rt_tracker_destroy(t);
}

/* mpv's decoder writes a frame into mapped memory and reads it again after
 * later waits: a page the program wrote, whose driver's bytes the GPU has
 * not changed since, is moved out at the first wait as any page is, and the
 * read after it, which finds the driver's bytes as they were, makes it a
 * page to keep: later waits leave it in place (asynchronous write-protect,
 * the driver's memory anonymous), so its reads cost no fault and are not
 * verification points (replay reproduces the program's own bytes). Once a
 * wait finds the GPU's bytes behind it, the next read sees them and is a
 * point, and so is every read after a later wait, written or not. */
Test(memtrack, a_page_the_gpu_did_not_write_stays_in_place_at_waits)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(4 * ps);
    struct rt_memory_tracker *t = async_tracker_or_skip();
    seen_count = seen_calls = 0;
    rt_tracker_set_verify(t, on_verify, NULL);
    volatile uint8_t *app = map(t, 5, real, 0, 4 * ps, true);
    app[ps + 8] = 3; /* the program's own bytes, then idle: protected again */
    for (int k = 0; k < 70; k++)
        rt_tracker_collect(t, ignore_dirty, NULL);
    cr_assert_eq(real[ps + 8], 3);
    cr_assert_geq(rt_tracker_stats(t).reprotects, 1);
    rt_tracker_refresh(t);
    uint64_t faults = rt_tracker_stats(t).faults;
    cr_assert_eq(app[ps + 8], 3, "the first read after a wait");
    cr_assert_eq(rt_tracker_stats(t).faults, faults + 1, "faults: the page was moved out");
    rt_tracker_take_read_back(t);
    cr_assert_eq(seen_calls, 1, "and that read is a point, as any first read is");
    faults = rt_tracker_stats(t).faults;
    for (int wait = 0; wait < 6; wait++) {
        rt_tracker_refresh(t);
        cr_assert_eq(app[ps + 8], 3, "wait %d", wait);
        rt_tracker_take_read_back(t);
    }
    cr_assert_eq(rt_tracker_stats(t).faults, faults, "reads of a page left in place do not fault");
    cr_assert_geq(rt_tracker_stats(t).pages_kept, 6);
    cr_assert_eq(seen_calls, 1, "no point for rereads of the program's own bytes");
    real[ps + 9] = 7; /* the GPU writes next to them */
    rt_tracker_refresh(t);
    cr_assert_eq(app[ps + 9], 7, "the GPU's bytes after the wait");
    cr_assert_eq(app[ps + 8], 3);
    rt_tracker_take_read_back(t);
    cr_assert_eq(seen_calls, 2, "a read of what the GPU wrote is a point");
    rt_tracker_refresh(t); /* nothing new, but the GPU has written this page */
    cr_assert_eq(app[ps + 9], 7);
    rt_tracker_take_read_back(t);
    cr_assert_eq(seen_calls, 3, "and so is every read after a later wait");
    rt_tracker_destroy(t);
}

/* A mapping that starts inside a page: its first page holds fewer pieces, and
 * the point that joins it with the next page must still hash piece by piece
 * what the program read (the hashes are copied when the point is taken). */
Test(memtrack, a_point_across_an_unaligned_first_page_hashes_every_piece)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    size_t lead = 4 * RT_TRACK_PIECE;
    uint8_t *real = fake_device_memory(4 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    seen_count = seen_calls = 0;
    rt_tracker_set_verify(t, on_verify, NULL);
    uint8_t *app = map(t, 9, real + lead, 0x10000 + lead, 2 * ps - lead, true);
    for (size_t i = 0; i < 2 * ps - lead; i++)
        real[lead + i] = (uint8_t)(i / RT_TRACK_PIECE * 7 + 1); /* every piece differs */
    rt_tracker_refresh(t);
    volatile uint8_t sum = app[0] + app[ps - lead + 1]; /* both pages read back */
    (void)sum;
    rt_tracker_refresh(t);
    cr_assert_eq(seen_count, 1, "the two pages make one range");
    cr_assert_eq(seen[0].offset, 0x10000 + lead);
    cr_assert_eq(seen[0].size, 2 * ps - lead);
    cr_assert_eq(seen[0].piece_count, (2 * ps - lead) / RT_TRACK_PIECE);
    for (uint32_t k = 0; k < seen[0].piece_count; k++)
        cr_assert_eq(seen_hashes[0][k], rt_trace_hash(real + lead + k * RT_TRACK_PIECE, RT_TRACK_PIECE),
                     "piece %u", k);
    rt_tracker_destroy(t);
}

/* --- system calls on tracked pages (docs/FIELD_TEST.md, finding 1) ---------- */

#include <errno.h>
#include <stdio.h>

/* A file holding 2 pages: page 0 all 0x11, page 1 all 0x22. */
static int two_page_file(size_t ps)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    int fd = dup(fileno(f));
    fclose(f);
    uint8_t *buf = malloc(2 * ps);
    memset(buf, 0x11, ps);
    memset(buf + ps, 0x22, ps);
    cr_assert_eq(pwrite(fd, buf, 2 * ps, 0), (ssize_t)(2 * ps));
    free(buf);
    return fd;
}

Test(memtrack, system_calls_read_and_write_tracked_pages)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(4 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    if (rt_tracker_backend(t) != RT_TRACK_USERFAULTFD && rt_tracker_backend(t) != RT_TRACK_WP_ASYNC)
        cr_skip_test("userfaultfd with kernel faults is not allowed here (not root?)");
    seen_count = seen_calls = 0;
    rt_tracker_set_verify(t, on_verify, NULL);
    uint8_t *app = map(t, 5, real, 0, 4 * ps, true);
    int fd = two_page_file(ps);
    memset(real, 0x5a, ps); /* the "GPU" writes page 0, the program waits */
    rt_tracker_refresh(t);
    /* write(2) from mapped memory: the kernel reads page 0. */
    cr_assert_eq(pwrite(fd, app, ps, ps), (ssize_t)ps, "pwrite from mapped memory: %s", strerror(errno));
    uint8_t byte = 0;
    cr_assert_eq(pread(fd, &byte, 1, ps + 7), 1);
    cr_assert_eq(byte, 0x5a, "the file holds what the GPU wrote");
    /* read(2) into mapped memory: the kernel writes pages 2 and 3 (never touched). */
    cr_assert_eq(pread(fd, app + 2 * ps, 2 * ps, 0), (ssize_t)(2 * ps), "pread into mapped memory: %s",
                 strerror(errno));
    cr_assert_eq(app[2 * ps], 0x11);
    cr_assert_eq(app[3 * ps + 9], 0x5a);
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1, "the bytes read(2) put there are the program's writes");
    cr_assert_eq(reports[0].offset, 2 * ps);
    cr_assert_eq(reports[0].size, 2 * ps);
    cr_assert_eq(real[2 * ps + 1], 0x11, "and reach the real memory");
    cr_assert_eq(real[3 * ps + 1], 0x5a);
    cr_assert_eq(seen_count, 1, "the kernel's read of page 0 is a verification point");
    cr_assert_eq(seen[0].offset, 0);
    cr_assert_eq(seen[0].size, ps);
    cr_assert_eq(seen_hashes[0][0], rt_trace_hash(real, RT_TRACK_PIECE));
    close(fd);
    rt_tracker_destroy(t);
}

Test(memtrack, a_system_call_writes_into_a_page_read_before)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    if (rt_tracker_backend(t) != RT_TRACK_USERFAULTFD && rt_tracker_backend(t) != RT_TRACK_WP_ASYNC)
        cr_skip_test("userfaultfd with kernel faults is not allowed here (not root?)");
    uint8_t *app = map(t, 5, real, 0, ps, true);
    int fd = two_page_file(ps);
    cr_assert_eq(app[0], 0); /* fetched, clean, write-protected */
    cr_assert_eq(pread(fd, app, ps, ps), (ssize_t)ps, "pread into a clean page: %s", strerror(errno));
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(real[100], 0x22);
    close(fd);
    rt_tracker_destroy(t);
}

/* Without userfaultfd (an unprivileged process): signals, and every page
 * readable, so at least system calls that read mapped memory work. */
Test(memtrack, signal_fallback_lets_the_kernel_read_mapped_memory)
{
    setenv("RETRACE_USERFAULTFD", "0", 1);
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(2 * ps);
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    cr_assert_eq(rt_tracker_backend(t), RT_TRACK_SIGNALS);
    uint8_t *app = map(t, 5, real, 0, 2 * ps, true);
    int fd = two_page_file(ps);
    cr_assert_eq(pwrite(fd, app, ps, 0), (ssize_t)ps, "pwrite right after map: %s", strerror(errno));
    memset(real, 0x5a, 2 * ps); /* the "GPU" writes, the program waits */
    rt_tracker_refresh(t);
    cr_assert_eq(pwrite(fd, app + ps, ps, 0), (ssize_t)ps, "pwrite after a wait: %s", strerror(errno));
    uint8_t byte = 0;
    cr_assert_eq(pread(fd, &byte, 1, 3), 1);
    cr_assert_eq(byte, 0x5a);
    app[ps + 2] = 9; /* writes are still tracked */
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(reports[0].offset, ps);
    cr_assert_eq(real[ps + 2], 9);
    close(fd);
    rt_tracker_destroy(t);
}

/* Whether this kernel says which mappings are private anonymous (PROCMAP_QUERY, Linux 6.11). */
static bool kernel_says_anonymous(const void *p)
{
    int maps = open("/proc/self/maps", O_RDONLY);
    struct { uint64_t size, flags, addr, rest[13]; } q = {.size = 104, .addr = (uintptr_t)p};
    bool says = maps >= 0 && ioctl(maps, _IOWR('f', 17, char[104]), &q) == 0;
    if (maps >= 0)
        close(maps);
    return says;
}

static size_t resident_pages(uint8_t *p, size_t pages);

/* The driver's memory the program first touches through the view is read
 * only where it was ever populated: reading a never-populated page maps
 * the kernel's zero page into the driver's memory, and the collect's copy
 * into it then replaces that page, which flushes every core's TLB (bare,
 * the program's first write populates it without). What is read, reported
 * and copied is the same. */
Test(memtrack, first_accesses_leave_unpopulated_real_memory_unpopulated)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(8 * ps);
    madvise(real, 8 * ps, MADV_NOHUGEPAGE);
    real[6 * ps] = 0x33; /* populated: read as before */
    struct rt_memory_tracker *t = tracker_of(RT_TRACK_PAGE_GUARD);
    bool uffd = rt_tracker_backend(t) != RT_TRACK_SIGNALS;
    uint8_t *app = map(t, 1, real, 0, 8 * ps, true);
    app[2 * ps + 5] = 7;
    cr_assert_eq(app[4 * ps + 1], 0);
    cr_assert_eq(app[6 * ps], 0x33);
    if (uffd && kernel_says_anonymous(real))
        cr_assert_eq(resident_pages(real, 8), 1, "%zu of the driver's pages populated by first accesses",
                     resident_pages(real, 8));
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(reports[0].offset, 2 * ps);
    cr_assert_eq(reports[0].size, ps);
    cr_assert_eq(reports[0].bytes[5], 7);
    cr_assert_eq(real[2 * ps + 5], 7);
    real[4 * ps + 1] = 9; /* the "GPU" writes where the program read zeros */
    rt_tracker_refresh(t);
    cr_assert_eq(app[4 * ps + 1], 9);
    report_count = 0;
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 0);
    rt_tracker_destroy(t);
}

/* A program filling fresh memory front to back takes a fault for the
 * first page, then fewer and fewer (1, 2, 4, then 8 pages mapped ahead of
 * each), not one a page: a first write's fault maps zeros ahead where
 * the driver's pages are unpopulated. Those pages are still tracked
 * (written ones are reported), a wait keeps the ones the program has not
 * written, one the GPU wrote meanwhile shows the GPU's bytes, and those
 * left alone for many waits are dropped. */
Test(memtrack, a_fresh_ring_filled_front_to_back_takes_a_few_faults_not_one_a_page)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *real = fake_device_memory(64 * ps);
    madvise(real, 64 * ps, MADV_NOHUGEPAGE);
    struct rt_memory_tracker *t = async_tracker_or_skip();
    if (!kernel_says_anonymous(real)) {
        rt_tracker_destroy(t);
        cr_skip_test("the kernel cannot say which pages are unpopulated (PROCMAP_QUERY, Linux 6.11)");
    }
    uint8_t *app = map(t, 1, real, 0, 64 * ps, true);
    for (size_t page = 0; page < 32; page++) {
        app[page * ps + 3] = (uint8_t)(page + 1);
        if (page % 4 == 3)
            rt_tracker_collect(t, ignore_dirty, NULL);
    }
    cr_assert_leq(rt_tracker_stats(t).faults, 8, "%llu faults for 32 pages written in order",
                  (unsigned long long)rt_tracker_stats(t).faults);
    for (size_t page = 0; page < 32; page++)
        cr_assert_eq(real[page * ps + 3], page + 1, "page %zu", page);
    rt_tracker_refresh(t); /* a wait: pages 32 and 33, mapped ahead, unwritten, stay */
    uint64_t faults = rt_tracker_stats(t).faults;
    cr_assert_eq(app[32 * ps], 0);
    cr_assert_eq(rt_tracker_stats(t).faults, faults, "a page mapped ahead faulted again after a wait");
    real[33 * ps + 5] = 9; /* the GPU writes a page mapped ahead */
    rt_tracker_refresh(t);
    cr_assert_eq(app[33 * ps + 5], 9);
    report_count = 0;
    app[32 * ps + 7] = 3;
    rt_tracker_collect(t, on_dirty, NULL);
    cr_assert_eq(report_count, 1);
    cr_assert_eq(reports[0].offset, 32 * ps);
    cr_assert_eq(reports[0].bytes[7], 3);
    cr_assert_eq(real[32 * ps + 7], 3);
    cr_assert_eq(resident_pages(real, 64), 34, "%zu of the driver's pages populated", resident_pages(real, 64));
    for (int wait = 0; wait < 130; wait++) /* pages mapped ahead and left alone go in time */
        rt_tracker_refresh(t);
    faults = rt_tracker_stats(t).faults;
    cr_assert_eq(app[35 * ps], 0);
    cr_assert_eq(rt_tracker_stats(t).faults, faults + 1, "a page mapped ahead 130 waits ago is still mapped");
    rt_tracker_destroy(t);
}

struct front_writer {
    uint8_t *app;
    size_t page_size, pages;
};

static void *write_front_to_back(void *p)
{
    struct front_writer *a = p;
    for (size_t page = 0; page < a->pages; page += 2)
        a->app[page * a->page_size] = 1; /* first writes: zeros mapped ahead of each */
    return NULL;
}

/* A thread of the program writes the even pages of fresh memory front to
 * back (zeros are mapped ahead of it, over the odd pages too) while the GPU
 * writes the odd ones, each followed by a wait: whenever the fault thread
 * looked at the driver's page to map zeros ahead, the page must show the
 * GPU's bytes after the wait, never the zeros. */
Test(memtrack, gpu_writes_ahead_of_a_thread_filling_fresh_memory_are_seen_after_a_wait)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE), pages = 256;
    struct rt_memory_tracker *t = async_tracker_or_skip();
    for (int round = 0; round < 8; round++) {
        uint8_t *real = fake_device_memory(pages * ps);
        madvise(real, pages * ps, MADV_NOHUGEPAGE);
        uint8_t *app = map(t, (uint64_t)round + 1, real, 0, pages * ps, true);
        struct front_writer a = {.app = app, .page_size = ps, .pages = pages};
        pthread_t writer;
        pthread_create(&writer, NULL, write_front_to_back, &a);
        if (round % 2 == 0) /* all mapped ahead before the GPU writes; else racing with it */
            pthread_join(writer, NULL);
        for (size_t page = 1; page < pages; page += 2) {
            real[page * ps + 100] = 0x5a; /* the GPU's write, then the program's wait */
            rt_tracker_refresh(t);
            cr_assert_eq(app[page * ps + 100], 0x5a, "round %d page %zu: zeros after a wait", round, page);
        }
        if (round % 2 == 1)
            pthread_join(writer, NULL);
        rt_tracker_unmap(t, (uint64_t)round + 1, ignore_dirty, NULL);
        munmap(real, pages * ps);
    }
    rt_tracker_destroy(t);
}

/* --- rt_zero_fresh (capture/fresh_pages.c) ------------------------------ */

static size_t resident_pages(uint8_t *p, size_t pages)
{
    unsigned char vec[64];
    cr_assert_leq(pages, sizeof vec);
    cr_assert_eq(mincore(p, pages * (size_t)sysconf(_SC_PAGESIZE), vec), 0);
    size_t n = 0;
    for (size_t i = 0; i < pages; i++)
        n += vec[i] & 1;
    return n;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Never-populated pages of private anonymous memory stay unpopulated (the
 * memset it replaced made every page resident); written ones come back zero,
 * a page already all zeros is left as it was. Before Linux 6.11 the kernel
 * cannot say which pages are fresh: then only the bytes are checked. */
Test(fresh_pages, zeroes_without_populating_fresh_anonymous_pages)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *p = fake_device_memory(32 * ps);
    madvise(p, 32 * ps, MADV_NOHUGEPAGE); /* one write must populate one page, not 512 */
    memset(p + 3 * ps, 0x77, ps);
    p[9 * ps + 100] = 1;
    p[20 * ps] = 0; /* resident, zeros */
    size_t before = resident_pages(p, 32);
    cr_assert_eq(before, 3);
    rt_zero_fresh(p, 32 * ps);
    size_t after = resident_pages(p, 32); /* before reading: a read maps the zero page */
    int maps = open("/proc/self/maps", O_RDONLY);
    struct { uint64_t size, flags, addr, rest[13]; } q = {.size = 104, .addr = (uintptr_t)p};
    bool kernel_says = maps >= 0 && ioctl(maps, _IOWR('f', 17, char[104]), &q) == 0;
    if (maps >= 0)
        close(maps);
    if (kernel_says)
        cr_assert_eq(after, before, "%zu pages resident after, %zu before", after, before);
    cr_assert(all_zero(p, 32 * ps));
    munmap(p, 32 * ps);
}

/* A refresh's walk asks for every page of a run in one read of the page
 * tables (at most 64), not one read a page: the mask says each page's
 * answer, and agrees with the count of leading unpopulated pages. */
Test(fresh_pages, the_mask_answers_for_every_page_of_a_batch)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *p = fake_device_memory(70 * ps);
    madvise(p, 70 * ps, MADV_NOHUGEPAGE);
    p[1 * ps] = 1;
    p[3 * ps + 7] = 2;
    p[65 * ps] = 3;
    if (rt_fresh_anonymous_end(p) == 0) {
        munmap(p, 70 * ps);
        cr_skip_test("the kernel cannot say which pages are fresh (before Linux 6.11)");
    }
    uint64_t mask = 0;
    size_t known = rt_fresh_pages_unpopulated_mask(p, ps, 70, &mask);
    cr_assert_eq(known, 64, "a batch is at most 64 pages");
    cr_assert_eq(mask, ~0ull & ~(1ull << 1) & ~(1ull << 3), "mask %#llx", (unsigned long long)mask);
    cr_assert_eq(rt_fresh_pages_unpopulated(p, ps, 64), 1);
    known = rt_fresh_pages_unpopulated_mask(p + 64 * ps, ps, 6, &mask);
    cr_assert_eq(known, 6);
    cr_assert_eq(mask, 0x3dull, "page 65 is populated: mask %#llx", (unsigned long long)mask);
    munmap(p, 70 * ps);
}

/* Bytes outside the range are never written, in a page it shares; shared
 * memory (a memfd) is zeroed as any memory but private anonymous is. */
Test(fresh_pages, zeroes_exactly_the_range_shared_or_anonymous)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    int fd = memfd_create("fresh", 0);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)(4 * ps)), 0);
    uint8_t *p = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    cr_assert_neq(p, MAP_FAILED);
    memset(p, 0xaa, 4 * ps);
    rt_zero_fresh(p + 100, 2 * ps);
    cr_assert(all_zero(p + 100, 2 * ps));
    uint8_t *q = fake_device_memory(4 * ps); /* private anonymous, all resident */
    memset(q, 0xaa, 4 * ps);
    rt_zero_fresh(q + 100, 2 * ps);
    cr_assert(all_zero(q + 100, 2 * ps));
    cr_assert(q[99] == 0xaa && q[100 + 2 * ps] == 0xaa && q[4 * ps - 1] == 0xaa);
    munmap(q, 4 * ps);
    cr_assert_eq(p[99], 0xaa);
    cr_assert_eq(p[100 + 2 * ps], 0xaa);
    cr_assert_eq(p[4 * ps - 1], 0xaa);
    munmap(p, 4 * ps);
    close(fd);
}
