/*
 * runner/diagnosis.c — `diagnose: REF` on a configuration or `retrace run
 * --diagnose[=REF]` (docs/FORMATS.md 7.4): after the last job, each failing
 * frame (status fail) is diagnosed by `retrace diagnose ... --json` in a
 * child process (own process group, a timeout, as every replay; up to -j of
 * them at once, each in a folder of its own), whose
 * answer (section 7.3) and images are recorded with the frame's result and
 * kept on the frame for the JUnit file, the summary and the upload. The
 * diagnose module is reached through its command and JSON contract only, so
 * a replay that crashes or hangs while diagnosing costs one diagnosis, never
 * the run.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "diagnosis.h"
#include "file.h"
#include "wire.h"

/* A run diagnoses at most this many frames: each costs about 2 log16(draws) + 1 replays. */
#define MAX_DIAGNOSES 32
/* A diagnosis replays the frame at most 12 times (issue 19's bound), each within the trace's timeout. */
#define TIMEOUT_REPLAYS 12
#define SHADER_TEXT_MAX (256u << 10)
#define CONFIG_MAX 4096

bool rt_run_diagnose_ref_valid(const char *ref)
{
    if (!ref || strlen(ref) > 1024)
        return false;
    if (!strcmp(ref, "lavapipe"))
        return true;
    static const char *const kinds[] = {"device:", "config:", "icd:"};
    for (size_t i = 0; i < 3; i++)
        if (!strncmp(ref, kinds[i], strlen(kinds[i])) && ref[strlen(kinds[i])])
            return true;
    return false;
}

void rt_run_diagnosis_line(const struct rt_run_diagnosis *g, char *buf, size_t size)
{
    const struct rt_diagnosis *d = &g->d;
    switch (d->outcome) {
    case RT_DIAGNOSIS_DIVERGED:
        snprintf(buf, size, "diverges at draw %lld of %lld (%s, call %lld, pipeline %s, %s ssim %.4f, delta E %.1f) "
                 "against %s", (long long)d->draw, (long long)d->draws, d->command ? d->command : "?",
                 (long long)d->call, d->pipeline ? d->pipeline : "none", d->target ? d->target : "?", d->ssim,
                 d->delta_e, d->reference);
        return;
    case RT_DIAGNOSIS_NONE:
        snprintf(buf, size, "no draw of %lld diverges against %s", (long long)d->draws, d->reference);
        return;
    case RT_DIAGNOSIS_NO_DRAWS:
        snprintf(buf, size, "not diagnosed against %s: the frame has no draws of its own", d->reference);
        return;
    case RT_DIAGNOSIS_ERROR:
        snprintf(buf, size, "diagnosis against %s failed: %s", d->reference, d->message ? d->message : "");
        return;
    }
}

void rt_run_diagnosis_free(struct rt_run_diagnosis *g)
{
    if (!g)
        return;
    free(g->shaders);
    free(g->message);
    for (int i = 0; i < RT_DIAGNOSIS_ROLES; i++)
        free(g->png[i]);
    free(g);
}

/* The test side's configuration as `retrace diagnose --config 'KEY=VALUE;...'` ("" for none). */
static void config_spec(const struct rt_manifest_config *c, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
#define PUT(...)                                                                   \
    do {                                                                           \
        int w_ = snprintf(buf + used, used < size ? size - used : 0, __VA_ARGS__); \
        used += w_ > 0 ? (size_t)w_ : 0;                                           \
    } while (0)
    for (size_t i = 0; i < c->workaround_count; i++)
        PUT("%s%s", i ? "," : used ? ";workarounds=" : "workarounds=", c->workarounds[i]);
    for (size_t i = 0; i < c->delay_count; i++)
        PUT("%s%s", i ? "," : used ? ";delays=" : "delays=", c->delays[i]);
    if (c->has_seed)
        PUT("%sseed=%llu", used ? ";" : "", (unsigned long long)c->seed);
    if (c->skip_draws)
        PUT("%sskip-draws=%s", used ? ";" : "", c->skip_draws);
#undef PUT
    if (used >= size)
        buf[0] = '\0';
}

