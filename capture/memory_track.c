/* capture/memory_track.c — shadow pages and the fault handling behind them
 * (see memory_track.h). The signal handler itself lives in signals.c. */
#include "memory_track.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <xxhash.h>

#include "fresh_pages.h"
#include "signals.h"
#include "uffd.h"

enum page_state { PAGE_UNFETCHED, PAGE_CLEAN, PAGE_DIRTY, PAGE_BUSY };

/* kept[i] (see keep_unchanged): 1 + the refreshes in a row that left the
 * page in place since the program last wrote it, or one of these */
#define KEEP_NO 0           /* not looked at yet */
#define KEEP_WAITS 64       /* refreshes a reread page the program leaves alone stays in place */
#define KEEP_CANDIDATE 0xfe /* moved out with the driver's bytes the view's: an access makes it kept */
#define KEEP_NEVER 0xff     /* the GPU was seen writing the page: moved out at every wait */

struct region {
    struct rt_memory_tracker *owner;
    uint64_t memory_id;
    uint64_t map_offset;
    uint8_t *real;
    uintptr_t real_anon_end; /* uffd: real is private anonymous memory up to here (fetch_real) */
    /* bit i set once real page i was found populated: by the fault thread,
     * read by refreshes (keep_unchanged), so accessed with __atomic */
    uint64_t *real_populated;
    size_t size;
    bool coherent;
    bool uffd;         /* userfaultfd: owner->backend is RT_TRACK_USERFAULTFD or RT_TRACK_WP_ASYNC */
    bool async;        /* owner->backend == RT_TRACK_WP_ASYNC (see track_async below) */
    uint8_t *hold;     /* async: as many pages as the view, where refresh moves pages to look at them */
    uint8_t *app_view; /* what the application touches; guarded */
    uint8_t *rw_view;  /* the same pages, always writable, for us (signals); = app_view (uffd) */
    size_t lead;       /* app pointer = app_view + lead */
    size_t page_count;
    _Atomic uint8_t *state;
    uint64_t *fetch_hash; /* hash of each page's bytes when fetched */
    _Atomic uint8_t *read_back; /* 1: the application read the page since it was fetched */
    uint64_t *piece_hash;       /* per page, the pieces' hashes at that fetch (verify.c) */
    _Atomic uint64_t *dirty_bits; /* bit i set after page i became DIRTY (mark_dirty); async: page i is present */
    uint8_t *hot; /* async, under scan_lock: page i left writable (see collect_async); 0: protected */
    /* async: KEEP_* (above; see keep_unchanged), set by refreshes and
     * collects under scan_lock and by the fault thread */
    _Atomic uint8_t *kept;
    /* async: bit i set while page i holds zeros mapped ahead of a first
     * write and not collected since (see map_zeros_ahead) */
    _Atomic uint64_t *zeros_ahead;
    size_t zeros_window; /* fault thread only: how many pages the next first write maps ahead */
    /* async: refreshes of the region that found pages mapped ahead, and
     * that count when pages were last mapped ahead */
    _Atomic uint64_t waits, zeros_mapped_at;
    /* async: counts the pages made present and protected (a read's fetch, a
     * collect protecting again): a refresh scans for unwritten pages only
     * when it moved on since the last scan (see refresh_async). */
    _Atomic uint64_t protected_gen;
    uint64_t scanned_gen; /* under scan_lock: protected_gen before the last refresh's scan */
};

/* A tracker's regions sorted by app_view, published whole: readers never
 * lock (see read_begin). Full-mode regions have no view and sort first. */
struct region_set {
    size_t count;
    struct region *items[];
};

struct rt_memory_tracker {
    enum rt_track_mode mode;
    enum rt_track_backend backend;
    _Atomic uint64_t faults;
    _Atomic bool read_back_pending; /* some region has read_back pages */
    rt_track_verify_fn verify_fn;
    void *verify_ctx;
    _Atomic uint64_t pages_reported, pages_unchanged, bytes_reported, reprotects; /* collects run on many threads */
    _Atomic uint64_t collects, refreshes, fault_ns, collect_ns, refresh_ns; /* timed with RETRACE_TRACK_STATS */
    _Atomic uint64_t pages_kept; /* async: pages a refresh left in place, the GPU's side unchanged */
    pthread_mutex_t change_lock; /* map, unmap: one at a time */
    pthread_mutex_t scan_lock;   /* async: one collect or refresh of a region at a time */
    uint8_t *bounce;             /* async, under scan_lock: the pages of the run being collected */
    size_t bounce_size;
    _Atomic(struct region_set *) set;
};

static size_t page_size;
static bool timed; /* RETRACE_TRACK_STATS set: time faults, collects and refreshes (bench) */

static uint64_t now_ns(void)
{
    if (!timed)
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- lock-free lookup ------------------------------------------------------ */

/* Fault handlers find their region from every tracker of the process; a
 * tracker takes a slot at create and gives it back at destroy. */
#define MAX_TRACKERS 64
static _Atomic(struct rt_memory_tracker *) trackers[MAX_TRACKERS];

/* Readers (fault handlers, collect, refresh, verification points) take no
 * lock: they enter the current epoch, load a published set and leave. A
 * change publishes its new set, moves the epoch on and waits until the old
 * epoch's readers have left before it frees what only the old set held.
 * Writers are one at a time (retire_lock), so two epochs are enough. */
static _Atomic unsigned epoch;
static _Atomic long in_epoch[2];
static pthread_mutex_t retire_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* One step of a wait for another thread: a few pauses first (the holder is
 * usually running on the other core), then the core is given away (it may be
 * preempted, and on a small machine it needs ours). Async-signal-safe. */
static void backoff(unsigned *spins)
{
    if (++*spins < 64)
        cpu_relax();
    else
        sched_yield();
}

static unsigned read_begin(void)
{
    for (;;) {
        unsigned e = atomic_load(&epoch);
        atomic_fetch_add(&in_epoch[e & 1], 1);
        if (atomic_load(&epoch) == e)
            return e;
        atomic_fetch_sub(&in_epoch[e & 1], 1); /* moved on meanwhile: join the new one */
    }
}

static void read_end(unsigned e)
{
    atomic_fetch_sub(&in_epoch[e & 1], 1);
}

/* After a new set is published: no reader may still hold the old one. Never
 * called inside a read section (it would wait for itself). */
static void wait_for_readers(void)
{
    pthread_mutex_lock(&retire_lock);
    unsigned e = atomic_fetch_add(&epoch, 1);
    for (unsigned spins = 0; atomic_load(&in_epoch[e & 1]) != 0;)
        backoff(&spins);
    pthread_mutex_unlock(&retire_lock);
}

static const struct region_set empty_set = {0};

static struct region_set *set_of(struct rt_memory_tracker *t)
{
    return atomic_load_explicit(&t->set, memory_order_acquire);
}

static void set_free(struct region_set *set)
{
    if (set != &empty_set)
        free(set);
}

/* The region whose view holds addr, by binary search. */
static struct region *set_find(const struct region_set *set, uintptr_t addr)
{
    size_t lo = 0, hi = set->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        struct region *r = set->items[mid];
        uintptr_t start = (uintptr_t)r->app_view;
        if (addr < start)
            hi = mid;
        else if (addr >= start + r->page_count * page_size)
            lo = mid + 1;
        else
            return r;
    }
    return NULL;
}

/* A copy of set with r added in view order (add) or without r. */
static struct region_set *set_changed(const struct region_set *set, struct region *r, bool add)
{
    struct region_set *out = malloc(sizeof *out + (set->count + 1) * sizeof out->items[0]);
    if (!out)
        return NULL;
    out->count = 0;
    bool placed = !add;
    for (size_t i = 0; i < set->count; i++) {
        struct region *cur = set->items[i];
        if (!placed && (uintptr_t)r->app_view < (uintptr_t)cur->app_view) {
            out->items[out->count++] = r;
            placed = true;
        }
        if (cur != r)
            out->items[out->count++] = cur;
    }
    if (!placed)
        out->items[out->count++] = r;
    return out;
}

/* Publishes a new set of t (change_lock held); the old one goes once no
 * reader can hold it. */
static bool publish_change(struct rt_memory_tracker *t, struct region *r, bool add)
{
    struct region_set *old = set_of(t);
    struct region_set *next = set_changed(old, r, add);
    if (!next)
        return false;
    atomic_store_explicit(&t->set, next, memory_order_release);
    wait_for_readers();
    set_free(old);
    return true;
}

/* In a read section: the region of any tracker whose view holds addr. */
static struct region *region_at(uintptr_t addr)
{
    for (size_t k = 0; k < MAX_TRACKERS; k++) {
        struct rt_memory_tracker *t = atomic_load_explicit(&trackers[k], memory_order_acquire);
        struct region *r = t ? set_find(set_of(t), addr) : NULL;
        if (r)
            return r;
    }
    return NULL;
}

/* After storing PAGE_DIRTY: collect visits only pages whose bit is set. */
static void mark_dirty(struct region *r, size_t i)
{
    atomic_fetch_or_explicit(&r->dirty_bits[i / 64], 1ull << (i % 64), memory_order_release);
}

static void store_state(struct region *r, size_t i, uint8_t state)
{
    atomic_store(&r->state[i], state);
    if (state == PAGE_DIRTY)
        mark_dirty(r, i);
}

/* --- the fault handler ------------------------------------------------- */

static bool fault_was_write(void *uctx)
{
#if defined(__x86_64__)
    /* Bit 1 of the page-fault error code is set for writes. */
    const ucontext_t *uc = uctx;
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)uctx;
    return true; /* cannot tell: treating every access as a write is safe */
#endif
}

