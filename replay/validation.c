/* replay/validation.c — `--validate`: the validation layer's messages counted
 * per message id (VUID), and the ids `--validate-ignore` sets aside.
 *
 * Programs make errors of their own (zink leaks objects at vkDestroyDevice,
 * mpv destroys a semaphore in use): the same ids appear when the program runs
 * natively under the layer. The per-id counts show which they are; ignored
 * ids count apart and are not printed, so the replay's own errors still fail
 * it. Owns the counting only: the messenger is instance.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"

static bool is_ignored(const struct rt_replay_options *o, const char *id)
{
    for (uint32_t i = 0; i < o->validate_ignore_count; i++)
        if (!strcmp(o->validate_ignore[i], id))
            return true;
    return false;
}

/* The table's entry for ID, added when there is room; NULL past the table. */
static struct rt_replay_validation_id *entry(struct rt_replay_result *res, const char *id)
{
    for (uint32_t i = 0; i < res->validation_id_count; i++)
        if (!strcmp(res->validation_ids[i].id, id))
            return &res->validation_ids[i];
    if (res->validation_id_count == RT_REPLAY_VALIDATION_IDS)
        return NULL;
    struct rt_replay_validation_id *e = &res->validation_ids[res->validation_id_count++];
    snprintf(e->id, sizeof e->id, "%s", id);
    return e;
}

bool replay_validation_count(struct replay *r, const char *id, uint32_t severity)
{
    bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    bool warning = !error && (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT);
    if (!error && !warning)
        return false;
    if (!id || !*id)
        id = "(no message id)";
    bool ignored = is_ignored(r->opts, id);
    struct rt_replay_validation_id *e = entry(r->result, id);
    if (e) {
        e->errors += error;
        e->warnings += warning;
        e->ignored = ignored;
    } else {
        r->result->validation_other_ids++;
    }
    r->result->validation_ignored += ignored;
    return ignored;
}

static int by_errors(const void *a, const void *b)
{
    const struct rt_replay_validation_id *x = *(const struct rt_replay_validation_id *const *)a;
    const struct rt_replay_validation_id *y = *(const struct rt_replay_validation_id *const *)b;
    if (x->errors != y->errors)
        return x->errors < y->errors ? 1 : -1;
    return x->warnings < y->warnings ? 1 : x->warnings > y->warnings ? -1 : strcmp(x->id, y->id);
}

uint32_t rt_replay_validation_top(const struct rt_replay_result *result, const struct rt_replay_validation_id **out,
                                  uint32_t max)
{
    const struct rt_replay_validation_id *all[RT_REPLAY_VALIDATION_IDS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < result->validation_id_count; i++)
        if (!result->validation_ids[i].ignored)
            all[n++] = &result->validation_ids[i];
    qsort(all, n, sizeof *all, by_errors);
    n = n < max ? n : max;
    memcpy(out, all, n * sizeof *all);
    return n;
}
