/*
 * Unit tests for png/png_io: round trips, every PNG flavour libpng reads
 * (committed files made by tests/ref/make_refs.py, each with the RGBA bytes it
 * must decode to), and hostile input (every prefix, flipped bytes, junk).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>

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
    rt_image_finish(&back);
    st = rt_png_write_file_fast(path, &im); /* other zlib settings, same pixels */
    cr_assert(rt_ok(&st), "%s", st.msg);
    st = rt_png_read_file(path, &back);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_eq(memcmp(back.rgba, im.rgba, 5 * 9 * 4), 0);
    cr_assert_eq(rt_status_drop(rt_png_write_file("/nonexistent/dir/x.png", &im)), RT_ERR_INTERNAL);
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
        rt_status_free(&st);
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
        rt_status_free(&st);
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
    rt_status_free(&st);
    st = rt_png_read_memory(NULL, 0, &back);
    cr_assert_eq(st.code, RT_ERR_BAD_INPUT);
    rt_status_free(&st);
    st = rt_png_read_file("/nonexistent/dir/x.png", &back);
    cr_assert_eq(st.code, RT_ERR_BAD_INPUT);
    cr_assert_not_null(strstr(st.msg, "/nonexistent/dir/x.png"), "%s", st.msg);
    rt_status_free(&st);
}

Test(png, bad_sizes_are_refused)
{
    struct rt_image im;
    cr_assert_eq(rt_status_drop(rt_image_init(&im, 0, 4)), RT_ERR_USAGE);
    cr_assert_eq(rt_status_drop(rt_image_init(&im, 70000, 1)), RT_ERR_USAGE);
    cr_assert_eq(rt_status_drop(rt_image_init(&im, 65535, 65535)), RT_ERR_USAGE);
    struct rt_image empty = {0};
    uint8_t *out;
    size_t size;
    cr_assert_eq(rt_status_drop(rt_png_write_memory(&empty, &out, &size)), RT_ERR_USAGE);
    cr_assert_null(out);
}

/* Reads a whole file; NULL when missing. */
static uint8_t *slurp(const char *path, size_t *size_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    *size_out = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static const char *data_dir(void)
{
    const char *d = getenv("RT_TEST_DATA");
    cr_assert_not_null(d, "RT_TEST_DATA is not set (run through meson test)");
    return d;
}

/* Decodes FOLDER/STEM.png from file and from memory; both must equal STEM.rgba. */
static void check_flavour(const char *folder, const char *stem)
{
    char png_path[1400], rgba_path[1400];
    snprintf(png_path, sizeof png_path, "%s/%s.png", folder, stem);
    snprintf(rgba_path, sizeof rgba_path, "%s/%s.rgba", folder, stem);
    size_t want_size = 0, png_size = 0;
    uint8_t *want = slurp(rgba_path, &want_size);
    uint8_t *bytes = slurp(png_path, &png_size);
    cr_assert(want && bytes, "missing %s or its .rgba", png_path);
    struct rt_image a, b;
    rt_status st = rt_png_read_file(png_path, &a);
    cr_assert(rt_ok(&st), "%s", st.msg);
    st = rt_png_read_memory(bytes, png_size, &b);
    cr_assert(rt_ok(&st), "%s", st.msg);
    cr_assert_eq((size_t)a.width * a.height * 4, want_size, "%s: size %ux%u", stem, a.width,
                 a.height);
    for (size_t i = 0; i < want_size; i++)
        cr_assert_eq(a.rgba[i], want[i], "%s: pixel %zu channel %zu: got %u want %u", stem,
                     i / 4, i % 4, a.rgba[i], want[i]);
    cr_assert_eq(memcmp(a.rgba, b.rgba, want_size), 0, "%s: file and memory reads differ", stem);
    rt_image_finish(&a);
    rt_image_finish(&b);
    free(want);
    free(bytes);
}

Test(png, every_flavour_decodes_to_its_rgba)
{
    char folder[1024];
    snprintf(folder, sizeof folder, "%s/images/png", data_dir());
    DIR *dir = opendir(folder);
    cr_assert_not_null(dir, "cannot open %s", folder);
    int checked = 0, interlaced = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".png"))
            continue;
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(n - 4), e->d_name);
        check_flavour(folder, stem);
        checked++;
        interlaced += strstr(stem, "interlaced") != NULL;
    }
    closedir(dir);
    /* 22 flavours (gray 1-16, gray+alpha, RGB, RGBA, palette, tRNS), each plain
     * and interlaced, and one tiny interlaced image with empty passes. */
    cr_assert_eq(checked, 45, "found %d PNG flavours", checked);
    cr_assert_eq(interlaced, 23);
}

