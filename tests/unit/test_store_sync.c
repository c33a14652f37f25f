/* Unit tests for store/store_sync.c: a server's set of goldens and
 * expectations (rt_store_sync_list) applied to a runner's store
 * (rt_store_sync_apply), as runner/sync.c does it without the HTTP: only
 * the images the runner lacks travel; a second apply of the same set changes
 * nothing; known-bad and approver travel; what the server reverted or removed
 * goes from the cache; what is out of scope stays; a bad set leaves the cache
 * as it was. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "png_io.h"
#include "store_fixture.h"

static struct rt_store *server, *runner;

static void open_both(void)
{
    make_tmp();
    server = open_store(tmp_path("server.db"), RT_STORE_CREATE);
    runner = open_store(tmp_path("runner.db"), RT_STORE_CREATE);
}

static void close_both(void)
{
    rt_store_close(server);
    rt_store_close(runner);
    remove_tmp();
}

TestSuite(sync, .init = open_both, .fini = close_both);

#define KEY "10de:2335/580.95"
#define TRACES "[\"cube\",\"gears\"]"

static int64_t put(struct rt_store *store, const char *trace, uint32_t frame, const char *key,
                   unsigned seed, enum rt_golden_status status)
{
    struct png_bytes png = make_png(8, 8, seed);
    struct rt_golden_new g = {.trace = trace, .frame = frame, .device_key = key, .png = png.data,
                              .png_size = png.size, .approved_by = "alice", .status = status};
    int64_t id = 0;
    ASSERT_OK(rt_store_golden_put(store, &g, &id, NULL));
    free(png.data);
    return id;
}

/* What the runner did: how many images travelled, and the apply's counts. */
struct synced {
    size_t fetched;
    struct rt_store_sync_counts counts;
};

/*
 * The server's set for KEY and TRACES into the runner, as runner/sync.c
 * makes it: an image travels only when the runner holds no golden with its
 * hash. TAMPER, when set, corrupts the first image that travels.
 */
static rt_status sync_once(const char *etag, bool tamper, struct synced *out)
{
    memset(out, 0, sizeof *out);
    struct rt_store_sync_list list;
    ASSERT_OK(rt_store_sync_list(server, KEY, TRACES, &list));
    size_t n = list.goldens.count, e = list.expectations.count;
    struct rt_store_sync_golden *goldens = calloc(n + 1, sizeof *goldens);
    uint8_t **images = calloc(n + 1, sizeof *images);
    cr_assert(goldens && images);
    for (size_t i = 0; i < n; i++) {
        const struct rt_golden *g = &list.goldens.items[i];
        goldens[i] = (struct rt_store_sync_golden){
            .golden = {.trace = g->trace, .frame = g->frame, .device_key = g->device_key,
                       .approved_by = g->approved_by, .approved_at = g->approved_at, .status = g->status},
            .hash = g->hash};
        uint8_t *have = NULL;
        size_t size = 0;
        ASSERT_OK(rt_store_png_by_hash(runner, g->hash, &have, &size));
        free(have);
        if (have)
            continue;
        ASSERT_OK(rt_store_png_by_hash(server, g->hash, &images[i], &size));
        cr_assert_not_null(images[i], "the server has the image of golden %s", g->hash);
        if (tamper && !out->fetched)
            images[i][size - 5] ^= 0xff; /* inside the IEND chunk's CRC */
        goldens[i].golden.png = images[i], goldens[i].golden.png_size = size;
        out->fetched++;
    }
    struct rt_store_sync_apply a = {.server = "http://dash", .device_key = KEY, .traces_json = TRACES,
                                    .etag = etag, .seq = list.seq, .goldens = goldens, .golden_count = n,
                                    .expectations = list.expectations.items, .expectation_count = e};
    rt_status s = rt_store_sync_apply(runner, &a, &out->counts);
    for (size_t i = 0; i < n; i++)
        free(images[i]);
    free(images);
    free(goldens);
    rt_store_sync_list_finish(&list);
    return s;
}

/* The runner's goldens (not reverted) for TRACE, in the store's order. */
static struct rt_golden_list runner_goldens(const char *trace)
{
    struct rt_golden_filter f = {.trace = trace};
    struct rt_golden_list list;
    ASSERT_OK(rt_store_golden_list(runner, &f, &list));
    return list;
}

