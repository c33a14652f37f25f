/* Unit tests for common/: status, arena, hash map. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "hashmap.h"
#include "status.h"

Test(status, error_carries_code_message_and_origin)
{
    rt_status s = rt_errorf(RT_ERR_BAD_INPUT, "bad block at offset %d", 42);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert_str_eq(s.msg, "bad block at offset 42");
    int line;
    cr_assert_str_eq(rt_status_where(&s, &line), __FILE__);
    cr_assert_gt(line, 0);
    cr_assert_str_eq(rt_code_name(s.code), "bad-input");
    rt_status_free(&s);
    cr_assert(rt_ok(&s));
    cr_assert_str_eq(s.msg, "");
}

Test(status, success_is_two_words_and_owns_nothing)
{
    cr_assert_leq(sizeof(rt_status), 2 * sizeof(void *));
    rt_status ok = rt_ok_status();
    rt_status_free(&ok); /* nothing to free */
    cr_assert_eq(rt_status_drop(rt_ok_status()), RT_OK);
    int line;
    cr_assert_str_eq(rt_status_where(&ok, &line), "");
    rt_status zeroed = {0};
    rt_status_free(&zeroed);
    cr_assert(rt_ok(&zeroed));
}

Test(status, long_messages_are_cut_to_the_maximum)
{
    char big[2 * RT_STATUS_MSG_MAX];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    rt_status s = rt_errorf(RT_ERR_INTERNAL, "%s", big);
    cr_assert_eq(strlen(s.msg), RT_STATUS_MSG_MAX - 1);
    rt_status w = rt_status_wrap(rt_errorf(RT_ERR_INTERNAL, "%s", big), "ctx");
    cr_assert_eq(strlen(w.msg), RT_STATUS_MSG_MAX - 1);
    cr_assert_eq(strncmp(w.msg, "ctx: xxx", 8), 0);
    rt_status p = rt_status_wrap(rt_errorf(RT_ERR_INTERNAL, "inner"), "%s", big);
    cr_assert_eq(strlen(p.msg), RT_STATUS_MSG_MAX - 1);
    cr_assert_null(strstr(p.msg, "inner"));
    rt_status_free(&s);
    rt_status_free(&w);
    rt_status_free(&p);
}

Test(status, copy_is_owned_apart_and_drop_keeps_the_code)
{
    rt_status a = rt_errorf(RT_ERR_CANNOT_REPLAY, "no device %d", 3);
    rt_status b = rt_status_copy(&a);
    cr_assert_neq(a.msg, b.msg);
    rt_status_free(&a); /* b still readable: ASan would catch a shared record */
    cr_assert_str_eq(b.msg, "no device 3");
    cr_assert_eq(b.code, RT_ERR_CANNOT_REPLAY);
    int line;
    cr_assert_str_eq(rt_status_where(&b, &line), __FILE__);
    cr_assert_eq(rt_status_drop(b), RT_ERR_CANNOT_REPLAY);
}

Test(status, wrap_prefixes_context_and_keeps_ok)
{
    rt_status s = rt_status_wrap(rt_errorf(RT_ERR_INTERNAL, "disk full"), "writing %s", "a.png");
    cr_assert_str_eq(s.msg, "writing a.png: disk full");
    cr_assert_eq(s.code, RT_ERR_INTERNAL);
    rt_status_free(&s);
    rt_status ok = rt_status_wrap(rt_ok_status(), "never");
    cr_assert(rt_ok(&ok));
    cr_assert_str_eq(ok.msg, "");
}

static rt_status fails_then_not_reached(int *reached)
{
    RT_TRY(rt_errorf(RT_ERR_USAGE, "x"));
    *reached = 1;
    return rt_ok_status();
}

Test(status, try_returns_early)
{
    int reached = 0;
    rt_status s = fails_then_not_reached(&reached);
    cr_assert_eq(s.code, RT_ERR_USAGE);
    cr_assert_eq(reached, 0);
    rt_status_free(&s);
}

Test(arena, allocations_are_aligned_and_distinct)
{
    struct rt_arena a;
    rt_arena_init(&a, 128, 0);
    char *prev = NULL;
    for (int i = 1; i < 200; i++) {
        char *p = rt_arena_alloc(&a, (size_t)i, 8);
        cr_assert_not_null(p);
        cr_assert_eq((uintptr_t)p % 8, 0);
        memset(p, i, (size_t)i);
        cr_assert_neq(p, prev);
        prev = p;
    }
    char *big = rt_arena_alloc(&a, 10000, 16);
    cr_assert_not_null(big);
    memset(big, 1, 10000);
    rt_arena_reset(&a);
    cr_assert_eq(a.used, 0);
    cr_assert_not_null(rt_arena_alloc(&a, 64, 8));
    rt_arena_finish(&a);
}

