/* Unit tests for trace/codec: little-endian layout, bounds checks, sticky failure. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "codec.h"

Test(codec, primitives_are_little_endian_and_round_trip)
{
    struct rt_enc e;
    rt_enc_init(&e);
    rt_enc_u8(&e, 0xab);
    rt_enc_u16(&e, 0x1234);
    rt_enc_u32(&e, 0xdeadbeef);
    rt_enc_u64(&e, 0x0102030405060708ull);
    rt_enc_f32(&e, 1.5f);
    rt_enc_f64(&e, -2.25);
    cr_assert_not(e.failed);
    cr_assert_eq(e.size, 1 + 2 + 4 + 8 + 4 + 8);
    const uint8_t expect[] = {0xab, 0x34, 0x12, 0xef, 0xbe, 0xad, 0xde,
                              0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
    cr_assert_arr_eq(e.data, expect, sizeof expect);

    struct rt_dec d;
    rt_dec_init(&d, e.data, e.size, NULL);
    cr_assert_eq(rt_dec_u8(&d), 0xab);
    cr_assert_eq(rt_dec_u16(&d), 0x1234);
    cr_assert_eq(rt_dec_u32(&d), 0xdeadbeef);
    cr_assert_eq(rt_dec_u64(&d), 0x0102030405060708ull);
    float f = rt_dec_f32(&d);
    double g = rt_dec_f64(&d);
    cr_assert_eq(f, 1.5f);
    cr_assert_eq(g, -2.25);
    cr_assert_eq(rt_dec_left(&d), 0);
    cr_assert_not(d.failed);
    rt_enc_finish(&e);
}

Test(codec, short_reads_fail_sticky_and_yield_zero)
{
    const uint8_t three[3] = {1, 2, 3};
    struct rt_dec d;
    rt_dec_init(&d, three, sizeof three, NULL);
    cr_assert_eq(rt_dec_u32(&d), 0);
    cr_assert(d.failed);
    /* Sticky: even a read that would fit now fails. */
    cr_assert_eq(rt_dec_u8(&d), 0);
    cr_assert_null(rt_dec_bytes(&d, 1));
}

Test(codec, strings_round_trip_including_null_and_empty)
{
    struct rt_arena a;
    rt_arena_init(&a, 0, 0);
    struct rt_enc e;
    rt_enc_init(&e);
    rt_enc_str(&e, "hello");
    rt_enc_str(&e, NULL);
    rt_enc_str(&e, "");
    struct rt_dec d;
    rt_dec_init(&d, e.data, e.size, &a);
    cr_assert_str_eq(rt_dec_str(&d), "hello");
    cr_assert_null(rt_dec_str(&d));
    cr_assert_not(d.failed);
    cr_assert_str_eq(rt_dec_str(&d), "");
    cr_assert_not(d.failed);
    rt_enc_finish(&e);
    rt_arena_finish(&a);
}

Test(codec, string_longer_than_input_fails_without_reading_past)
{
    struct rt_arena a;
    rt_arena_init(&a, 0, 0);
    const uint8_t bad[] = {0xff, 0xff, 0xff, 0x7f, 'a', 'b'}; /* length 2^31-1, 2 bytes */
    struct rt_dec d;
    rt_dec_init(&d, bad, sizeof bad, &a);
    cr_assert_null(rt_dec_str(&d));
    cr_assert(d.failed);
    rt_arena_finish(&a);
}

Test(codec, check_count_rejects_counts_the_input_cannot_hold)
{
    uint8_t buf[16] = {0};
    struct rt_dec d;
    rt_dec_init(&d, buf, sizeof buf, NULL);
    cr_assert(rt_dec_check_count(&d, 4, 4));
    cr_assert(rt_dec_check_count(&d, 16, 0)); /* 0 is treated as 1 byte each */
    cr_assert_not(rt_dec_check_count(&d, 5, 4));
    cr_assert(d.failed);
    rt_dec_init(&d, buf, sizeof buf, NULL);
    cr_assert_not(rt_dec_check_count(&d, UINT64_MAX, 8));
}

Test(codec, patch_overwrites_in_place_and_ignores_out_of_range)
{
    struct rt_enc e;
    rt_enc_init(&e);
    rt_enc_u32(&e, 0);
    rt_enc_u32(&e, 7);
    rt_enc_patch_u32(&e, 0, 0x11223344);
    rt_enc_patch_u32(&e, 6, 0xffffffff); /* would run past the end: ignored */
    struct rt_dec d;
    rt_dec_init(&d, e.data, e.size, NULL);
    cr_assert_eq(rt_dec_u32(&d), 0x11223344);
    cr_assert_eq(rt_dec_u32(&d), 7);
    rt_enc_finish(&e);
}

Test(codec, encoder_grows_across_many_appends)
{
    struct rt_enc e;
    rt_enc_init(&e);
    for (uint32_t i = 0; i < 100000; i++)
        rt_enc_u32(&e, i);
    cr_assert_not(e.failed);
    cr_assert_eq(e.size, 400000);
    struct rt_dec d;
    rt_dec_init(&d, e.data, e.size, NULL);
    for (uint32_t i = 0; i < 100000; i++)
        cr_assert_eq(rt_dec_u32(&d), i);
    rt_enc_reset(&e);
    cr_assert_eq(e.size, 0);
    rt_enc_finish(&e);
}
