/*
 * store/store_io.c — goldens to and from a directory of PNG files plus an
 * index (see store.h). The index is what makes a directory importable
 * elsewhere: file names are only for people, the index says what each is.
 *
 * index.json: {"format": "retrace-goldens", "version": 1, "goldens": [
 *   {"file": "3-triangle-f1.png", "trace": "triangle", "frame": 1,
 *    "device": "", "status": "accepted", "hash": "<xxh3-128 hex>",
 *    "approved_by": "ana"}, ...]}
 */
#include "store_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define INDEX_NAME "index.json"
#define INDEX_FORMAT "retrace-goldens"
#define INDEX_VERSION 1
#define MAX_INDEX_BYTES (64u << 20)
#define MAX_PNG_BYTES (512u << 20)

static rt_status read_whole_file(const char *path, size_t limit, char **data_out,
                                 size_t *size_out)
{
    *data_out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > limit) {
        fclose(f);
        return rt_errorf(RT_ERR_BAD_INPUT, "%s is not a regular file of at most %zu bytes",
                         path, limit);
    }
    size_t size = (size_t)st.st_size;
    char *data = malloc(size + 1); /* +1: a NUL for the JSON parser */
    size_t got = data ? fread(data, 1, size, f) : 0;
    fclose(f);
    if (!data)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading %s", path);
    if (got != size) {
        free(data);
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot read %s", path);
    }
    data[size] = '\0';
    *data_out = data;
    *size_out = size;
    return rt_ok_status();
}

static rt_status write_whole_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return rt_errorf(RT_ERR_INTERNAL, "cannot write %s: %s", path, strerror(errno));
    bool ok = fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "cannot write %s", path);
}

/* Trace names may hold anything; file names get [A-Za-z0-9._-] only. */
static void export_file_name(const struct rt_golden *g, char *name, size_t size)
{
    char safe[96];
    size_t n = 0;
    for (const char *p = g->trace; *p && n + 1 < sizeof safe; p++) {
        char c = *p;
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
        safe[n++] = plain ? c : '_';
    }
    safe[n] = '\0';
    snprintf(name, size, "%lld-%s-f%u.png", (long long)g->id, safe, g->frame);
}