static bool within(const void *p, size_t n, const void *buf, size_t size)
{
    return (uintptr_t)p >= (uintptr_t)buf && (uintptr_t)p + n <= (uintptr_t)buf + size;
}

/* The capture's per-call copies (strided draws, template writes) used a
 * malloc'd 4 KiB block per call: 9 mallocs and frees a frame on glxgears
 * through zink, above tcache's sizes, so glibc coalesced on every free. */
Test(arena, a_callers_buffer_serves_first_then_blocks_and_is_never_freed)
{
    max_align_t buf[512 / sizeof(max_align_t)];
    struct rt_arena a;
    rt_arena_init_on(&a, (char *)buf + 1, sizeof buf - 1, 128, 0); /* misaligned start: aligned up */
    char *first = rt_arena_alloc(&a, 100, 16);
    cr_assert_not_null(first);
    cr_assert_eq((uintptr_t)first % 16, 0);
    cr_assert(within(first, 100, buf, sizeof buf), "the first allocation comes from the caller's buffer");
    char *second = rt_arena_alloc(&a, 200, 8);
    cr_assert(within(second, 200, buf, sizeof buf));
    char *past = rt_arena_alloc(&a, 400, 8); /* does not fit what is left */
    cr_assert_not_null(past);
    cr_assert(!within(past, 1, buf, sizeof buf), "past the buffer: a block of its own");
    memset(first, 1, 100);
    memset(second, 2, 200);
    memset(past, 3, 400);
    rt_arena_reset(&a); /* frees the oversized block, keeps the buffer */
    char *again = rt_arena_alloc(&a, 64, 8);
    cr_assert_eq(again, first, "after a reset the buffer serves again from its start");
    rt_arena_finish(&a); /* ASan: a free of the stack buffer would be reported */
    rt_arena_init_on(&a, buf, 8, 0, 0); /* too small to hold a block: unused */
    cr_assert(!within(rt_arena_alloc(&a, 1, 1), 1, buf, sizeof buf));
    rt_arena_finish(&a);
}

Test(arena, limit_and_overflow_return_null)
{
    struct rt_arena a;
    rt_arena_init(&a, 0, 1000);
    cr_assert_not_null(rt_arena_alloc(&a, 900, 1));
    cr_assert_null(rt_arena_alloc(&a, 200, 1));
    cr_assert_null(rt_arena_calloc(&a, SIZE_MAX / 2, 4, 1));
    cr_assert_null(rt_arena_alloc(&a, SIZE_MAX, 1));
    rt_arena_finish(&a);
}

Test(arena, strndup_terminates)
{
    struct rt_arena a;
    rt_arena_init(&a, 0, 0);
    char *s = rt_arena_strndup(&a, "hello world", 5);
    cr_assert_str_eq(s, "hello");
    rt_arena_finish(&a);
}

Test(hashmap, put_get_remove_many)
{
    struct rt_hashmap m;
    rt_hashmap_init(&m);
    for (uint64_t i = 0; i < 5000; i++)
        cr_assert(rt_hashmap_put(&m, i * 4096, i + 1));
    cr_assert_eq(rt_hashmap_count(&m), 5000);
    for (uint64_t i = 0; i < 5000; i += 2)
        cr_assert(rt_hashmap_remove(&m, i * 4096));
    for (uint64_t i = 0; i < 5000; i++) {
        uint64_t v = 0;
        bool found = rt_hashmap_get(&m, i * 4096, &v);
        cr_assert_eq(found, i % 2 == 1);
        if (found)
            cr_assert_eq(v, i + 1);
    }
    cr_assert_not(rt_hashmap_remove(&m, 12345));
    cr_assert(rt_hashmap_put(&m, 4096, 7)); /* replace */
    uint64_t v;
    cr_assert(rt_hashmap_get(&m, 4096, &v));
    cr_assert_eq(v, 7);
    rt_hashmap_finish(&m);
}

Test(hashmap, churn_with_tombstones_stays_bounded)
{
    struct rt_hashmap m;
    rt_hashmap_init(&m);
    for (uint64_t i = 0; i < 100000; i++) {
        cr_assert(rt_hashmap_put(&m, i, i));
        cr_assert(rt_hashmap_remove(&m, i));
    }
    cr_assert_eq(rt_hashmap_count(&m), 0);
    cr_assert_leq(rt_hashmap_slots(&m), 64);
    rt_hashmap_finish(&m);
}

