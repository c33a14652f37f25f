/* compare/metrics.c — pixel-exact metrics: MSE/PSNR, differing pixels, largest delta. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"

/* R, G and B only: alpha is ignored everywhere in compare (DESIGN.md). */
rt_status rt_pixel_metrics_compute(const struct rt_image *a, const struct rt_image *b,
                                   struct rt_pixel_metrics *out)
{
    *out = (struct rt_pixel_metrics){0};
    if (a->width != b->width || a->height != b->height)
        return rt_errorf(RT_ERR_USAGE, "pixel metrics of images of different sizes");
    size_t n = (size_t)a->width * a->height;
    const uint8_t *pa = a->rgba, *pb = b->rgba;
    uint64_t sq = 0, differing = 0;
    unsigned max_delta = 0;
    for (size_t i = 0; i < n; i++) {
        int dr = abs(pa[4 * i] - pb[4 * i]);
        int dg = abs(pa[4 * i + 1] - pb[4 * i + 1]);
        int db = abs(pa[4 * i + 2] - pb[4 * i + 2]);
        unsigned m = (unsigned)(dr > dg ? dr : dg);
        m = m > (unsigned)db ? m : (unsigned)db;
        sq += (uint64_t)(dr * dr + dg * dg + db * db);
        differing += m != 0;
        max_delta = m > max_delta ? m : max_delta;
    }
    out->mse = n ? (double)sq / (3.0 * (double)n) : 0;
    out->psnr = out->mse == 0 ? INFINITY : 10 * log10(255.0 * 255.0 / out->mse);
    out->diff_pixels = differing;
    out->max_delta = max_delta;
    return rt_ok_status();
}
