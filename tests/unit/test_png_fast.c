/*
 * Unit tests for png/png_fast: every PNG row filter, RGB and RGBA, odd
 * widths, decodes to the pixels written; what the fast path must leave to
 * libpng (other formats, interlacing, a bad CRC, a bad filter byte, extra or
 * split image data) it declines, and rt_png_read_memory still decodes or
 * refuses such files as libpng does.
 */
#include <criterion/criterion.h>
#include <libdeflate.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "png_fast.h"
#include "png_io.h"

struct sink {
    uint8_t *data;
    size_t size, cap;
};

static void sink_write(png_structp png, png_bytep src, size_t n)
{
    struct sink *s = png_get_io_ptr(png);
    if (s->cap - s->size < n) {
        s->cap = (s->cap + n) * 2;
        s->data = realloc(s->data, s->cap);
        cr_assert_not_null(s->data);
    }
    memcpy(s->data + s->size, src, n);
    s->size += n;
}

static void sink_flush(png_structp png) { (void)png; }

static uint8_t sample(uint32_t x, uint32_t y, int c) { return (uint8_t)(x * 37 + y * 11 + c * 91 + (x * y) % 7); }

/* A W x H PNG through libpng with the given colour type, depth, filter and interlace. */
static struct sink write_png(uint32_t w, uint32_t h, int colour, int depth, int filter,
                             int interlace)
{
    struct sink s = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert(png && info);
    png_set_write_fn(png, &s, sink_write, sink_flush);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filter);
    png_set_IHDR(png, info, w, h, depth, colour, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (colour == PNG_COLOR_TYPE_PALETTE) {
        png_color pal[256];
        for (int i = 0; i < 256; i++)
            pal[i] = (png_color){(png_byte)i, (png_byte)(255 - i), (png_byte)(i / 2)};
        png_set_PLTE(png, info, pal, 256);
    }
    png_write_info(png, info);
    int channels = png_get_channels(png, info), bytes = depth / 8;
    uint8_t *row = malloc((size_t)w * channels * bytes);
    for (int pass = 0; pass < (interlace ? 7 : 1); pass++)
        for (uint32_t y = 0; y < h; y++) {
            for (uint32_t x = 0; x < w; x++)
                for (int c = 0; c < channels * bytes; c++)
                    row[((size_t)x * channels) * bytes + c] = sample(x, y, c);
            png_write_row(png, row);
        }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    return s;
}

static void expect_pixels(const struct rt_image *im, uint32_t w, uint32_t h, int channels)
{
    cr_assert_eq(im->width, w);
    cr_assert_eq(im->height, h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                uint8_t want = c < channels ? sample(x, y, c) : 255;
                cr_assert_eq(im->rgba[((size_t)y * w + x) * 4 + c], want,
                             "%ux%u (%d channels) pixel %u,%u channel %d", w, h, channels, x,
                             y, c);
            }
}

Test(png_fast, every_filter_rgb_and_rgba_decodes_to_the_pixels_written)
{
    static const int filters[] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP,
                                  PNG_FILTER_AVG, PNG_FILTER_PAETH, PNG_ALL_FILTERS};
    static const uint32_t sizes[][2] = {{1, 1}, {1, 6}, {2, 3}, {5, 4}, {33, 17}, {130, 9}};
    for (int colour = 0; colour < 2; colour++)
        for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                uint32_t w = sizes[i][0], h = sizes[i][1];
                int type = colour ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
                struct sink s = write_png(w, h, type, 8, filters[f], PNG_INTERLACE_NONE);
                struct rt_image im = {0};
                cr_assert(rt_png_fast_decode(s.data, s.size, &im), "%ux%u filter %d", w, h,
                          filters[f]);
                expect_pixels(&im, w, h, colour ? 4 : 3);
                rt_image_finish(&im);
                free(s.data);
            }
}

/* Other formats go to libpng, which still decodes them. */
Test(png_fast, other_formats_are_left_to_libpng)
{
    struct { int colour, depth, interlace; } cases[] = {
        {PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_ADAM7},
        {PNG_COLOR_TYPE_RGB_ALPHA, 16, PNG_INTERLACE_NONE},
        {PNG_COLOR_TYPE_GRAY, 8, PNG_INTERLACE_NONE},
        {PNG_COLOR_TYPE_PALETTE, 8, PNG_INTERLACE_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sink s = write_png(9, 5, cases[i].colour, cases[i].depth, PNG_ALL_FILTERS,
                                  cases[i].interlace);
        struct rt_image im = {0};
        cr_assert_not(rt_png_fast_decode(s.data, s.size, &im), "case %zu", i);
        cr_assert_null(im.rgba);
        rt_status st = rt_png_read_memory(s.data, s.size, &im);
        cr_assert(rt_ok(&st), "case %zu: %s", i, st.msg);
        rt_image_finish(&im);
        free(s.data);
    }
}

static void append(struct sink *s, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (s->cap - s->size < n) {
        s->cap = (s->cap + n) * 2;
        s->data = realloc(s->data, s->cap);
        cr_assert_not_null(s->data);
    }
    memcpy(s->data + s->size, p, n);
    s->size += n;
}

static void chunk(struct sink *s, const char *type, const uint8_t *body, uint32_t len)
{
    uint8_t head[8] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
                       (uint8_t)len, (uint8_t)type[0], (uint8_t)type[1], (uint8_t)type[2],
                       (uint8_t)type[3]};
    uint32_t crc = (uint32_t)libdeflate_crc32(libdeflate_crc32(0, head + 4, 4), body, len);
    uint8_t tail[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8),
                       (uint8_t)crc};
    append(s, head, 8);
    append(s, body, len);
    append(s, tail, 4);
}