/* Every broken file must be bad input, naming the file, never a crash. */
Test(png, broken_files_are_bad_input_with_a_reason)
{
    static const char *const names[] = {
        "empty", "text", "truncated", "no_iend", "bad_crc", "bad_zlib", "short_idat",
        "huge", "too_many_pixels", "zero_width", "bad_depth", "bad_colour_type",
    };
    static const char *const reasons[] = {
        "not a PNG", "not a PNG", "truncated", "truncated", "CRC", "IDAT", "Not enough",
        "exceeds user limit", "too large", "width is zero", "bit depth", "color type",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/images/bad/%s.png", data_dir(), names[i]);
        size_t size = 0;
        uint8_t *bytes = slurp(path, &size);
        cr_assert_not_null(bytes, "missing %s", path);
        struct rt_image im;
        rt_status st = rt_png_read_file(path, &im);
        cr_assert_eq(st.code, RT_ERR_BAD_INPUT, "%s: %s", names[i], st.msg);
        cr_assert_not_null(strstr(st.msg, path), "%s", st.msg);
        cr_assert_not_null(strstr(st.msg, reasons[i]), "%s: reason missing: %s", names[i], st.msg);
        cr_assert_null(im.rgba);
        rt_status_free(&st);
        st = rt_png_read_memory(bytes, size, &im);
        cr_assert_eq(st.code, RT_ERR_BAD_INPUT, "%s (memory): %s", names[i], st.msg);
        cr_assert_null(strchr(st.msg, '\n'), "one line: %s", st.msg);
        free(bytes);
        rt_status_free(&st);
    }
}

/* ---- samples of any channel count and depth (readback's images) ---------- */

/* The file at PATH as libpng gives it untransformed: IHDR and packed rows. */
static uint8_t *read_raw(const char *path, uint32_t *w, uint32_t *h, int *depth, int *colour)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert_not_null(info);
    png_init_io(png, f);
    png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    *w = png_get_image_width(png, info);
    *h = png_get_image_height(png, info);
    *depth = png_get_bit_depth(png, info);
    *colour = png_get_color_type(png, info);
    size_t row = png_get_rowbytes(png, info);
    uint8_t *bytes = malloc(row * *h);
    png_bytepp rows = png_get_rows(png, info);
    for (uint32_t y = 0; y < *h; y++)
        memcpy(bytes + y * row, rows[y], row);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return bytes;
}

Test(png, samples_of_every_channel_count_and_depth_keep_their_values)
{
    static const int colours[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                  PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    char path[] = "/tmp/rt_test_samples_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const uint32_t w = 19, h = 7;
    uint16_t samples[19 * 7 * 4];
    for (uint8_t channels = 1; channels <= 4; channels++)
        for (uint8_t depth = 8; depth <= 16; depth += 8) {
            size_t n = (size_t)w * h * channels;
            for (size_t i = 0; i < n; i++)
                samples[i] = (uint16_t)((i * 40503u + channels) & (depth == 8 ? 0xff : 0xffff));
            struct rt_png_samples s = {w, h, channels, depth, samples};
            rt_status st = rt_png_write_samples_file(path, &s);
            cr_assert(rt_ok(&st), "%s", st.msg);
            uint32_t rw, rh;
            int rdepth, rcolour;
            uint8_t *raw = read_raw(path, &rw, &rh, &rdepth, &rcolour);
            cr_assert(rw == w && rh == h && rdepth == depth && rcolour == colours[channels],
                      "%u channels, %u bits: %ux%u, %d bits, colour type %d", channels, depth,
                      rw, rh, rdepth, rcolour);
            for (size_t i = 0; i < n; i++) {
                unsigned got = depth == 8 ? raw[i] : (unsigned)raw[2 * i] << 8 | raw[2 * i + 1];
                cr_assert_eq(got, samples[i], "%u channels, %u bits: sample %zu", channels,
                             depth, i);
            }
            free(raw);
        }
    remove(path);
    close(fd);
}

Test(png, rgba8_samples_are_the_bytes_of_the_rgba_writer)
{
    struct rt_image im;
    uint8_t *png;
    size_t size;
    encode_pattern(33, 17, &im, &png, &size);
    uint16_t *samples = malloc(sizeof *samples * 33 * 17 * 4);
    for (size_t i = 0; i < 33 * 17 * 4; i++)
        samples[i] = im.rgba[i];
    char path[] = "/tmp/rt_test_samples_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    struct rt_png_samples s = {33, 17, 4, 8, samples};
    rt_status st = rt_png_write_samples_file(path, &s);
    cr_assert(rt_ok(&st), "%s", st.msg);
    size_t disk_size = 0;
    uint8_t *disk = slurp(path, &disk_size);
    cr_assert_eq(disk_size, size);
    cr_assert_eq(memcmp(disk, png, size), 0, "the two writers' bytes differ");
    struct rt_png_samples bad[] = {{0, 1, 4, 8, samples}, {1, 1, 0, 8, samples},
                                   {1, 1, 5, 8, samples}, {1, 1, 1, 12, samples},
                                   {1, 1, 1, 8, NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(rt_status_drop(rt_png_write_samples_file(path, &bad[i])), RT_ERR_USAGE,
                     "case %zu", i);
    cr_assert_eq(rt_status_drop(rt_png_write_samples_file("/nonexistent/dir/x.png", &s)),
                 RT_ERR_INTERNAL);
    remove(path);
    close(fd);
    free(disk);
    free(samples);
    free(png);
    rt_image_finish(&im);
}