static int64_t count(struct rt_store *store, const char *sql)
{
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq(sqlite3_prepare_v2(store->db, sql, -1, &stmt, NULL), SQLITE_OK, "%s", sql);
    cr_assert_eq(sqlite3_step(stmt), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return v;
}

static enum rt_expect_kind runner_expectation(const char *trace, const char *key, char *note, size_t size)
{
    struct rt_expectation e;
    ASSERT_OK(rt_store_expectation_get(runner, trace, key, &e));
    enum rt_expect_kind kind = e.kind;
    if (note)
        snprintf(note, size, "%s", e.note ? e.note : "");
    rt_expectation_finish(&e);
    return kind;
}

Test(sync, an_empty_cache_gets_every_golden_of_the_scope_with_its_image)
{
    put(server, "cube", 1, KEY, 1, RT_GOLDEN_ACCEPTED);
    put(server, "cube", 2, "", 2, RT_GOLDEN_ACCEPTED);        /* any device: in scope */
    put(server, "gears", 1, KEY, 3, RT_GOLDEN_KNOWN_BAD);
    put(server, "cube", 1, "1002:73bf/23.1", 4, RT_GOLDEN_ACCEPTED); /* another device */
    put(server, "other", 1, KEY, 5, RT_GOLDEN_ACCEPTED);       /* not in the manifest */
    struct synced s;
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    cr_assert_eq(s.fetched, 3, "the three goldens in scope travel, got %zu", s.fetched);
    cr_assert_eq(s.counts.goldens, 3);
    struct rt_golden_list cube = runner_goldens("cube"), gears = runner_goldens("gears"),
                          other = runner_goldens("other");
    cr_assert_eq(cube.count, 2, "cube: this device's and any device's, not the other device's");
    cr_assert_str_eq(cube.items[0].device_key, KEY);
    cr_assert_str_eq(cube.items[1].device_key, "");
    cr_assert_str_eq(cube.items[0].approved_by, "alice", "the approver travels");
    cr_assert_eq(gears.count, 1);
    cr_assert_eq(gears.items[0].status, RT_GOLDEN_KNOWN_BAD, "a known-bad golden stays known-bad");
    cr_assert_eq(other.count, 0, "a trace out of the manifest does not travel");
    /* The accepted one is what a frame on this device compares with; the known-bad one is not. */
    struct rt_golden_list want;
    ASSERT_OK(rt_store_goldens_for(runner, "gears", 1, KEY, &want));
    cr_assert_eq(want.count, 0, "a known-bad golden is never matched");
    rt_golden_list_finish(&want);
    ASSERT_OK(rt_store_goldens_for(runner, "cube", 1, KEY, &want));
    cr_assert_eq(want.count, 1);
    cr_assert_not_null(want.items[0].png, "with the image");
    rt_golden_list_finish(&want);
    struct rt_store_sync_state st;
    ASSERT_OK(rt_store_sync_state(runner, "http://dash", KEY, TRACES, &st));
    cr_assert(st.found && !strcmp(st.etag, "\"e1\"") && st.seq > 0, "the etag and seq are kept: %s %lld",
              st.etag, (long long)st.seq);
    rt_golden_list_finish(&cube), rt_golden_list_finish(&gears), rt_golden_list_finish(&other);
}

Test(sync, a_second_apply_of_the_same_set_changes_nothing)
{
    put(server, "cube", 1, KEY, 1, RT_GOLDEN_ACCEPTED);
    ASSERT_OK(rt_store_expectation_set_by(server, "gears", KEY, RT_EXPECT_FLAKY, "timing", "bob", NULL));
    struct synced s;
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    int64_t goldens = count(runner, "SELECT count(*) FROM goldens");
    int64_t events = count(runner, "SELECT (SELECT count(*) FROM golden_events) + (SELECT count(*) FROM expectation_events)");
    struct rt_golden_list before = runner_goldens("cube");
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    cr_assert_eq(s.fetched, 0, "nothing travels the second time");
    cr_assert_eq(s.counts.reverted, 0);
    cr_assert_eq(count(runner, "SELECT count(*) FROM goldens"), goldens, "no golden row added");
    cr_assert_eq(count(runner, "SELECT (SELECT count(*) FROM golden_events) + (SELECT count(*) FROM expectation_events)"),
                 events, "no history event added");
    struct rt_golden_list after = runner_goldens("cube");
    cr_assert_eq(after.count, 1);
    cr_assert_eq(after.items[0].id, before.items[0].id, "the same golden id");
    cr_assert_eq(runner_expectation("gears", KEY, NULL, 0), RT_EXPECT_FLAKY);
    rt_golden_list_finish(&before), rt_golden_list_finish(&after);
}

Test(sync, only_the_new_image_travels_and_one_the_runner_holds_is_reused)
{
    put(server, "cube", 1, KEY, 1, RT_GOLDEN_ACCEPTED);
    struct synced s;
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    cr_assert_eq(s.fetched, 1);
    put(server, "cube", 2, KEY, 2, RT_GOLDEN_ACCEPTED);
    put(server, "gears", 1, "", 1, RT_GOLDEN_ACCEPTED); /* the same image as cube 1: same hash */
    ASSERT_OK(sync_once("\"e2\"", false, &s));
    cr_assert_eq(s.fetched, 1, "only cube 2's image travels (gears 1's bytes are cube 1's), got %zu", s.fetched);
    cr_assert_eq(s.counts.goldens, 3);
    struct rt_golden_list gears = runner_goldens("gears");
    cr_assert_eq(gears.count, 1, "the golden whose bytes the runner had is stored from them");
    struct rt_golden g;
    ASSERT_OK(rt_store_golden_get(runner, gears.items[0].id, true, &g));
    struct png_bytes want = make_png(8, 8, 1);
    cr_assert(g.png_size == want.size && !memcmp(g.png, want.data, want.size), "with the same bytes");
    free(want.data);
    rt_golden_finish(&g);
    rt_golden_list_finish(&gears);
}

Test(sync, a_status_changed_on_the_server_reaches_the_cache)
{
    int64_t id = put(server, "cube", 1, KEY, 1, RT_GOLDEN_ACCEPTED);
    struct synced s;
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    ASSERT_OK(rt_store_golden_mark_by(server, id, RT_GOLDEN_KNOWN_BAD, "carol", NULL));
    ASSERT_OK(sync_once("\"e2\"", false, &s));
    cr_assert_eq(s.fetched, 0, "a status change moves no image");
    struct rt_golden_list cube = runner_goldens("cube");
    cr_assert_eq(cube.count, 1, "the same golden, not a second one");
    cr_assert_eq(cube.items[0].status, RT_GOLDEN_KNOWN_BAD, "marked known-bad on the server: known-bad here");
    struct rt_golden_list want;
    ASSERT_OK(rt_store_goldens_for(runner, "cube", 1, KEY, &want));
    cr_assert_eq(want.count, 0, "and no longer matched");
    rt_golden_list_finish(&want);
    rt_golden_list_finish(&cube);
}

Test(sync, a_golden_the_server_reverted_is_reverted_here_and_out_of_scope_ones_stay)
{
    int64_t id = put(server, "cube", 1, KEY, 1, RT_GOLDEN_ACCEPTED);
    put(server, "cube", 2, KEY, 2, RT_GOLDEN_ACCEPTED);
    put(runner, "cube", 1, "1002:73bf/23.1", 7, RT_GOLDEN_ACCEPTED); /* another device's: not in scope */
    put(runner, "other", 1, KEY, 8, RT_GOLDEN_ACCEPTED);              /* another trace: not in scope */
    struct synced s;
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    ASSERT_OK(rt_store_golden_revert(server, id, "carol", NULL));
    ASSERT_OK(sync_once("\"e2\"", false, &s));
    cr_assert_eq(s.counts.reverted, 1, "one golden reverted, got %zu", s.counts.reverted);
    struct rt_golden_list mine;
    struct rt_golden_filter f = {.trace = "cube", .device_key = KEY};
    ASSERT_OK(rt_store_golden_list(runner, &f, &mine));
    size_t live = 0;
    for (size_t i = 0; i < mine.count; i++)
        live += !mine.items[i].reverted;
    cr_assert_eq(live, 1, "only cube 2 is left for this device");
    rt_golden_list_finish(&mine);
    struct rt_golden_list want;
    ASSERT_OK(rt_store_goldens_for(runner, "cube", 1, KEY, &want));
    cr_assert_eq(want.count, 0, "the reverted golden is never matched");
    rt_golden_list_finish(&want);
    ASSERT_OK(rt_store_goldens_for(runner, "cube", 1, "1002:73bf/23.1", &want));
    cr_assert_eq(want.count, 1, "another device's golden is left alone");
    rt_golden_list_finish(&want);
    struct rt_golden_list other = runner_goldens("other");
    cr_assert_eq(other.count, 1, "a trace out of the manifest is left alone");
    rt_golden_list_finish(&other);
}

Test(sync, expectations_are_replaced_by_the_servers_and_removed_with_them)
{
    ASSERT_OK(rt_store_expectation_set_by(server, "cube", KEY, RT_EXPECT_FLAKY, "timing", "bob", NULL));
    ASSERT_OK(rt_store_expectation_set(runner, "gears", "", RT_EXPECT_SKIP, "set here"));      /* in scope */
    ASSERT_OK(rt_store_expectation_set(runner, "gears", "other:1/1", RT_EXPECT_SKIP, "kept")); /* not */
    struct synced s;
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    char note[64];
    cr_assert_eq(runner_expectation("cube", KEY, note, sizeof note), RT_EXPECT_FLAKY);
    cr_assert_str_eq(note, "timing");
    cr_assert_eq(runner_expectation("gears", KEY, NULL, 0), RT_EXPECT_NONE,
                 "a local expectation in scope the server lacks is removed");
    cr_assert_eq(runner_expectation("gears", "other:1/1", note, sizeof note), RT_EXPECT_SKIP,
                 "another device's is kept");
    /* Changed on the server: replaced here, not added beside. */
    ASSERT_OK(rt_store_expectation_set_by(server, "cube", KEY, RT_EXPECT_CRASH, "driver bug 42", "bob", NULL));
    ASSERT_OK(sync_once("\"e2\"", false, &s));
    cr_assert_eq(runner_expectation("cube", KEY, note, sizeof note), RT_EXPECT_CRASH);
    cr_assert_str_eq(note, "driver bug 42");
    cr_assert_eq(count(runner, "SELECT count(*) FROM expectations e JOIN traces t ON t.id = e.trace_id"
                               " WHERE t.name = 'cube'"), 1, "one expectation row for cube");
    /* Removed on the server: removed here. */
    ASSERT_OK(rt_store_expectation_set_by(server, "cube", KEY, RT_EXPECT_NONE, NULL, "bob", NULL));
    ASSERT_OK(sync_once("\"e3\"", false, &s));
    cr_assert_eq(runner_expectation("cube", KEY, NULL, 0), RT_EXPECT_NONE);
}

Test(sync, an_image_that_does_not_match_its_hash_leaves_the_cache_as_it_was)
{
    put(server, "cube", 1, KEY, 1, RT_GOLDEN_ACCEPTED);
    struct synced s;
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    ASSERT_OK(rt_store_expectation_set_by(server, "gears", KEY, RT_EXPECT_SKIP, "", "bob", NULL));
    put(server, "cube", 2, KEY, 2, RT_GOLDEN_ACCEPTED);
    int64_t goldens = count(runner, "SELECT count(*) FROM goldens");
    rt_status st = sync_once("\"e2\"", true, &s);
    cr_assert_eq(st.code, RT_ERR_BAD_INPUT, "a tampered image is refused: %d %s", st.code, st.msg);
    cr_assert(strstr(st.msg, "hash"), "naming the hash: %s", st.msg);
    rt_status_free(&st);
    cr_assert_eq(count(runner, "SELECT count(*) FROM goldens"), goldens, "no golden added");
    cr_assert_eq(runner_expectation("gears", KEY, NULL, 0), RT_EXPECT_NONE, "nothing of the set applied");
    struct rt_store_sync_state state;
    ASSERT_OK(rt_store_sync_state(runner, "http://dash", KEY, TRACES, &state));
    cr_assert_str_eq(state.etag, "\"e1\"", "the last good sync's etag is kept");
}

/* The field NAME of event I of a history (NULL when absent or not text). */
static const char *event_text(cJSON *history, int i, const char *name)
{
    cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(history, "events"), i);
    cJSON *v = cJSON_GetObjectItemCaseSensitive(e, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

Test(sync, what_a_sync_changes_is_in_the_caches_history)
{
    int64_t id = put(server, "cube", 1, KEY, 1, RT_GOLDEN_ACCEPTED);
    ASSERT_OK(rt_store_expectation_set_by(server, "cube", KEY, RT_EXPECT_FLAKY, "timing", "bob", NULL));
    struct synced s;
    ASSERT_OK(sync_once("\"e1\"", false, &s));
    ASSERT_OK(rt_store_golden_revert(server, id, "carol", NULL));
    ASSERT_OK(rt_store_expectation_set_by(server, "cube", KEY, RT_EXPECT_NONE, NULL, "bob", NULL));
    ASSERT_OK(sync_once("\"e2\"", false, &s));
    cr_assert_eq(count(runner, "SELECT count(*) FROM goldens"), 1, "one golden row, reverted");
    cJSON *golden = NULL;
    ASSERT_OK(rt_store_dash_golden_history(runner, count(runner, "SELECT id FROM goldens"), &golden));
    cr_assert_not_null(golden);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(golden, "events")), 2);
    cr_assert_str_eq(event_text(golden, 0, "action"), "synced");
    cr_assert_str_eq(event_text(golden, 1, "action"), "synced");
    cr_assert_str_eq(event_text(golden, 1, "by"), "http://dash", "a revert of the server's is by the server");
    cJSON_Delete(golden);
    cJSON *expect = NULL;
    ASSERT_OK(rt_store_dash_expectation_history(runner, "cube", &expect));
    cr_assert_not_null(expect);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(expect, "events")), 2);
    cr_assert_str_eq(event_text(expect, 0, "kind"), "flaky");
    cr_assert_str_eq(event_text(expect, 0, "note"), "timing");
    cr_assert_str_eq(event_text(expect, 0, "by"), "bob", "who set it on the server");
    cr_assert_str_eq(event_text(expect, 1, "kind_before"), "flaky");
    cr_assert_str_eq(event_text(expect, 1, "kind"), "none");
    cJSON_Delete(expect);
    ASSERT_OK(rt_store_dash_expectation_history(runner, "never-seen", &expect));
    cr_assert_null(expect, "an unknown trace has no history");
}