/* Copies the real bytes behind page i into page (page_size bytes standing
 * for view offsets i * page_size ...) and remembers their hash. */
static void fetch_into(struct region *r, size_t i, uint8_t *page)
{
    size_t view_start = i * page_size;
    size_t view_end = view_start + page_size;
    size_t lo = view_start > r->lead ? view_start : r->lead;
    size_t hi = view_end < r->lead + r->size ? view_end : r->lead + r->size;
    if (hi > lo)
        memcpy(page + (lo - view_start), r->real + (lo - r->lead), hi - lo);
    r->fetch_hash[i] = XXH3_64bits(page, page_size);
}

/* Copies the real bytes behind page i into the shadow. */
static void fetch_page(struct region *r, size_t i)
{
    fetch_into(r, i, r->rw_view + i * page_size);
}

/* fetch_into for the fault thread, into a zeroed page: a real page never
 * populated is zeros already and is not read (fresh_pages.h says why). One
 * found populated is not asked about again (a page the driver gave back
 * since is read as before: zeros, correct, only the shootdown is paid). */
static void fetch_real(struct region *r, size_t i, uint8_t *zeroed)
{
    uintptr_t real_page = (uintptr_t)r->real - r->lead + i * page_size;
    uint64_t bit = 1ull << (i % 64);
    bool ask = r->real_populated && !(__atomic_load_n(&r->real_populated[i / 64], __ATOMIC_RELAXED) & bit) &&
               real_page + page_size <= r->real_anon_end;
    if (ask && rt_fresh_page_unpopulated((void *)real_page, page_size)) {
        r->fetch_hash[i] = XXH3_64bits(zeroed, page_size);
        return;
    }
    if (ask)
        __atomic_fetch_or(&r->real_populated[i / 64], bit, __ATOMIC_RELAXED);
    fetch_into(r, i, zeroed);
}

/* Page i's bytes within the mapping, as view offsets. */
static void page_span(const struct region *r, size_t i, size_t *lo, size_t *hi)
{
    *lo = i * page_size > r->lead ? i * page_size : r->lead;
    *hi = (i + 1) * page_size < r->lead + r->size ? (i + 1) * page_size : r->lead + r->size;
}

/* The application reads what the GPU may have written: remember the
 * page's bytes as hashes, for a verification point (async-signal-safe:
 * hashing only). */
static void note_read_back(struct region *r, size_t i, const uint8_t *page)
{
    size_t lo, hi;
    page_span(r, i, &lo, &hi);
    uint64_t *out = r->piece_hash + i * (page_size / RT_TRACK_PIECE);
    for (size_t at = lo; at < hi; at += RT_TRACK_PIECE)
        *out++ = XXH3_64bits(page + (at - i * page_size), hi - at < RT_TRACK_PIECE ? hi - at : RT_TRACK_PIECE);
    atomic_store_explicit(&r->read_back[i], 1, memory_order_release);
    atomic_store_explicit(&r->owner->read_back_pending, true, memory_order_release);
}

static void handle_page_fault(struct region *r, size_t i, bool write)
{
    uint8_t *page = r->app_view + i * page_size;
    for (unsigned spins = 0;; backoff(&spins)) {
        uint8_t s = atomic_load(&r->state[i]);
        if (s == PAGE_BUSY)
            continue; /* another thread is fetching or collecting it */
        if (s == PAGE_DIRTY)
            return; /* already handled by another thread */
        /* A clean page is readable: its fault is a write, whatever the
         * error code says (valgrind's is always a read). */
        write = write || s == PAGE_CLEAN;
        if (!atomic_compare_exchange_weak(&r->state[i], &s, PAGE_BUSY))
            continue;
        if (s == PAGE_UNFETCHED)
            fetch_page(r, i);
        if (s == PAGE_UNFETCHED && !write)
            note_read_back(r, i, r->rw_view + i * page_size);
        mprotect(page, page_size, write ? PROT_READ | PROT_WRITE : PROT_READ);
        store_state(r, i, write ? PAGE_DIRTY : PAGE_CLEAN);
        atomic_fetch_add(&r->owner->faults, 1);
        return;
    }
}

/* --- zeros ahead of a first write (asynchronous write-protect) -----------
 *
 * A program filling fresh memory front to back (zink's 2 MiB upload ring
 * through glxgears: 422 of the run's 430 faults, a page every two frames)
 * pays a round trip to the fault thread for every page: its thread stops,
 * two context switches, and the fault thread's turn on a busy core. Where
 * the driver's pages ahead of a first write are unpopulated (zeros, and no
 * one wrote them: fresh_pages.h), the fault maps the next ZEROS_AHEAD
 * missing pages too, write-protected zeros: the program's writes to them
 * are the kernel's to note, as for a page it read. A refresh keeps such a
 * page while the program has not written it and the driver's page is still
 * unpopulated: the GPU has not written it either, so the view's zeros are
 * still the memory's bytes. Otherwise (written and collected, or the
 * driver's page populated) it is refreshed as any other page. A read of
 * such a page is no verification point: zeros no one wrote (one the GPU
 * wrote is dropped at the wait, and its next read faults and is one).
 *
 * Pages mapped ahead and never written cost every collect a look at their
 * bytes and every wait a look at the page tables, so only a write that
 * continues the pages before it (the first page, or the one before is
 * present) maps ahead, and as far as the run so far suggests: one page,
 * then twice as many at each fault that continues, up to ZEROS_AHEAD; and
 * those still unwritten ZEROS_AHEAD_WAITS waits after a region last mapped
 * any are dropped (zink's ring through glxgears writes a page every four
 * waits, so 8 pages ahead last it 32). Through glxgears' 1000 frames (bench/
 * README.md): 53 faults instead of 430, and the tracker's own time 36 ms
 * instead of 45 (8 ahead; 2 and 4 ahead about the same, 16 ahead 43 ms: a
 * collect looks at every page mapped ahead and not yet written). */
#define ZEROS_AHEAD 8
#define ZEROS_AHEAD_WAITS 128

static bool zeros_ahead_of(const struct region *r, size_t i)
{
    return r->zeros_ahead && (atomic_load(&r->zeros_ahead[i / 64]) & (1ull << (i % 64)));
}

static void forget_zeros_ahead(struct region *r, size_t i)
{
    if (r->zeros_ahead)
        atomic_fetch_and(&r->zeros_ahead[i / 64], ~(1ull << (i % 64)));
}

static uintptr_t real_page_of(const struct region *r, size_t i)
{
    return (uintptr_t)r->real - r->lead + i * page_size;
}

/* Claims (BUSY) the missing pages after page i a first write maps zeros
 * into, up to ZEROS_AHEAD; returns how many. */
static size_t claim_zeros_ahead(struct region *r, size_t i)
{
    bool continues = i == 0 || (atomic_load(&r->dirty_bits[(i - 1) / 64]) & (1ull << ((i - 1) % 64)));
    size_t window = continues && r->zeros_window ? r->zeros_window : 1;
    r->zeros_window = continues ? (window * 2 < ZEROS_AHEAD ? window * 2 : ZEROS_AHEAD) : 1;
    if (!continues)
        return 0;
    size_t want = r->page_count - i - 1 < window ? r->page_count - i - 1 : window;
    while (want > 0 && real_page_of(r, i + want) + page_size > r->real_anon_end)
        want--;
    size_t n = 0;
    for (; n < want; n++) {
        uint8_t unfetched = PAGE_UNFETCHED;
        if (!atomic_compare_exchange_strong(&r->state[i + 1 + n], &unfetched, PAGE_BUSY))
            break;
    }
    return n;
}

/* Page k, claimed, is to hold zeros mapped ahead (on) or not (off). */
static void mark_zeros_ahead(struct region *r, size_t k, bool on, uint64_t zero_hash)
{
    uint64_t bit = 1ull << (k % 64);
    if (on) {
        r->fetch_hash[k] = zero_hash;
        atomic_fetch_or(&r->zeros_ahead[k / 64], bit);
        atomic_fetch_or(&r->dirty_bits[k / 64], bit); /* present from the copy on: scans cover it */
    } else {
        atomic_fetch_and(&r->zeros_ahead[k / 64], ~bit);
        atomic_fetch_and(&r->dirty_bits[k / 64], ~bit);
        atomic_store(&r->state[k], PAGE_UNFETCHED); /* its fault fetches it */
    }
}

/* --- the userfaultfd fault handler (fault thread) ------------------------ */

/* The fault thread's own pages. */
struct fault_pages {
    uint8_t *bounce; /* one page, for a fetch */
    uint8_t *zeros;  /* ZEROS_AHEAD pages of zeros (NULL: none mapped ahead) */
    uint64_t zero_hash;
};

/* Serving a first write to page i, before the wake (the woken thread may
 * write the next page at once): see above. Everything a refresh or collect
 * reads of the pages is in place before the page tables are asked about
 * the driver's pages and before the copy: a refresh after a wait that
 * finds no page marked runs before that look, which then sees what the GPU
 * wrote; one that finds them marked asks the page tables itself (and waits
 * for BUSY pages); and the program can write a page, with no fault, as
 * soon as the copy maps it. */
