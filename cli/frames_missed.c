/* cli/frames_missed.c — frames asked for and not saved (see frames_missed.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "frames_missed.h"

#define MAX_LINES 20 /* a list of thousands of frames says the rest in one line */

struct missed {
    const char *flag;
    const char *state;   /* before each run's why: "not saved: " */
    const char *runs_of; /* what the line past MAX_LINES counts: "frames not saved" */
    uint64_t first, last; /* the run being gathered; first == 0: none */
    const char *why;
    uint64_t total;
    unsigned lines;
};

static void say(struct missed *m)
{
    if (!m->first)
        return;
    if (m->lines++ < MAX_LINES) {
        if (m->first == m->last)
            fprintf(stderr, "retrace: warning: %s: frame %" PRIu64 " %s%s\n", m->flag, m->first, m->state, m->why);
        else
            fprintf(stderr, "retrace: warning: %s: frames %" PRIu64 "-%" PRIu64 " %s%s\n", m->flag, m->first,
                    m->last, m->state, m->why);
    }
    m->total += m->last - m->first + 1;
    m->first = 0;
}

static void add(struct missed *m, uint64_t frame, const char *why)
{
    if (m->first && m->last + 1 == frame && m->why == why) {
        m->last = frame;
        return;
    }
    say(m);
    m->first = m->last = frame;
    m->why = why;
}

/* The last run, and how many runs MAX_LINES left unsaid. */
static void finish(struct missed *m)
{
    say(m);
    if (m->lines > MAX_LINES)
        fprintf(stderr, "retrace: warning: %s: %u more runs of %s\n", m->flag, m->lines - MAX_LINES, m->runs_of);
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

uint64_t cli_frames_missed(const char *flag, const struct rt_frame_list *list, uint64_t last,
                           const uint64_t *saved, size_t count, const char *in_why, const char *past_why)
{
    uint64_t *sorted = count ? malloc(count * sizeof *sorted) : NULL;
    if (count && !sorted)
        return 0; /* out of memory: nothing said, as before */
    if (count)
        memcpy(sorted, saved, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, by_value);
    struct missed m = {.flag = flag, .state = "not saved: ", .runs_of = "frames not saved"};
    for (size_t i = 0; i < list->count; i++) {
        const struct rt_frame_range *r = &list->ranges[i];
        uint64_t end = r->last == UINT64_MAX ? (r->first > last ? r->first : last) : r->last;
        uint64_t newest = count ? sorted[count - 1] : 0; /* a frame the trace did not finish may be saved */
        for (uint64_t f = r->first; f <= end && f != 0; f++) {
            if (bsearch(&f, sorted, count, sizeof *sorted, by_value))
                continue;
            if (f > last && f > newest) { /* the rest of the range at once */
                add(&m, f, past_why);
                m.last = end;
                break;
            }
            add(&m, f, f > last ? past_why : in_why);
        }
    }
    finish(&m);
    free(sorted);
    return m.total;
}

void cli_frames_saved_past(const char *flag, const char *dir, const uint64_t *frames, size_t count, uint64_t last)
{
    uint64_t *sorted = malloc(count * sizeof *sorted);
    if (!sorted)
        return; /* out of memory: nothing said */
    memcpy(sorted, frames, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, by_value);
    char state[PATH_MAX + 16], why[160];
    snprintf(state, sizeof state, "saved in %s ", dir);
    snprintf(why, sizeof why, "but past the end of the trace (%" PRIu64 " frames): the program ended before the "
             "calls were written, so no replay shows them (the files are kept)", last);
    struct missed m = {.flag = flag, .state = state, .runs_of = "frames saved past the end"};
    for (size_t i = 0; i < count; i++)
        if (!i || sorted[i] != sorted[i - 1]) /* frame_7.png and frame_000007.png */
            add(&m, sorted[i], why);
    finish(&m);
    free(sorted);
}
