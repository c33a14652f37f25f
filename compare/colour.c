/*
 * compare/colour.c — the colour gate: CIEDE2000 between the mean colours of
 * the golden's and the actual's 32x32 tiles, worst tile kept.
 *
 * Why tile means: luma SSIM cannot see a red/blue swap or a frame turned
 * grey (the luma barely moves), and a per-pixel colour difference is
 * dominated by edge pixels that two rasterisers legitimately cover
 * differently. A tile's mean colour moves with a systematic colour change
 * (every pixel shifted the same way) and hardly at all with edge noise,
 * which averages out. README.md gives the numbers behind the default.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "vector.h"

/* gcc vectorises the per-pixel loops only at -O3; clang already does at -O2. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("O3")
#endif

#define TILE RT_SSIM_TILE

/* sRGB (IEC 61966-2-1) 8-bit value, possibly a fractional mean, to linear 0..1. */
static double srgb_to_linear(double v)
{
    double c = v / 255.0;
    return c > 0.04045 ? pow((c + 0.055) / 1.055, 2.4) : c / 12.92;
}

static double lab_f(double t)
{
    return t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116.0;
}

void rt_srgb_to_lab(double r, double g, double b, double lab_out[3])
{
    /* The sRGB -> XYZ matrix and D65 (2 degree) white of scikit-image's rgb2lab. */
    double lr = srgb_to_linear(r), lg = srgb_to_linear(g), lb = srgb_to_linear(b);
    double x = (0.412453 * lr + 0.357580 * lg + 0.180423 * lb) / 0.95047;
    double y = 0.212671 * lr + 0.715160 * lg + 0.072169 * lb;
    double z = (0.019334 * lr + 0.119193 * lg + 0.950227 * lb) / 1.08883;
    double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
    lab_out[0] = 116.0 * fy - 16.0;
    lab_out[1] = 500.0 * (fx - fy);
    lab_out[2] = 200.0 * (fy - fz);
}

#define PI 3.14159265358979323846

static double deg(double rad) { return rad * (180.0 / PI); }
static double rad(double deg) { return deg * (PI / 180.0); }

/* Hue angle in degrees, 0..360; 0 for a neutral colour (Sharma et al.). */
static double hue(double b, double a)
{
    if (a == 0 && b == 0)
        return 0;
    double h = deg(atan2(b, a));
    return h < 0 ? h + 360.0 : h;
}

/* 1 - the chroma compensation: G of CIEDE2000 and R_C share C^7/(C^7+25^7). */
static double c7_ratio(double c)
{
    double c7 = pow(c, 7);
    return sqrt(c7 / (c7 + 6103515625.0)); /* 25^7 */
}

/* Mean hue h-bar' and hue difference dh' of two hues (both 0 when either is neutral). */
static void hue_mean_diff(double h1, double h2, bool neutral, double *mean, double *diff)
{
    double d = h2 - h1;
    if (neutral) {
        *diff = 0;
        *mean = h1 + h2;
        return;
    }
    *diff = fabs(d) <= 180 ? d : d > 180 ? d - 360 : d + 360;
    if (fabs(d) <= 180)
        *mean = (h1 + h2) / 2;
    else
        *mean = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
}

/*
 * CIEDE2000 with kL = kC = kH = 1, as written in G. Sharma, W. Wu, E. Dalal,
 * "The CIEDE2000 color-difference formula: implementation notes,
 * supplementary test data, and mathematical observations" (2005);
 * tests/unit/test_colour.c checks it against that paper's test pairs.
 */
double rt_ciede2000(const double lab1[3], const double lab2[3])
{
    double cbar = (hypot(lab1[1], lab1[2]) + hypot(lab2[1], lab2[2])) / 2;
    double g = 0.5 * (1 - c7_ratio(cbar));
    double a1 = (1 + g) * lab1[1], a2 = (1 + g) * lab2[1];
    double c1 = hypot(a1, lab1[2]), c2 = hypot(a2, lab2[2]);
    double hbar, dh;
    hue_mean_diff(hue(lab1[2], a1), hue(lab2[2], a2), c1 * c2 == 0, &hbar, &dh);
    double dl = lab2[0] - lab1[0], dc = c2 - c1;
    double dhh = 2 * sqrt(c1 * c2) * sin(rad(dh) / 2);
    double lbar = (lab1[0] + lab2[0]) / 2, cbarp = (c1 + c2) / 2;
    double t = 1 - 0.17 * cos(rad(hbar - 30)) + 0.24 * cos(rad(2 * hbar)) +
               0.32 * cos(rad(3 * hbar + 6)) - 0.20 * cos(rad(4 * hbar - 63));
    double dtheta = 30 * exp(-pow((hbar - 275) / 25, 2));
    double rc = 2 * c7_ratio(cbarp);
    double l50 = (lbar - 50) * (lbar - 50);
    double sl = 1 + 0.015 * l50 / sqrt(20 + l50);
    double sc = 1 + 0.045 * cbarp, sh = 1 + 0.015 * cbarp * t;
    double rt = -sin(rad(2 * dtheta)) * rc;
    double x = dl / sl, y = dc / sc, z = dhh / sh;
    double sum = x * x + y * y + z * z + rt * y * z;
    return sqrt(sum > 0 ? sum : 0);
}

