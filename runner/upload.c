/*
 * runner/upload.c — the run upload of docs/FORMATS.md section 2. A run is
 * always written to the spool first and then sent from there, so a server
 * that is down, a 5xx or a killed runner never loses it; the run's id makes
 * a second send a duplicate the server ignores.
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnosis.h"
#include "file.h"
#include "internal.h"
#include "wire.h"

static cJSON *string_array(const char *const *items, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(items[i]));
    return a;
}

static cJSON *configurations(const struct rt_manifest *m)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < m->config_count; i++) {
        const struct rt_manifest_config *c = &m->configs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", c->name);
        cJSON_AddItemToObject(o, "workarounds", string_array(c->workarounds, c->workaround_count));
        cJSON_AddItemToObject(o, "delays", string_array(c->delays, c->delay_count));
        if (c->skip_draws) /* what makes it differ, and what it is diagnosed against (7.4) */
            cJSON_AddStringToObject(o, "skip_draws", c->skip_draws);
        if (c->diagnose)
            cJSON_AddStringToObject(o, "diagnose", c->diagnose);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

char *rt_upload_configurations_json(const struct rt_manifest *m)
{
    cJSON *a = configurations(m);
    char *text = a ? cJSON_PrintUnformatted(a) : NULL;
    cJSON_Delete(a);
    return text;
}

/* What is left of the image budget of one upload. */
struct budget {
    size_t left;
    bool wanted; /* images were asked for at all */
};

static void fill_result(const struct rt_manifest *m, const struct rt_run_job_result *jr,
                        const struct rt_run_frame *f, struct budget *budget,
                        struct rt_trace_result *out, struct rt_wire_extra *extra)
{
    const struct rt_manifest_trace *t = &m->traces[jr->job.trace];
    out->trace = t->name;
    out->r = f->r;
    struct rt_result *r = &out->r;
    r->configuration = m->configs[jr->job.config].name;
    r->threshold = t->threshold;
    r->tile_threshold = t->tile_threshold;
    r->golden_hash = f->golden_hash[0] ? f->golden_hash : NULL;
    r->actual_hash = f->actual_hash[0] ? f->actual_hash : NULL;
    r->worst_tiles = f->worst_tiles[0] ? f->worst_tiles : NULL;
    r->message = f->message ? f->message : "";
    r->report = jr->report;
    r->expected = rt_expect_kind_name(jr->expected);
    r->regression = rt_wire_regression(r->status, jr->expected);
    r->actual_png = f->actual_png, r->diff_png = f->diff_png;
    size_t images = (f->actual_png ? r->actual_png_size : 0) + (f->diff_png ? r->diff_png_size : 0);
    bool send = images && images <= budget->left;
    budget->left -= send ? images : 0;
    if (!send)
        r->actual_png = NULL, r->actual_png_size = 0, r->diff_png = NULL, r->diff_png_size = 0;
    *extra = (struct rt_wire_extra){.expected = jr->expected, .expect_note = jr->expect_note,
                                    .images_left_out = images && !send && budget->wanted};
}

static void fill_run(const struct rt_manifest *m, const struct rt_run_result *r,
                     const struct rt_upload_options *o, struct rt_upload *u, char *configs)
{
    u->rec.run = (struct rt_run_info){
        .uuid = r->uuid, .label = r->label ? r->label : "", .shard = r->shard[0] ? r->shard : NULL,
        .host = r->host, .device = r->device ? r->device : "", .driver = r->driver ? r->driver : "",
        .device_key = r->device_key ? r->device_key : "", .version = RT_VERSION,
        .started_at = r->started_at, .configurations = configs, .pipeline = o->pipeline,
        .golden_set = o->golden_set};
    u->rec.finished_at = r->finished_at[0] ? r->finished_at : NULL;
    u->rec.outcome = rt_run_outcome(r);
    (void)m;
}

/* The golden with local id ID unless the server has it or it is already listed. */
static rt_status add_golden(struct rt_store *store, const struct rt_upload_options *o, int64_t id,
                            struct rt_golden *list, size_t *count, struct budget *budget)
{
    if (id <= 0)
        return rt_ok_status();
    for (size_t i = 0; i < *count; i++)
        if (list[i].id == id)
            return rt_ok_status();
    struct rt_golden g = {0};
    rt_status s = rt_store_golden_get(store, id, true, &g);
    if (!rt_ok(&s) || (o->synced && rt_sync_result_has(o->synced, g.hash)) || g.png_size > budget->left) {
        rt_golden_finish(&g);
        return rt_ok_status(); /* gone since, on the server, or past the budget: not sent */
    }
    budget->left -= g.png_size;
    list[(*count)++] = g;
    return rt_ok_status();
}

