/*
 * store/store_diagnosis.c — a failing result's diagnosis (store_diagnosis.h,
 * docs/FORMATS.md section 7.4): one `diagnoses` row per result and its
 * images by role in `diagnosis_images`, the bytes in schema 7's `images`
 * once per content hash. The schema's triggers (migration 8) keep images
 * that a diagnosis names and drop those its removal leaves unnamed.
 */
#include "store_diagnosis.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

static const char *const outcome_names[RT_DIAGNOSIS_OUTCOMES] = {"diverged", "none", "no-draws", "error"};
static const char *const role_names[RT_DIAGNOSIS_ROLES] = {"before_test", "after_test", "before_reference",
                                                            "after_reference", "diff"};

const char *rt_diagnosis_outcome_name(enum rt_diagnosis_outcome o)
{
    return (unsigned)o < RT_DIAGNOSIS_OUTCOMES ? outcome_names[o] : "error";
}

bool rt_diagnosis_outcome_parse(const char *name, enum rt_diagnosis_outcome *out)
{
    for (int i = 0; name && i < RT_DIAGNOSIS_OUTCOMES; i++)
        if (!strcmp(name, outcome_names[i])) {
            *out = (enum rt_diagnosis_outcome)i;
            return true;
        }
    return false;
}

const char *rt_diagnosis_role_name(enum rt_diagnosis_role r)
{
    return (unsigned)r < RT_DIAGNOSIS_ROLES ? role_names[r] : "diff";
}

bool rt_diagnosis_role_parse(const char *name, enum rt_diagnosis_role *out)
{
    for (int i = 0; name && i < RT_DIAGNOSIS_ROLES; i++)
        if (!strcmp(name, role_names[i])) {
            *out = (enum rt_diagnosis_role)i;
            return true;
        }
    return false;
}

static const char sql_result_find[] =
    "SELECT r.id, EXISTS (SELECT 1 FROM diagnoses d WHERE d.result_id = r.id) FROM results r"
    " JOIN traces t ON t.id = r.trace_id"
    " WHERE t.name = ?2 AND r.run_id = ?1 AND r.configuration = ?3 AND r.frame = ?4"
    /* the run's start (as results keep it) makes this one seek in results_by_trace, not a walk
     * over a year of the trace's results */
    "   AND r.run_start = (SELECT coalesce(unixepoch(started_at), 0) FROM runs WHERE id = ?1)";
static const char sql_diagnosis_delete[] = "DELETE FROM diagnoses WHERE result_id = ?1";
static const char sql_diagnosis_insert[] =
    "INSERT INTO diagnoses (result_id, reference, outcome, draws, replays, draw, call, command, pipeline,"
    " target, shaders, ssim, delta_e, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
static const char sql_role_insert[] = "INSERT INTO diagnosis_images (result_id, role, image_id) VALUES (?1, ?2, ?3)";
static const char sql_diagnosis_get[] =
    "SELECT reference, outcome, draws, replays, draw, call, command, pipeline, target, shaders, ssim, delta_e,"
    " message, diagnosed_at FROM diagnoses WHERE result_id = ?1";
static const char sql_roles_get[] = "SELECT role FROM diagnosis_images WHERE result_id = ?1";
static const char sql_image_get[] =
    "SELECT i.png, i.hash FROM diagnosis_images d JOIN images i ON i.id = d.image_id"
    " WHERE d.result_id = ?1 AND d.role = ?2";
static const char sql_run_diagnoses[] =
    "SELECT d.result_id, d.outcome, d.draw, d.draws, d.command FROM results r"
    " JOIN diagnoses d ON d.result_id = r.id WHERE r.run_id = ?1 ORDER BY r.id LIMIT ?2 OFFSET ?3";

static void bind_text(sqlite3_stmt *stmt, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(stmt, i, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(stmt, i);
}

static void bind_count(sqlite3_stmt *stmt, int i, int64_t v, int64_t none)
{
    if (v == none)
        sqlite3_bind_null(stmt, i);
    else
        sqlite3_bind_int64(stmt, i, v);
}

static void bind_real(sqlite3_stmt *stmt, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(stmt, i, v);
    else
        sqlite3_bind_null(stmt, i);
}

/* The result's id (0 = none) and whether it has a diagnosis already. */
static rt_status find_result(struct rt_store *store, int64_t run_id, const char *trace, const char *config,
                             uint32_t frame, int64_t *id_out, bool *has_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_result_find, &stmt));
    sqlite3_bind_int64(stmt, 1, run_id);
    sqlite3_bind_text(stmt, 2, trace, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, config ? config : "default", -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, frame);
    int rc = sqlite3_step(stmt);
    *id_out = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    *has_out = rc == SQLITE_ROW && sqlite3_column_int(stmt, 1);
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? rt_ok_status()
                                                 : rt_store_sql_error(store, rc, "finding a diagnosed result");
}

