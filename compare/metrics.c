/* compare/metrics.c — pixel-exact metrics: MSE/PSNR, differing pixels, largest delta. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "vector.h"

/* gcc vectorises the per-pixel loops only at -O3; clang already does at -O2. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("O3")
#endif

/* Sums over a run of pixels, kept small enough for 32-bit lanes. */
struct run_sums {
    uint32_t sq, differing, max_delta;
};

/* At most RUN pixels: 3 x 255² x 4096 < 2^32. Vectorised (uint32 lanes). */
#define RUN 4096

RT_VECTOR_CLONES static struct run_sums sum_run(const uint8_t *pa, const uint8_t *pb, size_t n)
{
    uint32_t sq = 0, differing = 0, max_delta = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u, v;
        memcpy(&u, pa + 4 * i, 4);
        memcpy(&v, pb + 4 * i, 4);
        int dr = abs(RT_PIXEL_BYTE(u, 0) - RT_PIXEL_BYTE(v, 0));
        int dg = abs(RT_PIXEL_BYTE(u, 1) - RT_PIXEL_BYTE(v, 1));
        int db = abs(RT_PIXEL_BYTE(u, 2) - RT_PIXEL_BYTE(v, 2));
        uint32_t m = (uint32_t)(dr > dg ? dr : dg);
        m = m > (uint32_t)db ? m : (uint32_t)db;
        sq += (uint32_t)(dr * dr + dg * dg + db * db);
        differing += m != 0;
        max_delta = m > max_delta ? m : max_delta;
    }
    return (struct run_sums){sq, differing, max_delta};
}

/* R, G and B only: alpha is ignored everywhere in compare (DESIGN.md). */
rt_status rt_pixel_metrics_compute(const struct rt_image *a, const struct rt_image *b,
                                   struct rt_pixel_metrics *out)
{
    *out = (struct rt_pixel_metrics){0};
    if (a->width != b->width || a->height != b->height)
        return rt_errorf(RT_ERR_USAGE, "pixel metrics of images of different sizes");
    size_t n = (size_t)a->width * a->height;
    uint64_t sq = 0, differing = 0;
    unsigned max_delta = 0;
    for (size_t i = 0; i < n; i += RUN) {
        struct run_sums r = sum_run(a->rgba + 4 * i, b->rgba + 4 * i, n - i < RUN ? n - i : RUN);
        sq += r.sq;
        differing += r.differing;
        max_delta = r.max_delta > max_delta ? r.max_delta : max_delta;
    }
    out->mse = n ? (double)sq / (3.0 * (double)n) : 0;
    out->psnr = out->mse == 0 ? INFINITY : 10 * log10(255.0 * 255.0 / out->mse);
    out->diff_pixels = differing;
    out->max_delta = max_delta;
    return rt_ok_status();
}
