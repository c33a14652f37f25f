/* Unit tests for runner/: the manifest, the job list and its shards, child processes. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdbool.h>

#include "child.h"
#include "runner.h"

static char dir[] = "/tmp/rt-runner-unit-XXXXXX";
static bool dir_made; /* mkdtemp may itself end the name in 'X': keep a flag */

static const char *write_manifest(const char *name, const char *text)
{
    static char path[256];
    if (!dir_made) {
        cr_assert_not_null(mkdtemp(dir));
        dir_made = true;
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static const char full[] =
    "label: nightly\n"
    "cache: cache\n"
    "defaults: &d {frames: [1, 10], timeout: 5m}\n"
    "configurations:\n"
    "  - name: default\n"
    "  - {name: slow, workarounds: serialize-submits, delays: [submit=2ms, gpu=1ms~1ms], seed: 7}\n"
    "traces:\n"
    "  - path: a.rtrace\n"
    "    tags: [smoke]\n"
    "  - name: b\n"
    "    url: https://h/x/b.rtrace?sig=1\n"
    "    sha256: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
    "    frames: \"2,4-6\"\n"
    "    threshold: 0.98\n"
    "    tile-threshold: 0.5\n"
    "    timeout: 90s\n"
    "    configurations: [slow]\n"
    "    expect:\n"
    "      - {device: \"10de:*\", status: flaky, note: taa}\n"
    "      - {status: skip}\n";

Test(manifest, reads_every_key)
{
    struct rt_manifest m;
    rt_status s = rt_manifest_load(write_manifest("full.yml", full), &m);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_str_eq(m.label, "nightly");
    cr_assert_eq(m.config_count, 2);
    const struct rt_manifest_config *slow = &m.configs[1];
    cr_assert_eq(slow->workaround_count, 1);
    cr_assert_str_eq(slow->workarounds[0], "serialize-submits");
    cr_assert_eq(slow->delay_count, 2);
    cr_assert_str_eq(slow->delays[1], "gpu=1ms~1ms");
    cr_assert(slow->has_seed && slow->seed == 7);
    cr_assert_eq(m.trace_count, 2);
    const struct rt_manifest_trace *a = &m.traces[0], *b = &m.traces[1];
    cr_assert_str_eq(a->name, "a");
    cr_assert_eq(a->path[0], '/', "relative paths become absolute");
    cr_assert_str_eq(a->frames, "1,10");
    cr_assert_eq(a->timeout_s, 300);
    cr_assert_eq(a->config_count, 2, "every configuration by default");
    cr_assert_float_eq(a->threshold, 0.99, 1e-12);
    cr_assert_str_eq(b->frames, "2,4-6");
    cr_assert_eq(b->frame_count, 4);
    cr_assert_eq(b->frame_numbers[3], 6);
    cr_assert_eq(b->timeout_s, 90);
    cr_assert_float_eq(b->tile_threshold, 0.5, 1e-12);
    cr_assert_eq(b->config_count, 1);
    cr_assert_eq(b->configs[0], 1);
    cr_assert_not_null(strstr(b->path, "/cache/0123456789abcdef"), "%s", b->path);
    cr_assert_eq(b->expect_count, 2);
    cr_assert_eq(rt_manifest_expect_for(b, "10de:2335/580", "NVIDIA H200")->kind, RT_EXPECT_FLAKY);
    cr_assert_eq(rt_manifest_expect_for(b, "", "llvmpipe")->kind, RT_EXPECT_SKIP);
    cr_assert_null(rt_manifest_expect_for(a, "", "llvmpipe"));
    rt_manifest_finish(&m);
}

Test(manifest, errors_name_the_line)
{
    struct rt_manifest m;
    rt_status s = rt_manifest_load(write_manifest("bad.yml", "traces:\n  - path: a\n    tags: {x: 1}\n"), &m);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert_not_null(strstr(s.msg, "bad.yml:3: tags must be a string or a list"), "%s", s.msg);
    rt_status_free(&s);
    s = rt_manifest_load(write_manifest("alias.yml", "traces:\n  - &t {path: a.rtrace}\n  - *t\n"), &m);
    cr_assert_not_null(strstr(s.msg, "trace 'a' is already listed"), "aliases are followed: %s", s.msg);
    rt_status_free(&s);
}

Test(manifest, trim_names_a_frame_range)
{
    struct rt_manifest m;
    rt_status s = rt_manifest_load(write_manifest("trim.yml", "traces:\n  - {path: a.rtrace, trim: 300-310}\n"
                                                               "  - {path: b.rtrace, trim: 7}\n"
                                                               "  - {path: c.rtrace}\n"), &m);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_str_eq(m.traces[0].trim, "300-310");
    cr_assert_str_eq(m.traces[1].trim, "7-7");
    cr_assert_null(m.traces[2].trim);
    rt_manifest_finish(&m);
    const char *bad[] = {"310-300", "0-3", "x", "3-", "-3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "traces:\n  - {path: a.rtrace, trim: '%s'}\n", bad[i]);
        rt_status_free(&s);
        s = rt_manifest_load(write_manifest("badtrim.yml", text), &m);
        cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "trim: '%s' was accepted", bad[i]);
        cr_assert_not_null(strstr(s.msg, "badtrim.yml:2: trim: expected"), "%s", s.msg);
    }
    rt_status_free(&s);
}

static size_t plan_jobs(const struct rt_manifest *m, uint32_t i, uint32_t n, size_t *indexes)
{
    struct rt_run_plan plan;
    struct rt_run_filter f = {.shard_index = i, .shard_count = n};
    rt_status s = rt_run_jobs_plan(m, &f, &plan);
    cr_assert(rt_ok(&s), "%s", s.msg);
    for (size_t j = 0; j < plan.count; j++)
        indexes[j] = plan.jobs[j].index;
    size_t count = plan.count;
    cr_assert_eq(plan.total, 3);
    rt_run_plan_finish(&plan);
    return count;
}

Test(plan, shards_take_every_job_once)
{
    struct rt_manifest m;
    rt_status s = rt_manifest_load(write_manifest("plan.yml", full), &m);
    cr_assert(rt_ok(&s), "%s", s.msg);
    int seen[3] = {0};
    for (uint32_t i = 1; i <= 2; i++) {
        size_t idx[3], n = plan_jobs(&m, i, 2, idx);
        for (size_t j = 0; j < n; j++)
            seen[idx[j]]++;
    }
    cr_assert(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
    struct rt_run_plan plan;
    struct rt_run_filter bad = {.shard_index = 3, .shard_count = 2};
    cr_assert_eq(rt_status_drop(rt_run_jobs_plan(&m, &bad, &plan)), RT_ERR_USAGE);
    struct rt_run_filter tagged = {.tag = "smoke", .configuration = "slow"};
    s = rt_run_jobs_plan(&m, &tagged, &plan);
    cr_assert(rt_ok(&s) && plan.count == 1 && plan.jobs[0].trace == 0 && plan.jobs[0].config == 1);
    rt_run_plan_finish(&plan);
    rt_manifest_finish(&m);
}

static void run_to_end(struct rt_child *c)
{
    struct rt_child *list[] = {c};
    while (!c->done)
        rt_child_poll(list, 1, 50);
}

Test(child, output_tail_and_exit_status)
{
    char *argv[] = {"sh", "-c", "echo one; echo two >&2; printf 'retrace replay: bad option\\n\\nthree\\n'; exit 3", NULL};
    struct rt_child c;
    rt_status s = rt_child_start(argv, "/", 30, &c);
    cr_assert(rt_ok(&s), "%s", s.msg);
    run_to_end(&c);
    cr_assert(!c.timed_out && WIFEXITED(c.wait_status) && WEXITSTATUS(c.wait_status) == 3);
    char buf[256];
    rt_child_tail_lines(&c, 2, buf, sizeof buf);
    cr_assert_str_eq(buf, "retrace replay: bad option; three");
    cr_assert(rt_child_error_line(&c, buf, sizeof buf));
    cr_assert_str_eq(buf, "retrace replay: bad option");
}

Test(child, timeout_kills_the_whole_group)
{
    char *argv[] = {"sh", "-c", "sleep 100 & echo $!; wait", NULL};
    struct rt_child c;
    rt_status s = rt_child_start(argv, NULL, 1, &c);
    cr_assert(rt_ok(&s), "%s", s.msg);
    run_to_end(&c);
    cr_assert(c.timed_out);
    pid_t grandchild = (pid_t)atoi(c.tail);
    cr_assert_gt(grandchild, 0);
    /* Killed with its group; init reaps it, so soon it is gone or a zombie. */
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)grandchild);
    for (int i = 0; i < 100; i++) {
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        stat[n] = 0;
        fclose(f);
        if (strstr(stat, ") Z "))
            break;
        usleep(20000);
    }
    cr_assert(access(path, F_OK) != 0 || strstr(stat, ") Z "), "the grandchild still runs: %s", stat);
}