/* ARGV of the diagnosis (stdout into diagnosis.json by sh); strings in BUF. */
static size_t build_argv(const struct rt_exec *x, size_t j, uint32_t frame, const char *ref, char **argv,
                         char *buf, size_t size)
{
    const struct rt_run_job *job = &x->plan->jobs[j];
    const struct rt_manifest_trace *t = &x->m->traces[job->trace];
    const struct rt_manifest_config *c = &x->m->configs[job->config];
    size_t n = 0, used = 0;
    argv[n++] = "/bin/sh", argv[n++] = "-c", argv[n++] = "exec \"$0\" \"$@\" >diagnosis.json";
    argv[n++] = (char *)x->o->retrace, argv[n++] = "diagnose";
    argv[n++] = t->trim ? (char *)x->fetches[job->trace].trimmed : (char *)rt_trace_source(x, job->trace);
    argv[n++] = "--frame", argv[n++] = buf;
    used += (size_t)snprintf(buf, size, "%u", frame) + 1;
    argv[n++] = "--out", argv[n++] = "out", argv[n++] = "--json";
    if (x->o->device)
        argv[n++] = "--device", argv[n++] = (char *)x->o->device;
    char *cfg = buf + used;
    config_spec(c, cfg, CONFIG_MAX);
    if (cfg[0]) {
        argv[n++] = "--config", argv[n++] = cfg;
        used += strlen(cfg) + 1;
    }
    static const char *const kinds[][2] = {{"device:", "--against-device"}, {"config:", "--against-config"},
                                           {"icd:", "--against-icd"}};
    if (!strcmp(ref, "lavapipe")) {
        argv[n++] = "--against-device", argv[n++] = "llvmpipe";
    }
    for (size_t k = 0; k < 3; k++) {
        if (strncmp(ref, kinds[k][0], strlen(kinds[k][0])))
            continue;
        argv[n++] = (char *)kinds[k][1];
        const char *value = ref + strlen(kinds[k][0]);
        argv[n++] = buf + used; /* an ICD is found from the runner's folder, not the child's */
        if (k == 2 && value[0] != '/' && realpath(value, buf + used))
            used += strlen(buf + used) + 1;
        else
            used += (size_t)snprintf(buf + used, size - used, "%s", value) + 1;
    }
    argv[n] = NULL;
    return n;
}

/* FILE under DIR (as `retrace diagnose` names it, relative to its folder) into *OUT; NULL for none. */
static void read_image(const char *dir, const cJSON *path, uint8_t **out, size_t *size)
{
    const char *p = cJSON_GetStringValue(path);
    *out = NULL, *size = 0;
    if (!p || !p[0])
        return;
    char full[PATH_MAX * 2];
    snprintf(full, sizeof full, "%s/%s", dir, p);
    rt_status s = rt_file_read(p[0] == '/' ? p : full, out, size);
    if (!rt_ok(&s)) {
        rt_status_free(&s);
        *out = NULL, *size = 0;
    }
}

/* Section 7.4's shaders array, each disassembly's text read in (at most 256 KiB). */
static char *shaders_json(const char *dir, const cJSON *shaders)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *sh;
    cJSON_ArrayForEach(sh, shaders) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(out, o);
        cJSON_AddItemToObject(o, "stage", cJSON_Duplicate(cJSON_GetObjectItem(sh, "stage"), true));
        cJSON_AddItemToObject(o, "xxh128", cJSON_Duplicate(cJSON_GetObjectItem(sh, "xxh128"), true));
        uint8_t *text = NULL;
        size_t size = 0;
        read_image(dir, cJSON_GetObjectItem(sh, "disassembly"), &text, &size);
        if (text && size > SHADER_TEXT_MAX)
            size = SHADER_TEXT_MAX;
        char *z = text ? realloc(text, size + 1) : NULL;
        if (z)
            z[size] = '\0';
        else
            free(text);
        cJSON_AddItemToObject(o, "disassembly", z ? cJSON_CreateString(z) : cJSON_CreateNull());
        free(z);
    }
    char *t = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    return t;
}

