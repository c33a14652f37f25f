/*
 * common/include/arena.h — bump allocator for per-call and per-job memory.
 *
 * Owns: blocks of memory handed out by rt_arena_alloc and released all at once
 * by rt_arena_reset (blocks are kept for reuse) or rt_arena_finish. Decoders
 * allocate every struct, array and string of one call from an arena, so they
 * never emit free functions. A byte limit bounds what untrusted input can make
 * us allocate: past it, allocation returns NULL.
 * Must not touch: anything but libc.
 */
#ifndef RT_ARENA_H
#define RT_ARENA_H

#include <stddef.h>

struct rt_arena_block;

struct rt_arena {
    struct rt_arena_block *blocks; /* current block first */
    struct rt_arena_block *spare;  /* blocks kept by reset for reuse */
    struct rt_arena_block *borrowed; /* in the caller's buffer (rt_arena_init_on): never freed */
    size_t block_size;
    size_t used;  /* bytes handed out since the last reset */
    size_t limit; /* 0 = no limit */
};

/** block_size 0 picks 64 KiB. limit 0 means unlimited. */
void rt_arena_init(struct rt_arena *arena, size_t block_size, size_t limit);

/** Like rt_arena_init, but allocations come from buf (size bytes the caller
 * owns, on its stack say) until it is full, and only then from malloc'd
 * blocks: a layer entry point's few copies cost no malloc and free. buf
 * must outlive the arena's use (declare it max_align_t buf[N]); too small
 * a buf is simply not used. */
void rt_arena_init_on(struct rt_arena *arena, void *buf, size_t size, size_t block_size, size_t limit);

/** Releases everything. The arena may be initialised again. */
void rt_arena_finish(struct rt_arena *arena);

/** Forgets every allocation, keeping the blocks for reuse. */
void rt_arena_reset(struct rt_arena *arena);

/** size bytes aligned to align (a power of two); NULL on OOM, overflow, limit. */
void *rt_arena_alloc(struct rt_arena *arena, size_t size, size_t align);

/** Like rt_arena_alloc for count*size bytes, zeroed; NULL on overflow too. */
void *rt_arena_calloc(struct rt_arena *arena, size_t count, size_t size, size_t align);

/** Copies n bytes and a terminating NUL. */
char *rt_arena_strndup(struct rt_arena *arena, const char *s, size_t n);

#endif