static rt_status insert_row(struct rt_store *store, int64_t result_id, const struct rt_diagnosis *d)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_diagnosis_insert, &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    sqlite3_bind_text(stmt, 2, d->reference ? d->reference : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, rt_diagnosis_outcome_name(d->outcome), -1, SQLITE_STATIC);
    bind_count(stmt, 4, d->draws, -1);
    bind_count(stmt, 5, d->replays, -1);
    bind_count(stmt, 6, d->draw, 0);
    bind_count(stmt, 7, d->call, -1);
    bind_text(stmt, 8, d->command);
    bind_text(stmt, 9, d->pipeline);
    bind_text(stmt, 10, d->target);
    bind_text(stmt, 11, d->shaders);
    bind_real(stmt, 12, d->ssim);
    bind_real(stmt, 13, d->delta_e);
    sqlite3_bind_text(stmt, 14, d->message ? d->message : "", -1, SQLITE_STATIC);
    return rt_store_exec_stmt(store, stmt, "recording a diagnosis");
}

static rt_status put_tx(struct rt_store *store, int64_t result_id, const struct rt_diagnosis *d)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_diagnosis_delete, &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    RT_TRY(rt_store_exec_stmt(store, stmt, "replacing a diagnosis"));
    RT_TRY(insert_row(store, result_id, d));
    for (int role = 0; role < RT_DIAGNOSIS_ROLES; role++) {
        if (!d->png[role] || !d->png_size[role])
            continue;
        int64_t image = 0;
        RT_TRY(rt_store_image_id(store, d->png[role], d->png_size[role], &image));
        RT_TRY(rt_store_stmt(store, sql_role_insert, &stmt));
        sqlite3_bind_int64(stmt, 1, result_id);
        sqlite3_bind_text(stmt, 2, role_names[role], -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 3, image);
        RT_TRY(rt_store_exec_stmt(store, stmt, "naming a diagnosis image"));
    }
    return rt_ok_status();
}

rt_status rt_store_diagnosis_put(struct rt_store *store, int64_t run_id, const char *trace,
                                 const char *configuration, uint32_t frame, const struct rt_diagnosis *d,
                                 bool replace, int64_t *result_out)
{
    *result_out = 0;
    if ((unsigned)d->outcome >= RT_DIAGNOSIS_OUTCOMES)
        return rt_errorf(RT_ERR_USAGE, "unknown diagnosis outcome %d", (int)d->outcome);
    RT_TRY(rt_store_tx_begin(store));
    int64_t id = 0;
    bool has = false;
    rt_status s = find_result(store, run_id, trace, configuration, frame, &id, &has);
    if (rt_ok(&s) && id && (replace || !has))
        s = put_tx(store, id, d);
    if (rt_ok(&s))
        *result_out = id;
    return rt_store_tx_end(store, s);
}

/* Column I as a JSON number, null when NULL. */
static cJSON *column_number(sqlite3_stmt *stmt, int i)
{
    return sqlite3_column_type(stmt, i) == SQLITE_NULL ? cJSON_CreateNull()
                                                       : cJSON_CreateNumber(sqlite3_column_double(stmt, i));
}

static cJSON *column_string(sqlite3_stmt *stmt, int i)
{
    const unsigned char *t = sqlite3_column_text(stmt, i);
    return t ? cJSON_CreateString((const char *)t) : cJSON_CreateNull();
}

