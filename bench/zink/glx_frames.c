/*
 * bench/zink/glx_frames.c — LD_PRELOAD shim that ends a GLX program after
 * BENCH_FRAMES (default 1000) glXSwapBuffers, with exit(0), so glxgears
 * (which runs forever) renders exactly the same frames bare and captured.
 * exit() runs the capture layer's exit hook, which finishes the trace.
 * Built by bench/zink.sh with cc into its work folder; not part of retrace.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

typedef void (*swap_fn)(void *display, unsigned long drawable);

void glXSwapBuffers(void *display, unsigned long drawable)
{
    static swap_fn next;
    static long frames, limit;
    if (!next) {
        next = (swap_fn)dlsym(RTLD_NEXT, "glXSwapBuffers");
        const char *e = getenv("BENCH_FRAMES");
        limit = e ? atol(e) : 1000;
    }
    next(display, drawable);
    if (++frames >= limit)
        exit(0);
}