static void map_zeros_ahead(struct region *r, size_t i, const struct fault_pages *fp)
{
    if (!r->zeros_ahead || !fp->zeros)
        return;
    size_t n = claim_zeros_ahead(r, i);
    for (size_t k = i + 1; k <= i + n; k++)
        mark_zeros_ahead(r, k, true, fp->zero_hash);
    size_t zeros = n ? rt_fresh_pages_unpopulated((void *)real_page_of(r, i + 1), page_size, n) : 0;
    for (size_t k = i + 1 + zeros; k <= i + n; k++)
        mark_zeros_ahead(r, k, false, 0); /* populated: the driver's bytes, fetched at its fault */
    if (zeros == 0)
        return;
    bool all = rt_uffd_copy(r->app_view + (i + 1) * page_size, fp->zeros, zeros * page_size, true);
    for (size_t k = i + 1; k <= i + zeros; k++) {
        if (!all && !rt_uffd_present(r->app_view + k * page_size))
            mark_zeros_ahead(r, k, false, 0);
        else
            atomic_store(&r->state[k], PAGE_CLEAN);
    }
    /* No protected_gen: refresh_zeros_ahead, not a scan, looks at these. */
    atomic_store(&r->zeros_mapped_at, atomic_load(&r->waits)); /* a racing refresh's count is as good */
}

/* A fault on page i, moved out by a wait that found the driver's bytes
 * the view's: the program reads or writes it again after waits, so later
 * waits keep it in place while the GPU leaves it alone (keep_unchanged). */
static void note_reuse(struct region *r, size_t i)
{
    uint8_t kept = KEEP_CANDIDATE;
    atomic_compare_exchange_strong(&r->kept[i], &kept, 1);
}

/* Serves one fault on page i. The faulting thread (or the kernel on its
 * behalf, inside a system call) waits until we map or unprotect the page. */
static void serve_uffd_fault(struct region *r, size_t i, bool write, const struct fault_pages *fp)
{
    uint8_t *bounce = fp->bounce;
    uint8_t *page = r->app_view + i * page_size;
    for (unsigned spins = 0;; backoff(&spins)) {
        uint8_t s = atomic_load(&r->state[i]);
        if (s == PAGE_BUSY)
            continue; /* a collect or refresh has it: wait for its end */
        if (s == PAGE_DIRTY || (s == PAGE_CLEAN && !write)) {
            rt_uffd_wake(page, page_size); /* resolved meanwhile: retry the access */
            return;
        }
        if (!atomic_compare_exchange_weak(&r->state[i], &s, PAGE_BUSY))
            continue;
        bool done;
        if (s == PAGE_UNFETCHED) {
            memset(bounce, 0, page_size);
            fetch_real(r, i, bounce);
            if (r->async)
                note_reuse(r, i);
            if (!write)
                note_read_back(r, i, bounce);
            /* Mapped read-only for a read: the next write faults again. */
            done = rt_uffd_copy(page, bounce, page_size, !write);
        } else {
            done = rt_uffd_protect(page, page_size, false);
        }
        if (!done) { /* not missing after all (cannot happen): let it retry */
            atomic_store(&r->state[i], s);
            rt_uffd_wake(page, page_size);
            return;
        }
        /* The state before the wake: the woken thread may submit at once,
         * and its collect must find the page dirty. Asynchronous: the
         * kernel knows a page mapped writable as written; ours is CLEAN
         * and its bit says present, so scans cover it. */
        if (r->async)
            mark_dirty(r, i);
        if (r->async && !write)
            atomic_fetch_add(&r->protected_gen, 1); /* after the copy: see refresh_async */
        store_state(r, i, write && !r->async ? PAGE_DIRTY : PAGE_CLEAN);
        atomic_fetch_add(&r->owner->faults, 1);
        if (s == PAGE_UNFETCHED && write && r->async)
            map_zeros_ahead(r, i, fp);
        rt_uffd_wake(page, page_size);
        return;
    }
}

static void on_uffd_fault(uintptr_t addr, bool write)
{
    static struct fault_pages fp; /* only the fault thread comes here */
    if (!fp.bounce)
        fp.bounce = aligned_alloc(page_size, page_size);
    if (!fp.zeros && (fp.zeros = aligned_alloc(page_size, ZEROS_AHEAD * page_size)) != NULL) {
        memset(fp.zeros, 0, ZEROS_AHEAD * page_size);
        fp.zero_hash = XXH3_64bits(fp.zeros, page_size);
    }
    uint64_t start = now_ns();
    unsigned e = read_begin();
    struct region *r = region_at(addr);
    if (r && fp.bounce)
        serve_uffd_fault(r, (addr - (uintptr_t)r->app_view) / page_size, write, &fp);
    else
        rt_uffd_wake((void *)(addr & ~(uintptr_t)(page_size - 1)), page_size);
    if (r && timed)
        atomic_fetch_add(&r->owner->fault_ns, now_ns() - start);
    read_end(e);
}

bool rt_tracker_handle_fault(void *addr, void *uctx)
{
    unsigned e = read_begin();
    struct region *r = region_at((uintptr_t)addr);
    if (r)
        handle_page_fault(r, ((uintptr_t)addr - (uintptr_t)r->app_view) / page_size, fault_was_write(uctx));
    read_end(e);
    return r != NULL;
}

/* --- lifecycle ---------------------------------------------------------- */

/* Says once per process what the signal fallback cannot do: the kernel
 * returns EFAULT instead of raising SIGSEGV when a system call touches a
 * guarded page. */
static void warn_signal_fallback(const char *why)
{
    static atomic_bool warned;
    if (atomic_exchange(&warned, true))
        return;
    fprintf(stderr,
            "retrace: page-guard memory tracking uses signals (%s): system calls that write into mapped "
            "memory (read(2), fread into a staging buffer) fail with EFAULT, and reads of GPU results "
            "are not verification points; use --memory-tracking full for such programs\n",
            why);
}

/* userfaultfd when the kernel gives it with kernel-mode faults (with
 * asynchronous write-protect where it has that too), else the SIGSEGV
 * handler. RETRACE_USERFAULTFD=0 asks for signals, =sync for write-protect
 * faults (tests, bench). */
static rt_status choose_backend(struct rt_memory_tracker *t)
{
    char why[200] = "RETRACE_USERFAULTFD=0";
    const char *env = getenv("RETRACE_USERFAULTFD");
    bool wanted = !env || strcmp(env, "0") != 0;
    bool async = !env || strcmp(env, "sync") != 0;
    if (wanted && rt_uffd_start(on_uffd_fault, async, why, sizeof why)) {
        t->backend = rt_uffd_async() ? RT_TRACK_WP_ASYNC : RT_TRACK_USERFAULTFD;
        return rt_ok_status();
    }
    t->backend = RT_TRACK_SIGNALS;
    RT_TRY(capture_signals_install());
    warn_signal_fallback(why);
    return rt_ok_status();
}

static bool take_tracker_slot(struct rt_memory_tracker *t)
{
    for (size_t k = 0; k < MAX_TRACKERS; k++) {
        struct rt_memory_tracker *expected = NULL;
        if (atomic_compare_exchange_strong(&trackers[k], &expected, t))
            return true;
    }
    return false;
}

rt_status rt_tracker_create(enum rt_track_mode mode, struct rt_memory_tracker **out)
{
    if (!page_size)
        page_size = (size_t)sysconf(_SC_PAGESIZE);
    timed = getenv("RETRACE_TRACK_STATS") != NULL;
    struct rt_memory_tracker *t = calloc(1, sizeof *t);
    if (!t)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    t->mode = mode;
    t->backend = RT_TRACK_NO_GUARD;
    pthread_mutex_init(&t->change_lock, NULL);
    pthread_mutex_init(&t->scan_lock, NULL);
    atomic_init(&t->set, (struct region_set *)&empty_set);
    rt_status s = mode == RT_TRACK_PAGE_GUARD ? choose_backend(t) : rt_ok_status();
    if (rt_ok(&s) && !take_tracker_slot(t))
        s = rt_errorf(RT_ERR_INTERNAL, "more than %d memory trackers at once", MAX_TRACKERS);
    if (!rt_ok(&s)) {
        pthread_mutex_destroy(&t->change_lock);
        pthread_mutex_destroy(&t->scan_lock);
        free(t);
        return s;
    }
    *out = t;
    return rt_ok_status();
}

enum rt_track_backend rt_tracker_backend(const struct rt_memory_tracker *tracker)
{
    return tracker->backend;
}

static void region_free(struct region *r)
{
    if (r->app_view)
        munmap(r->app_view, r->page_count * page_size);
    if (r->rw_view && r->rw_view != r->app_view)
        munmap(r->rw_view, r->page_count * page_size);
    if (r->hold)
        munmap(r->hold, r->page_count * page_size);
    free((void *)r->state);
    free(r->fetch_hash);
    free((void *)r->read_back);
    free(r->piece_hash);
    free((void *)r->dirty_bits);
    free(r->hot);
    free((void *)r->kept);
    free((void *)r->zeros_ahead);
    free(r->real_populated);
    free(r);
}

void rt_tracker_destroy(struct rt_memory_tracker *tracker)
{
    if (!tracker)
        return;
    for (size_t k = 0; k < MAX_TRACKERS; k++) {
        struct rt_memory_tracker *expected = tracker;
        atomic_compare_exchange_strong(&trackers[k], &expected, NULL);
    }
    wait_for_readers(); /* no fault handler still looks at its regions */
    struct region_set *set = set_of(tracker);
    for (size_t i = 0; i < set->count; i++)
        region_free(set->items[i]);
    set_free(set);
    pthread_mutex_destroy(&tracker->change_lock);
    pthread_mutex_destroy(&tracker->scan_lock);
    free(tracker->bounce);
    free(tracker);
}

/* userfaultfd: one anonymous view; a page is missing until the fault
 * thread maps a copy of the real bytes, write-protected until written. */
