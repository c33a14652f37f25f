/*
 * capture/include/memory_track.h — finds the bytes an application wrote into mapped
 * Vulkan memory, so the capture can record them before the GPU may read them.
 *
 * Owns: the shadow mappings handed to the application, what a page fault on
 * them means, per-page state, and each tracker's regions: a sorted array
 * published whole, so fault handlers, collects and refreshes find regions
 * without a lock (a change waits for the readers of the old array), and a
 * dirty bit per page, so a collect visits written pages only. Must not touch:
 * Vulkan (it only sees pointers and sizes), the trace writer (dirty ranges go
 * to a callback), signal dispositions (signals.c owns the SIGSEGV handler and
 * calls rt_tracker_handle_fault first).
 *
 * Modes:
 *  - RT_TRACK_PAGE_GUARD (default): the application gets a shadow copy of the
 *    mapping whose pages start inaccessible. The first access to a page copies
 *    the real memory into it (so data the GPU wrote is seen); a write makes it
 *    dirty. collect() copies dirty pages to the real mapping and reports only
 *    those whose bytes differ from what was fetched, then guards them again.
 *    The driver never sees the shadow, so GPU writes are never mistaken for
 *    application writes. Three backends (rt_tracker_backend), the first
 *    the kernel allows, chosen at run time:
 *     - userfaultfd asynchronous write-protect (RT_TRACK_WP_ASYNC; Linux
 *       6.8: UFFD_FEATURE_WP_ASYNC, PAGEMAP_SCAN, UFFDIO_MOVE): as below,
 *       but a write to a protected page is resolved by the kernel with no
 *       fault delivered to us; collect() finds the written pages of each
 *       mapping with one PAGEMAP_SCAN and protects again only those that
 *       stopped changing (a page rewritten before every submit stays
 *       writable and is hashed instead: no TLB shootdown per submit). Only
 *       a page's first access after a refresh (missing) faults into us. How
 *       refresh drops clean pages without losing a racing write, and hot
 *       pages: the comment above collect_async in memory_track.c.
 *     - userfaultfd write-protect faults (uffd.c; RETRACE_USERFAULTFD=sync
 *       forces it), when the kernel gives userfaultfd with kernel-mode
 *       faults (root, CAP_SYS_PTRACE, vm.unprivileged_userfaultfd=1 or an
 *       openable /dev/userfaultfd): pages are missing until touched and
 *       write-protected until written; the kernel's own accesses (read(2)
 *       into, write(2) from mapped memory) fault into it like the program's.
 *     - signals (SIGSEGV handler and mprotect; RETRACE_USERFAULTFD=0
 *       forces it), otherwise: the kernel gets
 *       EFAULT instead of a signal, so pages are never left inaccessible:
 *       every page is fetched at map and at each refresh (reads by the
 *       kernel work; no page read is a verification point) and only writes
 *       fault (a system call writing into mapped memory still fails with
 *       EFAULT; the tracker says so once on stderr).
 *  - RT_TRACK_FULL: the application gets the real pointer and collect()
 *    reports the whole mapped range every time: the simple reference.
 *
 * Sync points: after the application may observe GPU writes (fence, semaphore
 * and queue waits, invalidate), call refresh() so clean pages are fetched
 * again on their next access.
 */
#ifndef RT_MEMORY_TRACK_H
#define RT_MEMORY_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "trace.h"

enum rt_track_mode { RT_TRACK_PAGE_GUARD, RT_TRACK_FULL };
enum rt_track_backend { RT_TRACK_NO_GUARD, RT_TRACK_USERFAULTFD, RT_TRACK_SIGNALS, RT_TRACK_WP_ASYNC };

struct rt_memory_tracker;

/** Called once per dirty range: offset is relative to the memory object. */
typedef void (*rt_track_dirty_fn)(void *ctx, uint64_t memory_id, uint64_t offset,
                                  const void *data, size_t size);

rt_status rt_tracker_create(enum rt_track_mode mode, struct rt_memory_tracker **out) RT_MUST_CHECK;
void rt_tracker_destroy(struct rt_memory_tracker *tracker);

/** How page-guard faults are caught (RT_TRACK_NO_GUARD in full mode).
 * RETRACE_USERFAULTFD=0 in the environment asks for signals, =sync for
 * userfaultfd write-protect faults. */
enum rt_track_backend rt_tracker_backend(const struct rt_memory_tracker *tracker);

/**
 * Starts tracking a mapping of memory_id at map_offset, size bytes at real.
 * *app_ptr_out is what the application must see (same alignment within a page
 * as real). coherent=false means only flush_range() reports writes.
 */
rt_status rt_tracker_map(struct rt_memory_tracker *tracker, uint64_t memory_id, void *real,
                         uint64_t map_offset, size_t size, bool coherent,
                         void **app_ptr_out) RT_MUST_CHECK;

/** For the SIGSEGV handler (signals.c; async-signal-safe): serves a fault at
 * addr on a page some tracker guards with signals and returns true (the
 * access is then retried); false when no tracker owns addr. */
bool rt_tracker_handle_fault(void *addr, void *uctx);

/** Reports what is still dirty (coherent memory only), then stops tracking. */
void rt_tracker_unmap(struct rt_memory_tracker *tracker, uint64_t memory_id,
                      rt_track_dirty_fn fn, void *ctx);

/** Reports the dirty bytes of every coherent mapping (at submit). */
void rt_tracker_collect(struct rt_memory_tracker *tracker, rt_track_dirty_fn fn, void *ctx);

/** Reports the dirty bytes in [offset, offset+size) of memory_id (vkFlushMappedMemoryRanges). */
void rt_tracker_flush_range(struct rt_memory_tracker *tracker, uint64_t memory_id,
                            uint64_t offset, uint64_t size, rt_track_dirty_fn fn, void *ctx);

/** Makes clean pages fetch the real memory again on their next access. */
void rt_tracker_refresh(struct rt_memory_tracker *tracker);

/* Verification points (page-guard mode): a page the application reads
 * after it was fetched (after a wait: what the GPU wrote that it can now
 * read) is hashed in pieces of RT_TRACK_PIECE bytes as it is fetched.
 * rt_tracker_take_read_back (the capture calls it around every recorded
 * call; collect, unmap and refresh call it first) hands the pages read since
 * the last time to the verify callback as one list of ranges: one
 * verification point, which replay --verify checks at the same place in
 * the trace. */
#define RT_TRACK_PIECE 256u

typedef void (*rt_track_verify_fn)(void *ctx, const struct rt_trace_verify_range *ranges, size_t count);

void rt_tracker_set_verify(struct rt_memory_tracker *tracker, rt_track_verify_fn fn, void *ctx);

/** Hands the pages read back since the last call to the verify callback. */
void rt_tracker_take_read_back(struct rt_memory_tracker *tracker);

/** Faults handled and bytes reported so far. The times are counted only
 * with RETRACE_TRACK_STATS in the environment (the capture then prints
 * them at exit: bench/README.md's breakdown). */
struct rt_tracker_stats {
    uint64_t faults;
    uint64_t pages_reported;
    uint64_t pages_unchanged; /* dirty pages whose bytes matched what was fetched */
    uint64_t reprotects;      /* asynchronous write-protect: pages a collect protected again */
    uint64_t bytes_reported;
    uint64_t collects, refreshes;
    uint64_t fault_ns, collect_ns, refresh_ns; /* in the fault thread, collects, refreshes */
    uint64_t pages_kept; /* asynchronous write-protect: pages a refresh left in place (unchanged) */
};
struct rt_tracker_stats rt_tracker_stats(const struct rt_memory_tracker *tracker);

#endif
