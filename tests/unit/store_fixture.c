/* tests/unit/store_fixture.c — the store tests' shared set-up (store_fixture.h). */
#include "store_fixture.h"

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#include "png_io.h"

static char tmp_root[64];

void make_tmp(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/rt_store_XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_root));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void remove_tmp(void) { nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

const char *tmp_dir(void) { return tmp_root; }

const char *tmp_path(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 256, "%s/%s", tmp_root, name);
    return p;
}

struct png_bytes make_png(uint32_t w, uint32_t h, unsigned seed)
{
    struct rt_image img;
    ASSERT_OK(rt_image_init(&img, w, h));
    uint32_t x = seed * 2654435761u + 1; /* xorshift */
    for (size_t i = 0; i < (size_t)w * h * 4; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        img.rgba[i] = (uint8_t)x;
    }
    struct png_bytes p = {0};
    ASSERT_OK(rt_png_write_memory(&img, &p.data, &p.size));
    rt_image_finish(&img);
    return p;
}

struct rt_store *open_store(const char *path, enum rt_store_mode mode)
{
    struct rt_store *store = NULL;
    ASSERT_OK(rt_store_open(path, mode, &store));
    cr_assert_not_null(store);
    return store;
}

int64_t raw_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(stmt), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return v;
}
