/*
 * compare/include/compare.h — how alike two images are, and whether that is a pass.
 *
 * Owns: SSIM (Wang et al. 2004, matched to scikit-image to 1e-4: the mean of
 * the SSIM map less a border, and the worst 32x32 tile of that map), the
 * colour gate (CIEDE2000 between 32x32 tiles' mean colours, worst tile), PSNR,
 * exact-pixel counts, the diff image, and the pass/fail/size-mismatch verdict
 * with its text and JSON forms. compare/README.md says how edges, tiles, tiny
 * images and identical images are handled, and why.
 * Must not touch: Vulkan, SQLite (the golden store is its own module, store/,
 * and does not use this one), the CLI, exit().
 * Entry points: rt_compare_images for everything at once; rt_ssim_compute,
 * rt_colour_compute, rt_pixel_metrics_compute and rt_diff_image_make for the
 * parts.
 * Images are struct rt_image (8-bit RGBA, png_io.h); alpha is ignored by every
 * metric here.
 */
#ifndef RT_COMPARE_H
#define RT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "png_io.h"
#include "status.h"

#define RT_SSIM_TILE 32                       /* side of a tile of the SSIM map */
#define RT_COMPARE_DEFAULT_THRESHOLD 0.99      /* mean SSIM below this fails */
#define RT_COMPARE_DEFAULT_TILE_THRESHOLD 0.95 /* worst tile below this fails */
/* A worst-tile colour difference (CIEDE2000) above this fails: a red/blue swap
 * or a grey frame measures 9 to 32 on the bundled goldens, rendering noise
 * under 1.4 (compare/README.md). */
#define RT_COMPARE_DEFAULT_DELTA_E 3.0

enum rt_ssim_channels {
    RT_SSIM_LUMA, /* one plane: 0.299 R + 0.587 G + 0.114 B, unrounded */
    RT_SSIM_RGB,  /* the mean of the R, G and B SSIMs (and of their maps) */
};

struct rt_ssim_options {
    enum rt_ssim_channels channels;
    unsigned threads; /* 0: min(online CPUs, 8); small images use one */
    bool want_map;    /* fill rt_ssim_result.map */
};

struct rt_ssim_result {
    double mean;      /* mean of the map without its border of `crop` pixels */
    double min_tile;  /* lowest tile mean (tiles cover the same region) */
    uint32_t tile_x, tile_y, tile_w, tile_h; /* that tile, in image pixels */
    uint32_t crop;    /* border left out: min(5, (min(width, height) - 1) / 2) */
    float *map;       /* width*height SSIM map (malloc'd) when asked, else NULL */
};

/**
 * SSIM of A against B, which must have the same size (else RT_ERR_USAGE).
 * Always computes, even for identical images (rt_compare_images short-cuts).
 * RT_ERR_INTERNAL when out of memory. Deterministic whatever the thread count.
 */
rt_status rt_ssim_compute(const struct rt_image *a, const struct rt_image *b,
                          const struct rt_ssim_options *options,
                          struct rt_ssim_result *out) RT_MUST_CHECK;

/** Frees the map; safe on a zeroed result. */
void rt_ssim_result_finish(struct rt_ssim_result *result);

struct rt_colour_result {
    double max_delta_e; /* CIEDE2000 between the mean colours of the worst tile */
    uint32_t tile_x, tile_y, tile_w, tile_h; /* that tile, in image pixels */
};

/**
 * The colour gate: the images (one size, else RT_ERR_USAGE) are cut into
 * 32x32 tiles as the SSIM map is, but over the whole image; each tile's mean
 * R, G, B (of the 8-bit sRGB values) becomes CIELAB (D65) and the CIEDE2000
 * difference of golden and actual is taken; the largest is kept. Catches what
 * luma hides (a red/blue swap, a grey frame, a tint); edge noise averages out.
 */
rt_status rt_colour_compute(const struct rt_image *a, const struct rt_image *b,
                            struct rt_colour_result *out) RT_MUST_CHECK;

/** 8-bit sRGB (fractional values allowed) to CIELAB, D65 2-degree white (as skimage's rgb2lab). */
void rt_srgb_to_lab(double r, double g, double b, double lab_out[3]);

/** CIEDE2000 colour difference (kL = kC = kH = 1) of two CIELAB colours. */
double rt_ciede2000(const double lab1[3], const double lab2[3]);

struct rt_pixel_metrics {
    double mse;           /* mean squared error over R, G, B */
    double psnr;          /* 10 log10(255^2 / mse); INFINITY when mse == 0 */
    uint64_t diff_pixels; /* pixels whose R, G or B differ */
    unsigned max_delta;   /* largest |a - b| over R, G, B */
};

