/* png/png_io.c — PNG decode/encode through libpng (see png_io.h): the one PNG
 * encoder, for RGBA images and for readback's grey/RGB/16-bit samples. */
#include "png_io.h"

#include <errno.h>
#include <sys/stat.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "png_fast.h"

rt_status rt_image_init(struct rt_image *out, uint32_t width, uint32_t height)
{
    memset(out, 0, sizeof *out);
    if (width == 0 || height == 0 || width > RT_IMAGE_MAX_SIDE || height > RT_IMAGE_MAX_SIDE ||
        (uint64_t)width * height > RT_IMAGE_MAX_PIXELS)
        return rt_errorf(RT_ERR_USAGE, "bad image size %ux%u", width, height);
    out->rgba = calloc((size_t)width * height, 4);
    if (!out->rgba)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory for a %ux%u image", width, height);
    out->width = width;
    out->height = height;
    return rt_ok_status();
}

void rt_image_finish(struct rt_image *image)
{
    free(image->rgba);
    memset(image, 0, sizeof *image);
}

/*
 * Everything that changes while libpng may longjmp lives here, in the caller's
 * frame: locals of the function that calls setjmp would be indeterminate after
 * the jump (C17 7.13.2.1p3).
 */
struct png_stream {
    FILE *file;          /* read from / write to this when set ... */
    const uint8_t *data; /* ... else read from this buffer */
    size_t size, pos;
    uint8_t *out;        /* write buffer (memory sink), grows */
    size_t out_cap;
    uint8_t *rgba;       /* decoded pixels, handed to the image on success */
    png_bytep *rows;
    uint8_t *row;        /* one packed row of an encode from samples */
    char err[200];       /* libpng's error message */
    char warning[200];   /* its last warning: often the reason for the error */
};

static void on_png_error(png_structp png, png_const_charp msg)
{
    struct png_stream *s = png_get_error_ptr(png);
    if (s->warning[0])
        snprintf(s->err, sizeof s->err, "%.90s (%.90s)", msg, s->warning);
    else
        snprintf(s->err, sizeof s->err, "%s", msg);
    png_longjmp(png, 1);
}

/*
 * Warnings (a known-bad sRGB profile, a bad ancillary CRC) do not stop a read,
 * but are kept: "Invalid IHDR data" alone does not say the width is too large.
 */
static void on_png_warning(png_structp png, png_const_charp msg)
{
    struct png_stream *s = png_get_error_ptr(png);
    snprintf(s->warning, sizeof s->warning, "%s", msg);
}

static void read_bytes(png_structp png, png_bytep dst, size_t n)
{
    struct png_stream *s = png_get_io_ptr(png);
    if (s->file) {
        if (fread(dst, 1, n, s->file) != n)
            png_error(png, ferror(s->file) ? "read error" : "file is truncated");
        return;
    }
    if (s->size - s->pos < n)
        png_error(png, "data is truncated");
    memcpy(dst, s->data + s->pos, n);
    s->pos += n;
}

/* Asks libpng for 8-bit RGBA whatever the file holds (png_io.h lists the rules). */
static void set_rgba8_transforms(png_structp png, png_infop info)
{
    int depth = png_get_bit_depth(png, info);
    int color = png_get_color_type(png, info);
    bool trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (depth == 16)
        png_set_scale_16(png);
    if (color == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (trns)
        png_set_tRNS_to_alpha(png);
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    if (!(color & PNG_COLOR_MASK_ALPHA) && !trns)
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
}

/* The body of a read; any libpng error longjmps out of it to decode_png. */
static void decode_body(png_structp png, png_infop info, struct png_stream *s,
                        struct rt_image *out)
{
    png_set_sig_bytes(png, 8);
    png_set_user_limits(png, RT_IMAGE_MAX_SIDE, RT_IMAGE_MAX_SIDE);
    png_read_info(png, info);
    uint32_t w = png_get_image_width(png, info);
    uint32_t h = png_get_image_height(png, info);
    if ((uint64_t)w * h > RT_IMAGE_MAX_PIXELS)
        png_error(png, "image is too large");
    set_rgba8_transforms(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 4)
        png_error(png, "unsupported pixel layout");
    s->rgba = malloc((size_t)w * h * 4);
    s->rows = malloc(sizeof *s->rows * h);
    if (!s->rgba || !s->rows)
        png_error(png, "out of memory");
    for (uint32_t y = 0; y < h; y++)
        s->rows[y] = s->rgba + (size_t)y * w * 4;
    png_read_image(png, s->rows);
    png_read_end(png, NULL);
    out->width = w;
    out->height = h;
}

static rt_status decode_png(struct png_stream *s, const char *name, struct rt_image *out)
{
    memset(out, 0, sizeof *out);
    uint8_t sig[8];
    size_t got = s->file ? fread(sig, 1, sizeof sig, s->file) : (s->size < 8 ? s->size : 8);
    if (!s->file && got)
        memcpy(sig, s->data, got);
    s->pos = got;
    if (got < 8 || png_sig_cmp(sig, 0, 8))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: not a PNG file", name);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, on_png_error,
                                             on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return rt_errorf(RT_ERR_INTERNAL, "%s: out of memory", name);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(s->rgba);
        free(s->rows);
        memset(out, 0, sizeof *out);
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: bad PNG: %s", name, s->err);
    }
    png_set_read_fn(png, s, read_bytes);
    decode_body(png, info, s, out);
    png_destroy_read_struct(&png, &info, NULL);
    free(s->rows);
    out->rgba = s->rgba;
    return rt_ok_status();
}

