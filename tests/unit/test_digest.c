/* Unit tests for digest/: SHA-256 of files against FIPS 180-4's examples. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "digest.h"

/* A file holding size bytes of pattern (repeated), for the test to remove. */
static char *file_of(const char *pattern, size_t size)
{
    char *path = strdup("/tmp/rt-digest-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "wb");
    size_t n = strlen(pattern);
    for (size_t i = 0; i < size; i++)
        fputc(pattern[i % n], f);
    cr_assert_eq(fclose(f), 0);
    return path;
}

static void expect_file_hash(const char *pattern, size_t size, const char *hex)
{
    char *path = file_of(pattern, size);
    char got[RT_SHA256_HEX_SIZE];
    rt_status s = rt_sha256_file_hex(path, got);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_expect_str_eq(got, hex, "%zu bytes of \"%s\"", size, pattern);
    unlink(path);
    free(path);
}

Test(sha256, empty_and_short_messages)
{
    expect_file_hash("x", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect_file_hash("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect_file_hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
                     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* A million 'a's: sixteen of the hash's 64 KB reads, the last one partial. */
Test(sha256, a_million_bytes_across_reads)
{
    expect_file_hash("a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(sha256, stream_hashes_from_its_position)
{
    char *path = file_of("0abc", 4);
    FILE *f = fopen(path, "rb");
    cr_assert_eq(fgetc(f), '0');
    uint8_t digest[RT_SHA256_SIZE];
    rt_status s = rt_sha256_stream(f, path, digest);
    cr_assert(rt_ok(&s), "%s", s.msg);
    char got[RT_SHA256_HEX_SIZE];
    rt_sha256_hex(digest, got);
    cr_expect_str_eq(got, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    fclose(f);
    unlink(path);
    free(path);
}

Test(sha256, missing_file_is_bad_input_naming_it)
{
    uint8_t digest[RT_SHA256_SIZE];
    rt_status s = rt_sha256_file("/nonexistent/trace.rtrace", digest);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_expect(strstr(s.msg, "/nonexistent/trace.rtrace") != NULL, "%s", s.msg);
    rt_status_free(&s);
}

/* A directory opens but cannot be read: an error, not the empty file's hash. */
Test(sha256, unreadable_stream_is_an_error)
{
    uint8_t digest[RT_SHA256_SIZE];
    rt_status s = rt_sha256_file("/tmp", digest);
    cr_assert_neq(s.code, RT_OK);
    rt_status_free(&s);
}