/** Pixel-exact metrics of two images of one size (else RT_ERR_USAGE). */
rt_status rt_pixel_metrics_compute(const struct rt_image *a, const struct rt_image *b,
                                   struct rt_pixel_metrics *out) RT_MUST_CHECK;

/**
 * The diff image: GOLDEN dimmed to a quarter-bright gray, with a heat colour
 * where the images differ (from the SSIM map when given, and from the pixel
 * differences), and the worst tile outlined in cyan when WORST is given
 * (rt_compare_images adds the worst colour tile in magenta when it fails). MAP may be
 * NULL (identical images). Allocates *out.
 */
rt_status rt_diff_image_make(const struct rt_image *golden, const struct rt_image *actual,
                             const float *map, const struct rt_ssim_result *worst,
                             struct rt_image *out) RT_MUST_CHECK;

/** Outlines the rectangle (clipped to the image) in RGB: the worst tiles. */
void rt_diff_image_outline(struct rt_image *im, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                           const uint8_t rgb[3]);

enum rt_compare_verdict {
    RT_COMPARE_PASS,
    RT_COMPARE_FAIL,          /* mean or worst tile below its threshold, or colour above */
    RT_COMPARE_SIZE_MISMATCH, /* nothing else is measured */
};

struct rt_compare_options {
    enum rt_ssim_channels channels;
    double threshold;      /* 0..1 */
    double tile_threshold; /* 0..1 */
    double delta_e_threshold; /* >= 0; worst tile's CIEDE2000 above it fails */
    unsigned threads;      /* as rt_ssim_options.threads */
    bool want_diff;        /* make rt_compare_result.diff */
};

/** The defaults: luma, 0.99 mean, 0.95 tile, delta E 3, automatic threads, no diff. */
void rt_compare_options_init(struct rt_compare_options *options);

struct rt_compare_result {
    enum rt_compare_verdict verdict;
    uint32_t width, height;             /* the golden's */
    uint32_t actual_width, actual_height;
    bool identical;                     /* RGB and alpha bytes equal: SSIM is 1 */
    struct rt_ssim_result ssim;         /* map always NULL here */
    struct rt_colour_result colour;
    struct rt_pixel_metrics pixels;
    struct rt_image diff;               /* when want_diff and the sizes match */
};

/**
 * Compares ACTUAL against GOLDEN. A size mismatch is a verdict, not an error;
 * errors are RT_ERR_USAGE (bad thresholds, empty image) and RT_ERR_INTERNAL.
 */
rt_status rt_compare_images(const struct rt_image *golden, const struct rt_image *actual,
                            const struct rt_compare_options *options,
                            struct rt_compare_result *out) RT_MUST_CHECK;

void rt_compare_result_finish(struct rt_compare_result *result);

/**
 * Decodes two PNG files concurrently (the golden on a second thread). On an
 * error neither image is returned and the status is the first file's error
 * (RT_ERR_BAD_INPUT naming the file, as rt_png_read_file).
 */
rt_status rt_compare_read_pair(const char *golden_path, const char *actual_path,
                               struct rt_image *golden_out,
                               struct rt_image *actual_out) RT_MUST_CHECK;

/**
 * Why RESULT (made with OPTIONS) did not pass, in one line for a report:
 * "ssim 0.981234 below 0.99 (worst tile 0.912345, 123 pixels differ)",
 * "worst tile ssim 0.912345 below 0.95 at 64,32 (ssim 0.998765)",
 * "colour: delta E 17.39 above 3 in the tile at 224,128 (ssim 0.999951)" or
 * "size 640x480, the golden is 500x500"; "" for a pass. Truncates like
 * snprintf; returns its result.
 */
int rt_compare_explain(const struct rt_compare_result *result,
                       const struct rt_compare_options *options, char *buf, size_t size);

/** "pass", "fail", "size-mismatch". */
const char *rt_compare_verdict_name(enum rt_compare_verdict verdict);

/**
 * One line, no newline: "ssim=0.998765 min_tile_ssim=0.981234 delta_e=0.42
 * psnr=45.67 diff_pixels=123 max_delta=17 width=1280 height=720 result=pass" (psnr=inf
 * when equal); for a size mismatch "width=W height=H actual_width=W2
 * actual_height=H2 result=size-mismatch". JSON: one object, the same keys
 * (psnr null when infinite), made by cJSON. The line truncates like snprintf
 * and returns its result; the JSON is all or nothing (an empty BUF and -1
 * when it does not fit).
 */
int rt_compare_format_line(const struct rt_compare_result *result, char *buf, size_t size);
int rt_compare_format_json(const struct rt_compare_result *result, char *buf, size_t size);

#endif