Test(child, a_missing_program_is_exit_127)
{
    char *argv[] = {"/nonexistent/replayer", NULL};
    struct rt_child c;
    rt_status s = rt_child_start(argv, NULL, 30, &c);
    cr_assert(rt_ok(&s));
    run_to_end(&c);
    cr_assert(WIFEXITED(c.wait_status) && WEXITSTATUS(c.wait_status) == 127);
    cr_assert_not_null(strstr(c.tail, "cannot start"));
}

/* Three failed frames with 100 + 50 bytes of images each, for the upload body. */
static void fake_run(struct rt_run_result *r, struct rt_run_job_result *jobs, struct rt_run_frame *frames,
                     uint8_t *bytes)
{
    memset(r, 0, sizeof *r);
    snprintf(r->uuid, sizeof r->uuid, "8c2f6a40-6b1e-4c59-9a0e-2d8d4f1b7e11");
    r->label = "nightly";
    r->jobs = jobs;
    r->job_count = 3;
    for (int i = 0; i < 3; i++) {
        jobs[i] = (struct rt_run_job_result){.job = {.trace = 0, .config = 0}, .status = RT_RESULT_FAIL,
                                             .regression = true, .frames = &frames[i], .frame_count = 1};
        frames[i] = (struct rt_run_frame){.actual_png = bytes, .diff_png = bytes, .message = "ssim low"};
        frames[i].r = (struct rt_result){.frame = (uint32_t)i + 1, .status = RT_RESULT_FAIL, .ssim = 0.5, .psnr = NAN,
                                         .actual_png_size = 100, .diff_png_size = 50, .attempts = 1};
    }
}

