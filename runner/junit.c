/*
 * runner/junit.c — JUnit XML for CI systems: one testsuite per run, one
 * testcase per trace x configuration x frame (classname "trace.configuration",
 * name "frame N", or "replay" for a job that produced no frame). fail, new,
 * crash, timeout and error are failures or errors with their numbers; an
 * expected or flaky result is a pass with its reason in system-out.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner.h"

static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (ch < 0x20 && ch != '\n' && ch != '\t')
                fputc(' ', f); /* not allowed in XML 1.0 */
            else
                fputc(ch, f);
        }
    }
}

static void numbers(char *buf, size_t size, const struct rt_run_frame *fr)
{
    const struct rt_result *r = &fr->r;
    if (isnan(r->ssim)) {
        buf[0] = 0;
        return;
    }
    snprintf(buf, size, "ssim=%.6f worst_tile=%.6f threshold=%.4g psnr=%.2f diff_pixels=%lld max_diff=%d",
             r->ssim, r->ssim_worst_tile, r->threshold, r->psnr, (long long)r->diff_pixels, r->max_diff);
}

static void testcase(FILE *f, const struct rt_manifest *m, const struct rt_run_job_result *jr,
                     const struct rt_run_frame *fr)
{
    char name[32], nums[2000];
    if (fr && fr->r.frame)
        snprintf(name, sizeof name, "frame %u", fr->r.frame);
    else
        snprintf(name, sizeof name, "replay");
    fputs("    <testcase classname=\"", f);
    xml_text(f, m->traces[jr->job.trace].name);
    fputc('.', f);
    xml_text(f, m->configs[jr->job.config].name);
    fprintf(f, "\" name=\"%s\" time=\"%.3f\">", name, isnan(jr->replay_ms) ? 0.0 : jr->replay_ms / 1000.0);
    if (jr->skipped) {
        fputs("<skipped message=\"", f);
        xml_text(f, jr->reason);
        fputs("\"/></testcase>\n", f);
        return;
    }
    enum rt_result_status st = fr->r.status;
    numbers(nums, sizeof nums, fr);
    if (fr->diagnosis) { /* where it goes wrong, beside the numbers (docs/FORMATS.md 7.4) */
        size_t used = strlen(nums);
        snprintf(nums + used, sizeof nums - used, "%s", used ? "; " : "");
        used = strlen(nums);
        rt_run_diagnosis_line(fr->diagnosis, nums + used, sizeof nums - used);
    }
    const char *msg = fr->message ? fr->message : "";
    bool bad = st == RT_RESULT_FAIL || st == RT_RESULT_NEW || st == RT_RESULT_ERROR ||
               st == RT_RESULT_CRASH || st == RT_RESULT_TIMEOUT;
    if (bad && jr->regression) {
        const char *tag = st == RT_RESULT_FAIL ? "failure" : "error";
        fprintf(f, "<%s type=\"%s\" message=\"", tag, rt_result_status_name(st));
        xml_text(f, msg);
        fputs("\">", f);
        xml_text(f, nums);
        fprintf(f, "</%s>", tag);
    } else if (st != RT_RESULT_PASS || nums[0]) {
        fprintf(f, "<system-out>%s", rt_result_status_name(st));
        if (jr->expected != RT_EXPECT_NONE)
            fprintf(f, " (expected %s)", rt_expect_kind_name(jr->expected));
        fputs(": ", f);
        xml_text(f, msg[0] ? msg : nums);
        fputs("</system-out>", f);
    }
    fputs("</testcase>\n", f);
}

rt_status rt_run_junit_write(const struct rt_manifest *m, const struct rt_run_result *res, const char *path)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot write %s: %s", tmp, strerror(errno));
    size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    for (size_t j = 0; j < res->job_count; j++) {
        const struct rt_run_job_result *jr = &res->jobs[j];
        size_t n = jr->skipped ? 1 : jr->frame_count;
        tests += n;
        skipped += jr->skipped;
        for (size_t i = 0; jr->regression && i < jr->frame_count; i++) {
            enum rt_result_status st = jr->frames[i].r.status;
            failures += st == RT_RESULT_FAIL;
            errors += st == RT_RESULT_ERROR || st == RT_RESULT_CRASH || st == RT_RESULT_TIMEOUT ||
                      st == RT_RESULT_NEW;
        }
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"retrace run ");
    xml_text(f, res->label && res->label[0] ? res->label : m->path);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" timestamp=\"%s\" hostname=\"",
            tests, failures, errors, skipped, res->started_at);
    xml_text(f, res->host);
    fputs("\">\n", f);
    for (size_t j = 0; j < res->job_count; j++) {
        const struct rt_run_job_result *jr = &res->jobs[j];
        if (jr->skipped || jr->frame_count == 0) {
            if (jr->skipped)
                testcase(f, m, jr, NULL);
            continue;
        }
        for (size_t i = 0; i < jr->frame_count; i++)
            testcase(f, m, jr, &jr->frames[i]);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot write %s: %s", path, strerror(errno));
    return rt_ok_status();
}