static cJSON *index_entry(const struct rt_golden *g, const char *file)
{
    cJSON *e = cJSON_CreateObject();
    if (!e)
        return NULL;
    bool ok = cJSON_AddStringToObject(e, "file", file) &&
              cJSON_AddStringToObject(e, "trace", g->trace) &&
              cJSON_AddNumberToObject(e, "frame", g->frame) &&
              cJSON_AddStringToObject(e, "device", g->device_key) &&
              cJSON_AddStringToObject(e, "status", rt_golden_status_name(g->status)) &&
              cJSON_AddStringToObject(e, "hash", g->hash) &&
              cJSON_AddStringToObject(e, "approved_by", g->approved_by);
    if (!ok) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

static rt_status export_one(struct rt_store *store, const char *dir, int64_t id,
                            cJSON *entries)
{
    struct rt_golden g;
    RT_TRY(rt_store_golden_get(store, id, true, &g));
    char name[160], path[4096];
    export_file_name(&g, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    rt_status s = write_whole_file(path, g.png, g.png_size);
    cJSON *e = rt_ok(&s) ? index_entry(&g, name) : NULL;
    if (rt_ok(&s) && (!e || !cJSON_AddItemToArray(entries, e))) {
        cJSON_Delete(e);
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory building the index");
    }
    rt_golden_finish(&g);
    return s;
}

static rt_status write_index(const char *dir, cJSON *root)
{
    char *text = cJSON_Print(root);
    if (!text)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory printing the index");
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/" INDEX_NAME, dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    /* Written aside and renamed: a reader never sees half an index. */
    FILE *f = fopen(tmp, "w");
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = f && fclose(f) == 0 && ok;
    cJSON_free(text);
    if (!ok)
        return rt_errorf(RT_ERR_INTERNAL, "cannot write %s", tmp);
    if (rename(tmp, path) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot rename %s: %s", tmp, strerror(errno));
    return rt_ok_status();
}

static rt_status make_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot create %s: %s", dir, strerror(errno));
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s is not a directory", dir);
    return rt_ok_status();
}

rt_status rt_store_export_goldens(struct rt_store *store, const char *dir,
                                  struct rt_store_io_counts *counts_out)
{
    memset(counts_out, 0, sizeof *counts_out);
    RT_TRY(make_dir(dir));
    struct rt_golden_list list;
    RT_TRY(rt_store_golden_list(store, NULL, &list));
    cJSON *root = cJSON_CreateObject();
    cJSON *entries = cJSON_CreateArray();
    rt_status s = rt_ok_status();
    if (!root || !entries || !cJSON_AddStringToObject(root, "format", INDEX_FORMAT) ||
        !cJSON_AddNumberToObject(root, "version", INDEX_VERSION) ||
        !cJSON_AddItemToObject(root, "goldens", entries)) {
        cJSON_Delete(entries); /* not yet owned by root */
        entries = NULL;
        s = rt_errorf(RT_ERR_INTERNAL, "out of memory building the index");
    }
    for (size_t i = 0; rt_ok(&s) && i < list.count; i++) {
        s = export_one(store, dir, list.items[i].id, entries);
        counts_out->written += rt_ok(&s);
    }
    if (rt_ok(&s))
        s = write_index(dir, root);
    cJSON_Delete(root);
    rt_golden_list_finish(&list);
    return s;
}

/* ---- import ------------------------------------------------------------- */

/* One index entry, pointing into the parsed JSON. */
struct index_entry {
    const char *file, *trace, *device, *hash, *approved_by;
    uint32_t frame;
    enum rt_golden_status status;
};

/* A string member; OPTIONAL ones default to "" when absent (never when mistyped). */
static rt_status entry_string(const cJSON *obj, const char *key, bool optional,
                              const char **out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item && optional) {
        *out = "";
        return rt_ok_status();
    }
    if (!cJSON_IsString(item) || !item->valuestring)
        return rt_errorf(RT_ERR_BAD_INPUT, "\"%s\" must be a string", key);
    *out = item->valuestring;
    return rt_ok_status();
}

static bool is_plain_file_name(const char *name)
{
    return name[0] && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/');
}

static rt_status parse_entry(const cJSON *obj, struct index_entry *e)
{
    if (!cJSON_IsObject(obj))
        return rt_errorf(RT_ERR_BAD_INPUT, "not an object");
    const char *status = NULL;
    RT_TRY(entry_string(obj, "file", false, &e->file));
    RT_TRY(entry_string(obj, "trace", false, &e->trace));
    RT_TRY(entry_string(obj, "hash", false, &e->hash));
    RT_TRY(entry_string(obj, "device", true, &e->device));
    RT_TRY(entry_string(obj, "approved_by", true, &e->approved_by));
    RT_TRY(entry_string(obj, "status", true, &status));
    /* Only names inside DIR: an index must not reach other files. */
    if (!is_plain_file_name(e->file))
        return rt_errorf(RT_ERR_BAD_INPUT, "\"file\" must be a plain file name in the directory");
    if (!e->trace[0])
        return rt_errorf(RT_ERR_BAD_INPUT, "\"trace\" is empty");
    if (strlen(e->hash) != RT_STORE_HASH_HEX)
        return rt_errorf(RT_ERR_BAD_INPUT, "\"hash\" must be %d hex digits", RT_STORE_HASH_HEX);
    e->status = RT_GOLDEN_ACCEPTED;
    if (status[0] && !rt_golden_status_parse(status, &e->status))
        return rt_errorf(RT_ERR_BAD_INPUT, "unknown status \"%s\"", status);
    const cJSON *frame = cJSON_GetObjectItemCaseSensitive(obj, "frame");
    double f = cJSON_IsNumber(frame) ? frame->valuedouble : -1.0;
    if (!(f >= 1.0 && f <= 4294967295.0 && f == (double)(uint32_t)f))
        return rt_errorf(RT_ERR_BAD_INPUT, "\"frame\" must be a whole number from 1");
    e->frame = (uint32_t)f;
    return rt_ok_status();
}

static rt_status import_entry(struct rt_store *store, const char *dir,
                              const struct index_entry *e, struct rt_store_io_counts *counts)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->file);
    char *png = NULL;
    size_t size = 0;
    RT_TRY(read_whole_file(path, MAX_PNG_BYTES, &png, &size));
    char hash[RT_STORE_HASH_HEX + 1];
    rt_store_hash_hex(png, size, hash);
    rt_status s = rt_ok_status();
    if (strcmp(hash, e->hash))
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s: hash mismatch (index says %s, file is %s)", path,
                      e->hash, hash);
    bool created = false;
    int64_t id = 0;
    if (rt_ok(&s)) {
        struct rt_golden_new g = {.trace = e->trace, .frame = e->frame,
                                  .device_key = e->device, .png = png, .png_size = size,
                                  .approved_by = e->approved_by, .status = e->status};
        s = rt_store_golden_put(store, &g, &id, &created);
    }
    free(png);
    if (rt_ok(&s))
        *(created ? &counts->written : &counts->existing) += 1;
    return s;
}

