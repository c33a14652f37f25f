/*
 * capture/uffd.h — userfaultfd for the page-guard memory tracker: one
 * descriptor per process and a thread that reads its faults.
 *
 * Owns: the descriptor, the fault thread, the ioctls. Must not touch: page
 * state (memory_track.c decides what a fault means and calls back in here to
 * resolve it). Unlike a SIGSEGV handler, a userfaultfd also catches faults
 * the kernel takes copying from or to user memory (read(2), write(2)), so
 * system calls on tracked pages work.
 *
 * Two ways to learn of writes, chosen once per process at start:
 *  - asynchronous write-protect (UFFD_FEATURE_WP_ASYNC, Linux 6.7) with
 *    PAGEMAP_SCAN on /proc/self/pagemap and UFFDIO_MOVE (6.8): the kernel
 *    resolves a write to a protected page by itself and only remembers it;
 *    rt_uffd_scan finds the written pages of a range in one call and
 *    protects them again as it reports them. Missing pages still fault here.
 *  - write-protect faults: every first write to a protected page is a
 *    fault the thread serves (rt_uffd_protect).
 */
#ifndef RT_UFFD_H
#define RT_UFFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called on the fault thread for every fault on a registered range. */
typedef void (*rt_uffd_fault_fn)(uintptr_t addr, bool write);

/**
 * Opens the descriptor with kernel-mode faults, checks anonymous memory can
 * be registered for missing and write-protect faults, starts the thread.
 * Idempotent. Returns false with a reason in why when the kernel does not
 * allow it.
 */
bool rt_uffd_start(rt_uffd_fault_fn fn, bool want_async, char *why, size_t why_size);

/** After rt_uffd_start: true when writes are tracked asynchronously (see
 * above). RETRACE_USERFAULTFD=sync asks for write-protect faults; so does a
 * kernel without WP_ASYNC, PAGEMAP_SCAN or UFFDIO_MOVE (why_async says
 * which). */
bool rt_uffd_async(void);
const char *rt_uffd_why_not_async(void);

/** Registers [addr, addr+len) (anonymous, page aligned) for both fault kinds. */
bool rt_uffd_register(void *addr, size_t len);

/** Maps a copy of src's page at the missing page dst; write_protect: writes
 * to it fault. Wakes no one: the caller records the page's new state first,
 * then calls rt_uffd_wake (a woken thread may at once submit and collect).
 * False when dst was not missing. */
bool rt_uffd_copy(void *dst, const void *src, size_t len, bool write_protect);

/** Sets or clears write protection; wakes no one (see rt_uffd_copy). */
bool rt_uffd_protect(void *addr, size_t len, bool protect);

/* --- asynchronous write-protect only --------------------------------------- */

/** A run of pages [start, end) found by rt_uffd_scan. */
struct rt_uffd_run {
    uintptr_t start, end;
};

/**
 * Finds the present pages of [addr, addr+len) that were written since they
 * were last protected (written) or that were not (!written), up to max runs
 * into out; protect: the written ones found are protected again, atomically
 * with their report. Returns the number of runs, -1 on an error; *next is
 * where the scan stopped (addr+len when it saw everything).
 */
long rt_uffd_scan(void *addr, size_t len, bool written, bool protect, struct rt_uffd_run *out,
                  size_t max, uintptr_t *next);

/** Registers [addr, addr+len) as a holding area for rt_uffd_move (no faults). */
bool rt_uffd_register_hold(void *addr, size_t len);

/** Moves the pages at src (present, this process's own) to the missing pages
 * at dst: src becomes missing. Wakes no one. Returns the bytes moved. */
size_t rt_uffd_move(void *dst, void *src, size_t len);

/** Whether the page at addr is present (/proc/self/pagemap). */
bool rt_uffd_present(const void *addr);

/** Wakes threads waiting on [addr, addr+len) so they retry their access. */
void rt_uffd_wake(void *addr, size_t len);

#endif