static rt_status make_uffd_view(struct region *r)
{
    size_t bytes = r->page_count * page_size;
    void *app = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (app == MAP_FAILED)
        return rt_errorf(RT_ERR_INTERNAL, "cannot map a %zu-byte shadow mapping", bytes);
    r->app_view = r->rw_view = app;
    r->real_anon_end = rt_fresh_anonymous_end(r->real);
    r->real_populated = r->real_anon_end ? calloc((r->page_count + 63) / 64, sizeof *r->real_populated) : NULL;
    if (r->async && r->real_anon_end) /* NULL: no zeros mapped ahead (map_zeros_ahead) */
        r->zeros_ahead = calloc((r->page_count + 63) / 64, sizeof *r->zeros_ahead);
    madvise(app, bytes, MADV_NOHUGEPAGE); /* faults and copies are per page */
    if (!rt_uffd_register(app, bytes))
        return rt_errorf(RT_ERR_INTERNAL, "cannot register a %zu-byte shadow mapping with userfaultfd", bytes);
    if (!r->async)
        return rt_ok_status();
    /* Address space only: pages pass through it during a refresh. */
    void *hold = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (hold == MAP_FAILED)
        return rt_errorf(RT_ERR_INTERNAL, "cannot map a %zu-byte holding area", bytes);
    r->hold = hold;
    madvise(hold, bytes, MADV_NOHUGEPAGE);
    if (!rt_uffd_register_hold(hold, bytes))
        return rt_errorf(RT_ERR_INTERNAL, "cannot register a %zu-byte holding area with userfaultfd", bytes);
    return rt_ok_status();
}

/* Signals without userfaultfd: a system call on a PROT_NONE page fails with
 * EFAULT, so no page waits unfetched: all are fetched now, readable, and
 * guarded against writes only. */
static void fetch_all(struct region *r)
{
    for (size_t i = 0; i < r->page_count; i++) {
        fetch_page(r, i);
        atomic_store(&r->state[i], PAGE_CLEAN);
    }
    mprotect(r->app_view, r->page_count * page_size, PROT_READ);
}

static rt_status make_views(struct region *r)
{
    if (r->uffd)
        return make_uffd_view(r);
    size_t bytes = r->page_count * page_size;
    int fd = memfd_create("retrace-shadow", MFD_CLOEXEC);
    if (fd < 0)
        return rt_errorf(RT_ERR_INTERNAL, "memfd_create failed for a shadow mapping");
    rt_status s = rt_ok_status();
    if (ftruncate(fd, (off_t)bytes) != 0) {
        s = rt_errorf(RT_ERR_INTERNAL, "cannot size a %zu-byte shadow mapping", bytes);
    } else {
        void *app = mmap(NULL, bytes, PROT_NONE, MAP_SHARED, fd, 0);
        void *rw = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        r->app_view = app == MAP_FAILED ? NULL : app;
        r->rw_view = rw == MAP_FAILED ? NULL : rw;
        if (!r->app_view || !r->rw_view)
            s = rt_errorf(RT_ERR_INTERNAL, "cannot map a %zu-byte shadow mapping", bytes);
        else
            fetch_all(r);
    }
    close(fd); /* the mappings keep the memory alive */
    return s;
}

