/*
 * Unit tests for compare/png_io: round trips, every PNG flavour libpng reads
 * (committed files made by tests/ref/make_refs.py, each with the RGBA bytes it
 * must decode to), and hostile input (every prefix, flipped bytes, junk).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "png_io.h"

/* A deterministic test pattern: every channel differs, alpha included. */
static void fill_pattern(struct rt_image *im)
{
    for (uint32_t y = 0; y < im->height; y++)
        for (uint32_t x = 0; x < im->width; x++) {
            uint8_t *p = im->rgba + ((size_t)y * im->width + x) * 4;
            p[0] = (uint8_t)(x * 7 + y);
            p[1] = (uint8_t)(y * 13 + x * 3);
            p[2] = (uint8_t)(x ^ y);
            p[3] = (uint8_t)(255 - x - y);
        }
}

static void encode_pattern(uint32_t w, uint32_t h, struct rt_image *im, uint8_t **png,
                           size_t *size)
{
    rt_status st = rt_image_init(im, w, h);
    cr_assert(rt_ok(&st), "%s", st.msg);
    fill_pattern(im);
    st = rt_png_write_memory(im, png, size);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_gt(*size, 8);
}

Test(png, memory_round_trip_keeps_every_byte)
{
    struct rt_image im, back;
    uint8_t *png;
    size_t size;
    encode_pattern(37, 23, &im, &png, &size);
    rt_status st = rt_png_read_memory(png, size, &back);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_eq(back.width, 37);
    cr_assert_eq(back.height, 23);
    cr_assert_eq(memcmp(back.rgba, im.rgba, 37 * 23 * 4), 0);
    rt_image_finish(&back);
    rt_image_finish(&im);
    cr_assert_null(im.rgba);
    free(png);
}

Test(png, file_round_trip_matches_memory_bytes)
{
    struct rt_image im, back;
    uint8_t *png;
    size_t size;
    encode_pattern(5, 9, &im, &png, &size);
    char path[] = "/tmp/rt_test_png_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    rt_status st = rt_png_write_file(path, &im);
    cr_assert(rt_ok(&st), "%s", st.msg);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    uint8_t *disk = malloc(size + 16);
    size_t got = fread(disk, 1, size + 16, f);
    fclose(f);
    cr_assert_eq(got, size, "the file and the memory encodings differ in size");
    cr_assert_eq(memcmp(disk, png, size), 0);
    st = rt_png_read_file(path, &back);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_eq(memcmp(back.rgba, im.rgba, 5 * 9 * 4), 0);
    remove(path);
    close(fd);
    rt_image_finish(&back);
    rt_image_finish(&im);
    free(disk);
    free(png);
}

Test(png, every_proper_prefix_is_bad_input)
{
    struct rt_image im, back;
    uint8_t *png;
    size_t size;
    encode_pattern(16, 16, &im, &png, &size);
    for (size_t n = 0; n < size; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* a fresh buffer so ASan sees overreads */
        memcpy(copy, png, n);
        rt_status st = rt_png_read_memory(copy, n, &back);
        cr_assert_eq(st.code, RT_ERR_BAD_INPUT, "prefix of %zu/%zu bytes was accepted", n, size);
        cr_assert_null(back.rgba);
        cr_assert_gt(strlen(st.msg), 0);
        free(copy);
    }
    rt_image_finish(&im);
    free(png);
}

Test(png, flipped_bytes_never_crash)
{
    struct rt_image im, back;
    uint8_t *png;
    size_t size;
    encode_pattern(16, 16, &im, &png, &size);
    int rejected = 0;
    for (size_t i = 0; i < size; i++) {
        uint8_t *copy = malloc(size);
        memcpy(copy, png, size);
        copy[i] ^= 0x5a;
        rt_status st = rt_png_read_memory(copy, size, &back);
        if (!rt_ok(&st)) {
            cr_assert_eq(st.code, RT_ERR_BAD_INPUT, "%s", st.msg);
            rejected++;
        }
        rt_image_finish(&back);
        free(copy);
    }
    /* Every byte is covered by a CRC or the signature; ancillary chunks aside,
     * nearly all flips must be caught. */
    cr_assert_gt(rejected, (int)size * 9 / 10, "only %d of %zu flips rejected", rejected, size);
    rt_image_finish(&im);
    free(png);
}

Test(png, not_a_png_names_the_problem)
{
    struct rt_image back;
    const char junk[] = "GIF89a this is not a png at all";
    rt_status st = rt_png_read_memory(junk, sizeof junk, &back);
    cr_assert_eq(st.code, RT_ERR_BAD_INPUT);
    cr_assert_not_null(strstr(st.msg, "not a PNG"), "%s", st.msg);
    st = rt_png_read_memory(NULL, 0, &back);
    cr_assert_eq(st.code, RT_ERR_BAD_INPUT);
    st = rt_png_read_file("/nonexistent/dir/x.png", &back);
    cr_assert_eq(st.code, RT_ERR_BAD_INPUT);
    cr_assert_not_null(strstr(st.msg, "/nonexistent/dir/x.png"), "%s", st.msg);
}

Test(png, bad_sizes_are_refused)
{
    struct rt_image im;
    cr_assert_eq(rt_image_init(&im, 0, 4).code, RT_ERR_USAGE);
    cr_assert_eq(rt_image_init(&im, 70000, 1).code, RT_ERR_USAGE);
    cr_assert_eq(rt_image_init(&im, 65535, 65535).code, RT_ERR_USAGE);
    struct rt_image empty = {0};
    uint8_t *out;
    size_t size;
    cr_assert_eq(rt_png_write_memory(&empty, &out, &size).code, RT_ERR_USAGE);
    cr_assert_null(out);
}
