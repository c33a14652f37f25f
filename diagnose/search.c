/* diagnose/search.c — the search over a frame's draws. A first replay of the
 * test side counts them. Then each round dumps up to PROBES draws spread
 * evenly over the draws still in question, on both sides, and compares them
 * in order: the last that agrees and the first that diverges bound the next
 * round. A frame of n draws takes about log(n)/log(PROBES) rounds of two
 * replays (1,000 draws, 16 probes: 3 rounds, 7 replays in all), and each
 * replay saves at most PROBES draws. Each round probes the last draw still in
 * question: when it agrees nothing diverges. A draw that saved no image (a
 * copy into a buffer) says nothing; it is left out of later rounds. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diagnose_internal.h"

#define MAX_PROBES 64

/* Up to K of the draws in (lo, hi) not known to save no image, evenly spread,
 * the last of them always among them. */
static uint32_t pick(uint32_t lo, uint32_t hi, uint32_t k, const uint8_t *no_image, uint32_t *out)
{
    uint32_t span = 0;
    for (uint32_t d = lo + 1; d < hi; d++)
        span += !no_image[d];
    uint32_t n = span < k ? span : k, seen = 0, next = 0;
    for (uint32_t d = lo + 1; d < hi && next < n; d++) {
        if (no_image[d])
            continue;
        seen++;
        if (seen == (uint32_t)(((uint64_t)span * (next + 1)) / n))
            out[next++] = d;
    }
    return next;
}

struct search {
    const struct rt_diagnose_options *o;
    /* The draws in the order the frame runs them (draws.json's "executed"): the
     * search walks positions 1..n of it, since a draw can only change what runs
     * after it, and recording order is not running order (secondaries recorded
     * by threads, recordings submitted out of their order). order[0] is 0. */
    uint32_t *order;
    uint32_t positions;
    struct rt_diagnose_result *res;
    struct diag_thresholds t;
    struct diag_dump lo_test, lo_ref; /* the dumps holding the last draw that agreed */
    struct diag_dump hi_test, hi_ref; /* and the first that diverged */
    uint32_t lo, hi, round;
    uint8_t *no_image; /* draws that saved no image on the test side (a copy into a buffer): never probed again */
};

static rt_status replay_side(struct search *s, bool reference, const uint32_t *only, uint32_t n, struct diag_dump *out)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/round%" PRIu32 "_%s", s->o->out_dir, s->round, reference ? "reference" : "test");
    RT_TRY(diag_replay(s->o, reference ? &s->o->reference : &s->o->test, dir, only, n, out));
    s->res->replays++;
    s->res->dumps += (uint32_t)cJSON_GetArraySize(cJSON_GetObjectItem(out->index, "draws"));
    return rt_ok_status();
}

/* SLOT becomes a copy of D (its dir and index). */
static void set(struct diag_dump *slot, const struct diag_dump *d)
{
    diag_dump_finish(slot);
    snprintf(slot->dir, sizeof slot->dir, "%s", d->dir);
    slot->index = cJSON_Duplicate(d->index, true);
}

/* One round: both sides dump the probes, judged in order. */
static rt_status round_of(struct search *s)
{
    uint32_t probes[MAX_PROBES];
    uint32_t k = s->o->probes ? s->o->probes : 16, n = pick(s->lo, s->hi, k < MAX_PROBES ? k : MAX_PROBES, s->no_image,
                                                          probes);
    uint32_t draws[MAX_PROBES]; /* the probed positions' draw numbers */
    for (uint32_t i = 0; i < n; i++)
        draws[i] = s->order[probes[i]];
    struct diag_dump test = {0}, ref = {0};
    s->round++;
    rt_status st = replay_side(s, false, draws, n, &test);
    if (rt_ok(&st))
        st = replay_side(s, true, draws, n, &ref);
    uint32_t lo = s->lo, hi = s->hi;
    for (uint32_t i = 0; i < n && rt_ok(&st) && hi == s->hi; i++) {
        struct diag_verdict v;
        st = diag_judge(&test, &ref, draws[i], &s->t, &v);
        if (rt_ok(&st) && !v.compared) {
            s->no_image[probes[i]] = 1; /* tells nothing either way */
        } else if (rt_ok(&st) && v.diverges) {
            hi = probes[i];
            s->res->ssim = v.ssim;
            s->res->delta_e = v.delta_e;
            s->res->diff_pixels = v.diff_pixels;
            snprintf(s->res->role, sizeof s->res->role, "%s", v.role);
        } else if (rt_ok(&st)) {
            lo = probes[i];
        }
    }
    if (s->o->log && rt_ok(&st))
        fprintf(s->o->log, "diagnose: round %" PRIu32 ": %" PRIu32 " draws probed in (%" PRIu32 ", %" PRIu32
                "): %s\n", s->round, n, s->lo, s->hi,
                hi != s->hi ? "diverges" : "agree");
    if (rt_ok(&st) && lo != s->lo) {
        set(&s->lo_test, &test);
        set(&s->lo_ref, &ref);
    }
    if (rt_ok(&st) && hi != s->hi) {
        set(&s->hi_test, &test);
        set(&s->hi_ref, &ref);
    }
    diag_dump_finish(&test);
    diag_dump_finish(&ref);
    s->lo = lo;
    s->hi = hi;
    return st;
}