Test(hashmap, iterator_visits_every_entry_once)
{
    struct rt_hashmap m;
    rt_hashmap_init(&m);
    struct rt_hashmap_iter it;
    rt_hashmap_iter_init(&it, &m);
    cr_assert_not(rt_hashmap_iter_next(&it, NULL, NULL), "an empty map has no entries");
    for (uint64_t i = 1; i <= 300; i++)
        cr_assert(rt_hashmap_put(&m, i * 4096, i));
    for (uint64_t i = 1; i <= 300; i += 3)
        cr_assert(rt_hashmap_remove(&m, i * 4096));
    static bool seen[301];
    size_t visits = 0;
    uint64_t key, value;
    rt_hashmap_iter_init(&it, &m);
    while (rt_hashmap_iter_next(&it, &key, &value)) {
        cr_assert_eq(key, value * 4096, "key %" PRIu64 " came with value %" PRIu64, key, value);
        cr_assert(value % 3 != 1, "removed key %" PRIu64 " visited", key);
        cr_assert_not(seen[value], "key %" PRIu64 " visited twice", key);
        seen[value] = true;
        visits++;
    }
    cr_assert_eq(visits, rt_hashmap_count(&m));
    cr_assert_eq(visits, 200);
    rt_hashmap_finish(&m);
}

Test(hashmap, iterator_allows_removing_what_it_returned)
{
    struct rt_hashmap m;
    rt_hashmap_init(&m);
    for (uint64_t i = 0; i < 1000; i++)
        cr_assert(rt_hashmap_put(&m, i, i + 7));
    struct rt_hashmap_iter it;
    uint64_t key, value;
    size_t visits = 0;
    rt_hashmap_iter_init(&it, &m);
    while (rt_hashmap_iter_next(&it, &key, &value)) {
        cr_assert_eq(value, key + 7);
        cr_assert(rt_hashmap_remove(&m, key));
        visits++;
    }
    cr_assert_eq(visits, 1000);
    cr_assert_eq(rt_hashmap_count(&m), 0);
    rt_hashmap_finish(&m);
}

#include "framelist.h"

Test(framelist, parses_items_and_ranges)
{
    struct rt_frame_list l;
    rt_status s = rt_frame_list_parse("100-120,1,10", &l);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert(rt_frame_list_contains(&l, 1));
    cr_assert(rt_frame_list_contains(&l, 10));
    cr_assert(rt_frame_list_contains(&l, 100));
    cr_assert(rt_frame_list_contains(&l, 120));
    cr_assert_not(rt_frame_list_contains(&l, 2));
    cr_assert_not(rt_frame_list_contains(&l, 121));
    cr_assert_eq(rt_frame_list_last(&l), 120);
    cr_assert_eq(l.ranges[0].first, 1, "sorted");
    rt_frame_list_finish(&l);
}

Test(framelist, open_ended_and_all)
{
    struct rt_frame_list l;
    cr_assert(rt_status_drop(rt_frame_list_parse("5-", &l)) == RT_OK);
    cr_assert_not(rt_frame_list_contains(&l, 4));
    cr_assert(rt_frame_list_contains(&l, 1000000));
    cr_assert_eq(rt_frame_list_last(&l), UINT64_MAX);
    rt_frame_list_finish(&l);
    cr_assert(rt_status_drop(rt_frame_list_parse("all", &l)) == RT_OK);
    cr_assert(rt_frame_list_contains(&l, 1));
    rt_frame_list_finish(&l);
}

Test(framelist, rejects_bad_lists)
{
    const char *bad[] = {"", "0", "a", "1,,x", "5-3", "1-2-3", "-4", "1,2x", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct rt_frame_list l;
        rt_status s = rt_frame_list_parse(bad[i], &l);
        cr_assert_eq(s.code, RT_ERR_USAGE, "'%s' should be rejected", bad[i]);
        cr_assert_null(l.ranges);
        rt_status_free(&s);
    }
}

#include "typedmap.h"

Test(typedmap, the_same_key_under_two_types_is_two_entries)
{
    struct rt_typed_map m;
    rt_typed_map_init(&m);
    cr_assert(rt_typed_map_put(&m, 9 /* buffer */, 0x1000, 1));
    cr_assert(rt_typed_map_put(&m, 10 /* image */, 0x1000, 2));
    uint64_t v = 0;
    cr_assert(rt_typed_map_get(&m, 9, 0x1000, &v));
    cr_assert_eq(v, 1);
    cr_assert(rt_typed_map_get(&m, 10, 0x1000, &v));
    cr_assert_eq(v, 2);
    cr_assert_not(rt_typed_map_get(&m, 11, 0x1000, &v));
    cr_assert_not(rt_typed_map_get(&m, 9, 0x2000, &v));
    cr_assert(rt_typed_map_put(&m, 9, 0x1000, 3));
    cr_assert(rt_typed_map_get(&m, 9, 0x1000, &v));
    cr_assert_eq(v, 3);
    rt_typed_map_finish(&m);
}

#include "utf8.h"