static rt_status collect_goldens(const struct rt_run_result *r, const struct rt_upload_options *o,
                                 struct budget *budget, struct rt_golden **list_out, size_t *count_out)
{
    size_t frames = 0;
    for (size_t j = 0; j < r->job_count; j++)
        frames += r->jobs[j].frame_count;
    *list_out = calloc(2 * frames + 1, sizeof **list_out);
    *count_out = 0;
    if (!*list_out)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    if (!o->db_path || !o->image_budget)
        return rt_ok_status();
    struct rt_store *store = NULL;
    rt_status s = rt_store_open(o->db_path, RT_STORE_READ_ONLY, &store);
    if (!rt_ok(&s))
        return rt_ok_status(); /* the goldens stay behind; the results still go */
    for (size_t j = 0; rt_ok(&s) && j < r->job_count; j++)
        for (size_t i = 0; rt_ok(&s) && i < r->jobs[j].frame_count; i++) {
            const struct rt_run_frame *f = &r->jobs[j].frames[i];
            s = add_golden(store, o, f->r.golden_id, *list_out, count_out, budget);
            if (rt_ok(&s))
                s = add_golden(store, o, f->added_golden, *list_out, count_out, budget);
        }
    rt_store_close(store);
    return s;
}

static rt_status build(const struct rt_manifest *m, const struct rt_run_result *r,
                       struct rt_upload *u, struct rt_golden *goldens,
                       size_t golden_count, struct budget *budget)
{
    size_t n = 0;
    for (size_t j = 0; j < r->job_count; j++)
        n += r->jobs[j].frame_count;
    u->rec.results = calloc(n + 1, sizeof *u->rec.results);
    u->extra = calloc(n + 1, sizeof *u->extra);
    u->rec.goldens = calloc(golden_count + 1, sizeof *u->rec.goldens);
    if (!u->rec.results || !u->extra || !u->rec.goldens)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t j = 0; j < r->job_count; j++)
        for (size_t i = 0; i < r->jobs[j].frame_count; i++, u->rec.result_count++)
            fill_result(m, &r->jobs[j], &r->jobs[j].frames[i], budget,
                        &u->rec.results[u->rec.result_count], &u->extra[u->rec.result_count]);
    for (size_t i = 0; i < golden_count; i++) {
        const struct rt_golden *g = &goldens[i];
        u->rec.goldens[i] = (struct rt_golden_new){
            .trace = g->trace, .frame = g->frame, .device_key = g->device_key, .png = g->png,
            .png_size = g->png_size, .approved_by = g->approved_by,
            .approved_at = g->approved_at[0] ? g->approved_at : NULL, .status = g->status};
    }
    u->rec.golden_count = golden_count;
    return rt_ok_status();
}

/* Each diagnosed result's "diagnosis" member (docs/FORMATS.md 7.4) added to the
 * encoded upload *JSON, images from what is left of the budget. */
static rt_status add_diagnoses(const struct rt_run_result *r, size_t budget, char **json)
{
    bool any = false;
    for (size_t j = 0; j < r->job_count && !any; j++)
        for (size_t i = 0; i < r->jobs[j].frame_count && !any; i++)
            any = r->jobs[j].frames[i].diagnosis != NULL;
    if (!any)
        return rt_ok_status();
    cJSON *root = cJSON_Parse(*json);
    cJSON *results = cJSON_GetObjectItem(root, "results");
    if (!cJSON_IsArray(results)) {
        cJSON_Delete(root);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    cJSON *item = results->child;
    for (size_t j = 0; j < r->job_count; j++)
        for (size_t i = 0; i < r->jobs[j].frame_count && item; i++, item = item->next)
            if (r->jobs[j].frames[i].diagnosis)
                cJSON_AddItemToObject(item, "diagnosis", rt_run_diagnosis_json(r->jobs[j].frames[i].diagnosis, &budget));
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    free(*json);
    *json = text;
    return rt_ok_status();
}

rt_status rt_upload_body(const struct rt_manifest *m, const struct rt_run_result *r,
                         const struct rt_upload_options *o, char **json_out)
{
    *json_out = NULL;
    struct rt_upload u = {0};
    struct budget budget = {.left = o->image_budget, .wanted = o->image_budget > 0};
    char *configs = rt_upload_configurations_json(m);
    fill_run(m, r, o, &u, configs);
    struct rt_golden *goldens = NULL;
    size_t golden_count = 0;
    rt_status s = rt_ok_status();
    /* Results' images first (the failures are what the dashboard must show):
     * a first pass learns what they leave of the budget for the goldens; the
     * second makes the same choice of result images, then adds the goldens. */
    struct budget results_budget = budget;
    s = build(m, r, &u, NULL, 0, &results_budget);
    free(u.rec.results), free(u.extra), free(u.rec.goldens);
    u.rec.results = NULL, u.extra = NULL, u.rec.goldens = NULL, u.rec.result_count = 0;
    if (rt_ok(&s))
        s = collect_goldens(r, o, &results_budget, &goldens, &golden_count);
    if (rt_ok(&s))
        s = build(m, r, &u, goldens, golden_count, &budget);
    if (rt_ok(&s))
        s = rt_upload_encode(&u, json_out);
    if (rt_ok(&s))
        s = add_diagnoses(r, budget.left, json_out);
    for (size_t i = 0; goldens && i < golden_count; i++)
        rt_golden_finish(&goldens[i]);
    free(goldens);
    free(u.rec.results);
    free(u.extra);
    free(u.rec.goldens);
    free(configs);
    return s;
}


rt_status rt_upload_default_spool(char *buf, size_t size)
{
    const char *env = getenv("RETRACE_SPOOL"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(buf, size, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(buf, size, "%s/retrace/spool", xdg);
    else if (home && *home)
        n = snprintf(buf, size, "%s/.cache/retrace/spool", home);
    else
        return rt_errorf(RT_ERR_USAGE, "no spool directory: set RETRACE_SPOOL or HOME, or give --spool DIR");
    return n > 0 && (size_t)n < size ? rt_ok_status() : rt_errorf(RT_ERR_USAGE, "spool path too long");
}

rt_status rt_upload_spool_put(const char *spool_dir, const char *uuid, const char *body)
{
    RT_TRY(rt_make_dirs(spool_dir));
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s.json", spool_dir, uuid);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot write %s: %s", tmp, strerror(errno));
    size_t len = strlen(body);
    bool ok = fwrite(body, 1, len, f) == len;
    ok = (fflush(f) == 0) && ok && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot write %s: %s", path, strerror(errno));
    }
    return rt_ok_status();
}

static size_t keep_answer(char *data, size_t size, size_t n, void *user)
{
    struct rt_http_answer *a = user;
    size_t have = strlen(a->body), len = size * n;
    size_t room = sizeof a->body - 1 - have;
    memcpy(a->body + have, data, len < room ? len : room);
    a->body[have + (len < room ? len : room)] = 0;
    return len;
}

rt_status rt_http_post_json(const char *url, const char *token, const char *body, struct rt_http_answer *a)
{
    memset(a, 0, sizeof *a);
    CURL *curl = curl_easy_init();
    if (!curl)
        return rt_errorf(RT_ERR_INTERNAL, "cannot start libcurl");
    char auth[1200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    headers = curl_slist_append(headers, auth);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep_answer);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, a->error);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 15L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 600L);
    CURLcode rc = curl_easy_perform(curl);
    if (rc == CURLE_OK)
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &a->code);
    else if (!a->error[0])
        snprintf(a->error, sizeof a->error, "%s", curl_easy_strerror(rc));
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return rt_ok_status();
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = 0;
    fclose(f);
    return text;
}

