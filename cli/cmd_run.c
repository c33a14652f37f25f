/* cli/cmd_run.c — `retrace run MANIFEST`: the regression job over a manifest of traces. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "config.h"
#include "runner.h"

enum {
    OPT_DB = 1, OPT_JOBS, OPT_RETRIES, OPT_SHARD, OPT_TAG, OPT_LABEL, OPT_DEVICE, OPT_DEVICE_KEY,
    OPT_UPDATE, OPT_JUNIT, OPT_JSON, OPT_LIST, OPT_SERVER, OPT_TOKEN, OPT_SPOOL, OPT_WRAPPER,
    OPT_WORK, OPT_KEEP, OPT_CONFIG, OPT_PIPELINE, OPT_DIAGNOSE,
};

static const struct cli_option run_options[] = {
    {"db", 0, CLI_VALUE, OPT_DB, "FILE", "the golden store (also RETRACE_DB); created when missing"},
    {"jobs", 'j', CLI_VALUE, OPT_JOBS, "N", "replays at once (default 1)"},
    {"retries", 0, CLI_VALUE, OPT_RETRIES, "N", "replay a failing job up to N more times; a later pass is flaky"},
    {"shard", 0, CLI_VALUE, OPT_SHARD, "I/N",
     "only this machine's share of the job list (default: GitLab CI's CI_NODE_INDEX/CI_NODE_TOTAL when set)"},
    {"tag", 0, CLI_VALUE, OPT_TAG, "TAG", "only the traces with this tag"},
    {"configuration", 0, CLI_VALUE, OPT_CONFIG, "NAME", "only this configuration of the manifest"},
    {"label", 0, CLI_VALUE, OPT_LABEL, "NAME", "the run's label (default: the manifest's)"},
    {"device", 0, CLI_VALUE, OPT_DEVICE, "INDEX|NAME", "the replay device (retrace replay --device)"},
    {"device-key", 0, CLI_VALUE, OPT_DEVICE_KEY, "KEY",
     "this device's key for goldens and expectations (default: the device's, found before the first job)"},
    {"update-goldens", 0, CLI_FLAG, OPT_UPDATE, NULL,
     "new frames' images become this device's goldens (each trace's first configuration's; the others wait for it)"},
    {"junit", 0, CLI_VALUE, OPT_JUNIT, "FILE", "JUnit XML: one testcase per trace x configuration x frame"},
    {"json", 0, CLI_FLAG, OPT_JSON, NULL, "print the run as JSON (docs/FORMATS.md section 2, no images)"},
    {"list", 0, CLI_FLAG, OPT_LIST, NULL, "print this shard's jobs and exit (nothing is replayed)"},
    {"server", 0, CLI_VALUE, OPT_SERVER, "URL",
     "the dashboard (retrace serve): before the first job, pull this device's goldens and expectations "
     "into --db (a cache that works offline); at the end, upload the run; needs --token-file"},
    {"pipeline", 0, CLI_VALUE, OPT_PIPELINE, "ID",
     "the CI pipeline this run belongs to (default CI_PIPELINE_ID): the dashboard joins its shards"},
    {"token-file", 0, CLI_VALUE, OPT_TOKEN, "FILE", "the upload token"},
    {"spool", 0, CLI_VALUE, OPT_SPOOL, "DIR", "runs not yet uploaded (default RETRACE_SPOOL or ~/.cache/retrace/spool)"},
    {"wrapper", 0, CLI_VALUE, OPT_WRAPPER, "'CMD ARGS'", "run each replay under CMD (e.g. 'valgrind -q')"},
    {"work-dir", 0, CLI_VALUE, OPT_WORK, "DIR", "where replays run (default a fresh folder in TMPDIR)"},
    {"keep-work", 0, CLI_FLAG, OPT_KEEP, NULL, "keep their screenshots and output there"},
    {"diagnose", 0, CLI_OPTIONAL_VALUE, OPT_DIAGNOSE, "[REF]", "diagnose each failing frame against REF: lavapipe "
     "(the default), device:NAME, config:'KEY=VALUE;...' or icd:FILE.json (every configuration; over the manifest's "
     "diagnose:)", "lavapipe", rt_run_diagnose_ref_valid},
    {0}};

void cmd_run_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace run MANIFEST --db FILE [OPTIONS]\n"
            "Replays every trace of MANIFEST (docs/manifest.md) under each configuration, each in a\n"
            "child process with a timeout, compares the chosen frames with the accepted goldens for\n"
            "this device and records the run in the store (each job as soon as it ends).\n");
    cli_usage_options(out, run_options);
    static const struct cli_exit exits[] = {
        {RT_OK, "nothing regressed"},
        {RT_ERR_FAILED, "a regression (fail, crash, timeout, error not expected)"},
        {RT_ERR_USAGE, "usage"},
        {RT_ERR_BAD_INPUT, "bad manifest or store"},
        {RT_ERR_CANNOT_REPLAY, "--device names none of the Vulkan devices (nothing ran)"},
        {RT_ERR_INTERNAL, "internal error or interrupted (the run is recorded as aborted)"},
        {0, NULL}};
    cli_usage_exits(out, exits);
    fprintf(out, "Runs of this host whose runner was killed (SIGKILL) are marked aborted and their work\n"
                 "folders removed by the next run. An upload that fails keeps the run in the spool and does\n"
                 "not change the exit code.\n");
}

struct run_args {
    struct rt_run_options o;
    const char *manifest, *tag, *configuration, *junit, *server, *token_file, *spool;
    char *wrapper_text;
    uint32_t shard_i, shard_n;
    bool json, list;
};


static bool parse_shard(const char *text, uint32_t *i, uint32_t *n)
{
    char a[16], b[16];
    const char *slash = strchr(text, '/');
    uint64_t vi, vn;
    if (!slash || (size_t)(slash - text) >= sizeof a || strlen(slash + 1) >= sizeof b)
        return false;
    snprintf(a, sizeof a, "%.*s", (int)(slash - text), text);
    snprintf(b, sizeof b, "%s", slash + 1);
    if (!cli_parse_u64(a, 1, 100000, &vi) || !cli_parse_u64(b, 1, 100000, &vn) || vi > vn)
        return false;
    *i = (uint32_t)vi, *n = (uint32_t)vn;
    return true;
}

static int parse_option(struct cli_args *p, int id, struct run_args *a)
{
    switch (id) {
    case OPT_DB: a->o.db_path = p->value; return 0;
    case OPT_JOBS: return cli_args_u32(p, 1, 64, &a->o.jobs);
    case OPT_RETRIES: return cli_args_u32(p, 0, 100, &a->o.retries);
    case OPT_SHARD:
        return parse_shard(p->value, &a->shard_i, &a->shard_n)
                   ? 0 : cli_bad_value(p->cmd, "--shard", "I/N with 1 <= I <= N", p->value);
    case OPT_TAG: a->tag = p->value; return 0;
    case OPT_CONFIG: a->configuration = p->value; return 0;
    case OPT_LABEL: a->o.label = p->value; return 0;
    case OPT_DEVICE: a->o.device = p->value; return 0;
    case OPT_DEVICE_KEY: a->o.device_key = p->value; return 0;
    case OPT_UPDATE: a->o.update_goldens = true; return 0;
    case OPT_JUNIT: a->junit = p->value; return 0;
    case OPT_JSON: a->json = true; return 0;
    case OPT_LIST: a->list = true; return 0;
    case OPT_SERVER: a->server = p->value; return 0;
    case OPT_TOKEN: a->token_file = p->value; return 0;
    case OPT_SPOOL: a->spool = p->value; return 0;
    case OPT_WRAPPER: a->wrapper_text = strdup(p->value); return a->wrapper_text ? 0 : RT_ERR_INTERNAL;
    case OPT_WORK: a->o.work_dir = p->value; return 0;
    case OPT_KEEP: a->o.keep_work = true; return 0;
    case OPT_PIPELINE: a->o.pipeline = p->value; return 0;
    case OPT_DIAGNOSE:
        if (!rt_run_diagnose_ref_valid(p->value))
            return cli_bad_value(p->cmd, "--diagnose", "lavapipe, device:NAME, config:'KEY=VALUE;...' or icd:FILE",
                                 p->value);
        a->o.diagnose = p->value;
        return 0;
    }
    return 0;
}

/* GitLab CI's parallel jobs: CI_NODE_INDEX (1-based) of CI_NODE_TOTAL. */
static int shard_from_env(const struct rt_command *self, struct run_args *a)
{
    const char *i = getenv("CI_NODE_INDEX"), *n = getenv("CI_NODE_TOTAL");
    bool has_i = i && *i, has_n = n && *n;
    if (a->shard_n || (!has_i && !has_n))
        return 0;
    if (has_i != has_n) /* half a shard would silently run everything */
        return cli_usage_error(self, "%s is set without %s: set both, or give --shard I/N",
                               has_i ? "CI_NODE_INDEX" : "CI_NODE_TOTAL", has_i ? "CI_NODE_TOTAL" : "CI_NODE_INDEX");
    char text[64];
    snprintf(text, sizeof text, "%s/%s", i, n);
    return parse_shard(text, &a->shard_i, &a->shard_n)
               ? 0 : cli_bad_value(self, "CI_NODE_INDEX/CI_NODE_TOTAL", "I/N with 1 <= I <= N", text);
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
    const struct rt_command *self = cli_find_command("run");
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, run_options, 0);
    int rc;
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        if (id == CLI_ARGS_STOP)
            return p.result;
        if (id == CLI_ARGS_POSITIONAL) {
            if (a->manifest)
                return cli_usage_error(self, "expected one MANIFEST, got '%s' too", p.value);
            a->manifest = p.value;
        } else if ((rc = parse_option(&p, id, a))) {
            return rc;
        }
    }
    if (!a->manifest)
        return cli_usage_error(self, "expected a MANIFEST");
    if (!a->o.db_path)
        a->o.db_path = getenv("RETRACE_DB");
    if (!a->o.db_path && !a->list)
        return cli_usage_error(self, "needs --db FILE (or RETRACE_DB)");
    if (!!a->server != !!a->token_file)
        return cli_usage_error(self, "--server and --token-file go together");
    const char *pipeline = getenv("CI_PIPELINE_ID");
    if (!a->o.pipeline && pipeline && *pipeline)
        a->o.pipeline = pipeline;
    return shard_from_env(self, a);
}