static void copy_string(char *dst, size_t size, const cJSON *v)
{
    snprintf(dst, size, "%s", cJSON_GetStringValue(v) ? cJSON_GetStringValue(v) : "");
}

static double number_or_nan(const cJSON *v) { return cJSON_IsNumber(v) ? v->valuedouble : NAN; }

/* Fills G from the answer of section 7.3 in DIR/diagnosis.json; false when it is not one. */
static bool read_answer(const char *dir, struct rt_run_diagnosis *g)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/diagnosis.json", dir);
    uint8_t *text = NULL;
    size_t size = 0;
    rt_status s = rt_file_read(path, &text, &size);
    if (!rt_ok(&s)) {
        rt_status_free(&s);
        return false;
    }
    cJSON *j = cJSON_ParseWithLength((const char *)text, size);
    free(text);
    const cJSON *draws = cJSON_GetObjectItem(j, "draws"), *first = cJSON_GetObjectItem(j, "first_divergent");
    if (!cJSON_IsNumber(draws) || !first) {
        cJSON_Delete(j);
        return false;
    }
    struct rt_diagnosis *d = &g->d;
    d->draws = (int64_t)draws->valuedouble;
    d->replays = cJSON_IsNumber(cJSON_GetObjectItem(j, "replays")) ? (int64_t)cJSON_GetObjectItem(j, "replays")->valuedouble : -1;
    d->outcome = cJSON_IsObject(first) ? RT_DIAGNOSIS_DIVERGED : RT_DIAGNOSIS_NONE;
    if (d->outcome == RT_DIAGNOSIS_DIVERGED) {
        d->draw = (int64_t)number_or_nan(cJSON_GetObjectItem(first, "draw"));
        d->call = cJSON_IsNumber(cJSON_GetObjectItem(first, "call")) ? (int64_t)cJSON_GetObjectItem(first, "call")->valuedouble : -1;
        copy_string(g->command, sizeof g->command, cJSON_GetObjectItem(first, "command"));
        /* what a person reads on the dashboard: the pipeline as `retrace dump` names it, "<VkPipeline N>" */
        const cJSON *named = cJSON_GetObjectItem(first, "pipeline_name");
        copy_string(g->pipeline, sizeof g->pipeline, cJSON_IsString(named) ? named : cJSON_GetObjectItem(first, "pipeline"));
        copy_string(g->target, sizeof g->target, cJSON_GetObjectItem(first, "target"));
        d->command = g->command[0] ? g->command : NULL;
        d->pipeline = g->pipeline[0] ? g->pipeline : NULL;
        d->target = g->target[0] ? g->target : NULL;
        d->ssim = number_or_nan(cJSON_GetObjectItem(first, "ssim"));
        d->delta_e = number_or_nan(cJSON_GetObjectItem(first, "delta_e"));
        g->shaders = shaders_json(dir, cJSON_GetObjectItem(first, "shaders"));
        d->shaders = g->shaders;
        const cJSON *images = cJSON_GetObjectItem(first, "images");
        for (int r = 0; r < RT_DIAGNOSIS_ROLES; r++) {
            read_image(dir, cJSON_GetObjectItem(images, rt_diagnosis_role_name((enum rt_diagnosis_role)r)),
                       &g->png[r], &d->png_size[r]);
            d->png[r] = g->png[r];
        }
    }
    cJSON_Delete(j);
    return true;
}

