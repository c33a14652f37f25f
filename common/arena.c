/* common/arena.c — bump allocator (see arena.h). */
#include "arena.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rt_arena_block {
    struct rt_arena_block *next;
    size_t size; /* usable bytes in data */
    size_t pos;
    max_align_t data[];
};

void rt_arena_init(struct rt_arena *arena, size_t block_size, size_t limit)
{
    memset(arena, 0, sizeof *arena);
    arena->block_size = block_size ? block_size : 64 * 1024;
    arena->limit = limit;
}

void rt_arena_init_on(struct rt_arena *arena, void *buf, size_t size, size_t block_size, size_t limit)
{
    rt_arena_init(arena, block_size, limit);
    uintptr_t start = ((uintptr_t)buf + _Alignof(max_align_t) - 1) & ~(uintptr_t)(_Alignof(max_align_t) - 1);
    size_t header = offsetof(struct rt_arena_block, data) + (start - (uintptr_t)buf);
    if (!buf || size <= header)
        return;
    struct rt_arena_block *b = (struct rt_arena_block *)start;
    *b = (struct rt_arena_block){.next = NULL, .size = size - header, .pos = 0};
    arena->blocks = arena->borrowed = b;
}

static void free_chain(struct rt_arena_block *b, const struct rt_arena_block *borrowed)
{
    while (b) {
        struct rt_arena_block *next = b->next;
        if (b != borrowed)
            free(b);
        b = next;
    }
}

void rt_arena_finish(struct rt_arena *arena)
{
    free_chain(arena->blocks, arena->borrowed);
    free_chain(arena->spare, arena->borrowed);
    arena->blocks = arena->spare = arena->borrowed = NULL;
    arena->used = 0;
}

void rt_arena_reset(struct rt_arena *arena)
{
    /* Keep only standard-size blocks: an oversized one was for one big call. */
    struct rt_arena_block *b = arena->blocks;
    while (b) {
        struct rt_arena_block *next = b->next;
        if (b == arena->borrowed) {
            /* the caller's buffer becomes the current block again, below */
        } else if (b->size == arena->block_size) {
            b->pos = 0;
            b->next = arena->spare;
            arena->spare = b;
        } else {
            free(b);
        }
        b = next;
    }
    arena->blocks = arena->borrowed;
    if (arena->borrowed) {
        arena->borrowed->pos = 0;
        arena->borrowed->next = NULL;
    }
    arena->used = 0;
}

static struct rt_arena_block *new_block(struct rt_arena *arena, size_t need)
{
    if (need <= arena->block_size && arena->spare) {
        struct rt_arena_block *b = arena->spare;
        arena->spare = b->next;
        return b;
    }
    size_t size = need > arena->block_size ? need : arena->block_size;
    if (size > SIZE_MAX - sizeof(struct rt_arena_block))
        return NULL;
    struct rt_arena_block *b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->size = size;
    b->pos = 0;
    return b;
}

void *rt_arena_alloc(struct rt_arena *arena, size_t size, size_t align)
{
    if (align == 0 || (align & (align - 1)) || align > sizeof(max_align_t))
        align = sizeof(max_align_t);
    if (size == 0)
        size = 1;
    if (arena->limit && (size > arena->limit || arena->used > arena->limit - size))
        return NULL;
    struct rt_arena_block *b = arena->blocks;
    size_t pos = b ? (b->pos + align - 1) & ~(align - 1) : 0;
    if (!b || pos > b->size || b->size - pos < size) {
        if (size > SIZE_MAX - align)
            return NULL;
        b = new_block(arena, size + align);
        if (!b)
            return NULL;
        b->next = arena->blocks;
        arena->blocks = b;
        pos = 0;
    }
    void *p = (unsigned char *)b->data + pos;
    b->pos = pos + size;
    arena->used += size;
    return p;
}

void *rt_arena_calloc(struct rt_arena *arena, size_t count, size_t size, size_t align)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    void *p = rt_arena_alloc(arena, bytes, align);
    if (p && bytes > 0)
        memset(p, 0, bytes);
    return p;
}

char *rt_arena_strndup(struct rt_arena *arena, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        return NULL;
    char *p = rt_arena_alloc(arena, n + 1, 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}
