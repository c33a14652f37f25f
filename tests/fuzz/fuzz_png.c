/*
 * libFuzzer harness for PNG decoding: uploaded and golden images arrive from
 * outside. rt_png_read_memory tries the fast path (png_fast.c: RGB/RGBA,
 * libdeflate) and falls back to libpng for everything else, so both run; the
 * fast path is also called alone, in place, on a copy. A decode that
 * succeeds must give width * height * 4 bytes, which are all read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "png_fast.h"
#include "png_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch(const struct rt_image *img)
{
    volatile uint8_t sum = 0;
    size_t n = (size_t)img->width * img->height * 4;
    for (size_t i = 0; i < n; i += 61)
        sum += img->rgba[i];
    if (n)
        sum += img->rgba[n - 1];
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rt_image img = {0};
    rt_status s = rt_png_read_memory(data, size, &img);
    if (rt_ok(&s)) {
        if (!img.width || !img.height || !img.rgba)
            abort();
        touch(&img);
    }
    rt_status_free(&s); /* an error's message is the caller's to free */
    rt_image_finish(&img);
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    struct rt_image fast = {0};
    if (rt_png_fast_decode_in_place(copy, size, &fast)) {
        touch(&fast);
        rt_image_finish(&fast);
    }
    free(copy);
    return 0;
}
