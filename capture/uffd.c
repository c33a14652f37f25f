/* capture/uffd.c — userfaultfd descriptor and fault thread (see uffd.h). */
#include "uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Debian 12's headers are Linux 6.1's: what 6.7 and 6.8 added, as the
 * kernel's uapi defines it (include/uapi/linux/fs.h, userfaultfd.h). The
 * kernel itself is probed at run time (probe_async). */
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1ull << 15)
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1ull << 16)
#endif
#ifndef UFFDIO_MOVE
struct uffdio_move {
    __u64 dst, src, len, mode;
    __s64 move;
};
#define _UFFDIO_MOVE (0x05)
#define UFFDIO_MOVE _IOWR(UFFDIO, _UFFDIO_MOVE, struct uffdio_move)
#define UFFDIO_MOVE_MODE_DONTWAKE ((__u64)1 << 0)
#endif
#ifndef PAGEMAP_SCAN
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_PRESENT (1 << 3)
struct page_region {
    __u64 start, end, categories;
};
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
struct pm_scan_arg {
    __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
    __u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

static int uffd = -1;
static int pagemap = -1; /* /proc/self/pagemap, for PAGEMAP_SCAN */
static bool async_wp;
static char not_async_why[160];
static rt_uffd_fault_fn on_fault;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static bool started, refused;
static char refused_why[160];
/* In a child after fork(2) the descriptor and /proc/self/pagemap still
 * name the parent's memory: scans and moves would act on the parent. */
static bool forked;

static void after_fork_in_child(void)
{
    forked = true;
}

/* Kernel-mode faults (the kernel copying to or from a tracked page) are what
 * we need: the syscall without UFFD_USER_MODE_ONLY refuses them to an
 * unprivileged process when vm.unprivileged_userfaultfd is 0; /dev/userfaultfd
 * gives them to whoever may open it. */
static int open_uffd(char *why, size_t why_size)
{
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    if (fd >= 0)
        return fd;
    int err = errno;
#ifdef USERFAULTFD_IOC_NEW
    int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
    if (dev >= 0) {
        fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
        close(dev);
        if (fd >= 0)
            return fd;
    }
#endif
    snprintf(why, why_size, "userfaultfd: %s%s", strerror(err),
             err == EPERM ? " (needs CAP_SYS_PTRACE or vm.unprivileged_userfaultfd=1)" : "");
    return -1;
}

/* The features this kernel's userfaultfd offers (asked of a descriptor of
 * its own: UFFDIO_API may be set only once per descriptor). */
static uint64_t offered_features(void)
{
    char why[160];
    int fd = open_uffd(why, sizeof why);
    struct uffdio_api api = {.api = UFFD_API, .features = 0};
    bool ok = fd >= 0 && ioctl(fd, UFFDIO_API, &api) == 0;
    if (fd >= 0)
        close(fd);
    return ok ? api.features : 0;
}

/* Asynchronous write-protect is asked for when the kernel offers it and
 * moves (refresh needs both, see memory_track.c) and nobody asked for
 * faults; probe_async then checks that PAGEMAP_SCAN works. */
static uint64_t wanted_features(bool want_async)
{
    uint64_t features = UFFD_FEATURE_PAGEFAULT_FLAG_WP;
    uint64_t need = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_MOVE;
    if (!want_async) {
        snprintf(not_async_why, sizeof not_async_why, "RETRACE_USERFAULTFD=sync");
        return features;
    }
    uint64_t offered = offered_features();
    if ((offered & need) != need) {
        snprintf(not_async_why, sizeof not_async_why, "the kernel's userfaultfd lacks %s",
                 !(offered & UFFD_FEATURE_WP_ASYNC) ? "asynchronous write-protect (Linux 6.7)"
                                                     : "UFFDIO_MOVE (Linux 6.8)");
        return features;
    }
    return features | need;
}

static bool api_and_probe(int fd, uint64_t features, char *why, size_t why_size)
{
    struct uffdio_api api = {.api = UFFD_API, .features = features};
    if (ioctl(fd, UFFDIO_API, &api) != 0) {
        snprintf(why, why_size, "userfaultfd: no write-protect faults (%s)", strerror(errno));
        return false;
    }
    long page = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        snprintf(why, why_size, "userfaultfd: cannot map a probe page");
        return false;
    }
    struct uffdio_register reg = {.range = {.start = (uintptr_t)p, .len = (uint64_t)page},
                                  .mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP};
    bool ok = ioctl(fd, UFFDIO_REGISTER, &reg) == 0;
    uint64_t need = (1ull << _UFFDIO_COPY) | (1ull << _UFFDIO_WRITEPROTECT) | (1ull << _UFFDIO_WAKE);
    if (!ok || (reg.ioctls & need) != need)
        snprintf(why, why_size, "userfaultfd: anonymous memory cannot be write-protected (%s)",
                 ok ? "missing ioctls" : strerror(errno));
    munmap(p, (size_t)page); /* unregisters it */
    return ok && (reg.ioctls & need) == need;
}

