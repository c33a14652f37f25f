/* replay/workarounds.c — the workaround catalogue and the named sets.
 *
 * A set is a small text file NAME.set: its first comment line says what it
 * is for, then one workaround name or "include OTHER" per line; blank lines
 * and other # comments are ignored. Sets are looked up in the user's
 * --workarounds-dir first, then in the shipped replay/workarounds/. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"

#ifndef RT_WORKAROUNDS_SOURCE_DIR
#define RT_WORKAROUNDS_SOURCE_DIR "replay/workarounds"
#endif
#ifndef RT_WORKAROUNDS_INSTALL_DIR
#define RT_WORKAROUNDS_INSTALL_DIR "/usr/local/share/retrace/workarounds"
#endif

#define MAX_INCLUDE_DEPTH 8

static const struct rt_workaround_info catalogue[RT_WA_COUNT] = {
    [RT_WA_ROBUST_BUFFER_ACCESS] = {"robust-buffer-access",
        "bounds-check every shader buffer access (robustBufferAccess, robustness2 where present)",
        "device creation: enables robustBufferAccess, and robustBufferAccess2 and robustImageAccess2\n"
        "(VK_EXT_robustness2) and robustImageAccess (VK_EXT_image_robustness) where the device has\n"
        "them. An out-of-bounds read then returns zero or in-bounds data instead of whatever memory\n"
        "lies there. The report names the features enabled."},
    [RT_WA_READBACK_BARRIER] = {"readback-barrier",
        "a full barrier before every transfer read; readbacks wait for all earlier submissions",
        "recording: before every copy or blit that reads with the transfer stage (vkCmdCopyBuffer,\n"
        "vkCmdCopyImage, vkCmdCopyImageToBuffer, vkCmdCopyBufferToImage, vkCmdBlitImage and their\n"
        "...2 forms), records a memory barrier ALL_COMMANDS (memory writes) -> TRANSFER (reads).\n"
        "submission: a submission holding a copy into a buffer (a readback) first waits until\n"
        "every earlier submission on the device has completed, not only those its own fence or\n"
        "semaphores cover. The report counts the barriers and the waits."},
    [RT_WA_SERIALIZE_SUBMITS] = {"serialize-submits",
        "wait for the queue to go idle after every submission",
        "submission: vkQueueWaitIdle after every vkQueueSubmit, vkQueueSubmit2 and vkQueueBindSparse,\n"
        "so no two submissions ever overlap on the GPU."},
    [RT_WA_ZERO_INIT] = {"zero-init",
        "fill every new allocation with zeros, so buffers and images start as zeros",
        "memory: every vkAllocateMemory (and every allocation rebinding makes) is filled with zeros\n"
        "before anything is bound to it: through a mapping where the memory is host-visible, else\n"
        "with vkCmdFillBuffer over a buffer covering it. Buffers and images bound to it start as\n"
        "zeros (an image in a layout that compresses may still read other values on some GPUs), so\n"
        "reading memory nothing wrote gives the same result, replay after replay."},
    [RT_WA_NO_PIPELINE_CACHE] = {"no-pipeline-cache",
        "drop captured pipeline-cache data: every pipeline is compiled afresh",
        "vkCreatePipelineCache: the captured initial data is dropped (an empty cache is made);\n"
        "--pipeline-cache FILE is not loaded (the file is still written at the end)."},
    [RT_WA_STRIP_UNSUPPORTED] = {"strip-unsupported",
        "leave out extensions and features the replay device lacks instead of failing",
        "device creation: an extension or feature the trace enables that the device lacks is left\n"
        "out (and listed). A call that then uses it (a command of the extension, a structure of it\n"
        "in a pNext chain, a shader declaring the SPIR-V extension or capability) stops the replay\n"
        "with exit 4 naming it: never a silent misrender."},
    [RT_WA_SERIALIZE_FRAMES] = {"serialize-frames",
        "wait for the device to go idle after every present",
        "presentation: vkDeviceWaitIdle after every vkQueuePresentKHR, so no two frames overlap."},
    [RT_WA_NO_ROBUSTNESS] = {"no-robustness",
        "turn off the robustness features the trace enables (a driver's robust path is suspect)",
        "device creation: robustBufferAccess, robustBufferAccess2, robustImageAccess2 and\n"
        "robustImageAccess are cleared where the trace enables them, so the driver's unchecked path\n"
        "runs. Overrides robust-buffer-access."},
    [RT_WA_NO_ANISOTROPY] = {"no-anisotropy",
        "sample without anisotropic filtering (a classic source of driver differences)",
        "device creation: samplerAnisotropy is not enabled; vkCreateSampler: anisotropyEnable is\n"
        "cleared, so every sampler filters as the plain min/mag filters say."},
};

const struct rt_workaround_info *rt_workaround_info(enum rt_workaround w)
{
    return (unsigned)w < RT_WA_COUNT ? &catalogue[w] : NULL;
}

bool rt_workaround_find(const char *name, enum rt_workaround *out)
{
    for (int i = 0; i < RT_WA_COUNT; i++) {
        if (!strcmp(catalogue[i].name, name)) {
            *out = (enum rt_workaround)i;
            return true;
        }
    }
    return false;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *rt_workarounds_builtin_dir(void)
{
    const char *env = getenv("RETRACE_WORKAROUNDS_DIR");
    if (env && *env)
        return env;
    return is_dir(RT_WORKAROUNDS_SOURCE_DIR) ? RT_WORKAROUNDS_SOURCE_DIR : RT_WORKAROUNDS_INSTALL_DIR;
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
        append_name(&l, catalogue[i].name, NULL);
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
            fprintf(out, " %s", catalogue[i].name);
    fputc('\n', out);
}

rt_status rt_workaround_show(FILE *out, const char *name, const char *user_dir)
{
    enum rt_workaround w;
    if (rt_workaround_find(name, &w)) {
        fprintf(out, "%s: %s\n%s\n", catalogue[w].name, catalogue[w].summary, catalogue[w].changes);
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
