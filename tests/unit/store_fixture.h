/*
 * tests/unit/store_fixture.h — what the store's unit tests (test_store.c,
 * test_store_scale.c, test_store_sync.c) share: a scratch folder per test,
 * paths in it, small PNGs that differ by seed, a store opened or the test
 * failed, and one-integer queries on its database. Test code only.
 */
#ifndef RT_TEST_STORE_FIXTURE_H
#define RT_TEST_STORE_FIXTURE_H

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store_internal.h"

/* EXPR (an rt_status) succeeds, or the test fails naming it and its message. */
#define ASSERT_OK(expr)                                              \
    do {                                                             \
        rt_status s_ = (expr);                                       \
        cr_assert(rt_ok(&s_), "%s: %s", #expr, s_.msg);              \
    } while (0)

/* EXPR fails with code WANT and a message containing NEEDLE. */
#define ASSERT_CODE(expr, want, needle)                                          \
    do {                                                                         \
        rt_status s_ = (expr);                                                   \
        cr_assert_eq(s_.code, (want), "%s: code %d (%s)", #expr, s_.code, s_.msg); \
        cr_assert(strstr(s_.msg, (needle)), "message '%s' lacks '%s'", s_.msg, (needle)); \
        rt_status_free(&s_);                                                     \
    } while (0)

/** A new scratch folder under /tmp for this test (a TestSuite's .init). */
void make_tmp(void);
/** Removes the scratch folder and all in it (a TestSuite's .fini). */
void remove_tmp(void);
/** The scratch folder. */
const char *tmp_dir(void);
/** NAME in the scratch folder; the last 8 answers stay valid. */
const char *tmp_path(const char *name);

/** PNG bytes, malloc'd (free data). */
struct png_bytes {
    uint8_t *data;
    size_t size;
};

/** A W x H PNG of noise from SEED (noise does not compress): seeds differ, images differ. */
struct png_bytes make_png(uint32_t w, uint32_t h, unsigned seed);

/** The store at PATH opened in MODE, or the test fails. */
struct rt_store *open_store(const char *path, enum rt_store_mode mode);

/** The one integer SQL answers on DB, or the test fails. */
int64_t raw_int(sqlite3 *db, const char *sql);

#endif