static int list_jobs(const struct rt_manifest *m, const struct rt_run_plan *plan)
{
    for (size_t j = 0; j < plan->count; j++) {
        const struct rt_run_job *job = &plan->jobs[j];
        printf("%zu\t%s\t%s\n", job->index + 1, m->traces[job->trace].name, m->configs[job->config].name);
    }
    return 0;
}

/* A reason too long for the table keeps its start (what happened) and its
 * last word whole (a sha256 or golden hash, a path: which one), at least
 * its last 40 characters; the middle goes. */
static void shorten_reason(const char *text, char *out, size_t size)
{
    size_t len = strlen(text);
    if (len < size) {
        snprintf(out, size, "%s", text);
        return;
    }
    const char *space = strrchr(text, ' ');
    size_t word = space ? len - (size_t)(space + 1 - text) : len;
    size_t tail = word < 40 ? 40 : word > 72 ? 72 : word;
    snprintf(out, size, "%.*s ... %s", (int)(size - 1 - 5 - tail), text, text + len - tail);
}

/* One line per diagnosed frame: where it diverges (docs/FORMATS.md 7.4). */
static void print_diagnoses(const struct rt_manifest *m, const struct rt_run_result *r)
{
    for (size_t j = 0; j < r->job_count; j++)
        for (size_t i = 0; i < r->jobs[j].frame_count; i++) {
            const struct rt_run_frame *f = &r->jobs[j].frames[i];
            if (!f->diagnosis)
                continue;
            char line[1600];
            rt_run_diagnosis_line(f->diagnosis, line, sizeof line);
            printf("%s %s frame %u: %s\n", m->traces[r->jobs[j].job.trace].name,
                   m->configs[r->jobs[j].job.config].name, f->r.frame, line);
        }
    if (r->undiagnosed)
        printf("%zu more failing frame(s) not diagnosed (at most 32 a run)\n", r->undiagnosed);
}

