/* tests/unit/test_replay_config.c — replay configurations: durations and
 * delay specifications, the seeded jitter sequence, workaround sets and their
 * includes, the one-line description, and the pipeline-cache file header. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "pipeline_cache.h"

Test(duration, units_and_refusals)
{
    uint64_t us;
    cr_assert(rt_parse_duration_us("25ms", &us) && us == 25000);
    cr_assert(rt_parse_duration_us("1.5ms", &us) && us == 1500);
    cr_assert(rt_parse_duration_us("500us", &us) && us == 500);
    cr_assert(rt_parse_duration_us("2s", &us) && us == 2000000);
    cr_assert(rt_parse_duration_us("0ms", &us) && us == 0);
    const char *bad[] = {"", "ms", "25", "-1ms", "25 ms", "25mss", "1e9s", "61s", " 5ms", "nanms", "infs"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert(!rt_parse_duration_us(bad[i], &us), "'%s' was accepted", bad[i]);
}

Test(delay, specifications)
{
    struct rt_replay_config c = {0};
    rt_status s = rt_replay_config_add_delay(&c, "create-pipeline=25ms");
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(c.delay_count, 1);
    cr_assert_eq(c.delays[0].event, RT_DELAY_CREATE_PIPELINE);
    cr_assert_eq(c.delays[0].us, 25000);
    rt_status_free(&s);
    s = rt_replay_config_add_delay(&c, "gpu=2ms~500us");
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(c.delays[1].jitter_us, 500);
    rt_status_free(&s);
    s = rt_replay_config_add_delay(&c, "gpu=1ms");
    cr_assert_eq(s.code, RT_ERR_USAGE);
    cr_assert(strstr(s.msg, "twice"));
    const char *bad[] = {"present", "present=", "teleport=5ms", "present=5", "present=5ms~", "=5ms", "present=5ms~x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rt_status_free(&s);
        s = rt_replay_config_add_delay(&c, bad[i]);
        cr_assert_eq(s.code, RT_ERR_USAGE, "'%s' was accepted", bad[i]);
    }
    cr_assert_eq(c.delay_count, 2);
    rt_status_free(&s);
}

Test(jitter, same_seed_same_sequence)
{
    struct rt_replay_delay d = {RT_DELAY_SUBMIT, 25000, 5000};
    struct rt_jitter a, b, other;
    rt_jitter_init(&a, 42);
    rt_jitter_init(&b, 42);
    rt_jitter_init(&other, 43);
    int differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rt_jitter_next(&a, &d), y = rt_jitter_next(&b, &d), z = rt_jitter_next(&other, &d);
        cr_assert_eq(x, y, "draw %d: %lu vs %lu", i, (unsigned long)x, (unsigned long)y);
        cr_assert(x >= 20000 && x <= 30000);
        differ += x != z;
    }
    cr_assert_gt(differ, 900, "another seed gave nearly the same sequence");
}

Test(jitter, spread_and_floor)
{
    struct rt_replay_delay d = {RT_DELAY_PRESENT, 100, 300}, none = {RT_DELAY_PRESENT, 7, 0};
    struct rt_jitter j;
    rt_jitter_init(&j, 1);
    uint64_t low = UINT64_MAX, high = 0;
    for (int i = 0; i < 5000; i++) {
        uint64_t v = rt_jitter_next(&j, &d);
        low = v < low ? v : low;
        high = v > high ? v : high;
    }
    cr_assert_eq(low, 0);                  /* never negative: floored at 0 */
    cr_assert(high >= 390 && high <= 400); /* reaches the top of the range */
    cr_assert_eq(rt_jitter_next(&j, &none), 7);
}

static char set_dir[64];