Test(upload, body_follows_section_2_and_keeps_within_the_image_budget)
{
    struct rt_manifest m;
    rt_status s = rt_manifest_load(write_manifest("up.yml", "label: nightly\ntraces: [{path: a.rtrace}]\n"), &m);
    cr_assert(rt_ok(&s), "%s", s.msg);
    struct rt_run_result r;
    struct rt_run_job_result jobs[3];
    struct rt_run_frame frames[3];
    uint8_t bytes[100] = {0x89, 'P', 'N', 'G'};
    fake_run(&r, jobs, frames, bytes);
    char *body = NULL;
    struct rt_upload_options budget200 = {.image_budget = 200}, none = {0};
    s = rt_upload_body(&m, &r, &budget200, &body);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cJSON *root = cJSON_Parse(body);
    cr_assert_str_eq(cJSON_GetObjectItem(root, "format")->valuestring, "retrace-run");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "run"), "id")->valuestring, r.uuid);
    cJSON *results = cJSON_GetObjectItem(root, "results");
    cr_assert_eq(cJSON_GetArraySize(results), 3);
    cJSON *first = cJSON_GetArrayItem(results, 0), *second = cJSON_GetArrayItem(results, 1);
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(first, "actual_png")));
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(first, "diff_png")));
    cr_assert_null(cJSON_GetObjectItem(first, "images_left_out"));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(second, "actual_png")), "past the budget: no images");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(second, "images_left_out")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(first, "psnr")), "not measured is null, never NaN");
    cJSON_Delete(root);
    free(body);
    s = rt_upload_body(&m, &r, &none, &body);
    cr_assert(rt_ok(&s));
    cr_assert_null(strstr(body, "images_left_out"), "--json asks for no images and hears nothing of them");
    free(body);
    rt_manifest_finish(&m);
}