static rt_status count_draws(struct search *s)
{
    const uint32_t none = UINT32_MAX;
    struct diag_dump d = {0};
    RT_TRY(replay_side(s, false, &none, 1, &d));
    double n = cJSON_GetNumberValue(cJSON_GetObjectItem(d.index, "frame_draws"));
    s->res->draws = n > 0 && n < UINT32_MAX ? (uint64_t)n : 0;
    const cJSON *executed = cJSON_GetObjectItem(d.index, "executed"), *e;
    uint32_t listed = (uint32_t)cJSON_GetArraySize(executed);
    /* a draws.json without the list (or a draw it misses, never run): recording order */
    s->positions = listed ? listed : (uint32_t)s->res->draws;
    s->order = s->res->draws ? calloc((size_t)s->positions + 2, sizeof *s->order) : NULL;
    uint32_t at = 0;
    if (s->order && listed) {
        cJSON_ArrayForEach(e, executed) {
            double v = cJSON_GetNumberValue(e);
            if (v >= 1 && v <= (double)s->res->draws && at < s->positions)
                s->order[++at] = (uint32_t)v;
        }
        s->positions = at;
    }
    for (uint32_t i = 1; s->order && !listed && i <= s->positions; i++)
        s->order[i] = i;
    diag_dump_finish(&d);
    if (!s->res->draws)
        return rt_errorf(RT_ERR_USAGE, "frame %" PRIu64 " of %s records no draws of its own (a frame that only "
                         "submits command buffers recorded earlier, or past the trace's end)", s->o->frame,
                         s->o->trace);
    return s->order ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

static rt_status search(struct search *s)
{
    RT_TRY(count_draws(s));
    s->hi = s->positions + 1; /* nothing diverged yet */
    if (!(s->no_image = calloc(s->hi + 1, 1)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    uint32_t probe;
    while (pick(s->lo, s->hi, 1, s->no_image, &probe)) /* every round settles or rules out a draw */
        RT_TRY(round_of(s));
    s->res->diverged = s->hi <= s->positions;
    s->res->ssim_threshold = s->t.ssim;
    s->res->tile_threshold = s->t.tile;
    s->res->delta_e_threshold = s->t.delta_e;
    s->res->calibrated_from = s->t.agreed;
    if (!s->res->diverged)
        return rt_ok_status();
    s->res->draw = s->order[s->hi];
    cJSON *entry = diag_entry(&s->hi_test, s->res->draw);
    s->res->entry = entry ? cJSON_Duplicate(entry, true) : NULL;
    return diag_answer(s->o, s->res, s->res->draw, s->order[s->lo], &s->hi_test, &s->hi_ref,
                       s->lo ? &s->lo_test : NULL, s->lo ? &s->lo_ref : NULL);
}

rt_status rt_diagnose_run(const struct rt_diagnose_options *o, struct rt_diagnose_result *out)
{
    *out = (struct rt_diagnose_result){0};
    if (!o->frame)
        return rt_errorf(RT_ERR_USAGE, "diagnose: frames count from 1");
    if (mkdir(o->out_dir, 0777) && errno != EEXIST)
        return rt_errorf(RT_ERR_USAGE, "--out %s: %s", o->out_dir, strerror(errno));
    struct search s = {.o = o, .res = out};
    diag_thresholds_init(&s.t, rt_diagnose_exact(o));
    out->exact = s.t.exact;
    rt_status st = search(&s);
    diag_dump_finish(&s.lo_test);
    diag_dump_finish(&s.lo_ref);
    diag_dump_finish(&s.hi_test);
    diag_dump_finish(&s.hi_ref);
    free(s.no_image);
    free(s.order);
    return st;
}

bool rt_diagnose_exact(const struct rt_diagnose_options *o)
{
    if (o->match != RT_DIAGNOSE_MATCH_AUTO)
        return o->match == RT_DIAGNOSE_MATCH_EXACT;
    return o->reference_kind && !strcmp(o->reference_kind, "config");
}

void rt_diagnose_result_finish(struct rt_diagnose_result *res)
{
    cJSON_Delete(res->entry);
    res->entry = NULL;
}