/* Asynchronous write-protect as memory_track.c uses it, on two probe pages
 * and a holding page: a protected page written is found by a scan, which
 * protects it again; a page moves to the holding area. */
static bool probe_async(char *why, size_t why_size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        snprintf(why, why_size, "cannot map probe pages");
        return false;
    }
    madvise(p, 3 * page, MADV_NOHUGEPAGE);
    static uint8_t src[65536];
    struct rt_uffd_run runs[2];
    uintptr_t next;
    bool ok = rt_uffd_register(p, 2 * page) && rt_uffd_register_hold(p + 2 * page, page) &&
              rt_uffd_copy(p, src, 2 * page, true);
    if (ok)
        p[page] = 1; /* written: resolved by the kernel, no fault reaches us */
    ok = ok && rt_uffd_scan(p, 2 * page, true, true, runs, 2, &next) == 1 &&
         runs[0].start == (uintptr_t)p + page && runs[0].end == (uintptr_t)p + 2 * page &&
         rt_uffd_scan(p, 2 * page, true, false, runs, 2, &next) == 0 &&
         rt_uffd_move(p + 2 * page, p + page, page) == page && p[2 * page] == 1;
    if (!ok)
        snprintf(why, why_size, "PAGEMAP_SCAN or UFFDIO_MOVE did not work on a probe page (%s)",
                 strerror(errno));
    munmap(p, 3 * page);
    return ok;
}

/* Decides between asynchronous write-protect and faults (uffd is set up). */
static void choose_async(uint64_t features)
{
    if (!(features & UFFD_FEATURE_WP_ASYNC))
        return;
    pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (pagemap < 0) {
        snprintf(not_async_why, sizeof not_async_why, "cannot open /proc/self/pagemap (%s)", strerror(errno));
        return;
    }
    async_wp = probe_async(not_async_why, sizeof not_async_why);
    if (async_wp)
        return;
    close(pagemap);
    pagemap = -1;
}

static void *fault_thread(void *arg)
{
    (void)arg;
    for (;;) {
        struct uffd_msg msg;
        ssize_t n = read(uffd, &msg, sizeof msg);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n != (ssize_t)sizeof msg)
            return NULL; /* closed: nothing left to serve */
        if (msg.event == UFFD_EVENT_PAGEFAULT)
            on_fault((uintptr_t)msg.arg.pagefault.address,
                     (msg.arg.pagefault.flags & (UFFD_PAGEFAULT_FLAG_WRITE | UFFD_PAGEFAULT_FLAG_WP)) != 0);
    }
}

/* The thread takes no signals: the program's handlers must run on its own
 * threads, and a signal must not interrupt a fault half served. */
static bool start_thread(char *why, size_t why_size)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int err = pthread_create(&t, NULL, fault_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        snprintf(why, why_size, "userfaultfd: cannot start its thread (%s)", strerror(err));
        return false;
    }
    pthread_setname_np(t, "retrace-uffd");
    pthread_detach(t);
    return true;
}

bool rt_uffd_start(rt_uffd_fault_fn fn, bool want_async, char *why, size_t why_size)
{
    pthread_mutex_lock(&start_lock);
    if (!started && !refused) {
        on_fault = fn;
        uint64_t features = wanted_features(want_async);
        uffd = open_uffd(refused_why, sizeof refused_why);
        bool ok = uffd >= 0 && api_and_probe(uffd, features, refused_why, sizeof refused_why);
        /* A kernel whose async probe fails still serves faults: but the
         * descriptor's features are set once, so it is opened again. */
        if (ok)
            choose_async(features);
        if (ok && (features & UFFD_FEATURE_WP_ASYNC) && !async_wp) {
            close(uffd);
            uffd = open_uffd(refused_why, sizeof refused_why);
            ok = uffd >= 0 && api_and_probe(uffd, UFFD_FEATURE_PAGEFAULT_FLAG_WP, refused_why, sizeof refused_why);
        }
        ok = ok && start_thread(refused_why, sizeof refused_why);
        if (ok)
            pthread_atfork(NULL, NULL, after_fork_in_child);
        if (!ok && uffd >= 0) {
            close(uffd);
            uffd = -1;
        }
        started = ok;
        refused = !ok;
    }
    bool ok = started;
    pthread_mutex_unlock(&start_lock);
    if (!ok)
        snprintf(why, why_size, "%s", refused_why);
    return ok;
}

