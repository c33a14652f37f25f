/* tests/apps/common/app_args.c — command line, screenshot frame lists, PNG. */
#include "app.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char common_usage[] =
    "  --frames N               frames to render and present (default 5)\n"
    "  --offscreen              render into ordinary images: no window system\n"
    "  --validate               enable VK_LAYER_KHRONOS_validation (with\n"
    "                           synchronization validation); exit 1 on any message\n"
    "  --screenshot-dir DIR     where frame_NNNNNN.png files go\n"
    "  --screenshot-frames LIST 1-based frames to save, e.g. 1,5,10-12\n"
    "  --width W, --height H    target size (default 320x240)\n"
    "  --help                   this text\n";

void rt_app_print_help(const struct rt_app_desc *desc)
{
    printf("usage: rt_app_%s [options]\n%s\n\noptions:\n%s", desc->name, desc->summary,
           common_usage);
    for (uint32_t i = 0; i < desc->option_count; i++) {
        const struct rt_app_int_option *o = &desc->options[i];
        printf("  --%s N%*s%s (default %d)\n", o->name, (int)(21 - strlen(o->name)), "",
               o->help, *o->value);
    }
    printf("\nexit codes: 0 ok, 1 validation messages or failed self-check, 2 usage,\n"
           "4 no Vulkan device or missing feature, 5 internal error\n");
}

/* Parses a decimal in [min, max]; strtoul alone accepts "-1" and "12abc". */
static rt_status parse_uint(const char *flag, const char *text, unsigned long min,
                            unsigned long max, unsigned long *value_out)
{
    char *end = NULL;
    errno = 0;
    unsigned long v = (text[0] >= '0' && text[0] <= '9') ? strtoul(text, &end, 10) : 0;
    if (end == NULL || *end != '\0' || errno != 0 || v < min || v > max)
        return rt_errorf(RT_ERR_USAGE, "%s wants a number in %lu..%lu, got '%s'", flag, min,
                         max, text);
    *value_out = v;
    return rt_ok_status();
}

/* "1,5,10-12" -> inclusive ranges. */
static rt_status parse_ranges(const char *text, struct rt_app_args *args)
{
    char buf[512];
    if (strlen(text) >= sizeof buf || text[0] == '\0')
        return rt_errorf(RT_ERR_USAGE, "--screenshot-frames: bad list '%s'", text);
    strcpy(buf, text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (args->range_count == RT_APP_MAX_RANGES)
            return rt_errorf(RT_ERR_USAGE, "--screenshot-frames: more than %d ranges",
                             RT_APP_MAX_RANGES);
        unsigned long first, last;
        char *dash = strchr(tok, '-');
        if (dash)
            *dash = '\0';
        RT_TRY(parse_uint("--screenshot-frames", tok, 1, UINT32_MAX, &first));
        last = first;
        if (dash)
            RT_TRY(parse_uint("--screenshot-frames", dash + 1, first, UINT32_MAX, &last));
        args->ranges[args->range_count][0] = (uint32_t)first;
        args->ranges[args->range_count][1] = (uint32_t)last;
        args->range_count++;
    }
    if (args->range_count == 0)
        return rt_errorf(RT_ERR_USAGE, "--screenshot-frames: bad list '%s'", text);
    return rt_ok_status();
}

bool rt_app_wants_screenshot(const struct rt_app_args *args, uint32_t frame)
{
    if (!args->screenshot_dir)
        return false;
    for (uint32_t i = 0; i < args->range_count; i++)
        if (frame >= args->ranges[i][0] && frame <= args->ranges[i][1])
            return true;
    return false;
}