static void write_set(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s.set", set_dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

static void make_sets(void)
{
    snprintf(set_dir, sizeof set_dir, "/tmp/rt_sets_XXXXXX");
    cr_assert(mkdtemp(set_dir));
    write_set("mine", "# my set\ninclude other   # a comment\nzero-init\n\n");
    write_set("other", "# the other\nserialize-submits\n");
    write_set("loop-a", "# a\ninclude loop-b\n");
    write_set("loop-b", "# b\ninclude loop-a\n");
    write_set("typo", "# typo\nzero-inti\n");
    write_set("race-hunt", "# shadows the shipped one\nno-anisotropy\n");
}

static void remove_sets(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", set_dir);
    cr_assert_eq(system(cmd), 0);
}

Test(sets, includes_resolve, .init = make_sets, .fini = remove_sets)
{
    struct rt_replay_config c = {0};
    rt_status s = rt_replay_config_add_workarounds(&c, "mine, robust-buffer-access", set_dir);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert(c.workarounds[RT_WA_ZERO_INIT] && c.workarounds[RT_WA_SERIALIZE_SUBMITS] &&
              c.workarounds[RT_WA_ROBUST_BUFFER_ACCESS]);
    cr_assert(!c.workarounds[RT_WA_READBACK_BARRIER]);
    cr_assert_eq(c.set_count, 1);
    cr_assert_str_eq(c.sets[0], "mine");
    /* the user's directory comes first */
    struct rt_replay_config u = {0};
    s = rt_replay_config_add_workarounds(&u, "race-hunt", set_dir);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert(u.workarounds[RT_WA_NO_ANISOTROPY] && !u.workarounds[RT_WA_READBACK_BARRIER]);
}

Test(sets, shipped_sets_include_others)
{
    struct rt_replay_config c = {0};
    rt_status s = rt_replay_config_add_workarounds(&c, "paranoid", NULL);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert(c.workarounds[RT_WA_READBACK_BARRIER] && c.workarounds[RT_WA_ZERO_INIT] &&
              c.workarounds[RT_WA_STRIP_UNSUPPORTED]);
}

Test(sets, errors, .init = make_sets, .fini = remove_sets)
{
    struct rt_replay_config c = {0};
    rt_status s = rt_replay_config_add_workarounds(&c, "nonsense", set_dir);
    cr_assert_eq(s.code, RT_ERR_USAGE);
    cr_assert(strstr(s.msg, "'nonsense'") && strstr(s.msg, "robust-buffer-access") && strstr(s.msg, "mine") &&
              strstr(s.msg, "paranoid"), "%s", s.msg);
    rt_status_free(&s);
    s = rt_replay_config_add_workarounds(&c, "loop-a", set_dir);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "includes itself"), "%s", s.msg);
    rt_status_free(&s);
    s = rt_replay_config_add_workarounds(&c, "typo", set_dir);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "zero-inti") && strstr(s.msg, "line 2"), "%s", s.msg);
    rt_status_free(&s);
    s = rt_replay_config_add_workarounds(&c, "../etc/passwd", set_dir);
    cr_assert_eq(s.code, RT_ERR_USAGE);
    rt_status_free(&s);
}

Test(describe, one_line)
{
    struct rt_replay_config c = {.seed = 9, .validate = RT_VALIDATE_SYNC, .pipeline_cache = "p.bin"};
    rt_status s = rt_replay_config_add_workarounds(&c, "race-hunt", NULL);
    cr_assert(rt_ok(&s), "%s", s.msg);
    s = rt_replay_config_add_delay(&c, "create-pipeline=25ms~5ms");
    cr_assert(rt_ok(&s));
    char text[1024];
    rt_replay_config_describe(&c, text, sizeof text);
    cr_assert_str_eq(text, "workarounds readback-barrier, serialize-submits, serialize-frames (sets race-hunt); "
                           "delays create-pipeline=25ms~5ms; seed 9; pipeline cache p.bin; validation sync");
    struct rt_replay_config none = {.seed = 1};
    rt_replay_config_describe(&none, text, sizeof text);
    cr_assert_str_eq(text, "workarounds none; delays none; seed 1; pipeline cache none; validation off");
}

