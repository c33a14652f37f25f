/* tests/unit/test_workarounds.c — each workaround is one descriptor
 * (replay/workarounds/workaround.h): the registry is whole and consistent,
 * the report's names follow its counters, and README's table of workarounds
 * says what the descriptors say. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workarounds/workaround.h"

Test(workarounds, registry_is_whole)
{
    for (int id = 0; id < RT_WA_COUNT; id++) {
        const struct replay_workaround *w = replay_workarounds[id];
        cr_assert_not_null(w, "workaround %d has no descriptor in registry.c", id);
        cr_assert_eq(w->id, (enum rt_workaround)id, "%s sits at the wrong index", w->info.name);
        cr_assert_eq(rt_workaround_info((enum rt_workaround)id), &w->info);
        cr_assert(w->info.name && w->info.summary && w->info.changes);
        enum rt_workaround found;
        cr_assert(rt_workaround_find(w->info.name, &found) && found == (enum rt_workaround)id);
    }
}

/* Every field of a workaround's counters struct is reported once, under its name. */
Test(workarounds, every_counter_is_named_once)
{
    for (int id = 0; id < RT_WA_COUNT; id++) {
        const struct replay_workaround *w = replay_workarounds[id];
        cr_assert_gt(w->counter_count, 0, "%s counts nothing", w->info.name);
        cr_assert_eq(w->counter_count * sizeof(uint64_t), w->counters_size, "%s: a counter without a name",
                     w->info.name);
        unsigned seen = 0;
        for (uint32_t c = 0; c < w->counter_count; c++) {
            const struct replay_wa_counter *k = &w->counters[c];
            cr_assert_lt(k->index, RT_ACT_COUNTERS, "%s.%s", w->info.name, k->name);
            cr_assert_not(seen & (1u << k->index), "%s.%s counted twice", w->info.name, k->name);
            seen |= 1u << k->index;
            cr_assert_eq(strspn(k->name, "abcdefghijklmnopqrstuvwxyz_"), strlen(k->name), "%s", k->name);
        }
    }
}

/* A name is a whole entry: robustImageAccess is not robustImageAccess2. */
Test(workarounds, names_are_whole_entries)
{
    struct rt_replay_result result;
    struct replay r;
    memset(&result, 0, sizeof result);
    memset(&r, 0, sizeof r);
    r.result = &result;
    cr_assert(replay_wa_add_name(&r, RT_WA_ROBUST_BUFFER_ACCESS, "robustImageAccess2", true));
    cr_assert(replay_wa_add_name(&r, RT_WA_ROBUST_BUFFER_ACCESS, "robustImageAccess", true));
    cr_assert_not(replay_wa_add_name(&r, RT_WA_ROBUST_BUFFER_ACCESS, "robustImageAccess", true));
    cr_assert_not(replay_wa_add_name(&r, RT_WA_ROBUST_BUFFER_ACCESS, "robustImageAccess2", true));
    cr_assert(replay_wa_add_name(&r, RT_WA_ROBUST_BUFFER_ACCESS, "robustImageAccess", false), "not once: again");
    cr_assert_str_eq(result.outcome.acted_names[RT_WA_ROBUST_BUFFER_ACCESS],
                     "robustImageAccess2,robustImageAccess,robustImageAccess");
    char big[600];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cr_assert_not(replay_wa_add_name(&r, RT_WA_ZERO_INIT, big, true), "too long for the list");
    cr_assert_str_eq(result.outcome.acted_names[RT_WA_ZERO_INIT], "");
}

/* README's row for W: | `name` | summary | `counter`, ... [; `key` (names)] | */
static void readme_row(const struct replay_workaround *w, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "| `%s` | %s | ", w->info.name, w->info.summary);
    for (uint32_t c = 0; c < w->counter_count && used < size; c++)
        used += (size_t)snprintf(buf + used, size - used, "%s`%s`", c ? ", " : "", w->counters[c].name);
    if (w->names_key && used < size)
        used += (size_t)snprintf(buf + used, size - used, "; `%s` (names)", w->names_key);
    if (used < size)
        snprintf(buf + used, size - used, " |");
}

Test(workarounds, readme_table_is_the_registry)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/README.md", getenv("RT_SOURCE_ROOT") ? getenv("RT_SOURCE_ROOT") : ".");
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    char line[2048];
    bool in_table = false;
    int row = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strcmp(line, "| workaround | what it does | counts in the report (`workarounds_acted`) |")) {
            in_table = true;
            continue;
        }
        if (!in_table || !strncmp(line, "| ---", 5))
            continue;
        if (line[0] != '|')
            break;
        cr_assert_lt(row, RT_WA_COUNT, "README lists a workaround the registry lacks: %s", line);
        char want[2048];
        readme_row(replay_workarounds[row], want, sizeof want);
        cr_assert_str_eq(line, want, "README.md's row %d should read:\n%s", row + 1, want);
        row++;
    }
    fclose(f);
    cr_assert(in_table, "README.md has no table of workarounds");
    cr_assert_eq(row, RT_WA_COUNT, "README.md lists %d of %d workarounds", row, RT_WA_COUNT);
}