/* The message of `--json`'s error object ({"error": {"message"}}) in DIR/diagnosis.json, if any. */
static bool read_error(const char *dir, char *buf, size_t size)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/diagnosis.json", dir);
    uint8_t *text = NULL;
    size_t n = 0;
    rt_status s = rt_file_read(path, &text, &n);
    if (!rt_ok(&s)) {
        rt_status_free(&s);
        return false;
    }
    cJSON *j = cJSON_ParseWithLength((const char *)text, n);
    free(text);
    const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "error"), "message"));
    if (msg)
        snprintf(buf, size, "%s", msg);
    cJSON_Delete(j);
    return msg != NULL;
}

/* A side's replay failed: its log (named in LINE as "(its output: PATH)", under DIR) goes with the
 * work folder, so its last error line is appended to LINE now. */
static void add_log_error(const char *dir, char *line, size_t size)
{
    const char *at = strstr(line, "(its output: ");
    const char *end = at ? strchr(at, ')') : NULL;
    if (!end)
        return;
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)(end - at - 13), at + 13);
    FILE *f = fopen(path, "r");
    char text[512], last[512] = "";
    while (f && fgets(text, sizeof text, f))
        if (strstr(text, "error: "))
            snprintf(last, sizeof last, "%s", strstr(text, "error: ") + 7);
    if (f)
        fclose(f);
    last[strcspn(last, "\n")] = '\0';
    size_t used = strlen(line);
    if (last[0] && used < size)
        snprintf(line + used, size - used, ": %s", last);
}

/* What the child's end means: the answer, no draws of the frame's own, or an error. */
static void judge(const struct rt_child *c, const char *dir, unsigned timeout_s, struct rt_run_diagnosis *g)
{
    char line[700] = "";
    int code = !c->timed_out && WIFEXITED(c->wait_status) ? WEXITSTATUS(c->wait_status) : -1;
    if ((code == 0 || code == 1) && read_answer(dir, g))
        return;
    bool have_line = read_error(dir, line, sizeof line) || rt_child_error_line(c, line, sizeof line);
    if (code == 2 && have_line && strstr(line, "no draws of its own")) {
        g->d.outcome = RT_DIAGNOSIS_NO_DRAWS;
        return;
    }
    g->d.outcome = RT_DIAGNOSIS_ERROR;
    if (c->timed_out)
        snprintf(line, sizeof line, "no answer after %u s (timeout; its process group was killed)", timeout_s);
    else if (!WIFEXITED(c->wait_status))
        snprintf(line, sizeof line, "killed by signal %d", WTERMSIG(c->wait_status));
    else if (!have_line)
        rt_child_tail_lines(c, 2, line, sizeof line);
    else
        add_log_error(dir, line, sizeof line);
    g->message = strdup(line[0] ? line : "no message");
    g->d.message = g->message;
}

/* One diagnosis running as a child: the frame it answers for, where its answer goes. */
struct diag_slot {
    bool busy;
    size_t job;
    struct rt_run_frame *frame;
    struct rt_run_diagnosis *g;
    struct rt_child child;
    char dir[PATH_MAX];
    unsigned timeout_s;
};

/* Starts the diagnosis of frame F of job J against REF in a fresh folder, in slot S. */
static rt_status start_diagnosis(struct rt_exec *x, size_t j, struct rt_run_frame *f, const char *ref,
                                 struct diag_slot *s)
{
    const struct rt_manifest_trace *t = &x->m->traces[x->plan->jobs[j].trace];
    if ((size_t)snprintf(s->dir, sizeof s->dir, "%.3900s/diagnose-%04zu-%u", x->work, x->plan->jobs[j].index + 1,
                         f->r.frame) >= sizeof s->dir)
        return rt_errorf(RT_ERR_USAGE, "the work folder's path is too long");
    if (mkdir(s->dir, 0777) != 0 && errno != EEXIST)
        return rt_errorf(RT_ERR_INTERNAL, "cannot create %s: %s", s->dir, strerror(errno));
    struct rt_run_diagnosis *g = calloc(1, sizeof *g);
    if (!g)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    snprintf(g->reference, sizeof g->reference, "%s", !strcmp(ref, "lavapipe") ? "device:llvmpipe" : ref);
    g->d = (struct rt_diagnosis){.reference = g->reference, .draws = -1, .replays = -1, .call = -1,
                                 .ssim = NAN, .delta_e = NAN};
    char *argv[64], buf[CONFIG_MAX + 2 * PATH_MAX];
    build_argv(x, j, f->r.frame, ref, argv, buf, sizeof buf);
    s->timeout_s = t->timeout_s * TIMEOUT_REPLAYS;
    rt_status st = rt_child_start(argv, s->dir, s->timeout_s, &s->child);
    if (!rt_ok(&st)) {
        rt_run_diagnosis_free(g);
        return st;
    }
    s->busy = true;
    s->job = j;
    s->frame = f;
    s->g = g;
    return rt_ok_status();
}

