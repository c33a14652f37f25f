/*
 * bench/store_fill.c — builds a golden store the size of a farm's months of
 * nightly runs, for bench/store_scale.sh: RESULTS results in runs of
 * RUN_SIZE (200 traces x 5 frames of one configuration on one device),
 * over 500 traces, 3 configurations and 40 devices, one run per device a
 * night. 99% pass; a regression lasts 20 nights of a series (trace x frame
 * x configuration x device) with one broken image, so failures carry
 * images that repeat (kept once each, as the store keeps them); a few
 * flaky, crashed, timed-out and new results; labels nightly, weekly and
 * ci; goldens for every frame, a few approved from failures, expectations.
 *
 * Fast because it writes rows straight through SQLite in one transaction,
 * with the results' indexes and triggers dropped meanwhile and made again
 * after (their SQL read back from the schema retrace made, so they are the
 * real ones), and run_counts filled in one GROUP BY. The schema comes from
 * rt_store_open, so the store is exactly what retrace would have written.
 * Deterministic. Usage: store_fill DB RESULTS [RUN_SIZE]
 * (run reports are not made: see bench/README.md, "Store at scale").
 * A hand-written program: it makes data, not code, so it lives in bench/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "png_io.h"
#include "store_internal.h"

#define TRACES 500
#define FRAMES 5
#define CONFIGS 3
#define DEVICES 40
#define TRACES_PER_RUN_MAX TRACES
#define REGRESSION_NIGHTS 20
#define BASE_TIME 1764547200 /* 2025-12-01T00:00:00Z */

static const char *const config_names[CONFIGS] = {"default", "zink", "validation"};

static void die(const char *what, sqlite3 *db)
{
    fprintf(stderr, "store_fill: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
    exit(1);
}

static void exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "store_fill: %s: %s\n", sql, err);
        exit(1);
    }
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
        die(sql, db);
    return stmt;
}