/* Sends one spool file; what the answer means for it is documented in runner.h. */
static rt_status send_one(const char *spool, const char *name, const char *url, const char *token,
                          struct rt_upload_counts *counts)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", spool, name);
    char *body = read_text(path);
    if (!body)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot read %s: %s", path, strerror(errno));
    struct rt_http_answer a;
    rt_status s = rt_http_post_json(url, token, body, &a);
    free(body);
    RT_TRY(s);
    if (a.code == 200 || a.code == 201) {
        unlink(path);
        counts->sent += a.code == 201;
        counts->duplicates += a.code == 200;
        return rt_ok_status();
    }
    /* A refused run (400, 413) no longer waits: it is moved aside below. */
    bool refused_for_good = a.code == 400 || a.code == 413;
    counts->kept += !refused_for_good;
    counts->rejected += refused_for_good;
    if (a.code == 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot reach %s: %s (the run stays in %s)", url, a.error, spool);
    if (a.code >= 500)
        return rt_errorf(RT_ERR_INTERNAL, "%s answered %ld %s (the run stays in %s)", url, a.code, a.body, spool);
    if (a.code == 400 || a.code == 413) {
        char dir[4200], dest[8500];
        snprintf(dir, sizeof dir, "%s/rejected", spool);
        snprintf(dest, sizeof dest, "%s/%s", dir, name);
        if (rt_status_drop(rt_make_dirs(dir)) == RT_OK)
            rename(path, dest);
        return rt_errorf(RT_ERR_BAD_INPUT, "%s refused %s: %ld %s (moved to %s)", url, name, a.code, a.body, dir);
    }
    return rt_errorf(RT_ERR_BAD_INPUT, "%s refused %s: %ld %s", url, name, a.code, a.body);
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

rt_status rt_upload_spool_send(const char *spool_dir, const char *server, const char *token,
                               struct rt_upload_counts *out)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(spool_dir);
    if (!d)
        return errno == ENOENT ? rt_ok_status()
                               : rt_errorf(RT_ERR_BAD_INPUT, "cannot read %s: %s", spool_dir, strerror(errno));
    char *names[4096];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 4096;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".json"))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    char url[2048];
    size_t sl = strlen(server);
    snprintf(url, sizeof url, "%.*s/api/runs", (int)(sl && server[sl - 1] == '/' ? sl - 1 : sl), server);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rt_status first = rt_ok_status();
    for (size_t i = 0; i < n; i++) {
        rt_status s = names[i] ? send_one(spool_dir, names[i], url, token, out) : rt_errorf(RT_ERR_INTERNAL, "out of memory");
        if (!rt_ok(&s) && rt_ok(&first))
            first = s;
        else
            rt_status_free(&s); /* the first error is the one said */
        free(names[i]);
    }
    return first;
}

rt_status rt_upload_read_token(const char *path, char *buf, size_t size)
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
