/*
 * store/store_dash_review.c — the dashboard's image reads and its two review
 * writes, approve and mark known-bad (see store.h).
 */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sql_golden_png[] = "SELECT png, hash FROM goldens WHERE id = ?1";
static const char sql_actual_png[] =
    "SELECT i.png, i.hash FROM results r JOIN images i ON i.id = r.actual_image WHERE r.id = ?1";
static const char sql_diff_png[] =
    "SELECT i.png, i.hash FROM results r JOIN images i ON i.id = r.diff_image WHERE r.id = ?1";

/* Copies column 0's blob and its hash (column 1, or computed) out of the row. */
static rt_status copy_image(sqlite3_stmt *stmt, uint8_t **png_out, size_t *size_out,
                            char *etag_out)
{
    int bytes = sqlite3_column_bytes(stmt, 0);
    if (bytes <= 0)
        return rt_ok_status(); /* no such image: *png_out stays NULL */
    if (!(*png_out = malloc((size_t)bytes)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory reading an image");
    memcpy(*png_out, sqlite3_column_blob(stmt, 0), (size_t)bytes);
    *size_out = (size_t)bytes;
    const unsigned char *hash = sqlite3_column_text(stmt, 1);
    if (hash && strlen((const char *)hash) == RT_STORE_HASH_HEX)
        memcpy(etag_out, hash, RT_STORE_HASH_HEX + 1);
    else /* result images carry no stored hash; XXH3 is far cheaper than sending them */
        rt_store_hash_hex(*png_out, *size_out, etag_out);
    return rt_ok_status();
}

rt_status rt_store_dash_image(struct rt_store *store, enum rt_dash_image which, int64_t id,
                              uint8_t **png_out, size_t *size_out,
                              char etag_out[RT_STORE_HASH_HEX + 1])
{
    *png_out = NULL;
    *size_out = 0;
    etag_out[0] = '\0';
    const char *sql = which == RT_DASH_IMAGE_GOLDEN   ? sql_golden_png
                      : which == RT_DASH_IMAGE_ACTUAL ? sql_actual_png
                                                      : sql_diff_png;
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql, &stmt));
    sqlite3_bind_int64(stmt, 1, id);
    int rc = sqlite3_step(stmt);
    rt_status s = rt_ok_status();
    if (rc == SQLITE_ROW)
        s = copy_image(stmt, png_out, size_out, etag_out);
    else if (rc != SQLITE_DONE)
        s = rt_store_sql_error(store, rc, "reading an image");
    rt_store_stmt_done(stmt);
    return s;
}

/* ---- approve / known-bad ------------------------------------------------- */

static const char sql_result_image[] =
    "SELECT t.name, r.frame, i.png, coalesce(u.device_key, '') FROM results r"
    " JOIN traces t ON t.id = r.trace_id JOIN runs u ON u.id = r.run_id"
    " LEFT JOIN images i ON i.id = r.actual_image WHERE r.id = ?1";

/* Reads result RESULT_ID's trace, frame, actual image and its run's device
 * key (into out->device_key); *found false if unknown. */
static rt_status read_result_image(struct rt_store *store, int64_t result_id,
                                   struct rt_golden *out, bool *found)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_result_image, &stmt));
    sqlite3_bind_int64(stmt, 1, result_id);
    int rc = sqlite3_step(stmt);
    *found = rc == SQLITE_ROW;
    rt_status s = rt_ok_status();
    if (rc == SQLITE_ROW) {
        int bytes = sqlite3_column_bytes(stmt, 2);
        out->trace = rt_store_column_strdup(stmt, 0);
        out->frame = (uint32_t)sqlite3_column_int64(stmt, 1);
        out->device_key = rt_store_column_strdup(stmt, 3);
        if (bytes > 0 && (out->png = malloc((size_t)bytes))) {
            memcpy(out->png, sqlite3_column_blob(stmt, 2), (size_t)bytes);
            out->png_size = (size_t)bytes;
        }
        if (!out->trace || !out->device_key || (bytes > 0 && !out->png))
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory reading result %lld",
                          (long long)result_id);
        else if (bytes <= 0)
            s = rt_errorf(RT_ERR_BAD_INPUT, "result %lld has no actual image",
                          (long long)result_id);
        else if (out->frame == 0)
            s = rt_errorf(RT_ERR_BAD_INPUT, "result %lld is a trace-level result, not a frame",
                          (long long)result_id);
    } else if (rc != SQLITE_DONE) {
        s = rt_store_sql_error(store, rc, "reading a result");
    }
    rt_store_stmt_done(stmt);
    return s;
}

static rt_status review(struct rt_store *store, const struct rt_dash_review *r,
                        struct rt_dash_reviewed *out)
{
    struct rt_golden actual = {0};
    bool found = false;
    rt_status s = read_result_image(store, r->result_id, &actual, &found);
    if (rt_ok(&s) && found) {
        /* Scope: the result's own device unless any device was asked for. */
        const char *key = r->device_key ? r->device_key : r->any_device ? "" : actual.device_key;
        snprintf(out->device_key, sizeof out->device_key, "%s", key);
        struct rt_golden_new g = {
            .trace = actual.trace, .frame = actual.frame, .device_key = out->device_key,
            .png = actual.png, .png_size = actual.png_size, .approved_by = r->by,
            .from_result = r->result_id, .status = r->status};
        struct rt_golden_put put = {
            .in = &g, .action = r->status == RT_GOLDEN_ACCEPTED ? "approved" : "known-bad",
            .force_status = true, .set_approver = true};
        s = rt_store_golden_put_tx(store, &put);
        out->golden_id = put.id;
        out->event_id = put.event_id;
    }
    rt_golden_finish(&actual);
    return s;
}

rt_status rt_store_dash_review_by(struct rt_store *store, const struct rt_dash_review *r,
                                  struct rt_dash_reviewed *out)
{
    memset(out, 0, sizeof *out);
    RT_TRY(rt_store_tx_begin(store));
    return rt_store_tx_end(store, review(store, r, out));
}

rt_status rt_store_dash_review(struct rt_store *store, int64_t result_id,
                               const char *device_key, const char *approved_by,
                               enum rt_golden_status status, int64_t *golden_id_out)
{
    struct rt_dash_review r = {.result_id = result_id, .device_key = device_key ? device_key : "",
                               .by = approved_by, .status = status};
    struct rt_dash_reviewed out;
    rt_status s = rt_store_dash_review_by(store, &r, &out);
    *golden_id_out = rt_ok(&s) ? out.golden_id : 0;
    return s;
}

bool rt_store_status_busy(const rt_status *s)
{
    /* rt_store_rc_status's wording for SQLITE_BUSY and SQLITE_LOCKED. */
    return s->code == RT_ERR_BAD_INPUT && strstr(s->msg, "database is locked");
}