/* A PNG made by hand: IHDR (8-bit RGB), the zlib stream of its rows cut into IDATs. */
struct hand {
    uint8_t filter;     /* every row's filter byte */
    size_t extra;       /* zero bytes after the zlib stream, in the last IDAT */
    int pieces;         /* IDAT chunks */
    bool text_between;  /* a tEXt chunk between the first two IDATs */
    uint8_t flip_at_end; /* XORed into the stream's last byte (its Adler-32) */
    bool dictionary;    /* the zlib header's FDICT bit set (FCHECK kept valid) */
    bool short_rows;    /* one row less of data than the header says */
};

static struct sink hand_png(uint32_t w, uint32_t h, struct hand o)
{
    size_t row = 1 + (size_t)w * 3, raw_size = row * h;
    uint8_t *raw = malloc(raw_size);
    for (uint32_t y = 0; y < h; y++) {
        raw[y * row] = o.filter;
        for (size_t i = 1; i < row; i++)
            raw[y * row + i] = sample((uint32_t)(i - 1) / 3, y, (int)((i - 1) % 3));
    }
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    size_t cap = libdeflate_zlib_compress_bound(c, raw_size) + o.extra;
    uint8_t *z = calloc(1, cap);
    size_t zn = libdeflate_zlib_compress(c, raw, raw_size - (o.short_rows ? row : 0), z, cap);
    libdeflate_free_compressor(c);
    z[zn - 1] ^= o.flip_at_end;
    if (o.dictionary) { /* FLEVEL 0, FDICT 1, and the FCHECK that makes the header valid */
        z[1] = 0x20;
        z[1] = (uint8_t)(z[1] + (31 - ((unsigned)z[0] << 8 | z[1]) % 31) % 31);
    }
    zn += o.extra;
    struct sink s = {0};
    append(&s, "\x89PNG\r\n\x1a\n", 8);
    uint8_t ihdr[13] = {0, 0, (uint8_t)(w >> 8), (uint8_t)w, 0, 0, (uint8_t)(h >> 8),
                        (uint8_t)h, 8, 2, 0, 0, 0};
    chunk(&s, "IHDR", ihdr, 13);
    size_t at = 0;
    for (int i = 0; i < o.pieces; i++) {
        size_t n = i + 1 == o.pieces ? zn - at : zn / (size_t)o.pieces;
        chunk(&s, "IDAT", z + at, (uint32_t)n);
        at += n;
        if (i == 0 && o.text_between)
            chunk(&s, "tEXt", (const uint8_t *)"k\0v", 3);
    }
    chunk(&s, "IEND", ihdr, 0); /* libdeflate_crc32(NULL) is the initial value, not a CRC */
    free(raw);
    free(z);
    return s;
}

Test(png_fast, split_image_data_and_ancillary_chunks_decode)
{
    struct sink s = hand_png(21, 13, (struct hand){.filter = 0, .pieces = 3});
    struct rt_image im = {0};
    cr_assert(rt_png_fast_decode(s.data, s.size, &im));
    expect_pixels(&im, 21, 13, 3);
    rt_image_finish(&im);
    cr_assert(rt_png_fast_decode_in_place(s.data, s.size, &im)); /* joins the chunks in place */
    expect_pixels(&im, 21, 13, 3);
    rt_image_finish(&im);
    free(s.data);
}

