/* capture/fresh_pages.c — zeroing new memory without populating it (see
 * include/fresh_pages.h). Reads the kernel's view of the process's own
 * mappings (PROCMAP_QUERY, Linux 6.11) and page tables (/proc/self/pagemap);
 * touches nothing else. */
#include "fresh_pages.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* linux/fs.h of Linux 6.11 (Debian 12's headers predate it); the kernel
 * checks the size field, so an older or newer layout is refused, never
 * misread. */
struct rt_procmap_query {
    uint64_t size;
    uint64_t query_flags;
    uint64_t query_addr;
    uint64_t vma_start;
    uint64_t vma_end;
    uint64_t vma_flags;
    uint64_t vma_page_size;
    uint64_t vma_offset;
    uint64_t inode;
    uint32_t dev_major;
    uint32_t dev_minor;
    uint32_t vma_name_size;
    uint32_t build_id_size;
    uint64_t vma_name_addr;
    uint64_t build_id_addr;
};
_Static_assert(sizeof(struct rt_procmap_query) == 104, "Linux's struct procmap_query is 104 bytes");
#define RT_PROCMAP_QUERY _IOWR('f', 17, struct rt_procmap_query)
#define RT_PROCMAP_QUERY_VMA_SHARED 0x8u

#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_SWAPPED (1ull << 62)
#define PAGEMAP_BATCH 512 /* entries read at once: 2 MiB of 4 KiB pages */

/* /proc/self/maps and /proc/self/pagemap, opened once (a fresh allocation
 * and every userfaultfd fault ask them). A descriptor of /proc/self names
 * the process that opened it: a child after fork(2) closes the parent's and
 * opens its own when it next asks from normal code (open_proc_files). */
static _Atomic int maps_fd = -1, pagemap_fd = -1;
static pthread_once_t fork_hook_once = PTHREAD_ONCE_INIT;

static void forget_parents_files(void)
{
    int fd = atomic_exchange(&pagemap_fd, -1);
    if (fd >= 0)
        close(fd);
    fd = atomic_exchange(&maps_fd, -1);
    if (fd >= 0)
        close(fd);
}

static void add_fork_hook(void)
{
    pthread_atfork(NULL, NULL, forget_parents_files);
}

/* Opens *fd once; two threads racing keep one descriptor. */
static int open_once(_Atomic int *fd, const char *path)
{
    int have = atomic_load(fd);
    if (have >= 0)
        return have;
    int opened = open(path, O_RDONLY | O_CLOEXEC);
    if (opened < 0)
        return -1;
    int expected = -1;
    if (atomic_compare_exchange_strong(fd, &expected, opened))
        return opened;
    close(opened);
    return expected;
}

static void open_proc_files(int *maps, int *pagemap)
{
    pthread_once(&fork_hook_once, add_fork_hook);
    *maps = open_once(&maps_fd, "/proc/self/maps");
    *pagemap = *maps < 0 ? -1 : open_once(&pagemap_fd, "/proc/self/pagemap");
}

static void zero_if_not_zero(uint8_t *p, size_t n)
{
    static const uint8_t zeros[4096];
    while (n > 0) {
        size_t k = n < sizeof zeros ? n : sizeof zeros;
        if (memcmp(p, zeros, k) != 0)
            memset(p, 0, k);
        p += k;
        n -= k;
    }
}

/* The end of the mapping holding addr when it is private and anonymous
 * (no file, no device, not shared: its never-populated pages are zeros);
 * 0 when it is not or the kernel cannot say. */
static uintptr_t private_anonymous_end(int maps, uintptr_t addr)
{
    struct rt_procmap_query q = {.size = sizeof q, .query_addr = addr};
    if (maps < 0 || ioctl(maps, RT_PROCMAP_QUERY, &q) != 0 || q.vma_start > addr || q.vma_end <= addr)
        return 0;
    bool anonymous = q.inode == 0 && q.dev_major == 0 && q.dev_minor == 0;
    return anonymous && !(q.vma_flags & RT_PROCMAP_QUERY_VMA_SHARED) ? (uintptr_t)q.vma_end : 0;
}

