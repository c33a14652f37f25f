/*
 * tests/cli/make_trace.c — writes a small, deterministic .rtrace with the
 * trace writer, for CLI golden tests, the fuzz seed corpus and the
 * abnormal-exit tests (--die makes it die after the last frame, with three
 * calls of an unfinished frame still in memory).
 *
 * usage: make_trace OUT [--frames N] [--draws N] [--none] [--block-size N]
 *                       [--late-device] [--die abort|term|exit|segv]
 * Frame f holds N draws, a submit, a 256-byte memory update and a present;
 * frame 1 also creates an instance and a device, an annotation and an
 * unsupported command. So calls = frames * (draws + 2) + 2.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "signals.h"
#include "trace.h"

static const char *const names[] = {"vkCreateInstance", "vkCreateDevice", "vkQueueSubmit",
                                    "vkCmdDraw", "vkQueuePresentKHR", "vkCmdFancyEXT"};
enum { CREATE_INSTANCE, CREATE_DEVICE, QUEUE_SUBMIT, CMD_DRAW, QUEUE_PRESENT, FANCY };

#define VERSION(major, minor, patch) ((uint32_t)(major) << 22 | (uint32_t)(minor) << 12 | (patch))

struct options {
    const char *out, *die;
    int frames, draws;
    size_t block_size;
    bool none, late_device;
};

static void fake_device(struct rt_trace_device_info *d)
{
    memset(d, 0, sizeof *d);
    d->vendor_id = 0x1234;
    d->device_id = 0x5678;
    d->driver_version = VERSION(23, 1, 2);
    d->driver_id = 13;
    d->api_version = VERSION(1, 3, 239);
    d->device_type = 4;
    strcpy(d->device_name, "Test GPU");
    strcpy(d->driver_name, "testdriver");
    strcpy(d->driver_info, "Test driver 23.1.2");
    for (int i = 0; i < RT_TRACE_UUID_SIZE; i++) {
        d->pipeline_cache_uuid[i] = (uint8_t)i;
        d->device_uuid[i] = (uint8_t)(0x10 + i);
        d->driver_uuid[i] = (uint8_t)(0x20 + i);
    }
    d->memory_type_count = 2;
    d->memory_types[0] = (struct rt_trace_memory_type){0x1, 0};
    d->memory_types[1] = (struct rt_trace_memory_type){0x6, 1};
    d->memory_heap_count = 2;
    d->memory_heaps[0] = (struct rt_trace_memory_heap){256u << 20, 1};
    d->memory_heaps[1] = (struct rt_trace_memory_heap){1u << 30, 0};
}

static int parse(int argc, char **argv, struct options *o)
{
    *o = (struct options){.frames = 3, .draws = 4};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--none")) o->none = true;
        else if (!strcmp(a, "--late-device")) o->late_device = true;
        else if (!strcmp(a, "--frames") && v) o->frames = atoi(argv[++i]);
        else if (!strcmp(a, "--draws") && v) o->draws = atoi(argv[++i]);
        else if (!strcmp(a, "--block-size") && v) o->block_size = (size_t)atol(argv[++i]);
        else if (!strcmp(a, "--die") && v) o->die = argv[++i];
        else if (a[0] != '-' && !o->out) o->out = a;
        else return -1;
    }
    return o->out ? 0 : -1;
}

static rt_status write_frame(struct rt_trace_writer *w, const struct options *o, int f)
{
    if (f == 1) {
        RT_TRY(rt_trace_writer_call(w, CREATE_INSTANCE, 1, 0, "instance", 8, NULL));
        RT_TRY(rt_trace_writer_call(w, CREATE_DEVICE, 1, 0, "device", 6, NULL));
        RT_TRY(rt_trace_writer_annotation(w, RT_TRACE_ANNOTATION_DEBUG_LABEL, "frame one"));
        RT_TRY(rt_trace_writer_unsupported(w, FANCY, 1, "pNext sType 1000999000 unknown"));
    }
    for (int i = 0; i < o->draws; i++) {
        uint32_t params[4] = {3, 1, (uint32_t)i, (uint32_t)f};
        RT_TRY(rt_trace_writer_call(w, CMD_DRAW, 1, 0, params, sizeof params, NULL));
    }
    RT_TRY(rt_trace_writer_call(w, QUEUE_SUBMIT, 1, 0, "submit", 6, NULL));
    uint8_t mem[256];
    for (int i = 0; i < 256; i++)
        mem[i] = (uint8_t)(i ^ f);
    RT_TRY(rt_trace_writer_memory_update(w, 7, (uint64_t)f * 256, mem, sizeof mem));
    RT_TRY(rt_trace_writer_call(w, QUEUE_PRESENT, 1, 0, "present", 7, NULL));
    return rt_trace_writer_frame_end(w);
}

static void die(struct rt_trace_writer *w, const char *how)
{
    for (uint32_t i = 0; i < 3; i++) { /* an unfinished frame */
        rt_status s = rt_trace_writer_call(w, CMD_DRAW, 1, 0, &i, sizeof i, NULL);
        if (!rt_ok(&s))
            fprintf(stderr, "make_trace: %s\n", s.msg);
    }
    if (!strcmp(how, "abort"))
        abort();
    if (!strcmp(how, "term"))
        kill(getpid(), SIGTERM);
    if (!strcmp(how, "segv"))
        raise(SIGSEGV);
    if (!strcmp(how, "exit"))
        exit(0);
    for (;;)
        pause(); /* SIGTERM arrives on some thread: wait for it */
}

static rt_status run(const struct options *o)
{
    struct rt_trace_device_info dev;
    fake_device(&dev);
    struct rt_trace_writer_options wo = {
        .path = o->out, .block_size = o->block_size,
        .compression = o->none ? RT_TRACE_COMPRESSION_NONE : RT_TRACE_COMPRESSION_ZSTD,
        .application_name = "make_trace", .application_version = VERSION(1, 0, 0),
        .engine_name = "none", .api_version = VERSION(1, 3, 0),
        .vk_header_version = VERSION(1, 3, 239), .settings = o->none ? "RETRACE_COMPRESSION=none" : "RETRACE_COMPRESSION=zstd",
        .command_names = names, .command_count = sizeof names / sizeof names[0],
        .device = o->late_device ? NULL : &dev};
    struct rt_trace_writer *w;
    RT_TRY(rt_trace_writer_create(&wo, &w));
    if (o->die) { /* the capture layer's handlers, which call the trace's flush */
        RT_TRY(capture_signals_install());
        capture_signals_set_trace(w);
    }
    rt_status s = rt_ok_status();
    for (int f = 1; f <= o->frames && rt_ok(&s); f++) {
        s = write_frame(w, o, f);
        if (f == 1 && o->late_device && rt_ok(&s))
            s = rt_trace_writer_set_device_info(w, &dev);
    }
    if (o->die && rt_ok(&s))
        die(w, o->die);
    struct rt_trace_writer_stats st;
    rt_status c = rt_trace_writer_close(w, &st);
    RT_TRY(s);
    RT_TRY(c);
    printf("frames %llu calls %llu blocks %llu file %llu\n", (unsigned long long)st.frames,
           (unsigned long long)st.calls, (unsigned long long)st.blocks,
           (unsigned long long)st.file_bytes);
    return c;
}

int main(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: make_trace OUT [--frames N] [--draws N] [--none] "
                        "[--block-size N] [--late-device] [--die abort|term|exit|segv]\n");
        return 2;
    }
    rt_status s = run(&o);
    if (!rt_ok(&s)) {
        fprintf(stderr, "make_trace: %s\n", s.msg);
        return (int)s.code;
    }
    return 0;
}
