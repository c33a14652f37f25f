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
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static cJSON *number_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static cJSON *base64(const void *data, size_t size)
{
    if (!data || !size)
        return cJSON_CreateNull();
    char *text = malloc(4 * ((size + 2) / 3) + 1);
    if (!text)
        return NULL;
    EVP_EncodeBlock((unsigned char *)text, data, (int)size);
    cJSON *s = cJSON_CreateString(text);
    free(text);
    return s;
}

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

static cJSON *run_object(const struct rt_manifest *m, const struct rt_run_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", r->uuid);
    cJSON_AddStringToObject(o, "label", r->label ? r->label : "");
    cJSON_AddItemToObject(o, "shard", r->shard[0] ? cJSON_CreateString(r->shard) : cJSON_CreateNull());
    cJSON_AddStringToObject(o, "host", r->host);
    cJSON_AddStringToObject(o, "device", r->device ? r->device : "");
    cJSON_AddStringToObject(o, "driver", r->driver ? r->driver : "");
    cJSON_AddStringToObject(o, "device_key", r->device_key ? r->device_key : "");
    cJSON_AddStringToObject(o, "retrace_version", RT_VERSION);
    cJSON_AddStringToObject(o, "started_at", r->started_at);
    cJSON_AddStringToObject(o, "finished_at", r->finished_at);
    cJSON_AddStringToObject(o, "outcome", rt_run_outcome(r));
    cJSON_AddItemToObject(o, "configurations", configurations(m));
    return o;
}

/* What is left of the image budget of one upload. */
struct budget {
    size_t left;
    bool wanted; /* images were asked for at all */
};

static cJSON *result_object(const struct rt_manifest *m, const struct rt_run_job_result *jr,
                            const struct rt_run_frame *f, struct budget *budget)
{
    const struct rt_manifest_trace *t = &m->traces[jr->job.trace];
    const struct rt_result *r = &f->r;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trace", t->name);
    cJSON_AddStringToObject(o, "configuration", m->configs[jr->job.config].name);
    cJSON_AddNumberToObject(o, "frame", r->frame);
    cJSON_AddStringToObject(o, "status", rt_result_status_name(r->status));
    cJSON_AddItemToObject(o, "ssim", number_or_null(r->ssim));
    cJSON_AddItemToObject(o, "ssim_worst_tile", number_or_null(r->ssim_worst_tile));
    cJSON_AddItemToObject(o, "psnr", number_or_null(r->psnr));
    cJSON_AddItemToObject(o, "threshold", number_or_null(t->threshold));
    cJSON_AddItemToObject(o, "tile_threshold", number_or_null(t->tile_threshold));
    bool colour = r->colour_threshold > 0; /* measured: the colour gate's number and threshold */
    cJSON_AddItemToObject(o, "delta_e", colour ? number_or_null(r->delta_e) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "colour_threshold", colour ? number_or_null(r->colour_threshold) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "diff_pixels", r->diff_pixels < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)r->diff_pixels));
    cJSON_AddItemToObject(o, "max_diff", r->max_diff < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(r->max_diff));
    cJSON_AddItemToObject(o, "replay_ms", number_or_null(r->replay_ms));
    cJSON_AddNumberToObject(o, "attempts", r->attempts);
    cJSON_AddItemToObject(o, "golden_hash", f->golden_hash[0] ? cJSON_CreateString(f->golden_hash) : cJSON_CreateNull());
    cJSON_AddStringToObject(o, "message", f->message ? f->message : "");
    cJSON *report = jr->report ? cJSON_Parse(jr->report) : NULL;
    cJSON_AddItemToObject(o, "report", report ? report : cJSON_CreateNull());
    size_t images = (f->actual_png ? r->actual_png_size : 0) + (f->diff_png ? r->diff_png_size : 0);
    bool send = images && images <= budget->left;
    budget->left -= send ? images : 0;
    cJSON_AddItemToObject(o, "actual_png", send ? base64(f->actual_png, r->actual_png_size) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "diff_png", send ? base64(f->diff_png, r->diff_png_size) : cJSON_CreateNull());
    if (images && !send && budget->wanted)
        cJSON_AddBoolToObject(o, "images_left_out", true);
    cJSON_AddBoolToObject(o, "regression", jr->regression);
    cJSON_AddStringToObject(o, "expected", rt_expect_kind_name(jr->expected));
    return o;
}

rt_status rt_upload_body(const struct rt_manifest *m, const struct rt_run_result *r, size_t image_budget,
                         char **json_out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "retrace-run");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddItemToObject(root, "run", run_object(m, r));
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    struct budget budget = {.left = image_budget, .wanted = image_budget > 0};
    for (size_t j = 0; results && j < r->job_count; j++)
        for (size_t i = 0; i < r->jobs[j].frame_count; i++)
            cJSON_AddItemToArray(results, result_object(m, &r->jobs[j], &r->jobs[j].frames[i], &budget));
    *json_out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return *json_out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory building the upload");
}

static rt_status make_dir(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p && *p != '/')
            continue;
        char saved = *p;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return rt_errorf(RT_ERR_BAD_INPUT, "cannot create %s: %s", buf, strerror(errno));
        if (!(*p = saved))
            return rt_ok_status();
    }
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
    RT_TRY(make_dir(spool_dir));
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
    counts->kept++;
    if (a.code == 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot reach %s: %s (the run stays in %s)", url, a.error, spool);
    if (a.code >= 500)
        return rt_errorf(RT_ERR_INTERNAL, "%s answered %ld %s (the run stays in %s)", url, a.code, a.body, spool);
    if (a.code == 400 || a.code == 413) {
        char dir[4200], dest[8500];
        snprintf(dir, sizeof dir, "%s/rejected", spool);
        snprintf(dest, sizeof dest, "%s/%s", dir, name);
        if (make_dir(dir).code == RT_OK)
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
