/*
 * tests/integration/edit_trace.c — copies a trace with one thing changed,
 * standing for a capture or a replay that went wrong, so the tests can show
 * that `retrace replay --verify` catches it instead of replaying silently:
 *   edit_trace drop-updates IN OUT   without its memory updates (a capture
 *                                    that missed what the program wrote)
 *   edit_trace bump-queries IN OUT   every vkGetQueryPoolResults result the
 *                                    capture saw is one more (results the
 *                                    replay will not get)
 * Everything else (calls, frames, verification points, the device) is copied
 * as it is; annotations and unsupported-call packets are left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "vkcodec.h"

static bool bump_queries;

/* The call with its captured query results plus one in their first byte. */
static rt_status copy_query_call(struct rt_trace_writer *w, const struct rt_trace_header *h,
                                 const struct rt_trace_packet *p)
{
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    struct rt_vk_args_vkGetQueryPoolResults a;
    struct rt_dec dec;
    rt_dec_init(&dec, p->u.call.params, p->u.call.size, &arena);
    rt_status s = rt_vk_decode_call(&dec, RT_VK_CMD_vkGetQueryPoolResults, &a);
    struct rt_enc enc;
    rt_enc_init(&enc);
    if (rt_ok(&s) && a.pData && a.dataSize)
        ((uint8_t *)a.pData)[0]++;
    if (rt_ok(&s))
        s = rt_vk_encode_call(&enc, RT_VK_CMD_vkGetQueryPoolResults, &a);
    if (rt_ok(&s))
        s = rt_trace_writer_call(w, p->u.call.command_id, p->u.call.thread_id, p->u.call.return_value, enc.data,
                                 enc.size, NULL);
    rt_enc_finish(&enc);
    rt_arena_finish(&arena);
    (void)h;
    return s;
}

static rt_status copy_packet(struct rt_trace_writer *w, const struct rt_trace_header *h,
                             const struct rt_trace_packet *p, uint64_t *edited)
{
    switch (p->type) {
    case RT_TRACE_PACKET_CALL:
        if (bump_queries && !strcmp(h->command_names[p->u.call.command_id], "vkGetQueryPoolResults")) {
            ++*edited;
            return copy_query_call(w, h, p);
        }
        return rt_trace_writer_call(w, p->u.call.command_id, p->u.call.thread_id, p->u.call.return_value,
                                    p->u.call.params, p->u.call.size, NULL);
    case RT_TRACE_PACKET_MEMORY_UPDATE:
        if (bump_queries)
            return rt_trace_writer_memory_update(w, p->u.memory.memory_id, p->u.memory.offset, p->u.memory.data,
                                                 p->u.memory.size);
        ++*edited;
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
    if (argc != 4 || (strcmp(argv[1], "drop-updates") && strcmp(argv[1], "bump-queries"))) {
        fprintf(stderr, "usage: edit_trace drop-updates|bump-queries IN OUT\n");
        return 2;
    }
    bump_queries = !strcmp(argv[1], "bump-queries");
    argv++;
    struct rt_trace_reader *r;
    rt_status s = rt_trace_reader_open(argv[1], &r);
    if (!rt_ok(&s)) {
        fprintf(stderr, "edit_trace: %s\n", s.msg);
        return 3;
    }
    const struct rt_trace_header *h = rt_trace_reader_header(r);
    struct rt_trace_writer_options o = {.path = argv[2], .command_names = h->command_names,
                                        .command_count = h->command_count, .application_name = h->application_name,
                                        .api_version = h->api_version, .vk_header_version = h->vk_header_version,
                                        .device = h->has_device ? &h->device : NULL};
    struct rt_trace_writer *w = NULL;
    s = rt_trace_writer_create(&o, &w);
    uint64_t edited = 0;
    struct rt_trace_packet p;
    while (rt_ok(&s)) {
        s = rt_trace_reader_next(r, &p);
        if (!rt_ok(&s) || p.type == RT_TRACE_PACKET_END)
            break;
        s = copy_packet(w, h, &p, &edited);
    }
    rt_status closed = w ? rt_trace_writer_close(w, NULL) : rt_ok_status();
    rt_trace_reader_destroy(r);
    if (!rt_ok(&s) || !rt_ok(&closed)) {
        fprintf(stderr, "edit_trace: %s\n", rt_ok(&s) ? closed.msg : s.msg);
        return 5;
    }
    printf("%s: %llu packets\n", bump_queries ? "bumped query results" : "dropped memory updates",
           (unsigned long long)edited);
    return 0;
}