/* Flags with a value; returns false for an unknown flag. */
static bool parse_valued(const struct rt_app_desc *desc, const char *flag, const char *val,
                         struct rt_app_args *a, rt_status *st)
{
    unsigned long v = 0;
    if (strcmp(flag, "--frames") == 0) {
        *st = parse_uint(flag, val, 1, 1000000, &v);
        a->frames = (uint32_t)v;
    } else if (strcmp(flag, "--width") == 0 || strcmp(flag, "--height") == 0) {
        *st = parse_uint(flag, val, 16, 4096, &v);
        *(flag[2] == 'w' ? &a->width : &a->height) = (uint32_t)v;
    } else if (strcmp(flag, "--screenshot-dir") == 0) {
        a->screenshot_dir = val;
    } else if (strcmp(flag, "--screenshot-frames") == 0) {
        *st = parse_ranges(val, a);
    } else {
        for (uint32_t i = 0; i < desc->option_count; i++) {
            const struct rt_app_int_option *o = &desc->options[i];
            if (strncmp(flag, "--", 2) == 0 && strcmp(flag + 2, o->name) == 0) {
                *st = parse_uint(flag, val, (unsigned long)o->min, (unsigned long)o->max, &v);
                *o->value = (int)v;
                return true;
            }
        }
        return false;
    }
    return true;
}

rt_status rt_app_parse_args(const struct rt_app_desc *desc, int argc, char **argv,
                            struct rt_app_args *args_out)
{
    struct rt_app_args a = {.frames = 5, .width = 320, .height = 240};
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            a.help = true;
        } else if (strcmp(flag, "--offscreen") == 0) {
            a.offscreen = true;
        } else if (strcmp(flag, "--validate") == 0) {
            a.validate = true;
        } else {
            rt_status st = rt_ok_status();
            /* A trial parse of a harmless value tells a known flag from a typo
             * (an app option's trial value is overwritten by the real parse). */
            struct rt_app_args trial = a;
            bool known = parse_valued(desc, flag, "1", &trial, &st);
            if (!known)
                return rt_errorf(RT_ERR_USAGE, "unknown option '%s'", flag);
            if (i + 1 >= argc)
                return rt_errorf(RT_ERR_USAGE, "%s needs a value", flag);
            st = rt_ok_status();
            parse_valued(desc, flag, argv[i + 1], &a, &st);
            RT_TRY(st);
            i++;
        }
    }
    if ((a.screenshot_dir == NULL) != (a.range_count == 0))
        return rt_errorf(RT_ERR_USAGE,
                         "--screenshot-dir and --screenshot-frames go together");
    *args_out = a;
    return rt_ok_status();
}

/* Rows as 8-bit RGBA, swapping B and R for BGRA formats. */
static void to_rgba(uint8_t *dst, const uint8_t *src, size_t pixels, VkFormat format)
{
    bool bgra = format == VK_FORMAT_B8G8R8A8_UNORM || format == VK_FORMAT_B8G8R8A8_SRGB;
    for (size_t i = 0; i < pixels; i++) {
        dst[4 * i + 0] = src[4 * i + (bgra ? 2 : 0)];
        dst[4 * i + 1] = src[4 * i + 1];
        dst[4 * i + 2] = src[4 * i + (bgra ? 0 : 2)];
        dst[4 * i + 3] = src[4 * i + 3];
    }
}

/* libpng reports errors by longjmp; keep everything it may clobber out of this
 * frame's locals (the rgba buffer is freed by the caller). */
static rt_status write_png_rows(FILE *f, uint32_t width, uint32_t height, uint8_t *rgba)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return rt_errorf(RT_ERR_INTERNAL, "libpng: out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return rt_errorf(RT_ERR_INTERNAL, "libpng: write failed");
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++)
        png_write_row(png, rgba + (size_t)y * width * 4);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return rt_ok_status();
}

rt_status rt_app_write_png(const char *path, uint32_t width, uint32_t height,
                           const uint8_t *pixels, VkFormat format)
{
    size_t count = (size_t)width * height;
    uint8_t *rgba = malloc(count * 4);
    if (!rgba)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory for a %ux%u screenshot", width, height);
    to_rgba(rgba, pixels, count, format);
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(rgba);
        return rt_errorf(RT_ERR_INTERNAL, "cannot write %s: %s", path, strerror(errno));
    }
    rt_status st = write_png_rows(f, width, height, rgba);
    free(rgba);
    if (fclose(f) != 0 && rt_ok(&st))
        st = rt_errorf(RT_ERR_INTERNAL, "cannot write %s: %s", path, strerror(errno));
    return rt_status_wrap(st, "%s", path);
}