static void print_table(const struct rt_manifest *m, const struct rt_run_result *r, const char *db)
{
    printf("%-20s %-16s %-8s %-7s %-9s %-8s %s\n", "trace", "configuration", "status", "frames", "min-ssim",
           "attempts", "reason");
    size_t counts[8] = {0};
    for (size_t j = 0; j < r->job_count; j++) {
        const struct rt_run_job_result *jr = &r->jobs[j];
        if (!jr->skipped && jr->frame_count == 0)
            continue; /* never ran (interrupted) */
        size_t good = 0;
        double min_ssim = 2;
        for (size_t i = 0; i < jr->frame_count; i++) {
            good += jr->frames[i].r.status == RT_RESULT_PASS || jr->frames[i].r.status == RT_RESULT_FLAKY;
            if (jr->frames[i].r.ssim < min_ssim) /* false for NAN: not measured */
                min_ssim = jr->frames[i].r.ssim;
        }
        char ssim[16] = "-";
        if (min_ssim <= 1)
            snprintf(ssim, sizeof ssim, "%.6f", min_ssim);
        char frames[32], status[32];
        snprintf(frames, sizeof frames, "%zu/%zu", good, jr->frame_count);
        snprintf(status, sizeof status, "%s%s", jr->skipped ? "skip" : rt_result_status_name(jr->status),
                 jr->regression ? "!" : "");
        if (!jr->skipped)
            counts[jr->status]++;
        char reason[160], why[112];
        shorten_reason(jr->reason ? jr->reason : "", why, sizeof why);
        snprintf(reason, sizeof reason, "%s%s%s%s", why,
                 jr->expected != RT_EXPECT_NONE && !jr->skipped ? " [expected " : "",
                 jr->expected != RT_EXPECT_NONE && !jr->skipped ? rt_expect_kind_name(jr->expected) : "",
                 jr->expected != RT_EXPECT_NONE && !jr->skipped ? "]" : "");
        printf("%-20s %-16s %-8s %-7s %-9s %-8u %s\n", m->traces[jr->job.trace].name,
               m->configs[jr->job.config].name, status, jr->skipped ? "-" : frames, ssim, jr->attempts, reason);
    }
    printf("\nrun %s (%s): %zu jobs: %zu pass, %zu flaky, %zu new, %zu fail, %zu error, %zu crash, "
           "%zu timeout, %zu skipped; %zu regression%s (marked !)\n",
           r->uuid, rt_run_outcome(r), r->job_count, counts[RT_RESULT_PASS], counts[RT_RESULT_FLAKY],
           counts[RT_RESULT_NEW], counts[RT_RESULT_FAIL], counts[RT_RESULT_ERROR], counts[RT_RESULT_CRASH],
           counts[RT_RESULT_TIMEOUT], r->skipped, r->regressions, r->regressions == 1 ? "" : "s");
    print_diagnoses(m, r);
    printf("recorded as run %lld in %s\n", (long long)r->run_id, db);
}

