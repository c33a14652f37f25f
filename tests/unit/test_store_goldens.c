/* Unit tests for listing goldens at scale (issue 18): a golden keeps its
 * PNG in its row, before the columns a listing shows (hash, size, ...), so
 * a listing that reads the rows walks every PNG's overflow pages (2,000
 * goldens of 300 KB: 8.1 s cold, 600 MB read). Schema 9's covering index
 * goldens_listed holds what a listing shows: it reads the index only. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "png_io.h"
#include "store_internal.h"

#define ASSERT_OK(expr)                                              \
    do {                                                             \
        rt_status s_ = (expr);                                       \
        cr_assert(rt_ok(&s_), "%s: %s", #expr, s_.msg ? s_.msg : ""); \
    } while (0)

#define GOLDENS 24
#define SIDE 192 /* noise: about 150 KB of PNG each */

static uint8_t *noise_png(unsigned seed, size_t *size)
{
    struct rt_image img;
    ASSERT_OK(rt_image_init(&img, SIDE, SIDE));
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < (size_t)SIDE * SIDE * 4; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        img.rgba[i] = (uint8_t)x;
    }
    uint8_t *png = NULL;
    ASSERT_OK(rt_png_write_memory(&img, &png, size));
    rt_image_finish(&img);
    return png;
}

Test(goldens, a_listing_reads_no_png)
{
    char path[] = "/tmp/rt_goldens_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    unlink(path);
    struct rt_store *store = NULL;
    ASSERT_OK(rt_store_open(path, RT_STORE_CREATE, &store));
    size_t png_bytes = 0;
    for (unsigned i = 0; i < GOLDENS; i++) {
        size_t size = 0;
        uint8_t *png = noise_png(i, &size);
        png_bytes += size;
        struct rt_golden_new g = {.trace = "t", .frame = i + 1, .png = png, .png_size = size};
        int64_t id = 0;
        bool created = false;
        ASSERT_OK(rt_store_golden_put(store, &g, &id, &created));
        free(png);
    }
    rt_store_close(store);
    ASSERT_OK(rt_store_open(path, RT_STORE_READ_ONLY, &store));
    int misses = 0, high = 0;
    sqlite3_db_status(store->db, SQLITE_DBSTATUS_CACHE_MISS, &misses, &high, 1);
    struct rt_golden_filter filter = {0};
    struct rt_golden_list list = {0};
    ASSERT_OK(rt_store_golden_list(store, &filter, &list));
    cr_assert_eq(list.count, GOLDENS);
    sqlite3_db_status(store->db, SQLITE_DBSTATUS_CACHE_MISS, &misses, &high, 0);
    size_t png_pages = png_bytes / 4096;
    cr_assert_lt((size_t)misses, png_pages / 20, "listing read %d pages; the PNGs take %zu",
                 misses, png_pages);
    rt_golden_list_finish(&list);
    rt_store_close(store);
    unlink(path);
}