/* [p, p + n) within one private anonymous mapping: pages neither present
 * nor swapped out are zeros and stay unpopulated; the others are written
 * only where they hold anything but zeros (one mapped to the kernel's zero
 * page would otherwise get a page of its own). */
static void zero_anonymous(int pagemap, uint8_t *p, size_t n, size_t page)
{
    uint64_t entries[PAGEMAP_BATCH];
    uintptr_t at = (uintptr_t)p, end = at + n;
    while (at < end) {
        uintptr_t first = at / page;
        size_t count = (end - 1) / page - first + 1;
        count = count < PAGEMAP_BATCH ? count : PAGEMAP_BATCH;
        ssize_t got = pagemap < 0 ? -1 : pread(pagemap, entries, count * sizeof entries[0],
                                               (off_t)(first * sizeof entries[0]));
        size_t known = got > 0 ? (size_t)got / sizeof entries[0] : 0;
        for (size_t k = 0; k < count && at < end; k++) {
            uintptr_t stop = (first + k + 1) * page < end ? (first + k + 1) * page : end;
            if (k >= known || (entries[k] & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)))
                zero_if_not_zero((uint8_t *)at, stop - at);
            at = stop;
        }
    }
}

void rt_zero_fresh(void *memory, size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int maps, pagemap;
    open_proc_files(&maps, &pagemap);
    uint8_t *p = memory;
    while (size > 0) {
        uintptr_t vma_end = private_anonymous_end(pagemap < 0 ? -1 : maps, (uintptr_t)p);
        size_t n = size;
        if (vma_end && vma_end - (uintptr_t)p < size)
            n = vma_end - (uintptr_t)p;
        if (vma_end)
            zero_anonymous(pagemap, p, n, page);
        else /* reading a hole of a file allocates it as writing does; device memory reads slowly */
            memset(p, 0, n);
        p += n;
        size -= n;
    }
}

uintptr_t rt_fresh_anonymous_end(const void *p)
{
    int maps, pagemap;
    open_proc_files(&maps, &pagemap);
    return pagemap < 0 ? 0 : private_anonymous_end(maps, (uintptr_t)p);
}


/* Entries rt_fresh_pages_unpopulated reads at once: 512 bytes of stack, as
 * it may run on a signal's. */
#define UNPOPULATED_BATCH 64

size_t rt_fresh_pages_unpopulated_mask(const void *p, size_t page, size_t count, uint64_t *unpopulated)
{
    int pagemap = atomic_load(&pagemap_fd);
    uint64_t entries[UNPOPULATED_BATCH];
    count = count < UNPOPULATED_BATCH ? count : UNPOPULATED_BATCH;
    off_t at = (off_t)((uintptr_t)p / page * sizeof entries[0]);
    ssize_t got = pagemap < 0 || count == 0 ? -1 : pread(pagemap, entries, count * sizeof entries[0], at);
    size_t known = got > 0 ? (size_t)got / sizeof entries[0] : 0;
    *unpopulated = 0;
    for (size_t k = 0; k < known; k++)
        if (!(entries[k] & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)))
            *unpopulated |= 1ull << k;
    return known;
}

size_t rt_fresh_pages_unpopulated(const void *p, size_t page, size_t count)
{
    uint64_t unpopulated;
    size_t known = rt_fresh_pages_unpopulated_mask(p, page, count, &unpopulated);
    size_t n = ~unpopulated ? (size_t)__builtin_ctzll(~unpopulated) : 64; /* the first populated page */
    return n < known ? n : known;
}

bool rt_fresh_page_unpopulated(const void *p, size_t page)
{
    return rt_fresh_pages_unpopulated(p, page, 1) == 1;
}