static void step_done(sqlite3 *db, sqlite3_stmt *stmt)
{
    int rc = sqlite3_step(stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        die("inserting", db);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static void iso_time(long t, char out[32])
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void device_key(int d, char out[32])
{
    snprintf(out, 32, "%s:%04x/%d.%d", d % 3 ? "10de" : "1002", 0x2300 + d, 580 + d % 4, d % 7);
}

/* A frame-like PNG (a gradient and a block placed by KEY): a few KB, each KEY its own. */
static void frame_png(uint64_t key, uint8_t **png, size_t *size)
{
    struct rt_image img = {0};
    rt_status s = rt_image_init(&img, 96, 72);
    if (!rt_ok(&s))
        die("image", NULL);
    uint64_t h = mix(key);
    for (uint32_t y = 0; y < 72; y++)
        for (uint32_t x = 0; x < 96; x++) {
            uint8_t *p = img.rgba + 4 * (y * 96 + x);
            bool block = x / 8 == (h & 7) + 2 && y / 8 == ((h >> 3) & 7);
            p[0] = (uint8_t)(x * 2 + (h >> 8)), p[1] = (uint8_t)(y * 3), p[2] = block ? 255 : 90;
            p[3] = 255;
            if (((x * 7 + y * 13) ^ (uint32_t)(h >> 16)) % 17 == 0)
                p[1] ^= (uint8_t)(h >> 24); /* some detail, so it compresses as a frame does */
        }
    s = rt_png_write_memory(&img, png, size);
    rt_image_finish(&img);
    if (!rt_ok(&s))
        die("png", NULL);
}

struct gen {
    sqlite3 *db;
    sqlite3_stmt *run, *result, *image, *image_id, *golden_review;
    char golden_hash[TRACES * FRAMES][RT_STORE_HASH_HEX + 1];
    long trace_id0;
    size_t images, approvals;
};

/* The id of the image for KEY, made when new. */
static int64_t image_of(struct gen *g, uint64_t key, char hash[RT_STORE_HASH_HEX + 1])
{
    uint8_t *png = NULL;
    size_t size = 0;
    frame_png(key, &png, &size);
    rt_store_hash_hex(png, size, hash);
    sqlite3_bind_text(g->image_id, 1, hash, -1, SQLITE_STATIC);
    int64_t id = sqlite3_step(g->image_id) == SQLITE_ROW ? sqlite3_column_int64(g->image_id, 0) : 0;
    sqlite3_reset(g->image_id);
    if (!id) {
        sqlite3_bind_text(g->image, 1, hash, -1, SQLITE_STATIC);
        sqlite3_bind_int64(g->image, 2, (sqlite3_int64)size);
        sqlite3_bind_blob(g->image, 3, png, (int)size, SQLITE_STATIC);
        step_done(g->db, g->image);
        id = sqlite3_last_insert_rowid(g->db);
        g->images++;
    }
    free(png);
    return id;
}

static void setup(struct gen *g)
{
    sqlite3 *db = g->db;
    exec(db, "BEGIN");
    sqlite3_stmt *t = prepare(db, "INSERT INTO traces (name) VALUES (?1)");
    for (int i = 0; i < TRACES; i++) {
        char name[64];
        snprintf(name, sizeof name, "game-%03d", i);
        sqlite3_bind_text(t, 1, name, -1, SQLITE_TRANSIENT);
        step_done(db, t);
        if (i == 0)
            g->trace_id0 = (long)sqlite3_last_insert_rowid(db);
    }
    sqlite3_finalize(t);
    /* One accepted golden per frame, device-independent. */
    sqlite3_stmt *gold = prepare(db, "INSERT INTO goldens (id, trace_id, frame, device_key, status,"
                                     " png, hash, size, width, height, approved_by, approved_at)"
                                     " VALUES (?1, ?2, ?3, '', 'accepted', ?4, ?5, ?6, 96, 72,"
                                     " 'farm', '2025-11-30T00:00:00Z')");
    for (int i = 0; i < TRACES * FRAMES; i++) {
        uint8_t *png = NULL;
        size_t size = 0;
        frame_png(0x60000000ull + (uint64_t)i, &png, &size);
        rt_store_hash_hex(png, size, g->golden_hash[i]);
        sqlite3_bind_int64(gold, 1, 1000000 + i);
        sqlite3_bind_int64(gold, 2, g->trace_id0 + i / FRAMES);
        sqlite3_bind_int(gold, 3, i % FRAMES + 1);
        sqlite3_bind_blob(gold, 4, png, (int)size, SQLITE_TRANSIENT);
        sqlite3_bind_text(gold, 5, g->golden_hash[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(gold, 6, (sqlite3_int64)size);
        step_done(db, gold);
        free(png);
    }
    sqlite3_finalize(gold);
    sqlite3_stmt *s = prepare(db, "INSERT INTO series (id, trace_id, frame, configuration,"
                                  " device_key) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (int tr = 0; tr < TRACES; tr++)
        for (int f = 0; f < FRAMES; f++)
            for (int c = 0; c < CONFIGS; c++)
                for (int d = 0; d < DEVICES; d++) {
                    char key[32];
                    device_key(d, key);
                    sqlite3_bind_int64(s, 1, (((tr * FRAMES + f) * CONFIGS + c) * DEVICES + d) + 1);
                    sqlite3_bind_int64(s, 2, g->trace_id0 + tr);
                    sqlite3_bind_int(s, 3, f + 1);
                    sqlite3_bind_text(s, 4, config_names[c], -1, SQLITE_STATIC);
                    sqlite3_bind_text(s, 5, key, -1, SQLITE_TRANSIENT);
                    step_done(db, s);
                }
    sqlite3_finalize(s);
    /* Expectations: one trace in 25 is flaky on one device, one in 50 skipped everywhere. */
    sqlite3_stmt *e = prepare(db, "INSERT INTO expectations (trace_id, device_key, kind, note,"
                                  " set_by) VALUES (?1, ?2, ?3, 'known on this driver', 'farm')");
    for (int tr = 0; tr < TRACES; tr += 25) {
        char key[32];
        device_key(tr % DEVICES, key);
        sqlite3_bind_int64(e, 1, g->trace_id0 + tr);
        sqlite3_bind_text(e, 2, tr % 50 ? key : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(e, 3, tr % 50 ? "flaky" : "skip", -1, SQLITE_STATIC);
        step_done(db, e);
    }
    sqlite3_finalize(e);
}

static const char sql_result[] =
    "INSERT INTO results (run_id, trace_id, frame, status, ssim, ssim_worst_tile, psnr,"
    " threshold, diff_pixels, max_diff, golden_id, replay_ms, attempts, message,"
    " configuration, tile_threshold, golden_hash, expected, regression, actual_hash,"
    " actual_image, diff_image, series_id, run_start, delta_e, colour_threshold)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0.995, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 0.98, ?15,"
    " 'none', ?16, ?17, ?18, ?19, ?20, ?21, ?22, 3.0)";

/* A result's status: a series regresses for REGRESSION_NIGHTS at a time. */
static const char *status_of(uint64_t series, int night, uint64_t salt)
{
    uint64_t h = mix(series * 1000003u + (uint64_t)(night / REGRESSION_NIGHTS)) % 10000;
    if (h < 62)
        return "fail";
    if (h < 68)
        return "new";
    if (h < 74)
        return "crash";
    if (h < 77)
        return "timeout";
    if (h < 80)
        return "error";
    return mix(salt) % 10000 < 20 ? "flaky" : "pass";
}

static void one_result(struct gen *g, int64_t run_id, int night, int device, int config,
                       int tr, int f, long start, uint64_t salt, bool *failed)
{
    sqlite3_stmt *r = g->result;
    uint64_t series = (uint64_t)(((tr * FRAMES + f) * CONFIGS + config) * DEVICES + device) + 1;
    const char *status = status_of(series, night, salt);
    bool pass = !strcmp(status, "pass") || !strcmp(status, "flaky");
    bool fail = !strcmp(status, "fail"), fresh = !strcmp(status, "new");
    *failed = *failed || !pass;
    double noise = (double)(mix(salt ^ 0x5bd1e995) % 1000) / 1e6;
    sqlite3_bind_int64(r, 1, run_id);
    sqlite3_bind_int64(r, 2, g->trace_id0 + tr);
    sqlite3_bind_int(r, 3, f + 1);
    sqlite3_bind_text(r, 4, status, -1, SQLITE_STATIC);
    if (pass || fail) {
        sqlite3_bind_double(r, 5, fail ? 0.97 - noise * 10 : 0.9995 + noise / 2);
        sqlite3_bind_double(r, 6, fail ? 0.81 : 0.992 + noise * 5);
        sqlite3_bind_double(r, 7, fail ? 28.5 : 48 + noise * 1000);
        sqlite3_bind_int(r, 8, fail ? 1843 : (int)(noise * 1e4));
        sqlite3_bind_int(r, 9, fail ? 211 : (int)(noise * 1e4) % 9);
        sqlite3_bind_int(r, 21, fail ? 9 : 1);
    }
    if (!fresh && (pass || fail)) {
        sqlite3_bind_int64(r, 10, 1000000 + tr * FRAMES + f);
        sqlite3_bind_text(r, 15, g->golden_hash[tr * FRAMES + f], -1, SQLITE_STATIC);
    }
    sqlite3_bind_double(r, 11, 20 + (double)(mix(salt) % 4000) / 100);
    sqlite3_bind_int(r, 12, !strcmp(status, "flaky") ? 2 : 1);
    if (!pass)
        sqlite3_bind_text(r, 13, fail ? "below the SSIM thresholds (mean 0.995, worst tile 0.98)"
                                 : fresh ? "no golden for this frame"
                                         : "replay failed: VK_ERROR_DEVICE_LOST at call 48211",
                          -1, SQLITE_STATIC);
    sqlite3_bind_text(r, 14, config_names[config], -1, SQLITE_STATIC);
    sqlite3_bind_int(r, 16, !pass);
    char hash[RT_STORE_HASH_HEX + 1], pixels[RT_STORE_HASH_HEX + 1];
    if (fail || fresh) {
        uint64_t key = series * 64 + (uint64_t)(night / REGRESSION_NIGHTS);
        snprintf(pixels, sizeof pixels, "%016llx%016llx", (unsigned long long)mix(key),
                 (unsigned long long)mix(key + 1));
        sqlite3_bind_text(r, 17, pixels, -1, SQLITE_STATIC);
        sqlite3_bind_int64(r, 18, image_of(g, key * 2, hash));
        if (fail)
            sqlite3_bind_int64(r, 19, image_of(g, key * 2 + 1, hash));
    }
    sqlite3_bind_int64(r, 20, (sqlite3_int64)series);
    sqlite3_bind_int64(r, 22, start);
    step_done(g->db, r);
    /* One failure in 40 is approved from the dashboard (a golden made from it). */
    if (fail && mix(salt + 7) % 40 == 0) {
        char key[32];
        device_key(device, key);
        int64_t result_id = sqlite3_last_insert_rowid(g->db);
        image_of(g, (series * 64 + (uint64_t)(night / REGRESSION_NIGHTS)) * 2, hash);
        sqlite3_stmt *a = g->golden_review;
        sqlite3_bind_int64(a, 1, g->trace_id0 + tr);
        sqlite3_bind_int(a, 2, f + 1);
        sqlite3_bind_text(a, 3, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(a, 4, hash, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(a, 5, result_id);
        step_done(g->db, a);
        g->approvals++;
    }
}

static void one_run(struct gen *g, long n, int run_size)
{
    int device = (int)(n % DEVICES), night = (int)(n / DEVICES);
    int config = night % CONFIGS;
    long start = BASE_TIME + night * 86400L + device * 97L;
    char started[32], finished[32], key[32], uuid[40], shard[16];
    iso_time(start, started);
    iso_time(start + 3300 + (long)(mix((uint64_t)n) % 900), finished);
    device_key(device, key);
    snprintf(uuid, sizeof uuid, "gen-%08lx-%04x", n, (unsigned)(mix((uint64_t)n) & 0xffff));
    const char *label = night % 7 == 6 ? "weekly" : n % 10 == 3 ? "ci" : "nightly";
    snprintf(shard, sizeof shard, "%d/%d", device % 4 + 1, 4);
    sqlite3_stmt *r = g->run;
    const char *text[] = {started, "farm-runner", key, key, label, uuid, shard, config_names[config]};
    for (int i = 0; i < 8; i++)
        sqlite3_bind_text(r, i + 1, text[i], -1, SQLITE_STATIC);
    step_done(g->db, r);
    int64_t run_id = sqlite3_last_insert_rowid(g->db);
    bool failed = false;
    int first = (night * 200 + device * 13) % TRACES;
    for (int k = 0; k < run_size; k++) {
        int tr = (first + k / FRAMES) % TRACES, f = k % FRAMES;
        one_result(g, run_id, night, device, config, tr, f, start, (uint64_t)n * 100003u + (uint64_t)k,
                   &failed);
    }
    sqlite3_stmt *fin = prepare(g->db, "UPDATE runs SET finished_at = ?2, outcome = ?3 WHERE id = ?1");
    sqlite3_bind_int64(fin, 1, run_id);
    sqlite3_bind_text(fin, 2, finished, -1, SQLITE_STATIC);
    sqlite3_bind_text(fin, 3, failed ? "failed" : "passed", -1, SQLITE_STATIC);
    step_done(g->db, fin);
    sqlite3_finalize(fin);
}

/* The results' indexes and triggers as retrace made them; dropped for the
 * bulk insert, made again after. */
struct schema_saved {
    char *sql[32];
    size_t count;
};

static void drop_result_indexes(sqlite3 *db, struct schema_saved *saved)
{
    sqlite3_stmt *q = prepare(db, "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'results'"
                                  " AND type IN ('index', 'trigger') AND sql IS NOT NULL");
    char drops[32][160];
    size_t n = 0;
    while (sqlite3_step(q) == SQLITE_ROW && n < 32) {
        snprintf(drops[n], sizeof drops[n], "DROP %s %s", sqlite3_column_text(q, 0),
                 sqlite3_column_text(q, 1));
        saved->sql[n++] = strdup((const char *)sqlite3_column_text(q, 2));
    }
    sqlite3_finalize(q);
    saved->count = n;
    for (size_t i = 0; i < n; i++)
        exec(db, drops[i]);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: store_fill DB RESULTS [RUN_SIZE]\n");
        return 2;
    }
    long results = atol(argv[2]);
    int run_size = argc > 3 ? atoi(argv[3]) : 1000;
    if (results <= 0 || run_size <= 0 || run_size > TRACES_PER_RUN_MAX * FRAMES) {
        fprintf(stderr, "store_fill: RESULTS > 0 and RUN_SIZE 1..%d\n", TRACES_PER_RUN_MAX * FRAMES);
        return 2;
    }
    remove(argv[1]);
    struct rt_store *store = NULL;
    rt_status s = rt_store_open(argv[1], RT_STORE_CREATE, &store);
    if (!rt_ok(&s)) {
        fprintf(stderr, "store_fill: %s\n", s.msg);
        return 1;
    }
    rt_store_close(store);
    static struct gen g;
    if (sqlite3_open(argv[1], &g.db) != SQLITE_OK)
        die("opening", g.db);
    exec(g.db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144");
    struct schema_saved saved = {0};
    drop_result_indexes(g.db, &saved);
    setup(&g);
    g.run = prepare(g.db, "INSERT INTO runs (started_at, host, device, device_key, label, uuid,"
                          " shard, configurations, driver, version, workarounds)"
                          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, json_array(?8), 'NVIDIA 580.95.05',"
                          " '0.1.0', 'default')");
    g.result = prepare(g.db, sql_result);
    g.image = prepare(g.db, "INSERT INTO images (hash, size, png) VALUES (?1, ?2, ?3)");
    g.image_id = prepare(g.db, "SELECT id FROM images WHERE hash = ?1");
    g.golden_review = prepare(g.db, "INSERT OR IGNORE INTO goldens (trace_id, frame, device_key,"
                                    " status, png, hash, size, width, height, approved_by,"
                                    " from_result, approved_at) SELECT ?1, ?2, ?3, 'accepted', png,"
                                    " hash, size, 96, 72, 'reviewer', ?5, '2026-01-01T00:00:00Z'"
                                    " FROM images WHERE hash = ?4");
    long runs = (results + run_size - 1) / run_size;
    for (long n = 0; n < runs; n++) {
        long left = results - n * run_size;
        one_run(&g, n, left < run_size ? (int)left : run_size);
        if (n % 1000 == 999)
            fprintf(stderr, "store_fill: %ld of %ld runs\n", n + 1, runs);
    }
    sqlite3_finalize(g.run);
    sqlite3_finalize(g.result);
    sqlite3_finalize(g.image);
    sqlite3_finalize(g.image_id);
    sqlite3_finalize(g.golden_review);
    exec(g.db, "COMMIT");
    fprintf(stderr, "store_fill: indexes\n");
    exec(g.db, "BEGIN");
    for (size_t i = 0; i < saved.count; i++) {
        if (strstr(saved.sql[i], "TRIGGER"))
            continue;
        exec(g.db, saved.sql[i]);
    }
    exec(g.db, "INSERT INTO run_counts SELECT run_id, status, count(*) FROM results GROUP BY run_id, status");
    for (size_t i = 0; i < saved.count; i++) {
        if (strstr(saved.sql[i], "TRIGGER"))
            exec(g.db, saved.sql[i]);
        free(saved.sql[i]);
    }
    exec(g.db, "COMMIT");
    exec(g.db, "PRAGMA journal_mode = WAL");
    sqlite3_close(g.db);
    printf("%ld results in %ld runs, %zu images, %zu approved\n", results, runs, g.images,
           g.approvals);
    return 0;
}
