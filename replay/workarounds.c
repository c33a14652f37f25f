/* replay/workarounds.c — the workaround catalogue (read from the registry
 * of descriptors, replay/workarounds/workaround.h) and the named sets.
 *
 * A set is a small text file NAME.set: its first comment line says what it
 * is for, then one workaround name or "include OTHER" per line; blank lines
 * and other # comments are ignored. Sets are looked up in the user's
 * --workarounds-dir first, then in the shipped replay/workarounds/. */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "datadir.h"
#include "workarounds/workaround.h"

#ifndef RT_WORKAROUNDS_INSTALL_DIR
#define RT_WORKAROUNDS_INSTALL_DIR "/usr/local/share/retrace/workarounds"
#endif

#define MAX_INCLUDE_DEPTH 8

const struct rt_workaround_info *rt_workaround_info(enum rt_workaround w)
{
    return (unsigned)w < RT_WA_COUNT ? &replay_workarounds[w]->info : NULL;
}

bool rt_workaround_find(const char *name, enum rt_workaround *out)
{
    for (int i = 0; i < RT_WA_COUNT; i++) {
        if (!strcmp(rt_workaround_info((enum rt_workaround)i)->name, name)) {
            *out = (enum rt_workaround)i;
            return true;
        }
    }
    return false;
}

const char *rt_workarounds_builtin_dir(void)
{
    const char *env = getenv("RETRACE_WORKAROUNDS_DIR");
    if (env && *env)
        return env;
    static char found[PATH_MAX];
    if (!found[0] && !rt_datadir_find("retrace/workarounds", RT_WORKAROUNDS_INSTALL_DIR, found,
                                      sizeof found))
        return RT_WORKAROUNDS_INSTALL_DIR; /* named in the error that follows */
    return found;
}

/* Set names are file names: lower-case letters, digits, '-', '_' and '.' (not first). */
static bool valid_set_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n >= RT_REPLAY_MAX_NAME || name[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789-_.", name[i]))
            return false;
    return true;
}

