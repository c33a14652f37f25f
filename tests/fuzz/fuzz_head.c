/*
 * libFuzzer harness for the request-head check of the server's front door
 * (server/head.c): any bytes, any length. A head it passes must also be
 * passed when more bytes follow it (a body), and every refusal must carry a
 * 4xx or 5xx status and a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "head.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly SIZE bytes, so ASan sees any read past the end */
    char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    struct rt_head_limits limits = {.max_body = 4096};
    struct rt_head_verdict v;
    enum rt_head_state state = rt_head_check(copy, size, &limits, &v);
    if (state == RT_HEAD_DONE && v.status && (v.status < 400 || v.status > 599 || !v.message[0]))
        abort();
    if (state == RT_HEAD_DONE && v.status == 0 && (v.head_size == 0 || v.head_size > size))
        abort();
    if (state == RT_HEAD_DONE && v.status == 0) {
        struct rt_head_verdict again;
        if (rt_head_check(copy, v.head_size, &limits, &again) != RT_HEAD_DONE || again.status)
            abort(); /* the head alone, without what followed it, is the same head */
    }
    free(copy);
    return 0;
}