bool rt_uffd_register(void *addr, size_t len)
{
    struct uffdio_register reg = {.range = {.start = (uintptr_t)addr, .len = len},
                                  .mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP};
    return ioctl(uffd, UFFDIO_REGISTER, &reg) == 0;
}

bool rt_uffd_copy(void *dst, const void *src, size_t len, bool write_protect)
{
    struct uffdio_copy c = {.dst = (uintptr_t)dst, .src = (uintptr_t)src, .len = len,
                            .mode = UFFDIO_COPY_MODE_DONTWAKE | (write_protect ? UFFDIO_COPY_MODE_WP : 0)};
    return ioctl(uffd, UFFDIO_COPY, &c) == 0;
}

bool rt_uffd_protect(void *addr, size_t len, bool protect)
{
    struct uffdio_writeprotect wp = {.range = {.start = (uintptr_t)addr, .len = len},
                                     .mode = protect ? UFFDIO_WRITEPROTECT_MODE_WP : UFFDIO_WRITEPROTECT_MODE_DONTWAKE};
    return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) == 0;
}

bool rt_uffd_async(void)
{
    return async_wp;
}

const char *rt_uffd_why_not_async(void)
{
    return not_async_why;
}

long rt_uffd_scan(void *addr, size_t len, bool written, bool protect, struct rt_uffd_run *out,
                  size_t max, uintptr_t *next)
{
    struct page_region vec[64];
    size_t cap = max < 64 ? max : 64;
    struct pm_scan_arg arg = {
        .size = sizeof arg,
        .flags = PM_SCAN_CHECK_WPASYNC | (protect && written ? PM_SCAN_WP_MATCHING : 0),
        .start = (uintptr_t)addr,
        .end = (uintptr_t)addr + len,
        .vec = (uintptr_t)vec,
        .vec_len = cap,
        /* Present pages only: a missing page counts as written (it has no
         * protection), and protecting it would cost a marker per page. */
        .category_mask = PAGE_IS_PRESENT | PAGE_IS_WRITTEN,
        .category_inverted = written ? 0 : PAGE_IS_WRITTEN,
        .return_mask = PAGE_IS_PRESENT | PAGE_IS_WRITTEN,
    };
    long n = forked ? -1 : ioctl(pagemap, PAGEMAP_SCAN, &arg);
    if (n < 0)
        return -1;
    for (long i = 0; i < n; i++)
        out[i] = (struct rt_uffd_run){.start = vec[i].start, .end = vec[i].end};
    *next = arg.walk_end;
    return n;
}

bool rt_uffd_register_hold(void *addr, size_t len)
{
    struct uffdio_register reg = {.range = {.start = (uintptr_t)addr, .len = len},
                                  .mode = UFFDIO_REGISTER_MODE_WP};
    return ioctl(uffd, UFFDIO_REGISTER, &reg) == 0;
}

/* A page the kernel is busy with (a fault on it in flight, its folio
 * locked) makes the move stop with EAGAIN: the rest is tried again. The
 * count is a hint only: a move stopped that way has been seen to leave one
 * page more moved than it said (Linux 6.18), so callers that get less than
 * len ask rt_uffd_present where each page is. */
size_t rt_uffd_move(void *dst, void *src, size_t len)
{
    size_t done = 0;
    for (unsigned tries = 0; !forked && done < len && tries < 1000; tries++) {
        struct uffdio_move m = {.dst = (uintptr_t)dst + done, .src = (uintptr_t)src + done,
                                .len = len - done, .mode = UFFDIO_MOVE_MODE_DONTWAKE};
        int rc = ioctl(uffd, UFFDIO_MOVE, &m);
        if (rc == 0)
            return len;
        int err = errno;
        if (m.move > 0)
            done += (size_t)m.move;
        if (err != EAGAIN)
            break;
        sched_yield();
    }
    return done;
}

bool rt_uffd_present(const void *addr)
{
    uint64_t entry = 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    off_t at = (off_t)((uintptr_t)addr / page * sizeof entry);
    return !forked && pread(pagemap, &entry, sizeof entry, at) == (ssize_t)sizeof entry && (entry >> 63) != 0;
}

void rt_uffd_wake(void *addr, size_t len)
{
    struct uffdio_range r = {.start = (uintptr_t)addr, .len = len};
    (void)ioctl(uffd, UFFDIO_WAKE, &r);
}