/* The path of set NAME, or false when no directory has it. */
static bool find_set(const char *name, const char *user_dir, char *path, size_t size)
{
    const char *dirs[] = {user_dir, rt_workarounds_builtin_dir()};
    if (!valid_set_name(name))
        return false;
    for (size_t i = 0; i < 2; i++) {
        struct stat st;
        if (!dirs[i])
            continue;
        snprintf(path, size, "%s/%s.set", dirs[i], name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            return true;
    }
    return false;
}

/* --- listing known names, for errors and `workarounds list` ---------------- */

struct name_list {
    char *buf;
    size_t size, used;
};

static void append_name(void *user, const char *name, const char *summary)
{
    struct name_list *l = user;
    (void)summary;
    int n = snprintf(l->buf + l->used, l->size - l->used, "%s%s", l->used ? ", " : "", name);
    if (n > 0 && (size_t)n < l->size - l->used)
        l->used += (size_t)n;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void rt_workaround_sets_each(const char *dir, void (*fn)(void *user, const char *name, const char *summary),
                             void *user)
{
    DIR *d = dir ? opendir(dir) : NULL;
    char *names[256];
    size_t count = 0;
    for (struct dirent *e; d && (e = readdir(d)) && count < 256;) {
        size_t n = strlen(e->d_name);
        if (n > 4 && !strcmp(e->d_name + n - 4, ".set") && (names[count] = strndup(e->d_name, n - 4)))
            count++;
    }
    if (d)
        closedir(d);
    qsort(names, count, sizeof names[0], by_name); /* readdir's order is the file system's */
    for (size_t i = 0; i < count; i++) {
        char path[4096], line[512] = "", summary[512] = "";
        snprintf(path, sizeof path, "%s/%s.set", dir, names[i]);
        FILE *f = fopen(path, "r");
        if (f && fgets(line, sizeof line, f) && line[0] == '#') {
            const char *s = line + 1 + strspn(line + 1, " ");
            snprintf(summary, sizeof summary, "%.*s", (int)strcspn(s, "\r\n"), s);
        }
        if (f)
            fclose(f);
        if (valid_set_name(names[i]))
            fn(user, names[i], summary);
        free(names[i]);
    }
}

static rt_status unknown_name(const char *name, const char *user_dir)
{
    char known[2048];
    struct name_list l = {known, sizeof known, 0};
    known[0] = '\0';
    for (int i = 0; i < RT_WA_COUNT; i++)
        append_name(&l, rt_workaround_info((enum rt_workaround)i)->name, NULL);
    if (user_dir)
        rt_workaround_sets_each(user_dir, append_name, &l);
    rt_workaround_sets_each(rt_workarounds_builtin_dir(), append_name, &l);
    return rt_errorf(RT_ERR_USAGE, "unknown workaround or set '%s'; known: %s", name, known);
}

/* --- reading sets ----------------------------------------------------------- */

struct resolve {
    struct rt_replay_config *config;
    const char *user_dir;
    const char *stack[MAX_INCLUDE_DEPTH + 1];
    int depth;
};

static rt_status add_name(struct resolve *rs, const char *name);

static char *trim(char *s)
{
    s += strspn(s, " \t");
    size_t n = strcspn(s, "#\r\n");
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    s[n] = '\0';
    return s;
}

static rt_status read_set(struct resolve *rs, const char *name, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "workaround set %s: %s", path, strerror(errno));
    char line[512];
    rt_status s = rt_ok_status();
    for (int number = 1; rt_ok(&s) && fgets(line, sizeof line, f); number++) {
        char *item = trim(line);
        bool include = !strncmp(item, "include", 7) && (item[7] == ' ' || item[7] == '\t');
        if (include)
            item = trim(item + 8);
        enum rt_workaround w;
        if (!*item)
            continue;
        if (!include && rt_workaround_find(item, &w))
            rs->config->workarounds[w] = true;
        else if (include)
            s = add_name(rs, item);
        else
            s = rt_errorf(RT_ERR_BAD_INPUT, "workaround set %s line %d: '%s' is not a workaround (sets are "
                          "named with 'include %s')", path, number, item, item);
    }
    fclose(f);
    (void)name;
    return s;
}

static rt_status add_set(struct resolve *rs, const char *name)
{
    char path[4096];
    for (int i = 0; i < rs->depth; i++)
        if (!strcmp(rs->stack[i], name))
            return rt_errorf(RT_ERR_BAD_INPUT, "workaround set '%s' includes itself (through '%s')", name,
                             rs->stack[rs->depth - 1]);
    if (rs->depth == MAX_INCLUDE_DEPTH)
        return rt_errorf(RT_ERR_BAD_INPUT, "workaround set '%s': includes nest deeper than %d", name,
                         MAX_INCLUDE_DEPTH);
    if (!find_set(name, rs->user_dir, path, sizeof path))
        return unknown_name(name, rs->user_dir);
    rs->stack[rs->depth++] = name;
    rt_status s = read_set(rs, name, path);
    rs->depth--;
    return s;
}

static rt_status add_name(struct resolve *rs, const char *name)
{
    enum rt_workaround w;
    if (rt_workaround_find(name, &w)) {
        rs->config->workarounds[w] = true;
        return rt_ok_status();
    }
    return add_set(rs, name);
}

static void remember_set(struct rt_replay_config *config, const char *name)
{
    for (uint32_t i = 0; i < config->set_count; i++)
        if (!strcmp(config->sets[i], name))
            return;
    if (config->set_count < RT_REPLAY_MAX_SETS)
        snprintf(config->sets[config->set_count++], RT_REPLAY_MAX_NAME, "%s", name);
}

rt_status rt_replay_config_add_workarounds(struct rt_replay_config *config, const char *names,
                                           const char *user_dir)
{
    char *copy = strdup(names);
    if (!copy)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status s = rt_ok_status();
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name && rt_ok(&s); name = strtok_r(NULL, ",", &save)) {
        name = trim(name);
        if (!*name)
            continue;
        struct resolve rs = {.config = config, .user_dir = user_dir};
        enum rt_workaround w;
        bool is_set = !rt_workaround_find(name, &w);
        s = add_name(&rs, name);
        if (rt_ok(&s) && is_set)
            remember_set(config, name);
    }
    free(copy);
    return s;
}

/* --- show ------------------------------------------------------------------- */

static void show_set(FILE *out, const char *name, const char *path, const struct rt_replay_config *c)
{
    fprintf(out, "%s: a workaround set (%s)\n", name, path);
    FILE *f = fopen(path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        fprintf(out, "  | %s", line);
    if (f)
        fclose(f);
    fprintf(out, "resolved:");
    for (int i = 0; i < RT_WA_COUNT; i++)
        if (c->workarounds[i])
            fprintf(out, " %s", rt_workaround_info((enum rt_workaround)i)->name);
    fputc('\n', out);
}

static void show_workaround(FILE *out, const struct replay_workaround *w)
{
    fprintf(out, "%s: %s\n%s\n", w->info.name, w->info.summary, w->info.changes);
    fprintf(out, "report: workarounds_acted.%s counts", w->info.name);
    for (uint32_t i = 0; i < w->counter_count; i++)
        fprintf(out, "%s %s", i ? "," : "", w->counters[i].name);
    if (w->names_key)
        fprintf(out, "; %s lists the names", w->names_key);
    fputc('\n', out);
}

rt_status rt_workaround_show(FILE *out, const char *name, const char *user_dir)
{
    enum rt_workaround w;
    if (rt_workaround_find(name, &w)) {
        show_workaround(out, replay_workarounds[w]);
        return rt_ok_status();
    }
    char path[4096];
    if (!find_set(name, user_dir, path, sizeof path))
        return unknown_name(name, user_dir);
    struct rt_replay_config c = {0};
    RT_TRY(rt_replay_config_add_workarounds(&c, name, user_dir));
    show_set(out, name, path, &c);
    return rt_ok_status();
}
