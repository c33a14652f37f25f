/*
 * capture/uffd.h — userfaultfd for the page-guard memory tracker: one
 * descriptor per process and a thread that reads its faults.
 *
 * Owns: the descriptor, the fault thread, the ioctls. Must not touch: page
 * state (memory_track.c decides what a fault means and calls back in here to
 * resolve it). Unlike a SIGSEGV handler, a userfaultfd also catches faults
 * the kernel takes copying from or to user memory (read(2), write(2)), so
 * system calls on tracked pages work.
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
bool rt_uffd_start(rt_uffd_fault_fn fn, char *why, size_t why_size);

/** Registers [addr, addr+len) (anonymous, page aligned) for both fault kinds. */
bool rt_uffd_register(void *addr, size_t len);

/** Maps a copy of src's page at the missing page dst; write_protect: writes
 * to it fault. Wakes no one: the caller records the page's new state first,
 * then calls rt_uffd_wake (a woken thread may at once submit and collect).
 * False when dst was not missing. */
bool rt_uffd_copy(void *dst, const void *src, size_t len, bool write_protect);

/** Sets or clears write protection; wakes no one (see rt_uffd_copy). */
bool rt_uffd_protect(void *addr, size_t len, bool protect);

/** Wakes threads waiting on [addr, addr+len) so they retry their access. */
void rt_uffd_wake(void *addr, size_t len);

#endif