static rt_status check_header(const cJSON *root, const cJSON **goldens_out)
{
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, INDEX_FORMAT))
        return rt_errorf(RT_ERR_BAD_INPUT, "not a retrace golden index (\"format\")");
    if (!cJSON_IsNumber(version) || version->valuedouble != INDEX_VERSION)
        return rt_errorf(RT_ERR_BAD_INPUT, "unsupported index version (this retrace reads %d)",
                         INDEX_VERSION);
    *goldens_out = cJSON_GetObjectItemCaseSensitive(root, "goldens");
    if (!cJSON_IsArray(*goldens_out))
        return rt_errorf(RT_ERR_BAD_INPUT, "\"goldens\" must be an array");
    return rt_ok_status();
}

static rt_status import_all(struct rt_store *store, const char *dir, const cJSON *goldens,
                            struct rt_store_io_counts *counts)
{
    int i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, goldens) {
        struct index_entry e;
        RT_TRY(rt_status_wrap(parse_entry(item, &e), INDEX_NAME " entry %d", i));
        RT_TRY(import_entry(store, dir, &e, counts));
        i++;
    }
    return rt_ok_status();
}

rt_status rt_store_import_goldens(struct rt_store *store, const char *dir,
                                  struct rt_store_io_counts *counts_out)
{
    memset(counts_out, 0, sizeof *counts_out);
    char path[4096];
    snprintf(path, sizeof path, "%s/" INDEX_NAME, dir);
    char *text = NULL;
    size_t size = 0;
    RT_TRY(read_whole_file(path, MAX_INDEX_BYTES, &text, &size));
    cJSON *root = cJSON_ParseWithLength(text, size);
    rt_status s = rt_ok_status();
    const cJSON *goldens = NULL;
    if (!root)
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s: not valid JSON", path);
    else
        s = rt_status_wrap(check_header(root, &goldens), "%s", path);
    /* One transaction: a bad entry anywhere leaves the store as it was. */
    if (rt_ok(&s))
        s = rt_store_tx_begin(store);
    if (rt_ok(&s)) {
        s = import_all(store, dir, goldens, counts_out);
        s = rt_store_tx_end(store, s);
    }
    if (!rt_ok(&s))
        memset(counts_out, 0, sizeof *counts_out);
    cJSON_Delete(root);
    free(text);
    return s;
}