/* Tiles of the whole image: max(1, n / 32) per side, the last one absorbing the rest. */
static uint32_t tile_count(uint32_t n) { return n / TILE ? n / TILE : 1; }

/* Adds the R, G, B sums of one image row to its tile row's sums (tiles_x x 3). */
RT_VECTOR_CLONES static void add_row(const uint8_t *row, uint32_t width, uint32_t tiles_x,
                                     uint64_t *sums)
{
    for (uint32_t tx = 0; tx < tiles_x; tx++) {
        uint32_t x0 = tx * TILE, x1 = tx + 1 == tiles_x ? width : x0 + TILE;
        uint32_t r = 0, g = 0, b = 0; /* at most 63 pixels of 255: no overflow */
        for (uint32_t x = x0; x < x1; x++) { /* whole pixels as words: vectorises */
            uint32_t u;
            memcpy(&u, row + 4 * (size_t)x, 4);
            r += (uint32_t)RT_PIXEL_BYTE(u, 0);
            g += (uint32_t)RT_PIXEL_BYTE(u, 1);
            b += (uint32_t)RT_PIXEL_BYTE(u, 2);
        }
        sums[3 * tx] += r;
        sums[3 * tx + 1] += g;
        sums[3 * tx + 2] += b;
    }
}

/* Sums of R, G, B per tile of one tile row (rows y0..y1) of A and B. */
static void tile_row_sums(const struct rt_image *a, const struct rt_image *b, uint32_t y0,
                          uint32_t y1, uint32_t tiles_x, uint64_t *sa, uint64_t *sb)
{
    for (uint32_t i = 0; i < 3 * tiles_x; i++)
        sa[i] = sb[i] = 0;
    size_t stride = (size_t)a->width * 4;
    for (uint32_t y = y0; y < y1; y++) {
        add_row(a->rgba + y * stride, a->width, tiles_x, sa);
        add_row(b->rgba + y * stride, b->width, tiles_x, sb);
    }
}

static double tile_delta_e(const uint64_t *sa, const uint64_t *sb, double pixels)
{
    double la[3], lb[3];
    rt_srgb_to_lab((double)sa[0] / pixels, (double)sa[1] / pixels, (double)sa[2] / pixels, la);
    rt_srgb_to_lab((double)sb[0] / pixels, (double)sb[1] / pixels, (double)sb[2] / pixels, lb);
    return rt_ciede2000(la, lb);
}

rt_status rt_colour_compute(const struct rt_image *a, const struct rt_image *b,
                            struct rt_colour_result *out)
{
    *out = (struct rt_colour_result){0};
    if (a->width != b->width || a->height != b->height)
        return rt_errorf(RT_ERR_USAGE, "colour difference of images of different sizes");
    uint32_t tiles_x = tile_count(a->width), tiles_y = tile_count(a->height);
    uint64_t *sa = malloc(6 * sizeof *sa * tiles_x);
    if (!sa)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    uint64_t *sb = sa + 3 * tiles_x;
    for (uint32_t ty = 0; ty < tiles_y; ty++) {
        uint32_t y0 = ty * TILE, y1 = ty + 1 == tiles_y ? a->height : y0 + TILE;
        tile_row_sums(a, b, y0, y1, tiles_x, sa, sb);
        for (uint32_t tx = 0; tx < tiles_x; tx++) {
            uint32_t x0 = tx * TILE, x1 = tx + 1 == tiles_x ? a->width : x0 + TILE;
            double de = tile_delta_e(sa + 3 * tx, sb + 3 * tx, (double)(x1 - x0) * (y1 - y0));
            if (de > out->max_delta_e || (tx == 0 && ty == 0))
                *out = (struct rt_colour_result){de, x0, y0, x1 - x0, y1 - y0};
        }
    }
    free(sa);
    return rt_ok_status();
}