/* The row of sql_diagnosis_get as the API's object (images added by the caller). */
static cJSON *row_json(sqlite3_stmt *stmt, int64_t result_id)
{
    static const char *const keys[] = {"reference", "outcome", "draws", "replays", "draw", "call", "command",
                                       "pipeline", "target", "shaders", "ssim", "delta_e", "message",
                                       "diagnosed_at"};
    static const bool numeric[] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0};
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddNumberToObject(o, "result", (double)result_id)) {
        cJSON_Delete(o);
        return NULL;
    }
    for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++) {
        cJSON *v;
        if (i == 9) { /* shaders: stored as JSON text */
            const unsigned char *t = sqlite3_column_text(stmt, i);
            v = t ? cJSON_Parse((const char *)t) : NULL;
            v = v ? v : cJSON_CreateArray();
        } else {
            v = numeric[i] ? column_number(stmt, i) : column_string(stmt, i);
        }
        if (!v || !cJSON_AddItemToObject(o, keys[i], v)) {
            cJSON_Delete(v);
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}

/* "images": {ROLE: URL or null} for the roles RESULT_ID has. */
static rt_status add_images(struct rt_store *store, int64_t result_id, cJSON *o)
{
    cJSON *images = cJSON_AddObjectToObject(o, "images");
    if (!images)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    bool has[RT_DIAGNOSIS_ROLES] = {0};
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_roles_get, &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    int rc;
    enum rt_diagnosis_role role;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        if (rt_diagnosis_role_parse((const char *)sqlite3_column_text(stmt, 0), &role))
            has[role] = true;
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_DONE)
        return rt_store_sql_error(store, rc, "listing a diagnosis's images");
    for (int i = 0; i < RT_DIAGNOSIS_ROLES; i++) {
        char url[96];
        snprintf(url, sizeof url, "/api/results/%lld/diagnosis/%s", (long long)result_id, role_names[i]);
        if (!cJSON_AddItemToObject(images, role_names[i], has[i] ? cJSON_CreateString(url) : cJSON_CreateNull()))
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    return rt_ok_status();
}

rt_status rt_store_diagnosis_json(struct rt_store *store, int64_t result_id, cJSON **out)
{
    *out = NULL;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_diagnosis_get, &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    int rc = sqlite3_step(stmt);
    cJSON *o = rc == SQLITE_ROW ? row_json(stmt, result_id) : NULL;
    rt_store_stmt_done(stmt);
    if (rc == SQLITE_DONE)
        return rt_ok_status();
    if (rc != SQLITE_ROW)
        return rt_store_sql_error(store, rc, "reading a diagnosis");
    if (!o)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status s = add_images(store, result_id, o);
    if (!rt_ok(&s)) {
        cJSON_Delete(o);
        return s;
    }
    *out = o;
    return rt_ok_status();
}

rt_status rt_store_diagnosis_result_exists(struct rt_store *store, int64_t result_id, bool *exists_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, "SELECT 1 FROM results WHERE id = ?1", &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    int rc = sqlite3_step(stmt);
    *exists_out = rc == SQLITE_ROW;
    rt_store_stmt_done(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, "finding a result");
}

rt_status rt_store_diagnosis_image(struct rt_store *store, int64_t result_id, enum rt_diagnosis_role role,
                                   uint8_t **png_out, size_t *size_out, char hash_out[RT_STORE_HASH_HEX + 1])
{
    *png_out = NULL, *size_out = 0, hash_out[0] = '\0';
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_image_get, &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    sqlite3_bind_text(stmt, 2, rt_diagnosis_role_name(role), -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    rt_status s = rt_ok_status();
    if (rc == SQLITE_ROW) {
        size_t n = (size_t)sqlite3_column_bytes(stmt, 0);
        const unsigned char *hash = sqlite3_column_text(stmt, 1);
        *png_out = malloc(n ? n : 1);
        if (*png_out) {
            memcpy(*png_out, sqlite3_column_blob(stmt, 0), n);
            *size_out = n;
            snprintf(hash_out, RT_STORE_HASH_HEX + 1, "%s", hash ? (const char *)hash : "");
        } else {
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory");
        }
    } else if (rc != SQLITE_DONE) {
        s = rt_store_sql_error(store, rc, "reading a diagnosis image");
    }
    rt_store_stmt_done(stmt);
    return s;
}

static cJSON *run_row(sqlite3_stmt *stmt)
{
    cJSON *o = cJSON_CreateObject();
    if (o && (!cJSON_AddNumberToObject(o, "result", (double)sqlite3_column_int64(stmt, 0)) ||
              !cJSON_AddItemToObject(o, "outcome", column_string(stmt, 1)) ||
              !cJSON_AddItemToObject(o, "draw", column_number(stmt, 2)) ||
              !cJSON_AddItemToObject(o, "draws", column_number(stmt, 3)) ||
              !cJSON_AddItemToObject(o, "command", column_string(stmt, 4)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

rt_status rt_store_run_diagnoses(struct rt_store *store, int64_t run_id, uint32_t limit, uint32_t offset,
                                 cJSON **out)
{
    *out = cJSON_CreateArray();
    if (!*out)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    sqlite3_stmt *stmt = NULL;
    rt_status s = rt_store_stmt(store, sql_run_diagnoses, &stmt);
    if (rt_ok(&s)) {
        sqlite3_bind_int64(stmt, 1, run_id);
        sqlite3_bind_int64(stmt, 2, limit);
        sqlite3_bind_int64(stmt, 3, offset);
        s = rt_store_rows_json(store, stmt, run_row, *out, "listing a run's diagnoses");
    }
    if (!rt_ok(&s)) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return s;
}