static rt_status publish(struct region *r)
{
    struct rt_memory_tracker *t = r->owner;
    pthread_mutex_lock(&t->change_lock);
    bool ok = publish_change(t, r, true);
    pthread_mutex_unlock(&t->change_lock);
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

rt_status rt_tracker_map(struct rt_memory_tracker *tracker, uint64_t memory_id, void *real,
                         uint64_t map_offset, size_t size, bool coherent, void **app_ptr_out)
{
    struct region *r = calloc(1, sizeof *r);
    if (!r)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    *r = (struct region){.owner = tracker, .memory_id = memory_id, .map_offset = map_offset,
                         .real = real, .size = size, .coherent = coherent,
                         .uffd = tracker->backend == RT_TRACK_USERFAULTFD ||
                                 tracker->backend == RT_TRACK_WP_ASYNC,
                         .async = tracker->backend == RT_TRACK_WP_ASYNC};
    if (tracker->mode == RT_TRACK_FULL) {
        rt_status s = publish(r);
        if (!rt_ok(&s)) {
            free(r);
            return s;
        }
        *app_ptr_out = real;
        return rt_ok_status();
    }
    r->lead = (uintptr_t)real % page_size;
    r->page_count = (r->lead + size + page_size - 1) / page_size;
    r->state = calloc(r->page_count, 1);
    r->fetch_hash = calloc(r->page_count, sizeof *r->fetch_hash);
    r->read_back = calloc(r->page_count, 1);
    /* Untouched until pages are read back: calloc's pages stay unallocated. */
    r->piece_hash = calloc(r->page_count * (page_size / RT_TRACK_PIECE), sizeof *r->piece_hash);
    r->dirty_bits = calloc((r->page_count + 63) / 64, sizeof *r->dirty_bits);
    r->hot = calloc(r->page_count, 1);
    r->kept = calloc(r->page_count, 1);
    rt_status s = r->state && r->fetch_hash && r->read_back && r->piece_hash && r->dirty_bits && r->hot &&
                          r->kept
                      ? make_views(r)
                                             : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    if (rt_ok(&s))
        s = publish(r);
    if (!rt_ok(&s)) {
        region_free(r);
        return s;
    }
    *app_ptr_out = r->app_view + r->lead;
    return rt_ok_status();
}

/* In a read section, or with change_lock held. */
static struct region *find_mapping(struct rt_memory_tracker *tracker, uint64_t memory_id)
{
    struct region_set *set = set_of(tracker);
    for (size_t i = 0; i < set->count; i++)
        if (set->items[i]->memory_id == memory_id)
            return set->items[i];
    return NULL;
}

/* --- asynchronous write-protect (RT_TRACK_WP_ASYNC) -------------------------
 *
 * The kernel resolves the application's writes to protected pages itself;
 * nothing reaches us but missing-page faults (a page's first access after a
 * refresh). What was written is asked for at collect, one PAGEMAP_SCAN per
 * range, which protects the pages it reports in the same page-table walk:
 * a write after that walk (and its TLB flush) is the next collect's. Page
 * states here: UNFETCHED (missing), CLEAN (present; written or not is the
 * kernel's to say), BUSY (the fault thread or a refresh has it). A tracker's
 * collects and refreshes take scan_lock, so a refresh never drops a page a
 * collect is copying.
 *
 * Refresh is the hard part. It must make pages the application has not
 * written since the last collect fetch the real memory again (the GPU may
 * have written it), and the application may write such a page on another
 * thread at any moment: nothing stops it, the kernel lets the write through.
 * A scan for unwritten pages followed by MADV_DONTNEED has a window between
 * the two where a write lands and is then thrown away. So a refresh takes
 * the unwritten pages out of the application's view with UFFDIO_MOVE into
 * the region's holding area: after the move an access faults into our
 * thread and waits (the page is BUSY), and the page's bytes can no longer
 * change. A write that landed between the scan and the move is in the moved
 * page; the page is then compared with the hash of its bytes at its last
 * fetch or collect: equal, and it is dropped (a write of identical bytes is
 * the same memory); different, and it is moved back, written.
 *
 * Hot pages. Protecting a written page again at collect takes a TLB
 * shootdown (an IPI to every core running the program: tens of
 * microseconds on a virtual machine, on the submitting thread) and the
 * page's next write a fault in the kernel. A page the program rewrites
 * before every submit (streamed vertices, uniforms) would pay both at every
 * submit. So a collect scans without protecting: a page it finds changed
 * stays writable ("hot": the kernel keeps reporting it as written, and
 * every collect hashes it, which is how its next change is found); a page
 * written with identical bytes is protected again and then looked at once
 * more, so a write between that look and the protection is not lost. A
 * refresh treats a hot page whose bytes still hash as at the last collect
 * like an unwritten page (moved out, looked at, dropped or moved back), and
 * keeps one whose bytes changed since, as it keeps a written page. So a hot
 * page the program left ("idle": found unchanged HOT_KEEP collects in a
 * row) is dropped by the next wait with no protection at all: a program
 * filling a ring page by page (zink's upload buffer: a page every two
 * frames) would otherwise pay a shootdown for every page, and the move of
 * the wait's drop after it. Idle pages are protected again only when
 * looking at them costs more: more than HOT_IDLE_PAGES of a region are idle
 * at a collect (all are then), or one stayed idle HOT_IDLE_MAX collects
 * without a wait (a program that seldom waits).
 */

static void collect_async(struct region *r, size_t view_lo, size_t view_hi, rt_track_dirty_fn fn, void *ctx);
static void refresh_async(struct region *r);

/* --- collecting dirty pages -------------------------------------------- */

struct reporter {
    struct region *r;
    rt_track_dirty_fn fn;
    void *ctx;
    size_t run_lo, run_hi; /* pending run of changed bytes, in view offsets */
    size_t view_lo, view_hi; /* the range being collected, in view offsets */
};

static void report_run(struct reporter *rep)
{
    struct region *r = rep->r;
    if (rep->run_hi <= rep->run_lo)
        return;
    size_t n = rep->run_hi - rep->run_lo;
    rep->fn(rep->ctx, r->memory_id, r->map_offset + (rep->run_lo - r->lead),
            r->rw_view + rep->run_lo, n);
    r->owner->bytes_reported += n;
    /* The run's pages stayed BUSY from their collect until now, so that a
     * wait on another thread could not fetch the GPU's bytes over the ones
     * being recorded. */
    for (size_t i = rep->run_lo / page_size; i * page_size < rep->run_hi; i++) {
        size_t page_lo, page_hi;
        page_span(r, i, &page_lo, &page_hi);
        bool whole = rep->view_lo <= page_lo && rep->view_hi >= page_hi;
        store_state(r, i, whole ? PAGE_CLEAN : PAGE_DIRTY);
    }
    rep->run_lo = rep->run_hi = 0;
}

/* Takes page i from DIRTY to BUSY and clears its dirty bit. A bit whose page
 * is not dirty (set after another collect took the page) is cleared, unless
 * the page became dirty again meanwhile: the bit is set after the state. */
static bool take_dirty_page(struct region *r, size_t i)
{
    uint8_t s = PAGE_DIRTY;
    uint64_t bit = 1ull << (i % 64);
    if (atomic_compare_exchange_strong(&r->state[i], &s, PAGE_BUSY)) {
        atomic_fetch_and(&r->dirty_bits[i / 64], ~bit);
        return true;
    }
    if (s == PAGE_BUSY)
        return false; /* its holder sets the bit again if it leaves it dirty */
    atomic_fetch_and(&r->dirty_bits[i / 64], ~bit);
    if (atomic_load(&r->state[i]) == PAGE_DIRTY)
        mark_dirty(r, i);
    return false;
}

/* Collects page i's bytes in [lo, hi) (view offsets). Returns true when they
 * changed since the page was fetched and were copied to the real memory; the
 * page then stays BUSY until report_run has recorded it. */
static bool collect_page(struct region *r, size_t i, size_t lo, size_t hi)
{
    if (!take_dirty_page(r, i))
        return false;
    size_t page_lo, page_hi;
    page_span(r, i, &page_lo, &page_hi);
    bool whole = lo <= page_lo && hi >= page_hi;
    /* Guard first: a write racing with us then waits and lands in the next
     * collect. The page stays readable: the real memory now holds its bytes
     * (a read after the next wait fetches again: refresh). */
    uint8_t *page = r->app_view + i * page_size;
    if (whole && r->uffd)
        rt_uffd_protect(page, page_size, true);
    else if (whole)
        mprotect(page, page_size, PROT_READ);
    uint64_t hash = XXH3_64bits(r->rw_view + i * page_size, page_size);
    bool changed = hash != r->fetch_hash[i];
    if (changed)
        memcpy(r->real + (lo - r->lead), r->rw_view + lo, hi - lo);
    if (changed)
        r->owner->pages_reported++;
    else
        r->owner->pages_unchanged++;
    if (whole)
        r->fetch_hash[i] = hash;
    if (!changed)
        store_state(r, i, whole ? PAGE_CLEAN : PAGE_DIRTY);
    return changed;
}

/* The dirty bits of word w of the region, limited to pages [first, end). */
static uint64_t bits_word(_Atomic uint64_t *words, size_t w, size_t first, size_t end)
{
    uint64_t bits = atomic_load_explicit(&words[w], memory_order_acquire);
    if (first > w * 64)
        bits &= ~0ull << (first - w * 64);
    if (end < (w + 1) * 64)
        bits &= (1ull << (end - w * 64)) - 1;
    return bits;
}

static uint64_t dirty_word(struct region *r, size_t w, size_t first, size_t end)
{
    return bits_word(r->dirty_bits, w, first, end);
}

/* Narrows [*first, *end) to the pages from the first to the last whose bit
 * is set in words. False: none is. */
static bool bits_span(_Atomic uint64_t *words, size_t *first, size_t *end)
{
    size_t lo = *end, hi = *first;
    for (size_t w = *first / 64; w * 64 < *end; w++) {
        uint64_t bits = bits_word(words, w, *first, *end);
        if (!bits)
            continue;
        size_t a = w * 64 + (size_t)__builtin_ctzll(bits), b = w * 64 + 64 - (size_t)__builtin_clzll(bits);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    if (lo >= hi)
        return false;
    *first = lo;
    *end = hi;
    return true;
}

/* Collects the mapping's bytes in [lo, hi), offsets relative to the map. */
static void collect_region(struct region *r, size_t lo, size_t hi, rt_track_dirty_fn fn, void *ctx)
{
    if (hi > r->size)
        hi = r->size;
    if (lo >= hi)
        return;
    if (r->owner->mode == RT_TRACK_FULL) {
        fn(ctx, r->memory_id, r->map_offset + lo, r->real + lo, hi - lo);
        r->owner->bytes_reported += hi - lo;
        return;
    }
    size_t view_lo = lo + r->lead, view_hi = hi + r->lead;
    if (r->async) {
        collect_async(r, view_lo, view_hi, fn, ctx);
        return;
    }
    struct reporter rep = {.r = r, .fn = fn, .ctx = ctx, .view_lo = view_lo, .view_hi = view_hi};
    size_t first = view_lo / page_size, end = (view_hi + page_size - 1) / page_size;
    /* Only pages with their dirty bit set: 64 clean pages cost one load. */
    for (size_t w = first / 64; w * 64 < end; w++) {
        for (uint64_t bits = dirty_word(r, w, first, end); bits; bits &= bits - 1) {
            size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
            size_t span_lo = i * page_size > view_lo ? i * page_size : view_lo;
            size_t span_hi = (i + 1) * page_size < view_hi ? (i + 1) * page_size : view_hi;
            if (rep.run_hi != span_lo)
                report_run(&rep); /* a gap ends the pending run */
            if (collect_page(r, i, span_lo, span_hi)) {
                if (rep.run_hi != span_lo)
                    rep.run_lo = span_lo;
                rep.run_hi = span_hi;
            }
        }
    }
    report_run(&rep);
}

void rt_tracker_collect(struct rt_memory_tracker *tracker, rt_track_dirty_fn fn, void *ctx)
{
    uint64_t start = now_ns();
    rt_tracker_take_read_back(tracker);
    unsigned e = read_begin();
    struct region_set *set = set_of(tracker);
    for (size_t i = 0; i < set->count; i++)
        if (set->items[i]->coherent)
            collect_region(set->items[i], 0, set->items[i]->size, fn, ctx);
    read_end(e);
    atomic_fetch_add(&tracker->collects, 1);
    atomic_fetch_add(&tracker->collect_ns, now_ns() - start);
}

void rt_tracker_flush_range(struct rt_memory_tracker *tracker, uint64_t memory_id,
                            uint64_t offset, uint64_t size, rt_track_dirty_fn fn, void *ctx)
{
    unsigned e = read_begin();
    struct region *r = find_mapping(tracker, memory_id);
    if (r) {
        /* Ranges are relative to the memory object; VK_WHOLE_SIZE is ~0. */
        uint64_t lo = offset > r->map_offset ? offset - r->map_offset : 0;
        uint64_t hi = size > UINT64_MAX - offset ? UINT64_MAX : offset + size;
        hi = hi > r->map_offset ? hi - r->map_offset : 0;
        collect_region(r, (size_t)(lo < r->size ? lo : r->size), (size_t)(hi < r->size ? hi : r->size),
                       fn, ctx);
    }
    read_end(e);
}

void rt_tracker_unmap(struct rt_memory_tracker *tracker, uint64_t memory_id,
                      rt_track_dirty_fn fn, void *ctx)
{
    rt_tracker_take_read_back(tracker);
    pthread_mutex_lock(&tracker->change_lock);
    struct region *r = find_mapping(tracker, memory_id);
    if (r && r->coherent && fn)
        collect_region(r, 0, r->size, fn, ctx);
    /* Without memory for a smaller set the region stays found, but unused. */
    bool gone = r && publish_change(tracker, r, false);
    pthread_mutex_unlock(&tracker->change_lock);
    if (gone)
        region_free(r); /* publish_change waited for its last reader */
}

/* Takes page i from CLEAN to BUSY. A page BUSY in another thread's hands
 * (its refresh, not yet guarded; a fetch) is waited for: when a refresh
 * returns, no page may still show bytes from before the wait that called it. */
static bool take_clean_page(struct region *r, size_t i)
{
    for (unsigned spins = 0;; backoff(&spins)) {
        uint8_t s = atomic_load(&r->state[i]);
        if (s == PAGE_BUSY)
            continue;
        if (s != PAGE_CLEAN)
            return false;
        if (atomic_compare_exchange_weak(&r->state[i], &s, PAGE_BUSY))
            return true;
    }
}

/* --- asynchronous write-protect: collect and refresh (see above) --------- */

/* The run of changed bytes collected so far, copied into tracker->bounce
 * (first page of the run at bounce[0]); reported from there, so the trace
 * holds exactly what was copied to the real memory even if the application
 * writes again meanwhile. */
struct async_run {
    struct region *r;
    rt_track_dirty_fn fn;
    void *ctx;
    size_t first_page;   /* the page at bounce[0] */
    size_t lo, hi;       /* the run, in view offsets; empty when lo == hi */
    size_t idle;         /* hot pages found idle by this collect (see above) */
};

static void async_report(struct async_run *run)
{
    struct region *r = run->r;
    if (run->hi > run->lo) {
        run->fn(run->ctx, r->memory_id, r->map_offset + (run->lo - r->lead),
                r->owner->bounce + (run->lo - run->first_page * page_size), run->hi - run->lo);
        r->owner->bytes_reported += run->hi - run->lo;
    }
    run->lo = run->hi = 0;
}

/* Room in the bounce buffer for page i of the run (grows; false when out
 * of memory: the run is reported and the page starts a new one). */
static uint8_t *bounce_page(struct async_run *run, size_t i)
{
    struct rt_memory_tracker *t = run->r->owner;
    size_t need = (i - run->first_page + 1) * page_size;
    if (need > t->bounce_size) {
        size_t size = t->bounce_size ? t->bounce_size : 16 * page_size;
        while (size < need)
            size *= 2;
        uint8_t *grown = realloc(t->bounce, size);
        if (!grown)
            return NULL;
        t->bounce = grown;
        t->bounce_size = size;
    }
    return t->bounce + (i - run->first_page) * page_size;
}

/* A page kept at waits (see keep_unchanged) that a collect finds written is
 * in use: it is kept at the next waits again. */
static void note_kept_in_use(struct region *r, size_t i)
{
    uint8_t kept = atomic_load_explicit(&r->kept[i], memory_order_relaxed);
    if (kept != KEEP_NO && kept <= KEEP_WAITS + 1)
        atomic_compare_exchange_strong(&r->kept[i], &kept, 1);
}

/* A hot page is writable, so every collect looks at it, and mostly finds
 * it as the last one left it: its bytes hashed where they are say so
 * without copying them (a changed one is hashed again once copied, so the
 * reference is the hash of the bytes reported). A write racing with that
 * look is one the copy could miss as well; the page stays hot, so the next
 * collect or the next wait's move sees it. */
static bool hot_page_unchanged(const struct region *r, size_t i)
{
    return XXH3_64bits(r->app_view + i * page_size, page_size) == r->fetch_hash[i];
}

/* Page i was written: its bytes in [lo, hi) (view offsets) go to the real
 * memory and the run when they differ from what was last fetched. whole:
 * all of the page is collected, so its hash becomes the reference. Returns
 * whether they differed. */
static bool collect_async_page(struct async_run *run, size_t i, size_t lo, size_t hi, bool whole)
{
    struct region *r = run->r;
    if (run->hi != lo || run->hi == run->lo)
        async_report(run); /* a gap ends the pending run */
    if (r->hot[i] && hot_page_unchanged(r, i)) {
        forget_zeros_ahead(r, i);
        note_kept_in_use(r, i);
        async_report(run);
        return false;
    }
    if (run->hi == run->lo)
        run->first_page = i;
    uint8_t *copy = bounce_page(run, i);
    if (!copy) {
        async_report(run);
        run->first_page = i;
        copy = bounce_page(run, i);
    }
    if (!copy)
        return false; /* out of memory even for one page: it stays written only if partial */
    memcpy(copy, r->app_view + i * page_size, page_size);
    forget_zeros_ahead(r, i); /* written: collected from now on */
    note_kept_in_use(r, i);
    uint64_t hash = XXH3_64bits(copy, page_size);
    bool changed = hash != r->fetch_hash[i];
    if (whole)
        r->fetch_hash[i] = hash;
    if (!changed) {
        r->owner->pages_unchanged += !r->hot[i]; /* a hot page is looked at every time */
        async_report(run);
        return false;
    }
    r->owner->pages_reported++;
    memcpy(r->real + (lo - r->lead), copy + (lo - i * page_size), hi - lo);
    if (run->hi != lo)
        run->lo = lo;
    run->hi = hi;
    return true;
}

/* Collects found unchanged in a row before a hot page is protected again. */
/* hot[i]: 1 + the collects in a row that found the page unchanged, up to
 * HOT_IDLE_MAX + 1; HOT_PROTECT: to be protected again by protect_unchanged. */
#define HOT_KEEP 3        /* collects found unchanged before a hot page is idle */
#define HOT_IDLE_MAX 64   /* collects idle before it is protected, however few are */
#define HOT_IDLE_PAGES 16 /* idle pages of a region a collect leaves unprotected */
#define HOT_PROTECT 0xff

/* A whole page found written, collected: changed, it stays writable (hot);
 * unchanged, it is marked for protect_unchanged (see above). */
static void collect_whole_page(struct async_run *run, size_t i)
{
    struct region *r = run->r;
    size_t lo, hi;
    page_span(r, i, &lo, &hi);
    if (collect_async_page(run, i, lo, hi, true))
        r->hot[i] = 1;
    else if (!r->hot[i])
        r->hot[i] = HOT_PROTECT;
    else if (r->hot[i] <= HOT_IDLE_MAX)
        r->hot[i]++;
    run->idle += r->hot[i] != HOT_PROTECT && r->hot[i] > HOT_KEEP;
}

/* Whether protect_unchanged protects page i again (see above). */
static bool to_protect(const struct async_run *run, size_t i)
{
    uint8_t hot = run->r->hot[i];
    return hot == HOT_PROTECT || hot > HOT_IDLE_MAX || (hot > HOT_KEEP && run->idle > HOT_IDLE_PAGES);
}

/* Protects the marked pages of [first, end) again, in runs, and collects
 * each once more: a write before the protection is in what is read now, one
 * after it is the next collect's. */
static void protect_unchanged(struct async_run *run, size_t first, size_t end)
{
    struct region *r = run->r;
    for (size_t i = first, j; i < end; i = j) {
        for (j = i; j < end && to_protect(run, j); j++)
            ;
        if (j == i) {
            j++;
            continue;
        }
        rt_uffd_protect(r->app_view + i * page_size, (j - i) * page_size, true);
        atomic_fetch_add(&r->protected_gen, 1);
        r->owner->reprotects += j - i;
        async_report(run); /* what follows is a run of its own */
        for (size_t k = i; k < j; k++) {
            size_t lo, hi;
            page_span(r, k, &lo, &hi);
            collect_async_page(run, k, lo, hi, true); /* not counted again: still marked */
            r->hot[k] = 0;
        }
    }
}

/* Scans pages [first, end) for written ones and collects them, within
 * [view_lo, view_hi); whole: they are whole pages of the range (hot pages,
 * see above). The scan protects nothing. */
/* Whether every present page of [first, end) is hot (left writable since a
 * collect found it written) or holds zeros mapped ahead: a scan would report
 * each hot page as written, and a page of zeros mapped ahead is written as
 * far as a collect cares exactly when it holds anything else (a missing
 * page cannot be written without a fault, and the fault thread sets a
 * page's present bit before it wakes the writer). */
static bool only_hot_present(struct region *r, size_t first, size_t end)
{
    for (size_t w = first / 64; w * 64 < end; w++)
        for (uint64_t bits = dirty_word(r, w, first, end); bits; bits &= bits - 1) {
            size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
            if (!r->hot[i] && !zeros_ahead_of(r, i))
                return false;
        }
    return true;
}

/* Words or'ed together, eight at a time: the compiler's vector code reads
 * a page in a few dozen nanoseconds (memcmp against a page of zeros reads
 * two). */
static bool page_is_zeros(const uint8_t *p)
{
    uint64_t any = 0;
    for (size_t k = 0; k < page_size; k += 64) {
        uint64_t w[8];
        memcpy(w, p + k, sizeof w);
        any |= w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7];
    }
    return any == 0;
}

/* Page i, marked as holding zeros mapped ahead, still holds zeros. One the
 * fault thread is mapping (BUSY) is waited for: reading it missing would
 * fault into that thread's queue all the same. */
static bool zeros_still_there(struct region *r, size_t i)
{
    for (unsigned spins = 0; atomic_load(&r->state[i]) == PAGE_BUSY; backoff(&spins))
        ;
    return page_is_zeros(r->app_view + i * page_size);
}

static void collect_async_pages(struct async_run *run, size_t first, size_t end, size_t view_lo,
                                size_t view_hi, bool whole_pages)
{
    struct region *r = run->r;
    uintptr_t at = (uintptr_t)(r->app_view + first * page_size);
    uintptr_t stop = (uintptr_t)(r->app_view + end * page_size);
    if (whole_pages && only_hot_present(r, first, end)) { /* the scan's answer, without it */
        for (size_t w = first / 64; w * 64 < end; w++)
            for (uint64_t bits = dirty_word(r, w, first, end); bits; bits &= bits - 1) {
                size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
                if (r->hot[i] || !zeros_still_there(r, i))
                    collect_whole_page(run, i);
            }
        stop = at;
    }
    struct rt_uffd_run runs[32];
    while (at < stop) {
        uintptr_t next;
        long n = rt_uffd_scan((void *)at, stop - at, true, false, runs, 32, &next);
        if (n < 0)
            break; /* cannot happen on our own registered view */
        for (long k = 0; k < n; k++)
            for (uintptr_t p = runs[k].start; p < runs[k].end; p += page_size) {
                size_t i = (p - (uintptr_t)r->app_view) / page_size, lo, hi;
                page_span(r, i, &lo, &hi);
                if (whole_pages)
                    collect_whole_page(run, i);
                else
                    collect_async_page(run, i, lo > view_lo ? lo : view_lo, hi < view_hi ? hi : view_hi, false);
            }
        at = next > at ? next : stop;
    }
    if (whole_pages)
        protect_unchanged(run, first, end);
}

/* Collects [view_lo, view_hi): its whole pages with a scan that protects
 * them again, a partly covered first or last page (a flush of part of a
 * page) with one that leaves it written, as the other backends leave it
 * dirty. */
/* The pages from the first to the last present one within [*first, *end)
 * (their bits, set by the fault thread, cleared by a refresh's drop): a scan
 * walks page tables, so it skips what cannot be written. False: none. */
static bool present_span(struct region *r, size_t *first, size_t *end)
{
    return bits_span(r->dirty_bits, first, end);
}

static bool covers_page(const struct region *r, size_t i, size_t view_lo, size_t view_hi)
{
    size_t lo, hi;
    page_span(r, i, &lo, &hi);
    return view_lo <= lo && view_hi >= hi;
}

static void collect_async(struct region *r, size_t view_lo, size_t view_hi, rt_track_dirty_fn fn, void *ctx)
{
    size_t first = view_lo / page_size, end = (view_hi + page_size - 1) / page_size;
    size_t whole_first = first + !covers_page(r, first, view_lo, view_hi);
    size_t whole_end = end - !covers_page(r, end - 1, view_lo, view_hi);
    struct async_run run = {.r = r, .fn = fn, .ctx = ctx};
    pthread_mutex_lock(&r->owner->scan_lock);
    size_t lo = first, hi = end;
    if (!present_span(r, &lo, &hi)) {
        /* nothing present: nothing written */
    } else if (whole_first >= whole_end) { /* one or two partly covered pages */
        collect_async_pages(&run, lo, hi, view_lo, view_hi, false);
    } else {
        collect_async_pages(&run, lo, whole_first > hi ? hi : whole_first, view_lo, view_hi, false);
        collect_async_pages(&run, whole_first > lo ? whole_first : lo, whole_end < hi ? whole_end : hi,
                            view_lo, view_hi, true);
        collect_async_pages(&run, whole_end > lo ? whole_end : lo, hi, view_lo, view_hi, false);
    }
    async_report(&run);
    pthread_mutex_unlock(&r->owner->scan_lock);
}

/* Says once per process that a page could not be moved (shared with a
 * child after fork(2), pinned): it was dropped without the move, and a
 * write racing with that drop would be lost. */
static void warn_unmoved(void)
{
    static atomic_bool warned;
    if (!atomic_exchange(&warned, true))
        fprintf(stderr, "retrace: a mapped page could not be moved at a wait (shared with a child "
                        "process?); a write racing with that wait may be lost\n");
}

/* Pages [first, end) are BUSY and were unwritten at the scan: moved out,
 * looked at, dropped or moved back (see above). */
static void refresh_async_run(struct region *r, size_t first, size_t end)
{
    size_t bytes = (end - first) * page_size;
    uint8_t *view = r->app_view + first * page_size, *hold = r->hold + first * page_size;
    bool all_moved = rt_uffd_move(hold, view, bytes) == bytes;
    for (size_t i = first; i < end; i++) {
        uint8_t *page = hold + (i - first) * page_size, *app_page = r->app_view + i * page_size;
        bool in_hold = all_moved || rt_uffd_present(page);
        if (!in_hold && rt_uffd_present(app_page)) { /* once more alone, into an emptied holding page */
            madvise(page, page_size, MADV_DONTNEED);
            in_hold = rt_uffd_move(page, app_page, page_size) == page_size || rt_uffd_present(page);
        }
        if (!in_hold && rt_uffd_present(app_page)) {
            warn_unmoved(); /* an unmovable page: dropped in place, the old way */
            madvise(app_page, page_size, MADV_DONTNEED);
        }
        bool written = in_hold && XXH3_64bits(page, page_size) != r->fetch_hash[i];
        /* The view's page is missing and only we may fill it. */
        if (written && rt_uffd_move(app_page, page, page_size) != page_size && !rt_uffd_present(app_page))
            written = rt_uffd_copy(app_page, page, page_size, false);
        forget_zeros_ahead(r, i);
        if (!written) { /* missing now: no scan needs to look at it */
            atomic_fetch_and(&r->dirty_bits[i / 64], ~(1ull << (i % 64)));
            r->hot[i] = 0;
        }
        atomic_store(&r->state[i], written ? PAGE_CLEAN : PAGE_UNFETCHED);
    }
    madvise(hold, bytes, MADV_DONTNEED);
}

/* Which driver's pages behind [first, end) are unpopulated, asked of the
 * page tables 64 at a time as a refresh walks the run (one page a read
 * cost mpv's captures 100,000 reads of the page tables). */
struct unpopulated_walk {
    size_t batch, known; /* pages [batch, batch + known) were asked about */
    uint64_t unpopulated; /* bit k: page batch + k */
};

static bool driver_page_unpopulated(const struct region *r, size_t i, size_t end, struct unpopulated_walk *w)
{
    if (i < w->batch || i >= w->batch + w->known) {
        w->batch = i;
        w->known = rt_fresh_pages_unpopulated_mask((void *)real_page_of(r, i), page_size, end - i,
                                                   &w->unpopulated);
        if (w->known == 0)
            return false; /* not known: compared */
    }
    return (w->unpopulated >> (i - w->batch)) & 1;
}

/* Page i, unwritten at the scan, still holds the zeros mapped ahead and the
 * driver's page behind it is still unpopulated: nothing to refresh. */
static bool still_zeros(const struct region *r, size_t i, size_t end, struct unpopulated_walk *w)
{
    return zeros_ahead_of(r, i) && driver_page_unpopulated(r, i, end, w);
}

/* A page the program rereads after waits (mpv's decoder, its reference
 * frames) and the GPU does not write is left in place at a wait, CLEAN,
 * instead of being moved out: its bytes are compared with the driver's
 * page, and while they are the same there is nothing to refresh and the
 * program's next access costs no fault. Moving a page out is how a read of
 * it is seen, so this is only for a page the GPU has never been seen to
 * write: once a refresh finds the driver's page changed behind the view,
 * every later refresh moves it out and every read of it after a wait is a
 * verification point, as before; a reread of bytes only the program wrote,
 * which replay reproduces from the memory updates, is not one.
 * A page is moved out at its first wait as before, marked KEEP_CANDIDATE
 * when the driver's bytes were the view's; only an access to it after that
 * (note_reuse: mpv rereads its decoded frames and rewrites its upload
 * buffers) makes it one to keep, so a page the program writes and leaves
 * (zink's upload ring) is compared once per wait that moves it and never
 * kept. A kept page is present and unwritten, so the next refresh
 * must scan (protected_gen); one kept KEEP_WAITS refreshes in a row without
 * the program writing it is moved out again. Only where the driver's memory
 * is plain anonymous memory (lavapipe): reading device memory behind a
 * mapping (write-combined, uncached) at every wait would cost more than the
 * faults it saves. An unpopulated driver's page was never written, by the
 * GPU or by a collect: the view's is zeros too. */
static bool keep_unchanged(struct region *r, size_t i, size_t end, struct unpopulated_walk *w)
{
    uint8_t kept = atomic_load_explicit(&r->kept[i], memory_order_relaxed);
    if (kept == KEEP_NEVER || !r->real_anon_end || real_page_of(r, i) + page_size > r->real_anon_end)
        return false;
    /* A page the fault thread found populated is not asked about again. */
    bool populated = r->real_populated &&
                     (__atomic_load_n(&r->real_populated[i / 64], __ATOMIC_RELAXED) >> (i % 64)) & 1;
    bool same = !populated && driver_page_unpopulated(r, i, end, w);
    if (!populated && !same && r->real_populated) /* found populated (or not known): not asked again */
        __atomic_fetch_or(&r->real_populated[i / 64], 1ull << (i % 64), __ATOMIC_RELAXED);
    if (!same) {
        size_t lo, hi;
        page_span(r, i, &lo, &hi);
        same = memcmp(r->app_view + lo, r->real + (lo - r->lead), hi - lo) == 0;
    }
    if (!same) {
        atomic_store(&r->kept[i], KEEP_NEVER);
        return false;
    }
    if (kept == KEEP_NO || kept == KEEP_CANDIDATE || kept > KEEP_WAITS) {
        atomic_compare_exchange_strong(&r->kept[i], &kept, KEEP_CANDIDATE);
        return false; /* moved out: an access to it now makes it kept */
    }
    atomic_compare_exchange_strong(&r->kept[i], &kept, (uint8_t)(kept + 1));
    atomic_store(&r->state[i], PAGE_CLEAN);
    atomic_fetch_add(&r->protected_gen, 1);
    atomic_fetch_add_explicit(&r->owner->pages_kept, 1, memory_order_relaxed);
    return true;
}

/* Refreshes the pages of [first, end), all BUSY, in runs: those kept in
 * place (see keep_unchanged) split the runs. */
static void refresh_async_claimed(struct region *r, size_t first, size_t end)
{
    struct unpopulated_walk w = {0};
    size_t run = first;
    for (size_t i = first; i <= end; i++) {
        if (i < end && !keep_unchanged(r, i, end, &w))
            continue;
        if (i > run)
            refresh_async_run(r, run, i);
        run = i + 1;
    }
}

/* Claims the CLEAN pages of [first, end) (unwritten at the scan) in runs
 * and refreshes each run. */
static void refresh_async_pages(struct region *r, size_t first, size_t end)
{
    struct unpopulated_walk w = {0};
    size_t run = first;
    for (size_t i = first; i <= end; i++) {
        if (i < end && !still_zeros(r, i, end, &w) && take_clean_page(r, i))
            continue;
        if (i > run)
            refresh_async_claimed(r, run, i);
        run = i + 1;
    }
}

/* Hot pages of [first, end) whose bytes hash as at the last collect (the
 * program has not changed them since, as far as a look can tell: the move
 * decides) are refreshed as unwritten ones are; changed ones are kept. */
static void refresh_hot_pages(struct region *r, size_t first, size_t end)
{
    size_t run = first;
    for (size_t i = first; i <= end; i++) {
        if (i < end && r->hot[i] && XXH3_64bits(r->app_view + i * page_size, page_size) == r->fetch_hash[i] &&
            take_clean_page(r, i))
            continue;
        if (i > run)
            refresh_async_claimed(r, run, i);
        run = i + 1;
    }
}

/* Pages mapped ahead outlive waits unwritten while the driver's page behind
 * each stays unpopulated (see map_zeros_ahead); one whose driver's page was
 * populated since (the GPU wrote it) is refreshed now, whether or not this
 * refresh scans. One look at the page tables covers the usual case: the
 * pages mapped ahead are one run, all still unpopulated behind. */
static void refresh_zeros_ahead(struct region *r, size_t first, size_t end)
{
    size_t lo = first, hi = end;
    if (!r->zeros_ahead || !bits_span(r->zeros_ahead, &lo, &hi))
        return;
    bool expired = atomic_fetch_add(&r->waits, 1) + 1 - atomic_load(&r->zeros_mapped_at) > ZEROS_AHEAD_WAITS;
    if (!expired && rt_fresh_pages_unpopulated((void *)real_page_of(r, lo), page_size, hi - lo) == hi - lo)
        return;
    struct unpopulated_walk w = {0};
    for (size_t i = lo; i < hi; i++)
        if (zeros_ahead_of(r, i) && (expired || !driver_page_unpopulated(r, i, hi, &w)) && take_clean_page(r, i))
            refresh_async_run(r, i, i + 1);
}

/* The scan for unwritten pages is skipped when no page was made present
 * and protected since the last one began (protected_gen as it was then): the
 * pages that scan found were dropped or moved back written, and a page
 * only becomes unwritten again by a read's fetch or a collect protecting it,
 * each counted after the page is so. A count taken meanwhile is seen by the
 * next refresh; this one then misses only a page whose fetch raced with its
 * wait, as a scan running just before that fetch would. */
static void refresh_async(struct region *r)
{
    size_t first = 0, end = r->page_count;
    pthread_mutex_lock(&r->owner->scan_lock);
    uint64_t gen = atomic_load(&r->protected_gen);
    if (!present_span(r, &first, &end))
        end = first = 0;
    bool scan = gen != r->scanned_gen;
    r->scanned_gen = gen;
    uintptr_t at = (uintptr_t)(r->app_view + first * page_size);
    uintptr_t stop = scan ? (uintptr_t)(r->app_view + end * page_size) : at;
    struct rt_uffd_run runs[32];
    while (at < stop) {
        uintptr_t next;
        long n = rt_uffd_scan((void *)at, stop - at, false, false, runs, 32, &next);
        if (n < 0)
            break;
        for (long k = 0; k < n; k++)
            refresh_async_pages(r, (runs[k].start - (uintptr_t)r->app_view) / page_size,
                                (runs[k].end - (uintptr_t)r->app_view) / page_size);
        at = next > at ? next : stop;
    }
    refresh_hot_pages(r, first, end);
    refresh_zeros_ahead(r, first, end);
    pthread_mutex_unlock(&r->owner->scan_lock);
}

/* userfaultfd: drops every clean page from the application's view, one
 * madvise per run of neighbours (a system call, and refresh runs at every
 * wait): the next access, also from inside a system call, is a missing
 * fault that fetches what the GPU wrote. */
static void refresh_uffd_region(struct region *r)
{
    size_t run = 0;
    for (size_t i = 0; i <= r->page_count; i++) {
        if (i < r->page_count && take_clean_page(r, i)) {
            run++;
            continue;
        }
        if (run) {
            size_t first = i - run;
            madvise(r->app_view + first * page_size, run * page_size, MADV_DONTNEED);
            for (size_t k = first; k < i; k++)
                atomic_store(&r->state[k], PAGE_UNFETCHED);
            run = 0;
        }
    }
}

/* Signals: fetches every clean page now (see fetch_all): the kernel may be
 * the next to read it, and its access would not fault into our handler. */
static void refresh_region(struct region *r)
{
    if (r->async) {
        refresh_async(r);
        return;
    }
    if (r->uffd) {
        refresh_uffd_region(r);
        return;
    }
    for (size_t i = 0; i < r->page_count; i++) {
        if (!take_clean_page(r, i))
            continue;
        fetch_page(r, i);
        atomic_store(&r->state[i], PAGE_CLEAN);
    }
}

void rt_tracker_refresh(struct rt_memory_tracker *tracker)
{
    if (tracker->mode == RT_TRACK_FULL)
        return;
    uint64_t start = now_ns();
    rt_tracker_take_read_back(tracker);
    unsigned e = read_begin();
    struct region_set *set = set_of(tracker);
    for (size_t i = 0; i < set->count; i++)
        refresh_region(set->items[i]);
    read_end(e);
    atomic_fetch_add(&tracker->refreshes, 1);
    atomic_fetch_add(&tracker->refresh_ns, now_ns() - start);
}

struct rt_tracker_stats rt_tracker_stats(const struct rt_memory_tracker *tracker)
{
    return (struct rt_tracker_stats){
        .faults = atomic_load(&((struct rt_memory_tracker *)tracker)->faults),
        .pages_reported = tracker->pages_reported,
        .pages_unchanged = tracker->pages_unchanged,
        .reprotects = tracker->reprotects,
        .bytes_reported = tracker->bytes_reported,
        .collects = tracker->collects,
        .refreshes = tracker->refreshes,
        .fault_ns = tracker->fault_ns,
        .collect_ns = tracker->collect_ns,
        .refresh_ns = tracker->refresh_ns,
        .pages_kept = tracker->pages_kept,
    };
}

/* --- verification points ------------------------------------------------- */

void rt_tracker_set_verify(struct rt_memory_tracker *tracker, rt_track_verify_fn fn, void *ctx)
{
    tracker->verify_fn = fn;
    tracker->verify_ctx = ctx;
}

/* The ranges of one verification point and a copy of their hashes: taken
 * under each page's claim, so a fault re-reading the page after the next
 * wait cannot rewrite them while the packet is written, and laid end to end,
 * so a range joining a short first page with the next one reads its pieces
 * in order. hash_at[k] is where range k's hashes start in hashes. */
struct range_list {
    struct rt_trace_verify_range *items;
    size_t *hash_at;
    size_t count, capacity;
    uint64_t *hashes;
    size_t hash_count, hash_capacity;
};

static bool list_add(struct range_list *l, const struct rt_trace_verify_range *g)
{
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? l->capacity * 2 : 16;
        struct rt_trace_verify_range *grown = realloc(l->items, capacity * sizeof *grown);
        if (grown)
            l->items = grown;
        size_t *grown_at = grown ? realloc(l->hash_at, capacity * sizeof *grown_at) : NULL;
        if (!grown_at)
            return false;
        l->hash_at = grown_at;
        l->capacity = capacity;
    }
    l->hash_at[l->count] = l->hash_count;
    l->items[l->count++] = *g;
    return true;
}

