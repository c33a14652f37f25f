/* cli/cmd_run.c — `retrace run MANIFEST`: the regression job over a manifest of traces. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "runner.h"

void cmd_run_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace run MANIFEST --db FILE [OPTIONS]\n"
            "Replays every trace of MANIFEST (docs/manifest.md) under each configuration, each in a\n"
            "child process with a timeout, compares the chosen frames with the accepted goldens for\n"
            "this device and records the run in the store (each job as soon as it ends).\n"
            "  --db FILE             the golden store (also RETRACE_DB); created when missing\n"
            "  -j, --jobs N          replays at once (default 1)\n"
            "  --retries N           replay a failing job up to N more times; a later pass is flaky\n"
            "  --shard I/N           only this machine's share of the job list (default: GitLab CI's\n"
            "                        CI_NODE_INDEX/CI_NODE_TOTAL when set)\n"
            "  --tag TAG             only the traces with this tag\n"
            "  --label NAME          the run's label (default: the manifest's)\n"
            "  --device INDEX|NAME   the replay device (retrace replay --device)\n"
            "  --device-key KEY      this device's key for goldens and expectations (default: the\n"
            "                        replay report's)\n"
            "  --update-goldens      new frames' images become this device's goldens\n"
            "  --junit FILE          JUnit XML: one testcase per trace x configuration x frame\n"
            "  --json                print the run as JSON (docs/FORMATS.md section 2, no images)\n"
            "  --list                print this shard's jobs and exit (nothing is replayed)\n"
            "  --server URL          upload the run to a dashboard (retrace serve); needs --token-file\n"
            "  --token-file FILE     the upload token\n"
            "  --spool DIR           runs not yet uploaded (default RETRACE_SPOOL or ~/.cache/retrace/spool)\n"
            "  --wrapper 'CMD ARGS'  run each replay under CMD (e.g. 'valgrind -q')\n"
            "  --work-dir DIR        where replays run (default a fresh folder in TMPDIR)\n"
            "  --keep-work           keep their screenshots and output there\n"
            "exit: 0 nothing regressed, 1 a regression (fail, crash, timeout, error not expected),\n"
            "2 usage, 3 bad manifest or store, 5 internal error. An upload that fails keeps the run in\n"
            "the spool and does not change the exit code.\n");
}

struct run_args {
    struct rt_run_options o;
    const char *manifest, *tag, *junit, *server, *token_file, *spool;
    char *wrapper_text;
    uint32_t shard_i, shard_n;
    bool json, list;
};

static int bad(const char *fmt, const char *value)
{
    return cli_usage_error(cli_find_command("run"), fmt, value);
}

static bool parse_count(const char *text, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || end == text || text[0] == '-' || v > max)
        return false;
    *out = (unsigned)v;
    return true;
}

static bool parse_shard(const char *text, uint32_t *i, uint32_t *n)
{
    unsigned a, b;
    char extra;
    if (sscanf(text, "%u/%u%c", &a, &b, &extra) != 2 || a < 1 || b < 1 || a > b || strchr(text, '-'))
        return false;
    *i = a, *n = b;
    return true;
}

static int parse_option(int c, struct run_args *a)
{
    switch (c) {
    case 'd': a->o.db_path = optarg; return 0;
    case 'j':
        return parse_count(optarg, 64, &a->o.jobs) && a->o.jobs ? 0 : bad("-j needs a number from 1 to 64, not '%s'", optarg);
    case 'r': return parse_count(optarg, 100, &a->o.retries) ? 0 : bad("--retries needs 0 to 100, not '%s'", optarg);
    case 's': return parse_shard(optarg, &a->shard_i, &a->shard_n) ? 0 : bad("--shard needs I/N with 1 <= I <= N, not '%s'", optarg);
    case 't': a->tag = optarg; return 0;
    case 'l': a->o.label = optarg; return 0;
    case 'D': a->o.device = optarg; return 0;
    case 'K': a->o.device_key = optarg; return 0;
    case 'u': a->o.update_goldens = true; return 0;
    case 'J': a->junit = optarg; return 0;
    case 'o': a->json = true; return 0;
    case 'L': a->list = true; return 0;
    case 'S': a->server = optarg; return 0;
    case 'T': a->token_file = optarg; return 0;
    case 'P': a->spool = optarg; return 0;
    case 'w': a->wrapper_text = optarg; return 0;
    case 'W': a->o.work_dir = optarg; return 0;
    case 'k': a->o.keep_work = true; return 0;
    default: return bad("unknown option '%s'", optarg ? optarg : "");
    }
}

/* GitLab CI's parallel jobs: CI_NODE_INDEX (1-based) of CI_NODE_TOTAL. */
static int shard_from_env(struct run_args *a)
{
    const char *i = getenv("CI_NODE_INDEX"), *n = getenv("CI_NODE_TOTAL");
    if (a->shard_n || !i || !n || !*i || !*n)
        return 0;
    char text[64];
    snprintf(text, sizeof text, "%s/%s", i, n);
    return parse_shard(text, &a->shard_i, &a->shard_n) ? 0 : bad("CI_NODE_INDEX/CI_NODE_TOTAL: not a shard: '%s'", text);
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
    static const struct option options[] = {
        {"db", required_argument, NULL, 'd'}, {"jobs", required_argument, NULL, 'j'},
        {"retries", required_argument, NULL, 'r'}, {"shard", required_argument, NULL, 's'},
        {"tag", required_argument, NULL, 't'}, {"label", required_argument, NULL, 'l'},
        {"device", required_argument, NULL, 'D'}, {"device-key", required_argument, NULL, 'K'},
        {"update-goldens", no_argument, NULL, 'u'}, {"junit", required_argument, NULL, 'J'},
        {"json", no_argument, NULL, 'o'}, {"list", no_argument, NULL, 'L'},
        {"server", required_argument, NULL, 'S'}, {"token-file", required_argument, NULL, 'T'},
        {"spool", required_argument, NULL, 'P'}, {"wrapper", required_argument, NULL, 'w'},
        {"work-dir", required_argument, NULL, 'W'}, {"keep-work", no_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'}, {0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj:", options, NULL)) != -1) {
        if (c == 'h') {
            cmd_run_usage(stdout);
            return -1;
        }
        if (c == '?')
            return bad("unknown or incomplete option '%s'", argv[optind - 1]);
        int rc = parse_option(c, a);
        if (rc)
            return rc;
    }
    if (optind != argc - 1)
        return bad("%s", "expected one MANIFEST");
    a->manifest = argv[optind];
    if (!a->o.db_path)
        a->o.db_path = getenv("RETRACE_DB");
    if (!a->o.db_path && !a->list)
        return bad("%s", "needs --db FILE (or RETRACE_DB)");
    if (!!a->server != !!a->token_file)
        return bad("%s", "--server and --token-file go together");
    return shard_from_env(a);
}

static int list_jobs(const struct rt_manifest *m, const struct rt_run_plan *plan)
{
    for (size_t j = 0; j < plan->count; j++) {
        const struct rt_run_job *job = &plan->jobs[j];
        printf("%zu\t%s\t%s\n", job->index + 1, m->traces[job->trace].name, m->configs[job->config].name);
    }
    return 0;
}

static void print_table(const struct rt_manifest *m, const struct rt_run_result *r, const char *db)
{
    printf("%-20s %-16s %-8s %-7s %-8s %s\n", "trace", "configuration", "status", "frames", "attempts", "reason");
    size_t counts[8] = {0};
    for (size_t j = 0; j < r->job_count; j++) {
        const struct rt_run_job_result *jr = &r->jobs[j];
        if (!jr->skipped && jr->frame_count == 0)
            continue; /* never ran (interrupted) */
        size_t good = 0;
        for (size_t i = 0; i < jr->frame_count; i++)
            good += jr->frames[i].r.status == RT_RESULT_PASS || jr->frames[i].r.status == RT_RESULT_FLAKY;
        char frames[32], status[32];
        snprintf(frames, sizeof frames, "%zu/%zu", good, jr->frame_count);
        snprintf(status, sizeof status, "%s%s", jr->skipped ? "skip" : rt_result_status_name(jr->status),
                 jr->regression ? "!" : "");
        if (!jr->skipped)
            counts[jr->status]++;
        char reason[160];
        snprintf(reason, sizeof reason, "%s%s%s%s", jr->reason ? jr->reason : "",
                 jr->expected != RT_EXPECT_NONE && !jr->skipped ? " [expected " : "",
                 jr->expected != RT_EXPECT_NONE && !jr->skipped ? rt_expect_kind_name(jr->expected) : "",
                 jr->expected != RT_EXPECT_NONE && !jr->skipped ? "]" : "");
        printf("%-20s %-16s %-8s %-7s %-8u %s\n", m->traces[jr->job.trace].name,
               m->configs[jr->job.config].name, status, jr->skipped ? "-" : frames, jr->attempts, reason);
    }
    printf("\nrun %s (%s): %zu jobs: %zu pass, %zu flaky, %zu new, %zu fail, %zu error, %zu crash, "
           "%zu timeout, %zu skipped; %zu regression%s (marked !)\n",
           r->uuid, rt_run_outcome(r), r->job_count, counts[RT_RESULT_PASS], counts[RT_RESULT_FLAKY],
           counts[RT_RESULT_NEW], counts[RT_RESULT_FAIL], counts[RT_RESULT_ERROR], counts[RT_RESULT_CRASH],
           counts[RT_RESULT_TIMEOUT], r->skipped, r->regressions, r->regressions == 1 ? "" : "s");
    printf("recorded as run %lld in %s\n", (long long)r->run_id, db);
}

static rt_status read_token(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = 0;
    while (n && strchr(" \t\r\n", buf[n - 1]))
        buf[--n] = 0;
    if (!n || strpbrk(buf, "\r\n"))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: the token must be one non-empty line", path);
    return rt_ok_status();
}

/* Spools the run, then sends everything waiting: this run and any an earlier run left. */
static void upload(const struct run_args *a, const struct rt_manifest *m, const struct rt_run_result *r)
{
    char spool[4096], token[1024];
    rt_status s = a->spool ? rt_ok_status() : rt_upload_default_spool(spool, sizeof spool);
    if (a->spool)
        snprintf(spool, sizeof spool, "%s", a->spool);
    if (rt_ok(&s))
        s = read_token(a->token_file, token, sizeof token);
    char *body = NULL;
    if (rt_ok(&s))
        s = rt_upload_body(m, r, true, &body);
    if (rt_ok(&s))
        s = rt_upload_spool_put(spool, r->uuid, body);
    free(body);
    struct rt_upload_counts counts = {0};
    if (rt_ok(&s))
        s = rt_upload_spool_send(spool, a->server, token, &counts);
    if (rt_ok(&s))
        fprintf(stderr, "retrace run: uploaded %zu run(s) to %s\n", counts.sent + counts.duplicates, a->server);
    else
        fprintf(stderr, "retrace run: warning: upload: %s; send it later with: retrace upload --server %s "
                        "--token-file %s --spool %s\n", s.msg, a->server, a->token_file, spool);
}

static int execute(struct run_args *a, const struct rt_manifest *m, const struct rt_run_plan *plan)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return cli_fail(rt_errorf(RT_ERR_INTERNAL, "cannot find the retrace binary: %s", strerror(errno)));
    self[n] = 0;
    char *wrapper[33] = {0};
    size_t w = 0;
    for (char *tok = a->wrapper_text ? strtok(a->wrapper_text, " \t") : NULL; tok && w < 32; tok = strtok(NULL, " \t"))
        wrapper[w++] = tok;
    char shard[32];
    snprintf(shard, sizeof shard, "%u/%u", a->shard_i, a->shard_n);
    a->o.retrace = self;
    a->o.wrapper = w ? wrapper : NULL;
    a->o.shard = a->shard_n > 1 ? shard : NULL;
    a->o.progress = isatty(2) && !a->json;
    struct rt_run_result r;
    rt_status s = rt_run_execute(m, plan, &a->o, &r);
    if (rt_ok(&s) && a->junit)
        s = rt_run_junit_write(m, &r, a->junit);
    if (a->json) {
        char *body = NULL;
        if (rt_upload_body(m, &r, false, &body).code == RT_OK)
            printf("%s\n", body);
        free(body);
    } else {
        print_table(m, &r, a->o.db_path);
    }
    if (a->server && r.run_id)
        upload(a, m, &r);
    int rc = rt_ok(&s) ? (r.regressions ? RT_ERR_FAILED : 0) : cli_fail(s);
    rt_run_result_finish(&r);
    return rc;
}

int cmd_run_run(int argc, char **argv)
{
    struct run_args a = {.o = {.jobs = 1}, .shard_i = 1, .shard_n = 1};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct rt_manifest m;
    rt_status s = rt_manifest_load(a.manifest, &m);
    if (!rt_ok(&s))
        return cli_fail(s);
    struct rt_run_plan plan;
    s = rt_run_jobs_plan(&m, a.tag, a.shard_i, a.shard_n, &plan);
    if (!rt_ok(&s)) {
        rt_manifest_finish(&m);
        return cli_fail(s);
    }
    rc = a.list ? list_jobs(&m, &plan) : execute(&a, &m, &plan);
    rt_run_plan_finish(&plan);
    rt_manifest_finish(&m);
    return rc;
}