/* A finished diagnosis: judged, kept on its frame and recorded with its result. */
static rt_status finish_diagnosis(struct rt_exec *x, struct diag_slot *s)
{
    judge(&s->child, s->dir, s->timeout_s, s->g);
    if (!x->o->keep_work)
        rt_remove_tree(s->dir);
    s->busy = false;
    s->frame->diagnosis = s->g;
    const struct rt_run_job *job = &x->out->jobs[s->job].job;
    int64_t id = 0;
    return rt_store_diagnosis_put(x->store, x->out->run_id, x->m->traces[job->trace].name,
                                  x->m->configs[job->config].name, s->frame->r.frame, &s->g->d, true, &id);
}

/* Waits until at least one running diagnosis ends (a signal kills them all: each is then an error), and
 * finishes those that ended. */
static rt_status reap(struct rt_exec *x, struct diag_slot *slots, unsigned n, bool (*stop)(void))
{
    struct rt_child *list[64];
    unsigned running = 0, ended = 0;
    for (unsigned i = 0; i < n; i++)
        if (slots[i].busy)
            list[running++] = &slots[i].child;
    while (running && !ended) {
        rt_child_poll(list, running, 200);
        for (unsigned i = 0; i < running; i++) {
            if (!list[i]->done && stop())
                rt_child_kill(list[i]);
            ended += list[i]->done;
        }
    }
    rt_status st = rt_ok_status();
    for (unsigned i = 0; i < n; i++)
        if (slots[i].busy && slots[i].child.done && rt_ok(&st))
            st = finish_diagnosis(x, &slots[i]);
    return st;
}

static const char *reference_of(const struct rt_exec *x, size_t j)
{
    return x->o->diagnose ? x->o->diagnose : x->m->configs[x->plan->jobs[j].config].diagnose;
}

/* A free slot, after waiting for one where all N are busy. */
static rt_status free_slot(struct rt_exec *x, struct diag_slot *slots, unsigned n, bool (*stop)(void),
                           struct diag_slot **out)
{
    for (;;) {
        for (unsigned i = 0; i < n; i++)
            if (!slots[i].busy) {
                *out = &slots[i];
                return rt_ok_status();
            }
        RT_TRY(reap(x, slots, n, stop));
    }
}