/* Each of these is declined; libpng then decides (and refuses the filter byte). */
Test(png_fast, anything_unusual_is_left_to_libpng)
{
    struct hand cases[] = {
        {.filter = 5, .pieces = 1},                      /* no such filter */
        {.filter = 0, .pieces = 1, .extra = 4},          /* data after the zlib stream */
        {.filter = 1, .pieces = 2, .text_between = true}, /* IDATs not consecutive */
        {.filter = 0, .pieces = 1, .flip_at_end = 1},    /* a wrong Adler-32 */
        {.filter = 0, .pieces = 2, .dictionary = true},  /* a preset dictionary asked for */
        {.filter = 0, .pieces = 1, .short_rows = true},  /* too little image data */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sink s = hand_png(10, 6, cases[i]);
        struct rt_image im = {0};
        cr_assert_not(rt_png_fast_decode(s.data, s.size, &im), "case %zu", i);
        cr_assert_null(im.rgba);
        rt_status st = rt_png_read_memory(s.data, s.size, &im);
        if (i == 0)
            cr_assert_eq(st.code, RT_ERR_BAD_INPUT, "a bad filter byte: %s", st.msg);
        rt_image_finish(&im);
        free(s.data);
        rt_status_free(&st);
    }
    /* data after the stream within libpng's bound on an IDAT's length (a small image's is not) */
    struct sink big = hand_png(60, 40, (struct hand){.filter = 0, .pieces = 1, .extra = 4});
    struct rt_image bim = {0};
    cr_assert_not(rt_png_fast_decode(big.data, big.size, &bim), "4 bytes after the zlib stream");
    free(big.data);
    /* a flipped bit anywhere in a chunk fails its CRC */
    struct sink s = hand_png(10, 6, (struct hand){.filter = 2, .pieces = 1});
    for (size_t at = 8; at < s.size; at++) {
        s.data[at] ^= 0x10;
        struct rt_image im = {0};
        cr_assert_not(rt_png_fast_decode(s.data, s.size, &im), "flip at %zu", at);
        s.data[at] ^= 0x10;
    }
    free(s.data);
}

/*
 * Read from a file, the image is decoded in the file's own buffer (the file
 * first, the inflated rows after it, RGBA over both): every filter, RGB and
 * RGBA, widths on both sides of the four-pixel blocks of the None and Up
 * rows (1..9, 130), a single IDAT and many.
 */
Test(png_fast, every_filter_decodes_within_the_file_buffer)
{
    static const int filters[] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP,
                                  PNG_FILTER_AVG, PNG_FILTER_PAETH, PNG_ALL_FILTERS};
    static const uint32_t sizes[][2] = {{1, 1}, {3, 2}, {4, 3}, {5, 4}, {6, 6},
                                        {7, 5}, {9, 3}, {130, 9}, {257, 40}};
    char path[] = "/tmp/rt_png_within_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    for (int colour = 0; colour < 2; colour++)
        for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                uint32_t w = sizes[i][0], h = sizes[i][1];
                int type = colour ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
                struct sink s = write_png(w, h, type, 8, filters[f], PNG_INTERLACE_NONE);
                FILE *out = fopen(path, "wb");
                cr_assert(out && fwrite(s.data, 1, s.size, out) == s.size);
                fclose(out);
                struct rt_image im = {0};
                rt_status st = rt_png_read_file(path, &im);
                cr_assert(rt_ok(&st), "%ux%u filter %d: %s", w, h, filters[f], st.msg);
                expect_pixels(&im, w, h, colour ? 4 : 3);
                rt_image_finish(&im);
                /* the same in memory with exactly the room asked for */
                size_t room = rt_png_fast_room(s.data, s.size, s.size);
                cr_assert_geq(room, s.size);
                uint8_t *buf = malloc(room);
                memcpy(buf, s.data, s.size);
                cr_assert(rt_png_fast_decode_within(buf, s.size, room, &im));
                expect_pixels(&im, w, h, colour ? 4 : 3);
                rt_image_finish(&im);
                free(s.data);
            }
    struct sink s = hand_png(33, 7, (struct hand){.filter = 0, .pieces = 4});
    size_t room = rt_png_fast_room(s.data, 29, s.size);
    uint8_t *buf = malloc(room);
    memcpy(buf, s.data, s.size);
    struct rt_image im = {0};
    cr_assert_not(rt_png_fast_decode_within(buf, s.size, room - 1, &im), "too little room");
    cr_assert_null(im.rgba);
    memcpy(buf, s.data, s.size);
    cr_assert(rt_png_fast_decode_within(buf, s.size, room, &im)); /* joins in place */
    expect_pixels(&im, 33, 7, 3);
    rt_image_finish(&im);
    cr_assert_eq(rt_png_fast_room(s.data, 28, s.size), 0, "a header cut short");
    s.data[12] = 'X'; /* not IHDR */
    cr_assert_eq(rt_png_fast_room(s.data, s.size, s.size), 0);
    free(s.data);
    remove(path);
}

/* ./run test builds these tests a second time without ISA-L (build-noisal,
 * -Disal=disabled) and says which inflater it wants: the build must give it,
 * or the libdeflate path would again be compiled but never run. */
Test(png_fast, the_inflater_is_the_one_the_build_was_asked_for)
{
    const char *want = getenv("RT_PNG_INFLATER");
    if (!want)
        cr_skip_test("RT_PNG_INFLATER is not set: any inflater will do");
    cr_assert_str_eq(rt_png_fast_inflater(), want);
}