static bool append_hashes(struct range_list *l, const uint64_t *hashes, size_t n)
{
    if (l->hash_count + n > l->hash_capacity) {
        size_t capacity = l->hash_capacity ? l->hash_capacity * 2 : 256;
        while (capacity < l->hash_count + n)
            capacity *= 2;
        uint64_t *grown = realloc(l->hashes, capacity * sizeof *grown);
        if (!grown)
            return false;
        l->hashes = grown;
        l->hash_capacity = capacity;
    }
    memcpy(l->hashes + l->hash_count, hashes, n * sizeof *hashes);
    l->hash_count += n;
    return true;
}

/* Takes page i from whatever state to BUSY, so no fault rewrites its hashes
 * meanwhile; returns the state to put back. */
static uint8_t claim_page(struct region *r, size_t i)
{
    for (unsigned spins = 0;; backoff(&spins)) {
        uint8_t s = atomic_load(&r->state[i]);
        if (s != PAGE_BUSY && atomic_compare_exchange_weak(&r->state[i], &s, PAGE_BUSY))
            return s;
    }
}

/* Page i joins the last range when it continues it on a whole piece. */
static bool extend_last(struct range_list *l, const struct region *r, uint64_t offset, size_t n)
{
    struct rt_trace_verify_range *last = l->count ? &l->items[l->count - 1] : NULL;
    if (!last || last->memory_id != r->memory_id || last->offset + last->size != offset ||
        last->size % RT_TRACK_PIECE || (uint64_t)last->size + n > UINT32_MAX / 2)
        return false;
    last->size += (uint32_t)n;
    last->piece_count = (last->size + RT_TRACK_PIECE - 1) / RT_TRACK_PIECE;
    return true;
}