static rt_status spool_and_token(const struct run_args *a, char *spool, size_t spool_size, char *token,
                                 size_t token_size)
{
    rt_status s = a->spool ? rt_ok_status() : rt_upload_default_spool(spool, spool_size);
    if (a->spool)
        snprintf(spool, spool_size, "%s", a->spool);
    return rt_ok(&s) ? rt_upload_read_token(a->token_file, token, token_size) : s;
}

/* The hint to send it later only when something waits in the spool (a run
 * the server refused for good is in SPOOL/rejected, and sending it again
 * would not help). */
static void upload_warning(const struct run_args *a, const char *spool, const rt_status *s, size_t waiting)
{
    if (!waiting) {
        fprintf(stderr, "retrace run: warning: upload: %s\n", s->msg);
        return;
    }
    fprintf(stderr, "retrace run: warning: upload: %s; send it later with: retrace upload --server %s "
                    "--token-file %s --spool %s\n", s->msg, a->server, a->token_file, spool);
}

/* Spools the run, then sends everything waiting: this run and any an earlier run left. */
static void upload(const struct run_args *a, const struct rt_manifest *m, const struct rt_run_result *r,
                   const struct rt_sync_result *synced)
{
    char spool[4096] = "", token[1024];
    rt_status s = spool_and_token(a, spool, sizeof spool, token, sizeof token);
    char *body = NULL;
    struct rt_upload_options uo = {.image_budget = RT_UPLOAD_IMAGE_BUDGET, .db_path = a->o.db_path,
                                   .synced = synced, .pipeline = a->o.pipeline,
                                   .golden_set = a->o.golden_set};
    if (rt_ok(&s))
        s = rt_upload_body(m, r, &uo, &body);
    if (rt_ok(&s))
        s = rt_upload_spool_put(spool, r->uuid, body);
    free(body);
    struct rt_upload_counts counts = {0};
    if (rt_ok(&s))
        s = rt_upload_spool_send(spool, a->server, token, &counts);
    if (rt_ok(&s))
        fprintf(stderr, "retrace run: uploaded %zu run(s) to %s\n", counts.sent + counts.duplicates, a->server);
    else
        upload_warning(a, spool, &s, counts.kept);
    rt_status_free(&s);
}