Test(utf8, sequences_by_rfc3629)
{
    struct {
        const char *bytes;
        size_t n, len;
    } cases[] = {
        {"a", 1, 1},          {"\x01", 1, 1},         {"\xc3\xa9", 2, 2},
        {"\xe2\x82\xac", 3, 3}, {"\xf0\x9f\x98\x80", 4, 4},
        {"\xc0\xaf", 2, 0},     /* overlong '/' */
        {"\xe0\x80\xaf", 3, 0}, /* overlong */
        {"\xed\xa0\x80", 3, 0}, /* a surrogate */
        {"\xf4\x90\x80\x80", 4, 0}, /* above U+10FFFF */
        {"\x80", 1, 0},         {"\xff", 1, 0},
        {"\xe2\x82", 2, 0},     /* cut short */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_assert_eq(rt_utf8_sequence((const uint8_t *)cases[i].bytes, cases[i].n), cases[i].len,
                     "case %zu", i);
}

Test(utf8, scrub_replaces_only_what_is_not_utf8)
{
    char text[] = "ok \xc3\xa9 \xff\xc0\xaf \xe2\x82";
    rt_utf8_scrub(text, sizeof text - 1);
    cr_assert_str_eq(text, "ok \xc3\xa9 ??? ??");
}

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "file.h"

Test(file, reads_every_byte_and_names_what_it_cannot_open)
{
    char path[] = "/tmp/rt-file-unit-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    static uint8_t bytes[200000]; /* over the first 64 KiB buffer, so it grows */
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 7);
    cr_assert_eq(write(fd, bytes, sizeof bytes), (ssize_t)sizeof bytes);
    close(fd);
    uint8_t *data = NULL;
    size_t size = 0;
    rt_status s = rt_file_read(path, &data, &size);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(size, sizeof bytes);
    cr_assert_eq(memcmp(data, bytes, size), 0);
    free(data);
    unlink(path);
    s = rt_file_read(path, &data, &size);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, path), "%s", s.msg);
    cr_assert_null(data);
    rt_status_free(&s);
    s = rt_file_read("/", &data, &size); /* a directory opens but cannot be read */
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "%s", s.msg);
    cr_assert_null(data);
    rt_status_free(&s);
}

/* An output path that cannot be written is a usage error naming the option,
 * found before the work that would have written it. */
Test(file, output_check_refuses_what_cannot_be_written)
{
    char dir[] = "/tmp/rt-out-unit-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char ok_path[128], missing[128], in_file[128];
    snprintf(ok_path, sizeof ok_path, "%s/out.png", dir);
    snprintf(missing, sizeof missing, "%s/none/out.png", dir);
    snprintf(in_file, sizeof in_file, "%s/out.png/x.png", dir);
    rt_status s = rt_output_file_check("--diff", ok_path);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_neq(access(ok_path, F_OK), 0, "the check leaves no file behind");
    const char *bad[] = {missing, dir, "/proc/out.png"};
    FILE *f = fopen(ok_path, "w"); /* a file where a folder should be */
    cr_assert_not_null(f);
    fclose(f);
    for (size_t i = 0; i < 3; i++) {
        s = rt_output_file_check("--diff", bad[i]);
        cr_assert_eq(s.code, RT_ERR_USAGE, "%s: %s", bad[i], s.msg);
        cr_assert(strstr(s.msg, "--diff: cannot write ") == s.msg, "%s", s.msg);
        cr_assert(strstr(s.msg, bad[i]), "%s", s.msg);
        rt_status_free(&s);
    }
    s = rt_output_file_check("-o", in_file);
    cr_assert_eq(s.code, RT_ERR_USAGE, "%s", s.msg);
    rt_status_free(&s);
    f = fopen(ok_path, "w"); /* an existing file is replaced, not refused */
    cr_assert_not_null(f);
    fclose(f);
    s = rt_output_file_check("-o", ok_path);
    cr_assert(rt_ok(&s), "%s", s.msg);
    unlink(ok_path);
    rmdir(dir);
}

/* A folder is refused where an input file belongs, naming what was opened. */
Test(file, open_read_refuses_a_folder)
{
    FILE *f = (FILE *)1;
    rt_status s = rt_file_open_read("/tmp", "manifest", &f);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "%s", s.msg);
    cr_assert_str_eq(s.msg, "/tmp: cannot open manifest: it is a directory");
    cr_assert_null(f);
    rt_status_free(&s);
    s = rt_file_open_read("/nonexistent-rt", NULL, &f);
    cr_assert_str_eq(s.msg, "/nonexistent-rt: cannot open: No such file or directory");
    cr_assert_null(f);
    rt_status_free(&s);
    s = rt_file_open_read("/proc/self/status", NULL, &f);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_not_null(f);
    fclose(f);
}
