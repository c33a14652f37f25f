/* capture/uffd.c — userfaultfd descriptor and fault thread (see uffd.h). */
#include "uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int uffd = -1;
static rt_uffd_fault_fn on_fault;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static bool started, refused;
static char refused_why[160];

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

static bool api_and_probe(int fd, char *why, size_t why_size)
{
    struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP};
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

bool rt_uffd_start(rt_uffd_fault_fn fn, char *why, size_t why_size)
{
    pthread_mutex_lock(&start_lock);
    if (!started && !refused) {
        on_fault = fn;
        uffd = open_uffd(refused_why, sizeof refused_why);
        bool ok = uffd >= 0 && api_and_probe(uffd, refused_why, sizeof refused_why) &&
                  start_thread(refused_why, sizeof refused_why);
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

void rt_uffd_wake(void *addr, size_t len)
{
    struct uffdio_range r = {.start = (uintptr_t)addr, .len = len};
    (void)ioctl(uffd, UFFDIO_WAKE, &r);
}
