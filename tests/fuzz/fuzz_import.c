/*
 * libFuzzer harness for `retrace import` (import/ and gen/gfxr): the input is
 * a GFXReconstruct file. Seeds are real captures made by run.sh with the
 * capture layer where it is installed (each compression), and prefixes and
 * byte-flipped copies of them. An import may refuse the input only as bad
 * input (exit 3); a trace it writes must then read back cleanly, packet by
 * packet, with retrace's own reader. Every other input alternates
 * --keep-going, so the kept-prefix path is fuzzed too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_back(const char *path)
{
    struct rt_trace_reader *r;
    rt_status s = rt_trace_reader_open(path, &r);
    if (!rt_ok(&s))
        abort(); /* an import that wrote a trace wrote one retrace reads */
    struct rt_trace_packet p;
    do
        s = rt_trace_reader_next(r, &p);
    while (rt_ok(&s) && p.type != RT_TRACE_PACKET_END);
    if (!rt_ok(&s))
        abort();
    rt_trace_reader_destroy(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char in[64], out[64];
    static unsigned n;
    if (!in[0]) {
        snprintf(in, sizeof in, "/dev/shm/fuzz_import_%d.gfxr", (int)getpid());
        snprintf(out, sizeof out, "/dev/shm/fuzz_import_%d.rtrace", (int)getpid());
    }
    FILE *f = fopen(in, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    struct rt_import_options o = {.in = in, .out = out, .keep_going = n++ & 1,
                                  .compression = RT_TRACE_COMPRESSION_NONE};
    struct rt_import_summary sum;
    unlink(out);
    rt_status s = rt_import_gfxr(&o, &sum);
    if (!rt_ok(&s) && s.code != RT_ERR_BAD_INPUT)
        abort(); /* only bad input may fail an import */
    if (access(out, F_OK) == 0)
        read_back(out);
    rt_status_free(&s);
    unlink(out);
    return 0;
}