/* --- the pipeline-cache file ---------------------------------------------- */

static const struct rt_pipeline_cache_identity device = {0x10de, 0x2335, 580, 8, {1, 2, 3, 4, 5, 6, 7, 8, 9}};

/* A driver blob: VkPipelineCacheHeaderVersionOne for DEVICE, then payload. */
static size_t driver_blob(uint8_t *out, size_t payload)
{
    uint32_t h[4] = {32, 1, device.vendor_id, device.device_id};
    memcpy(out, h, sizeof h);
    memcpy(out + 16, device.uuid, 16);
    for (size_t i = 0; i < payload; i++)
        out[32 + i] = (uint8_t)(i * 7);
    return 32 + payload;
}

static size_t file_for(uint8_t *file, const struct rt_pipeline_cache_identity *id)
{
    size_t n = driver_blob(file + RT_PIPELINE_CACHE_HEADER_SIZE, 100);
    rt_pipeline_cache_header(file, id, file + RT_PIPELINE_CACHE_HEADER_SIZE, n);
    return RT_PIPELINE_CACHE_HEADER_SIZE + n;
}

static void expect_refused(const uint8_t *file, size_t size, const char *why)
{
    const uint8_t *data;
    size_t n;
    rt_status s = rt_pipeline_cache_check(file, size, &device, &data, &n);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "accepted, expected '%s'", why);
    cr_assert(strstr(s.msg, why), "'%s' does not say '%s'", s.msg, why);
    rt_status_free(&s);
}

Test(pipeline_cache, good_file_round_trips)
{
    uint8_t file[512];
    size_t size = file_for(file, &device);
    const uint8_t *data;
    size_t n;
    rt_status s = rt_pipeline_cache_check(file, size, &device, &data, &n);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(n, 132);
    cr_assert_eq(data, file + RT_PIPELINE_CACHE_HEADER_SIZE);
}

Test(pipeline_cache, every_bad_file_is_named)
{
    uint8_t file[512], copy[512];
    size_t size = file_for(file, &device);
    expect_refused(file, 0, "zero-sized");
    expect_refused(file, 40, "truncated inside its header");
    for (size_t cut = RT_PIPELINE_CACHE_HEADER_SIZE; cut < size; cut += 7)
        expect_refused(file, cut, "truncated");
    memcpy(copy, file, size);
    copy[100] ^= 1;
    expect_refused(copy, size, "corrupted");
    memcpy(copy, file, size);
    copy[0] = 'X';
    expect_refused(copy, size, "bad magic");
    struct rt_pipeline_cache_identity other = device;
    other.device_id++;
    expect_refused(file, file_for(file, &other), "for another device");
    other = device;
    other.uuid[3]++;
    expect_refused(file, file_for(file, &other), "for another device");
    other = device;
    other.driver_version++;
    expect_refused(file, file_for(file, &other), "another driver version");
    other = device;
    other.pointer_size = 4;
    expect_refused(file, file_for(file, &other), "pointer size");
}

Test(pipeline_cache, driver_data_for_another_device)
{
    uint8_t file[512];
    size_t n = driver_blob(file + RT_PIPELINE_CACHE_HEADER_SIZE, 100);
    file[RT_PIPELINE_CACHE_HEADER_SIZE + 8] ^= 0xff; /* the driver header's vendorID */
    rt_pipeline_cache_header(file, &device, file + RT_PIPELINE_CACHE_HEADER_SIZE, n);
    expect_refused(file, RT_PIPELINE_CACHE_HEADER_SIZE + n, "driver's data is for another device");
    n = 10; /* shorter than the driver's own header */
    rt_pipeline_cache_header(file, &device, file + RT_PIPELINE_CACHE_HEADER_SIZE, n);
    expect_refused(file, RT_PIPELINE_CACHE_HEADER_SIZE + n, "too short");
}
