/*
 * capture/include/fresh_pages.h — zeroing new memory without populating it.
 *
 * Owns: rt_zero_fresh, the looks at pages for the memory tracker. Must not touch: anything but the bytes it is given
 * (it reads /proc/self/maps and /proc/self/pagemap to tell which pages the
 * kernel never populated).
 *
 * Capture zeroes every new host-visible allocation (capture/host_memory.c
 * says why). Writing zeros over all of it gives each page a fresh page of
 * its own, allocated and cleared: zink's five 2 MiB slabs through glxgears
 * are 2,560 such page faults, most of those pages never used by the program.
 * A page of a private anonymous mapping that is neither present nor swapped
 * out is zeros already and is left so, and one of its pages holding zeros is
 * not written. Other memory (files, shared memory, a device's) is written
 * as before: reading a hole of a file allocates it as writing does, and
 * reading device memory through a write-combined mapping is slow.
 */
#ifndef RT_FRESH_PAGES_H
#define RT_FRESH_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Leaves [memory, memory + size) all zeros. Where the kernel cannot say
 * which pages it never populated (before Linux 6.11: no PROCMAP_QUERY) or
 * the mapping is not private anonymous memory, all of it is written.
 */
void rt_zero_fresh(void *memory, size_t size);

/* The memory tracker's fetch of a page the program touches first (its
 * fault thread, capture/memory_track.c): a page of the driver's memory
 * that was never populated reads as zeros, and reading it maps the
 * kernel's zero page there, whose replacement at the first write (the
 * collect copying the program's bytes in) flushes every core's TLB. */

/** The end of the private anonymous mapping holding p (its pages neither
 * present nor swapped out are zeros), 0 when it is none or the kernel cannot
 * say (before Linux 6.11). Opens the /proc files rt_fresh_page_unpopulated
 * reads. */
uintptr_t rt_fresh_anonymous_end(const void *p);

/** Whether the page holding p (in a mapping rt_fresh_anonymous_end said is
 * private anonymous) is neither present nor swapped out: all zeros, and
 * unpopulated. False when the kernel cannot say. Async-signal-safe. */
bool rt_fresh_page_unpopulated(const void *p, size_t page);

/** How many of the count pages (at most 64) from the one holding p (in a mapping
 * rt_fresh_anonymous_end said is private anonymous) are, one after another
 * from the first, neither present nor swapped out: one read of the page
 * tables for all of them. 0 when the kernel cannot say. Async-signal-safe. */
size_t rt_fresh_pages_unpopulated(const void *p, size_t page, size_t count);

/** The same read for a walk that wants every page's answer, not only the
 * first ones': bit k of *unpopulated set when page k of the count (at most
 * 64) is neither present nor swapped out. Returns how many pages the kernel
 * answered for (0 when it cannot say: no bit set). Async-signal-safe. */
size_t rt_fresh_pages_unpopulated_mask(const void *p, size_t page, size_t count, uint64_t *unpopulated);

#endif
