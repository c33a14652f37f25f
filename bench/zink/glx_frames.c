/*
 * bench/zink/glx_frames.c — LD_PRELOAD shim that ends a GLX program after
 * BENCH_FRAMES (default 1000) glXSwapBuffers, with exit(0), so glxgears
 * (which runs forever) and glmark2 (which runs each scene for a time, not a
 * number of frames) render exactly the same frames bare and captured.
 * exit() runs the capture layer's exit hook, which finishes the trace.
 *
 * With BENCH_REPORT=FILE it appends "FRAMES WALL_S CPU_S" to FILE at exit:
 * the frames after the first BENCH_WARMUP (default 0), their wall time and
 * the process's CPU time (all threads) over them, so a frame rate can be
 * read without the program's start-up and shader compiles.
 *
 * glmark2 loads libGL with dlopen and finds glXSwapBuffers with dlsym (or
 * glXGetProcAddress), which an LD_PRELOAD definition alone does not catch:
 * dlsym is wrapped to hand out this file's glXSwapBuffers for that name.
 * Built by bench/zink.sh with cc into its work folder; not part of retrace.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef void (*swap_fn)(void *display, unsigned long drawable);
typedef void *(*dlsym_fn)(void *handle, const char *name);
typedef void *(*getproc_fn)(const unsigned char *name);

static swap_fn real_swap;
static getproc_fn real_getproc, real_getproc_arb;
static long frames, limit = -1, warmup;
static double wall_start, cpu_start;

void glXSwapBuffers(void *display, unsigned long drawable);
void *glXGetProcAddress(const unsigned char *name);
void *glXGetProcAddressARB(const unsigned char *name);

static dlsym_fn real_dlsym(void)
{
    static dlsym_fn fn;
    if (!fn)
        fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!fn)
        fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    return fn;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static void report(void)
{
    const char *path = getenv("BENCH_REPORT");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "%ld %.4f %.4f\n", frames - warmup, wall_now() - wall_start, cpu_now() - cpu_start);
    fclose(f);
}

static void *hooked(const char *name, void *found)
{
    if (!name || !found)
        return found;
    if (!strcmp(name, "glXSwapBuffers")) {
        real_swap = (swap_fn)found;
        return (void *)glXSwapBuffers;
    }
    if (!strcmp(name, "glXGetProcAddress") || !strcmp(name, "glXGetProcAddressARB")) {
        if (name[17] == 'A') {
            real_getproc_arb = (getproc_fn)found;
            return (void *)glXGetProcAddressARB;
        }
        real_getproc = (getproc_fn)found;
        return (void *)glXGetProcAddress;
    }
    return found;
}

void *dlsym(void *handle, const char *name)
{
    dlsym_fn next = real_dlsym();
    return next ? hooked(name, next(handle, name)) : NULL;
}

void glXSwapBuffers(void *display, unsigned long drawable)
{
    if (!real_swap)
        real_swap = (swap_fn)real_dlsym()(RTLD_NEXT, "glXSwapBuffers");
    if (limit < 0) {
        const char *e = getenv("BENCH_FRAMES"), *w = getenv("BENCH_WARMUP");
        limit = e ? atol(e) : 1000;
        warmup = w ? atol(w) : 0;
        wall_start = wall_now();
        cpu_start = cpu_now();
    }
    real_swap(display, drawable);
    if (++frames == warmup) {
        wall_start = wall_now();
        cpu_start = cpu_now();
    }
    if (frames >= limit) {
        report();
        exit(0);
    }
}

/* A program that asks GLX itself for glXSwapBuffers gets this one too. */
static void *via_getproc(getproc_fn next, const unsigned char *name)
{
    void *found = next ? next(name) : NULL;
    return hooked((const char *)name, found);
}

void *glXGetProcAddressARB(const unsigned char *name)
{
    if (!real_getproc_arb)
        real_getproc_arb = (getproc_fn)real_dlsym()(RTLD_NEXT, "glXGetProcAddressARB");
    return via_getproc(real_getproc_arb, name);
}

void *glXGetProcAddress(const unsigned char *name)
{
    if (!real_getproc)
        real_getproc = (getproc_fn)real_dlsym()(RTLD_NEXT, "glXGetProcAddress");
    return via_getproc(real_getproc, name);
}