static bool take_region(struct range_list *l, struct region *r)
{
    size_t per_page = page_size / RT_TRACK_PIECE;
    for (size_t i = 0; i < r->page_count; i++) {
        if (!atomic_load_explicit(&r->read_back[i], memory_order_relaxed))
            continue;
        uint8_t state = claim_page(r, i);
        bool taken = atomic_exchange_explicit(&r->read_back[i], 0, memory_order_acquire);
        size_t lo, hi;
        page_span(r, i, &lo, &hi);
        uint64_t offset = r->map_offset + (lo - r->lead);
        uint32_t pieces = (uint32_t)((hi - lo + RT_TRACK_PIECE - 1) / RT_TRACK_PIECE);
        struct rt_trace_verify_range g = {.memory_id = r->memory_id, .offset = offset,
                                          .size = (uint32_t)(hi - lo), .piece_size = RT_TRACK_PIECE,
                                          .piece_count = pieces};
        bool ok = !taken || extend_last(l, r, offset, hi - lo) || list_add(l, &g);
        ok = ok && (!taken || append_hashes(l, r->piece_hash + i * per_page, pieces));
        atomic_store(&r->state[i], state);
        if (!ok)
            return false;
    }
    return true;
}

void rt_tracker_take_read_back(struct rt_memory_tracker *tracker)
{
    /* A load first: this runs at every recorded call, from every thread. */
    if (!atomic_load_explicit(&tracker->read_back_pending, memory_order_relaxed) ||
        !atomic_exchange_explicit(&tracker->read_back_pending, false, memory_order_acquire))
        return;
    struct range_list l = {0};
    bool ok = true;
    unsigned e = read_begin();
    struct region_set *set = set_of(tracker);
    for (size_t k = 0; k < set->count && ok; k++)
        if (set->items[k]->read_back)
            ok = take_region(&l, set->items[k]);
    read_end(e);
    for (size_t k = 0; ok && k < l.count; k++)
        l.items[k].hashes = l.hashes + l.hash_at[k];
    if (ok && l.count && tracker->verify_fn)
        tracker->verify_fn(tracker->verify_ctx, l.items, l.count);
    free(l.items);
    free(l.hash_at);
    free(l.hashes);
}
