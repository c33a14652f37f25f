/*
 * tests/fuzz/fuzz_reader.c — libFuzzer harness for the .rtrace reader.
 * Opens the input as a trace from memory, reads every packet and touches
 * every byte a packet view points at (so ASan sees any view that escapes the
 * buffers), and checks the good-prefix report never claims more than the
 * input. Built with RT_FUZZ_IGNORE_CHECKSUMS (see trace_internal.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t touch(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint8_t x = 0;
    for (size_t i = 0; i < n; i++)
        x ^= b[i];
    return x;
}

static uint8_t touch_packet(const struct rt_trace_packet *p)
{
    switch (p->type) {
    case RT_TRACE_PACKET_CALL: return touch(p->u.call.params, p->u.call.size);
    case RT_TRACE_PACKET_MEMORY_UPDATE: return touch(p->u.memory.data, p->u.memory.size);
    case RT_TRACE_PACKET_ANNOTATION: return touch(p->u.annotation.text, p->u.annotation.length);
    case RT_TRACE_PACKET_UNSUPPORTED:
        return touch(p->u.unsupported.reason, p->u.unsupported.length);
    case RT_TRACE_PACKET_DEVICE_INFO: return touch(p->u.device->device_name, strlen(p->u.device->device_name));
    default: return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rt_trace_reader *r;
    rt_status s = rt_trace_reader_open_memory(data, size, &r);
    if (!rt_ok(&s)) {
        rt_status_free(&s); /* a refused input's error owns its message */
        return 0;
    }
    const struct rt_trace_header *h = rt_trace_reader_header(r);
    volatile uint8_t sink = touch(h->application_name, strlen(h->application_name));
    for (uint32_t i = 0; i < h->command_count; i++)
        sink ^= touch(h->command_names[i], strlen(h->command_names[i]));
    struct rt_trace_packet p;
    uint64_t packets = 0;
    for (;;) {
        s = rt_trace_reader_next(r, &p);
        if (!rt_ok(&s) || p.type == RT_TRACE_PACKET_END)
            break;
        sink ^= touch_packet(&p);
        packets++;
    }
    struct rt_trace_progress pr;
    rt_trace_reader_progress(r, &pr);
    /* The report may never claim more than the input, nor fewer packets than delivered. */
    if (pr.good_bytes > size || pr.packets < packets || (rt_ok(&s) && pr.good_bytes != size))
        __builtin_trap();
    rt_status_free(&s);
    rt_trace_reader_destroy(r);
    (void)sink;
    return 0;
}