/* Before the first job: what an earlier run left in the spool goes first (its
 * goldens reach the server before the set is pulled), then the sync. */
static bool sync_goldens(struct run_args *a, const struct rt_manifest *m, const char *key,
                         struct rt_sync_result *out)
{
    char spool[4096] = "", token[1024];
    struct rt_upload_counts counts = {0};
    rt_status s = spool_and_token(a, spool, sizeof spool, token, sizeof token);
    if (rt_ok(&s))
        s = rt_upload_spool_send(spool, a->server, token, &counts);
    if (!rt_ok(&s) && counts.kept)
        upload_warning(a, spool, &s, counts.kept);
    rt_status_free(&s);
    struct rt_run_sync o = {.server = a->server, .db_path = a->o.db_path, .device_key = key};
    s = rt_run_sync_goldens(m, &o, out);
    if (rt_ok(&s))
        fprintf(stderr, "retrace run: goldens from %s: %s%zu golden(s), %zu expectation(s)%s\n", a->server,
                out->unchanged ? "unchanged, " : "", out->goldens, out->expectations,
                out->reverted ? " (some reverted there)" : "");
    else if (!rt_ok(&s))
        fprintf(stderr, "retrace run: warning: sync with %s failed: %s; running with the goldens the local "
                        "store holds (%s)\n", a->server, s.msg, out->golden_set);
    a->o.golden_set = out->golden_set;
    return rt_status_drop(s) == RT_OK;
}

/* A store that cannot be opened or written stops the run before anything runs: one error. */
static rt_status check_store(const char *path)
{
    struct rt_store *store = NULL;
    rt_status s = rt_store_open(path, RT_STORE_CREATE, &store);
    rt_store_close(store);
    return s;
}

