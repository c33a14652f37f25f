/*
 * tests/integration/drop_updates.c — copies a trace without its memory
 * updates: `drop_updates IN OUT`. It stands for a capture that missed what
 * the program wrote (memory the layer could not see), so the test can show
 * that `retrace replay --verify` fails at the first readback that depended on
 * those bytes instead of replaying zeros silently. Everything else (calls,
 * frames, annotations, verification points, the device) is copied as it is.
 */
#include <stdio.h>
#include <stdlib.h>

#include "trace.h"

static rt_status copy_packet(struct rt_trace_writer *w, const struct rt_trace_packet *p, uint64_t *dropped)
{
    switch (p->type) {
    case RT_TRACE_PACKET_CALL:
        return rt_trace_writer_call(w, p->u.call.command_id, p->u.call.thread_id, p->u.call.return_value,
                                    p->u.call.params, p->u.call.size, NULL);
    case RT_TRACE_PACKET_MEMORY_UPDATE:
        ++*dropped;
        return rt_ok_status();
    case RT_TRACE_PACKET_FRAME_END:
        return rt_trace_writer_frame_end(w);
    case RT_TRACE_PACKET_DEVICE_INFO:
        return rt_trace_writer_set_device_info(w, p->u.device);
    case RT_TRACE_PACKET_VERIFY: {
        struct rt_trace_verify_range ranges[4096];
        size_t n = 0;
        struct rt_trace_verify_cursor c;
        rt_trace_verify_begin(p, &c);
        uint64_t *hashes = NULL;
        while (n < 4096 && rt_trace_verify_next(&c, &ranges[n]))
            n++;
        size_t total = 0;
        for (size_t i = 0; i < n; i++)
            total += ranges[i].piece_count;
        hashes = malloc((total ? total : 1) * sizeof *hashes);
        if (!hashes)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        for (size_t i = 0, at = 0; i < n; i++) {
            for (uint32_t k = 0; k < ranges[i].piece_count; k++)
                hashes[at + k] = rt_trace_verify_piece_hash(&ranges[i], k);
            ranges[i].hashes = hashes + at;
            at += ranges[i].piece_count;
        }
        rt_status s = rt_trace_writer_verify(w, ranges, n);
        free(hashes);
        return s;
    }
    default: /* annotations, unsupported calls: not needed by the test */
        return rt_ok_status();
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: drop_updates IN OUT\n");
        return 2;
    }
    struct rt_trace_reader *r;
    rt_status s = rt_trace_reader_open(argv[1], &r);
    if (!rt_ok(&s)) {
        fprintf(stderr, "drop_updates: %s\n", s.msg);
        return 3;
    }
    const struct rt_trace_header *h = rt_trace_reader_header(r);
    struct rt_trace_writer_options o = {.path = argv[2], .command_names = h->command_names,
                                        .command_count = h->command_count, .application_name = h->application_name,
                                        .api_version = h->api_version, .vk_header_version = h->vk_header_version,
                                        .device = h->has_device ? &h->device : NULL};
    struct rt_trace_writer *w = NULL;
    s = rt_trace_writer_create(&o, &w);
    uint64_t dropped = 0;
    struct rt_trace_packet p;
    while (rt_ok(&s)) {
        s = rt_trace_reader_next(r, &p);
        if (!rt_ok(&s) || p.type == RT_TRACE_PACKET_END)
            break;
        s = copy_packet(w, &p, &dropped);
    }
    rt_status closed = w ? rt_trace_writer_close(w, NULL) : rt_ok_status();
    rt_trace_reader_destroy(r);
    if (!rt_ok(&s) || !rt_ok(&closed)) {
        fprintf(stderr, "drop_updates: %s\n", rt_ok(&s) ? closed.msg : s.msg);
        return 5;
    }
    printf("dropped %llu memory updates\n", (unsigned long long)dropped);
    return 0;
}
