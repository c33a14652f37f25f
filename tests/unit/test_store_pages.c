/* Unit tests for the dashboard pages store/ writes as text
 * (store_dash_pages.c, issue 18: the run page, the runs list and a trace's
 * history are written straight from the rows): every number reads back as
 * exactly the double that was stored (cJSON printed 15 digits and kept them
 * when they came within an epsilon, so 0.9695699999999999 came back as
 * 0.96957, another double), history points come oldest first, the keys only
 * used for sorting and triage are not sent, and bytes that are no UTF-8
 * become '?'. */
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "store.h"

#define ASSERT_OK(expr)                                              \
    do {                                                             \
        rt_status s_ = (expr);                                       \
        cr_assert(rt_ok(&s_), "%s: %s", #expr, s_.msg ? s_.msg : ""); \
    } while (0)

static char tmp_root[64];

static void make_tmp(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/rt_pages_XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_root));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_tmp(void) { nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

TestSuite(pages, .init = make_tmp, .fini = remove_tmp);

/* Doubles whose 15-digit form is another double. */
static const double ssims[] = {0.9695699999999999, 0.9997045000000001, 0.1 + 0.2, 2.0 / 3.0};
static const double replay_ms = 28.240000000000002;
#define NIGHTS 3

static struct rt_store *filled_store(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/p.db", tmp_root);
    struct rt_store *store = NULL;
    ASSERT_OK(rt_store_open(path, RT_STORE_CREATE, &store));
    for (int night = 0; night < NIGHTS; night++) {
        char at[32];
        snprintf(at, sizeof at, "2026-11-0%dT02:00:00Z", night + 1);
        struct rt_run_info info = {.label = "nightly", .device_key = "dev", .started_at = at};
        int64_t run = 0;
        ASSERT_OK(rt_store_run_begin(store, &info, &run));
        struct rt_result r[4];
        for (int i = 0; i < 4; i++)
            r[i] = (struct rt_result){.frame = (uint32_t)i + 1, .status = RT_RESULT_PASS,
                                      .ssim = ssims[i], .ssim_worst_tile = NAN, .psnr = NAN,
                                      .threshold = 0.995, .replay_ms = replay_ms};
        r[0].status = RT_RESULT_FAIL;
        r[0].message = "bad \xff byte";
        ASSERT_OK(rt_store_record_trace_results(store, run, "t", r, 4));
    }
    return store;
}

static cJSON *parse(char *text, size_t len)
{
    cr_assert_not_null(text);
    cr_assert_eq(len, strlen(text));
    cJSON *json = cJSON_Parse(text);
    cr_assert_not_null(json, "%s", text);
    free(text);
    return json;
}

static double number(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_assert(cJSON_IsNumber(item), "%s", key);
    return item->valuedouble;
}

Test(pages, a_run_page_sends_each_double_exactly)
{
    struct rt_store *store = filled_store();
    char *text = NULL;
    size_t len = 0;
    ASSERT_OK(rt_store_dash_run_text(store, NIGHTS, 200, 0, &text, &len));
    cJSON *run = parse(text, len);
    cJSON *results = cJSON_GetObjectItemCaseSensitive(run, "results"), *r;
    cr_assert_eq(cJSON_GetArraySize(results), 4);
    cJSON_ArrayForEach(r, results) {
        int frame = (int)number(r, "frame");
        cr_assert(number(r, "ssim") == ssims[frame - 1], "frame %d: %.17g", frame,
                  number(r, "ssim"));
        cr_assert(number(r, "replay_ms") == replay_ms);
        cr_assert_null(cJSON_GetObjectItemCaseSensitive(r, "series_"), "sort keys are not sent");
        cr_assert_null(cJSON_GetObjectItemCaseSensitive(r, "start_"));
        cr_assert_not_null(cJSON_GetObjectItemCaseSensitive(r, "triage"));
    }
    cJSON *first = cJSON_GetArrayItem(results, 0);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(first, "status")->valuestring, "fail");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(first, "message")->valuestring, "bad ? byte");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetObjectItemCaseSensitive(first, "triage"), "state")->valuestring,
                     "still-failing");
    cr_assert_eq(number(run, "results_total"), 4);
    cr_assert_eq(number(cJSON_GetObjectItemCaseSensitive(run, "counts"), "fail"), 1);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run, "history")), NIGHTS);
    cJSON_Delete(run);
    ASSERT_OK(rt_store_dash_run_text(store, 99, 200, 0, &text, &len));
    cr_assert_null(text, "no such run: no text");
    rt_store_close(store);
}

Test(pages, history_is_oldest_first_and_exact)
{
    struct rt_store *store = filled_store();
    char *text = NULL;
    size_t len = 0;
    ASSERT_OK(rt_store_dash_history_text(store, "t", NULL, 1000, &text, &len));
    cJSON *json = parse(text, len);
    cJSON *points = cJSON_GetObjectItemCaseSensitive(json, "points"), *p;
    cr_assert_eq(cJSON_GetArraySize(points), NIGHTS * 4);
    double last_run = 0, last_frame = 0;
    cJSON_ArrayForEach(p, points) {
        double run = number(p, "run_id"), frame = number(p, "frame");
        cr_assert(run > last_run || (run == last_run && frame > last_frame), "oldest first");
        last_run = run, last_frame = frame;
        cr_assert(number(p, "ssim") == ssims[(int)frame - 1]);
        cr_assert_null(cJSON_GetObjectItemCaseSensitive(p, "start_"));
    }
    cJSON_Delete(json);
    ASSERT_OK(rt_store_dash_history_text(store, "t", "dev", 5, &text, &len));
    json = parse(text, len);
    points = cJSON_GetObjectItemCaseSensitive(json, "points");
    cr_assert_eq(cJSON_GetArraySize(points), 5, "the newest 5");
    cr_assert_eq(number(cJSON_GetArrayItem(points, 4), "run_id"), NIGHTS);
    cJSON_Delete(json);
    ASSERT_OK(rt_store_dash_history_text(store, "nope", NULL, 10, &text, &len));
    cr_assert_null(text);
    rt_store_close(store);
}

Test(pages, the_runs_list_counts_and_strips)
{
    struct rt_store *store = filled_store();
    char *text = NULL;
    size_t len = 0;
    struct rt_dash_runs_query q = {.limit = 2};
    ASSERT_OK(rt_store_dash_runs_text(store, &q, &text, &len));
    cJSON *json = parse(text, len);
    cr_assert_eq(number(json, "total"), NIGHTS);
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(json, "runs");
    cr_assert_eq(cJSON_GetArraySize(runs), 2);
    cJSON *newest = cJSON_GetArrayItem(runs, 0);
    cr_assert_eq(number(newest, "id"), NIGHTS);
    cr_assert_eq(number(cJSON_GetObjectItemCaseSensitive(newest, "counts"), "pass"), 3);
    cJSON *strip = cJSON_GetObjectItemCaseSensitive(newest, "history");
    cr_assert_eq(cJSON_GetArraySize(strip), NIGHTS);
    cr_assert_eq(number(cJSON_GetArrayItem(strip, 0), "id"), 1, "the strip is oldest first");
    cJSON_Delete(json);
    rt_store_close(store);
}