static int execute(struct run_args *a, const struct rt_manifest *m, const struct rt_run_plan *plan)
{
    const char *self = cli_retrace_path(); /* the replays run retrace, not retrace-farm */
    rt_status s = check_store(a->o.db_path);
    if (!rt_ok(&s))
        return cli_fail(s);
    if (a->server) { /* a token that cannot be used would only show at the upload, after the run */
        char spool[4096], token[1024];
        s = spool_and_token(a, spool, sizeof spool, token, sizeof token);
        if (!rt_ok(&s))
            return cli_fail(s);
    }
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
    a->o.golden_set = "local";
    /* The device before the first job (expectations, globs and the sync need it),
     * and every replay on it, by its index: what the run records is what it
     * replays on. Without a Vulkan device to list, the first replay's report
     * names the device; a --device that names none of those listed stops here. */
    struct rt_probed_device probed = {0};
    s = rt_run_probe_device(self, a->o.device, &probed);
    if (probed.none_matched)
        return cli_fail(s);
    if (rt_status_drop(s) == RT_OK) {
        a->o.probed = &probed;
        a->o.device = probed.index;
    }
    struct rt_sync_result synced = {0};
    bool sync_ok = a->server && sync_goldens(a, m, a->o.device_key ? a->o.device_key
                                                : probed.key ? probed.key : "", &synced);
    struct rt_run_result r;
    s = rt_run_execute(m, plan, &a->o, &r);
    if (r.stale_aborted)
        fprintf(stderr, "retrace run: marked %zu earlier run(s) of this host aborted: their runner is gone\n",
                r.stale_aborted);
    if (r.work_cleaned)
        fprintf(stderr, "retrace run: removed %zu work folder(s) left by runners that are gone\n", r.work_cleaned);
    if (rt_ok(&s) && a->junit)
        s = rt_run_junit_write(m, &r, a->junit);
    if (a->json) {
        char *body = NULL;
        struct rt_upload_options uo = {.pipeline = a->o.pipeline, .golden_set = a->o.golden_set};
        if (rt_status_drop(rt_upload_body(m, &r, &uo, &body)) == RT_OK)
            printf("%s\n", body);
        free(body);
    } else if (r.run_id) {
        print_table(m, &r, a->o.db_path);
    }
    if (a->server && r.run_id)
        upload(a, m, &r, sync_ok ? &synced : NULL);
    int rc = rt_ok(&s) ? (r.regressions ? RT_ERR_FAILED : 0) : cli_fail(s);
    rt_run_result_finish(&r);
    rt_sync_result_finish(&synced);
    rt_probed_device_finish(&probed);
    return rc;
}

/* Every configuration as the replay will read it, before anything runs: an
 * unknown workaround or set, or a malformed delay, is exit 3 naming the
 * manifest's line (the replay child would only find it per job). */
static rt_status check_configurations(const struct rt_manifest *m)
{
    for (size_t i = 0; i < m->config_count; i++) {
        const struct rt_manifest_config *c = &m->configs[i];
        struct rt_replay_config rc;
        memset(&rc, 0, sizeof rc);
        rt_status s = rt_ok_status();
        for (size_t w = 0; rt_ok(&s) && w < c->workaround_count; w++)
            s = rt_replay_config_add_workarounds(&rc, c->workarounds[w], NULL);
        for (size_t d = 0; rt_ok(&s) && d < c->delay_count; d++)
            s = rt_replay_config_add_delay(&rc, c->delays[d]);
        if (!rt_ok(&s)) {
            rt_status e = rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: configuration %s: %s", m->path, c->line, c->name, s.msg);
            rt_status_free(&s);
            return e;
        }
    }
    return rt_ok_status();
}

int cmd_run_run(int argc, char **argv)
{
    struct run_args a = {.o = {.jobs = 1}};
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        free(a.wrapper_text);
        return cli_exit_code(rc);
    }
    if (!a.shard_n)
        a.shard_i = a.shard_n = 1;
    struct rt_manifest m;
    rt_status s = rt_manifest_load(a.manifest, &m);
    if (!rt_ok(&s)) {
        free(a.wrapper_text);
        return cli_fail(s);
    }
    s = check_configurations(&m);
    if (!rt_ok(&s)) {
        rt_manifest_finish(&m);
        free(a.wrapper_text);
        return cli_fail(s);
    }
    struct rt_run_plan plan;
    struct rt_run_filter filter = {.tag = a.tag, .configuration = a.configuration, .shard_index = a.shard_i,
                                   .shard_count = a.shard_n};
    s = rt_run_jobs_plan(&m, &filter, &plan);
    if (!rt_ok(&s)) {
        rt_manifest_finish(&m);
        free(a.wrapper_text);
        return cli_fail(s);
    }
    rc = a.list ? list_jobs(&m, &plan) : execute(&a, &m, &plan);
    rt_run_plan_finish(&plan);
    rt_manifest_finish(&m);
    free(a.wrapper_text);
    return rc;
}
