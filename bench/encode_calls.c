/*
 * bench/encode_calls.c TRACE — the capture layer's encoder on a real call
 * mix, in instructions (bench/README.md): every call of TRACE (captured by
 * this build, so its command numbering is this build's) is decoded once,
 * then encode_all() encodes them all again the way capture_record_call does.
 * Run under `valgrind --tool=callgrind --toggle-collect=encode_all`, it
 * counts the encoder's instructions alone, whatever the machine's load;
 * with --toggle-collect=rt_vk_decode_call_stats the decoder's, with
 * --toggle-collect=walk_all the handle walk replay runs on every call
 * (walk_all visits every call's handles once, as replay maps them), with
 * --toggle-collect=write_all the trace writer's append of each call's packet
 * (rt_trace_writer_call, what capture_record_call does after encoding; the
 * writer thread's compression is not counted, its thread is not collected).
 * Prints the calls, the bytes, how many re-encodings differ from the bytes
 * the trace holds (function pointers decode as NULL, so those calls differ)
 * and a hash of every encoding, to show two builds encode the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "trace.h"
#include "vkcodec.h"

struct call {
    enum rt_vk_cmd cmd;
    void *args;
    const uint8_t *params; /* the trace's bytes */
    size_t size;
};

/* Not inlined: callgrind's --toggle-collect names it. */
__attribute__((noinline)) static uint64_t encode_all(const struct call *calls, size_t n, struct rt_enc *enc,
                                                     size_t *differ, uint64_t *bytes)
{
    XXH3_state_t *h = XXH3_createState();
    XXH3_64bits_reset(h);
    for (size_t i = 0; i < n; i++) {
        rt_enc_reset(enc);
        struct rt_vk_stats stats = {0};
        rt_status s = rt_vk_encode_call_stats(enc, calls[i].cmd, calls[i].args, &stats);
        rt_status_free(&s);
        XXH3_64bits_update(h, enc->data, enc->size);
        *bytes += enc->size;
        *differ += enc->size != calls[i].size || memcmp(enc->data, calls[i].params, enc->size) != 0;
    }
    uint64_t digest = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return digest;
}

static void count_handle(void *user, VkObjectType type, void *slot, bool output)
{
    (void)type;
    (void)slot;
    (void)output;
    ++*(uint64_t *)user;
}

/* Not inlined: callgrind's --toggle-collect names it. */
__attribute__((noinline)) static uint64_t walk_all(const struct call *calls, size_t n)
{
    uint64_t handles = 0;
    for (size_t i = 0; i < n; i++)
        rt_vk_walk_handles(calls[i].cmd, calls[i].args, count_handle, &handles);
    return handles;
}

/* Not inlined: callgrind's --toggle-collect names it. */
__attribute__((noinline)) static rt_status write_all(struct rt_trace_writer *w, const struct call *calls, size_t n)
{
    for (size_t i = 0; i < n; i++)
        RT_TRY(rt_trace_writer_call(w, (uint32_t)calls[i].cmd, 1, 0, calls[i].params, calls[i].size, NULL));
    return rt_ok_status();
}

/* Appends every call to a trace of the same commands in a temporary file,
 * and removes it. */
static rt_status write_calls(const struct rt_trace_header *h, const struct call *calls, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/encode_calls-%ld.rtrace", (long)getpid());
    struct rt_trace_writer_options o = {.path = path, .compression = RT_TRACE_COMPRESSION_NONE,
                                        .command_names = h->command_names, .command_count = h->command_count};
    struct rt_trace_writer *w;
    RT_TRY(rt_trace_writer_create(&o, &w));
    rt_status s = write_all(w, calls, n);
    rt_status c = rt_trace_writer_close(w, NULL);
    unlink(path);
    if (!rt_ok(&s)) {
        rt_status_free(&c);
        return s;
    }
    return c;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: encode_calls TRACE\n");
        return 2;
    }
    struct rt_trace_reader *r;
    rt_status s = rt_trace_reader_open(argv[1], &r);
    if (!rt_ok(&s)) {
        fprintf(stderr, "encode_calls: %s: %s\n", argv[1], s.msg);
        return 1;
    }
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    size_t n = 0, cap = 0, skipped = 0;
    struct call *calls = NULL;
    struct rt_trace_packet p;
    for (;;) {
        s = rt_trace_reader_next(r, &p);
        if (!rt_ok(&s) || p.type == RT_TRACE_PACKET_END)
            break;
        if (p.type != RT_TRACE_PACKET_CALL)
            continue;
        enum rt_vk_cmd cmd = (enum rt_vk_cmd)p.u.call.command_id;
        size_t size = rt_vk_args_size(cmd);
        void *args = size ? rt_arena_alloc(&arena, size, 16) : NULL;
        uint8_t *params = rt_arena_alloc(&arena, p.u.call.size ? p.u.call.size : 1, 1);
        if (!args || !params) {
            skipped++;
            continue;
        }
        memset(args, 0, size);
        memcpy(params, p.u.call.params, p.u.call.size);
        struct rt_dec dec;
        rt_dec_init(&dec, params, p.u.call.size, &arena);
        rt_status d = rt_vk_decode_call(&dec, cmd, args);
        if (!rt_ok(&d)) {
            rt_status_free(&d);
            skipped++;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            calls = realloc(calls, cap * sizeof *calls);
            if (!calls)
                return 1;
        }
        calls[n++] = (struct call){cmd, args, params, p.u.call.size};
    }
    rt_status_free(&s);
    struct rt_enc enc;
    rt_enc_init(&enc);
    size_t differ = 0;
    uint64_t bytes = 0;
    uint64_t digest = encode_all(calls, n, &enc, &differ, &bytes);
    uint64_t handles = walk_all(calls, n);
    rt_status written = write_calls(rt_trace_reader_header(r), calls, n);
    if (!rt_ok(&written)) {
        fprintf(stderr, "encode_calls: writing the calls again: %s\n", written.msg);
        rt_status_free(&written);
        return 1;
    }
    printf("calls %zu (not decoded %zu), bytes %llu, differing from the trace %zu, digest %016llx, handles %llu\n", n,
           skipped, (unsigned long long)bytes, differ, (unsigned long long)digest, (unsigned long long)handles);
    rt_enc_finish(&enc);
    free(calls);
    rt_arena_finish(&arena);
    rt_trace_reader_destroy(r);
    return differ || skipped ? 1 : 0; /* the test encoder-matches-traces reads this */
}