/* Files up to this size are read whole for rt_png_fast_decode; larger ones stream. */
#define FAST_PATH_MAX_FILE ((off_t)1 << 30)

/*
 * The whole of a regular file of reasonable size whose header the fast
 * decoder takes, in a buffer with room to decode it in (*cap bytes); NULL
 * (and the file rewound) when it is not one or cannot be read in one go.
 */
static uint8_t *slurp(FILE *f, size_t *size, size_t *cap)
{
    struct stat st;
    uint8_t head[29];
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size <= (off_t)sizeof head ||
        st.st_size > FAST_PATH_MAX_FILE)
        return NULL;
    size_t n = (size_t)st.st_size;
    size_t room = fread(head, 1, sizeof head, f) == sizeof head
                      ? rt_png_fast_room(head, sizeof head, n)
                      : 0;
    uint8_t *data = room ? rt_png_big_alloc(room) : NULL;
    if (data) {
        memcpy(data, head, sizeof head);
        if (fread(data + sizeof head, 1, n - sizeof head, f) == n - sizeof head) {
            *size = n;
            *cap = room;
            return data;
        }
    }
    free(data);
    rewind(f);
    return NULL;
}

/* The pixels' buffer without the room the decode used after them. */
static void trim_to_pixels(struct rt_image *image)
{
    uint8_t *fit = realloc(image->rgba, (size_t)image->width * image->height * 4);
    if (fit) /* else the larger buffer is kept: still valid */
        image->rgba = fit;
}

rt_status rt_png_read_file(const char *path, struct rt_image *out)
{
    memset(out, 0, sizeof *out);
    struct png_stream s = {0};
    RT_TRY(rt_file_open_read(path, NULL, &s.file));
    size_t size = 0, cap = 0;
    uint8_t *data = slurp(s.file, &size, &cap);
    if (data && rt_png_fast_decode_within(data, size, cap, out)) {
        fclose(s.file);
        trim_to_pixels(out);
        return rt_ok_status();
    }
    if (data) { /* libpng reads the file again: the buffer was ours to overwrite */
        free(data);
        rewind(s.file);
    }
    rt_status st = decode_png(&s, path, out);
    fclose(s.file);
    return st;
}

rt_status rt_png_read_memory(const void *data, size_t size, struct rt_image *out)
{
    if (data && rt_png_fast_decode(data, size, out))
        return rt_ok_status();
    struct png_stream s = {.data = data, .size = data ? size : 0};
    return decode_png(&s, "PNG data", out);
}

static void write_bytes(png_structp png, png_bytep src, size_t n)
{
    struct png_stream *s = png_get_io_ptr(png);
    if (s->file) {
        if (fwrite(src, 1, n, s->file) != n)
            png_error(png, "write error");
        return;
    }
    if (s->out_cap - s->size < n) {
        size_t cap = s->out_cap ? s->out_cap : 4096;
        while (cap - s->size < n)
            cap *= 2;
        uint8_t *grown = realloc(s->out, cap);
        if (!grown)
            png_error(png, "out of memory");
        s->out = grown;
        s->out_cap = cap;
    }
    memcpy(s->out + s->size, src, n);
    s->size += n;
}

static void flush_bytes(png_structp png) { (void)png; }

/*
 * What an encode writes: 8-bit RGBA rows of an rt_image as they are, or
 * samples of any channel count and depth (rt_png_samples), packed a row at a
 * time into the stream's row buffer.
 */