/* Up to -j diagnoses at once, as replays run: each is a child of its own with its own folder. */
rt_status rt_run_diagnose_failures(struct rt_exec *x, bool (*stop)(void))
{
    size_t done = 0;
    unsigned n = x->o->jobs < 1 ? 1 : x->o->jobs > 64 ? 64 : x->o->jobs;
    struct diag_slot *slots = calloc(n, sizeof *slots);
    if (!slots)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status st = rt_ok_status();
    for (size_t j = 0; j < x->plan->count && rt_ok(&st); j++) {
        struct rt_run_job_result *jr = &x->out->jobs[j];
        const char *ref = reference_of(x, j);
        for (size_t i = 0; ref && i < jr->frame_count && rt_ok(&st); i++) {
            struct rt_run_frame *f = &jr->frames[i];
            if (f->r.status != RT_RESULT_FAIL || f->diagnosis || stop())
                continue;
            if (done == MAX_DIAGNOSES) {
                x->out->undiagnosed++;
                continue;
            }
            struct diag_slot *slot = NULL;
            st = free_slot(x, slots, n, stop, &slot);
            if (rt_ok(&st) && x->o->progress)
                fprintf(stderr, "\r\033[Kdiagnosing %s frame %u against %s", x->m->traces[jr->job.trace].name,
                        f->r.frame, ref);
            if (rt_ok(&st))
                st = start_diagnosis(x, j, f, ref, slot);
            done += rt_ok(&st);
        }
    }
    for (bool any = true; any;) { /* the last ones, also after an error (their children must not outlive us) */
        any = false;
        for (unsigned i = 0; i < n; i++)
            any |= slots[i].busy;
        if (any && !rt_ok(&st))
            for (unsigned i = 0; i < n; i++)
                if (slots[i].busy && !slots[i].child.done)
                    rt_child_kill(&slots[i].child);
        rt_status r = any ? reap(x, slots, n, stop) : rt_ok_status();
        if (rt_ok(&st))
            st = r;
        else
            rt_status_free(&r);
    }
    free(slots);
    x->out->diagnosed = done;
    return st;
}

static cJSON *count_or_null(int64_t v, int64_t none) { return v == none ? cJSON_CreateNull() : cJSON_CreateNumber((double)v); }

static cJSON *text_or_null(const char *t) { return t ? cJSON_CreateString(t) : cJSON_CreateNull(); }

/* "images": each PNG as base64 while *BUDGET lasts (all of them or none). */
static cJSON *images_json(const struct rt_diagnosis *d, size_t *budget)
{
    size_t bytes = 0;
    for (int r = 0; r < RT_DIAGNOSIS_ROLES; r++)
        bytes += d->png[r] ? d->png_size[r] : 0;
    bool send = bytes <= *budget;
    *budget -= send ? bytes : 0;
    cJSON *images = cJSON_CreateObject();
    for (int r = 0; images && r < RT_DIAGNOSIS_ROLES; r++) {
        char *b64 = send && d->png[r] ? rt_wire_base64_encode(d->png[r], d->png_size[r]) : NULL;
        cJSON_AddItemToObject(images, rt_diagnosis_role_name((enum rt_diagnosis_role)r), text_or_null(b64));
        free(b64);
    }
    return images;
}

cJSON *rt_run_diagnosis_json(const struct rt_run_diagnosis *g, size_t *budget)
{
    const struct rt_diagnosis *d = &g->d;
    bool diverged = d->outcome == RT_DIAGNOSIS_DIVERGED;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "reference", d->reference);
    cJSON_AddStringToObject(o, "outcome", rt_diagnosis_outcome_name(d->outcome));
    cJSON_AddItemToObject(o, "draws", count_or_null(d->draws, -1));
    cJSON_AddItemToObject(o, "replays", count_or_null(d->replays, -1));
    cJSON_AddStringToObject(o, "message", d->message ? d->message : "");
    if (!diverged)
        return o;
    cJSON_AddNumberToObject(o, "draw", (double)d->draw);
    cJSON_AddItemToObject(o, "call", count_or_null(d->call, -1));
    cJSON_AddItemToObject(o, "command", text_or_null(d->command));
    cJSON_AddItemToObject(o, "pipeline", text_or_null(d->pipeline));
    cJSON_AddItemToObject(o, "target", text_or_null(d->target));
    cJSON *shaders = d->shaders ? cJSON_Parse(d->shaders) : NULL;
    cJSON_AddItemToObject(o, "shaders", shaders ? shaders : cJSON_CreateArray());
    cJSON_AddItemToObject(o, "ssim", isfinite(d->ssim) ? cJSON_CreateNumber(d->ssim) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "delta_e", isfinite(d->delta_e) ? cJSON_CreateNumber(d->delta_e) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "images", images_json(d, budget));
    return o;
}