struct png_pixels {
    uint32_t width, height;
    uint8_t channels, depth;
    const uint8_t *rgba8;     /* rows as PNG bytes, when set ... */
    const uint16_t *samples;  /* ... else one uint16_t per sample */
};

/* PNG colour types by channel count (index 0 unused). */
static const int colour_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};

/* Row Y as PNG bytes: 16-bit samples big-endian (PNG 1.2 §2.1), into ROW. */
static const uint8_t *row_bytes(const struct png_pixels *p, uint32_t y, uint8_t *row)
{
    size_t n = (size_t)p->width * p->channels;
    if (p->rgba8)
        return p->rgba8 + (size_t)y * n;
    const uint16_t *s = p->samples + (size_t)y * n;
    for (size_t i = 0; i < n; i++) {
        if (p->depth == 16) {
            row[2 * i] = (uint8_t)(s[i] >> 8);
            row[2 * i + 1] = (uint8_t)s[i];
        } else {
            row[i] = (uint8_t)s[i];
        }
    }
    return row;
}

static void encode_body(png_structp png, png_infop info, struct png_stream *s,
                        const struct png_pixels *p, bool fast)
{
    if (fast) { /* measured on a 4K diff image: 5x faster, 25% larger than the default */
        png_set_compression_level(png, 1);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    }
    png_set_IHDR(png, info, p->width, p->height, p->depth, colour_types[p->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < p->height; y++)
        png_write_row(png, row_bytes(p, y, s->row));
    png_write_end(png, NULL);
}

static rt_status encode_png(struct png_stream *s, const struct png_pixels *p, bool fast)
{
    if (!p->width || !p->height || (!p->rgba8 && !p->samples) || p->channels < 1 ||
        p->channels > 4 || (p->depth != 8 && p->depth != 16))
        return rt_errorf(RT_ERR_USAGE, "cannot write an empty image");
    if (!p->rgba8 && !(s->row = malloc((size_t)p->width * p->channels * 2)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, s, on_png_error,
                                              on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    rt_status st = rt_ok_status();
    if (!info)
        st = rt_errorf(RT_ERR_INTERNAL, "out of memory");
    else if (setjmp(png_jmpbuf(png)))
        st = rt_errorf(RT_ERR_INTERNAL, "%s", s->err);
    else {
        png_set_write_fn(png, s, write_bytes, flush_bytes);
        encode_body(png, info, s, p, fast);
    }
    png_destroy_write_struct(&png, info ? &info : NULL);
    free(s->row);
    s->row = NULL;
    return st;
}

static struct png_pixels rgba8_pixels(const struct rt_image *image)
{
    return (struct png_pixels){.width = image->width, .height = image->height, .channels = 4,
                               .depth = 8, .rgba8 = image->rgba};
}

static rt_status write_file(const char *path, const struct png_pixels *pixels, bool fast)
{
    struct png_stream s = {.file = fopen(path, "wb")};
    if (!s.file)
        return rt_errorf(RT_ERR_INTERNAL, "%s: cannot create: %s", path, strerror(errno));
    rt_status st = encode_png(&s, pixels, fast);
    if (fclose(s.file) != 0 && rt_ok(&st))
        st = rt_errorf(RT_ERR_INTERNAL, "%s: write error: %s", path, strerror(errno));
    if (!rt_ok(&st)) {
        remove(path);
        return rt_status_wrap(st, "writing %s", path);
    }
    return st;
}

rt_status rt_png_write_file(const char *path, const struct rt_image *image)
{
    struct png_pixels p = rgba8_pixels(image);
    return write_file(path, &p, false);
}

rt_status rt_png_write_file_fast(const char *path, const struct rt_image *image)
{
    struct png_pixels p = rgba8_pixels(image);
    return write_file(path, &p, true);
}

rt_status rt_png_write_samples_file(const char *path, const struct rt_png_samples *samples)
{
    struct png_pixels p = {.width = samples->width, .height = samples->height,
                           .channels = samples->channels, .depth = samples->depth,
                           .samples = samples->samples};
    return write_file(path, &p, false);
}

rt_status rt_png_write_memory(const struct rt_image *image, uint8_t **out, size_t *size_out)
{
    *out = NULL;
    *size_out = 0;
    struct png_stream s = {0};
    struct png_pixels p = rgba8_pixels(image);
    rt_status st = encode_png(&s, &p, false);
    if (!rt_ok(&st)) {
        free(s.out);
        return st;
    }
    *out = s.out;
    *size_out = s.size;
    return st;
}
