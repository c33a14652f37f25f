/*
 * runner/manifest.c — the YAML manifest (docs/manifest.md) read with libyaml's
 * document loader, so every node carries the line it came from and every
 * error can name it. All strings and arrays live in the manifest's arena.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "file.h"
#include "manifest_yaml.h"

#define DEFAULT_THRESHOLD 0.99
#define DEFAULT_TILE_THRESHOLD 0.95
#define DEFAULT_TIMEOUT_S 300

/* Defaults a trace inherits from the manifest's `defaults:`. */
struct trace_defaults {
    yaml_node_t *frames;
    double threshold, tile_threshold;
    uint32_t timeout_s;
};

static rt_status parse_config(struct mf_ctx *c, yaml_node_t *node, struct rt_manifest_config *cfg)
{
    struct mf_slot s[] = {{"name", NULL}, {"workarounds", NULL}, {"delays", NULL}, {"seed", NULL},
                          {"skip-draws", NULL}, {"diagnose", NULL}};
    RT_TRY(mf_collect(c, node, "a configuration", s, 6));
    cfg->line = mf_line_of(node);
    if (!s[0].node)
        return mf_failf(c, node, "a configuration needs a name");
    RT_TRY(mf_get_name(c, s[0].node, "configuration name", &cfg->name));
    if (s[1].node)
        RT_TRY(mf_get_list(c, s[1].node, "workarounds", &cfg->workarounds, &cfg->workaround_count));
    for (size_t i = 0; i < cfg->workaround_count; i++)
        if (!mf_name_ok(cfg->workarounds[i]))
            return mf_failf(c, s[1].node, "workaround set '%s' is not a name", cfg->workarounds[i]);
    if (s[2].node)
        RT_TRY(mf_get_list(c, s[2].node, "delays", &cfg->delays, &cfg->delay_count));
    if (cfg->workaround_count > 32 || cfg->delay_count > 32)
        return mf_failf(c, node, "a configuration takes at most 32 workaround sets and 32 delays");
    for (size_t i = 0; i < cfg->delay_count; i++)
        RT_TRY(mf_check_delay(c, s[2].node, cfg->delays[i]));
    if (s[3].node && !mf_parse_uint(mf_scalar(s[3].node), UINT64_MAX, &cfg->seed))
        return mf_failf(c, s[3].node, "seed must be a whole number, not '%s'",
                     mf_scalar(s[3].node) ? mf_scalar(s[3].node) : "(not a scalar)");
    cfg->has_seed = s[3].node != NULL;
    if (s[4].node)
        RT_TRY(mf_check_skip_draws(c, s[4].node, &cfg->skip_draws));
    if (s[5].node && !rt_run_diagnose_ref_valid(mf_scalar(s[5].node)))
        return mf_failf(c, s[5].node, "diagnose '%s' must be lavapipe, device:NAME, config:'KEY=VALUE;...' or "
                        "icd:FILE.json", mf_scalar(s[5].node) ? mf_scalar(s[5].node) : "(not a scalar)");
    if (s[5].node && !(cfg->diagnose = mf_dup_str(c, mf_scalar(s[5].node))))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    return rt_ok_status();
}

static rt_status parse_configs(struct mf_ctx *c, yaml_node_t *node)
{
    struct rt_manifest *m = c->m;
    size_t n = 0;
    if (node && node->type != YAML_SEQUENCE_NODE)
        return mf_failf(c, node, "configurations must be a list");
    if (node)
        n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    m->configs = rt_arena_calloc(&m->arena, n ? n : 1, sizeof *m->configs, 8);
    if (!m->configs)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    if (n == 0) { /* no configurations: one, named default, with nothing changed */
        m->configs[0].name = "default";
        m->config_count = 1;
        return rt_ok_status();
    }
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *item = mf_node_at(c, node->data.sequence.items.start[i]);
        RT_TRY(parse_config(c, item, &m->configs[i]));
        for (size_t j = 0; j < i; j++)
            if (!strcmp(m->configs[j].name, m->configs[i].name))
                return mf_failf(c, item, "configuration '%s' is already defined on line %d",
                             m->configs[i].name, m->configs[j].line);
        m->config_count = i + 1;
    }
    return rt_ok_status();
}

static rt_status parse_expect(struct mf_ctx *c, yaml_node_t *node, struct rt_manifest_expect *e)
{
    struct mf_slot s[] = {{"device", NULL}, {"status", NULL}, {"note", NULL}};
    RT_TRY(mf_collect(c, node, "an expectation", s, 3));
    e->line = mf_line_of(node);
    e->device = "*";
    e->note = "";
    if (s[0].node)
        RT_TRY(mf_get_string(c, s[0].node, "device", &e->device));
    const char *kind = mf_scalar(s[1].node);
    if (!s[1].node)
        return mf_failf(c, node, "an expectation needs a status (skip, flaky, crash or hang)");
    if (!kind || !rt_expect_kind_parse(kind, &e->kind) || e->kind == RT_EXPECT_NONE)
        return mf_failf(c, s[1].node, "status must be skip, flaky, crash or hang, not '%s'",
                     kind ? kind : "(not a scalar)");
    if (s[2].node)
        RT_TRY(mf_get_string(c, s[2].node, "note", &e->note));
    return rt_ok_status();
}

static rt_status parse_expects(struct mf_ctx *c, yaml_node_t *node, struct rt_manifest_trace *t)
{
    if (node->type == YAML_MAPPING_NODE) { /* one expectation without the list */
        t->expects = rt_arena_calloc(&c->m->arena, 1, sizeof *t->expects, 8);
        t->expect_count = 1;
        return t->expects ? parse_expect(c, node, t->expects) : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    if (node->type != YAML_SEQUENCE_NODE)
        return mf_failf(c, node, "expect must be a list of {device, status, note}");
    size_t n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    t->expects = rt_arena_calloc(&c->m->arena, n ? n : 1, sizeof *t->expects, 8);
    if (!t->expects)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++)
        RT_TRY(parse_expect(c, mf_node_at(c, node->data.sequence.items.start[i]), &t->expects[i]));
    t->expect_count = n;
    return rt_ok_status();
}

/* The trace's own subset of configurations, by name. */
static rt_status parse_trace_configs(struct mf_ctx *c, yaml_node_t *node, struct rt_manifest_trace *t)
{
    const char **names;
    size_t n;
    RT_TRY(mf_get_list(c, node, "configurations", &names, &n));
    t->configs = rt_arena_calloc(&c->m->arena, n ? n : 1, sizeof *t->configs, 8);
    if (!t->configs)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < c->m->config_count && strcmp(c->m->configs[j].name, names[i]))
            j++;
        if (j == c->m->config_count)
            return mf_failf(c, node, "no configuration named '%s'", names[i]);
        t->configs[t->config_count++] = j;
    }
    return rt_ok_status();
}

static const char *resolve_path(struct mf_ctx *c, const char *p)
{
    if (p[0] == '/')
        return p;
    char buf[PATH_MAX];
    if ((size_t)snprintf(buf, sizeof buf, "%s/%s", c->dir, p) >= sizeof buf)
        return NULL;
    return mf_dup_str(c, buf);
}

static bool sha256_ok(const char *s)
{
    if (strlen(s) != 64)
        return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return false;
    return true;
}

/* path, or url + sha256 (cached as CACHE/SHA256.rtrace); the name defaults to the file's. */
static rt_status parse_source(struct mf_ctx *c, yaml_node_t *node, struct mf_slot *path, struct mf_slot *url,
                              struct mf_slot *sha, struct rt_manifest_trace *t)
{
    if (!!path->node == !!url->node)
        return mf_failf(c, node, "a trace needs either path or url (with sha256)");
    if (path->node) {
        if (sha->node)
            return mf_failf(c, sha->node, "sha256 goes with url, not path");
        RT_TRY(mf_get_string(c, path->node, "path", &t->path));
        t->path = resolve_path(c, t->path);
    } else {
        RT_TRY(mf_get_string(c, url->node, "url", &t->url));
        if (!sha->node)
            return mf_failf(c, url->node, "a url needs its sha256");
        RT_TRY(mf_get_string(c, sha->node, "sha256", &t->sha256));
        if (!sha256_ok(t->sha256))
            return mf_failf(c, sha->node, "sha256 must be 64 lower-case hex digits");
        char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s/%s.rtrace", c->m->cache_dir, t->sha256);
        t->path = mf_dup_str(c, buf);
    }
    return t->path ? rt_ok_status() : mf_failf(c, node, "path too long");
}

/* The file name without folders and without .rtrace: the default trace name. */
static const char *default_name(struct mf_ctx *c, const struct rt_manifest_trace *t)
{
    const char *src = t->url ? t->url : t->path;
    const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
    size_t n = strcspn(base, "?#");
    if (n > 7 && !strncmp(base + n - 7, ".rtrace", 7))
        n -= 7;
    return rt_arena_strndup(&c->m->arena, base, n);
}

/* `trim: 300-310` (or one frame): the trace's frames A..B, cut by retrace trim (trim_cache.c). */
static rt_status parse_trim(struct mf_ctx *c, yaml_node_t *node, struct rt_manifest_trace *t)
{
    const char *text;
    RT_TRY(mf_get_string(c, node, "trim", &text));
    unsigned long long a = 0, b = 0;
    int used = 0;
    if (sscanf(text, "%llu-%llu%n", &a, &b, &used) != 2 || text[used] != '\0') {
        used = 0;
        if (sscanf(text, "%llu%n", &a, &used) != 1 || text[used] != '\0')
            return mf_failf(c, node, "trim: expected A-B or A (frames count from 1), got '%s'", text);
        b = a;
    }
    if (a < 1 || b < a || text[0] == '-' || text[0] == '+')
        return mf_failf(c, node, "trim: expected A-B with 1 <= A <= B, got '%s'", text);
    char buf[64];
    snprintf(buf, sizeof buf, "%llu-%llu", a, b);
    t->trim = mf_dup_str(c, buf);
    return rt_ok_status();
}

static rt_status parse_trace(struct mf_ctx *c, yaml_node_t *node, const struct trace_defaults *d,
                             struct rt_manifest_trace *t)
{
    struct mf_slot s[] = {{"name", NULL},      {"path", NULL},           {"url", NULL},
                       {"sha256", NULL},    {"frames", NULL},         {"threshold", NULL},
                       {"tile-threshold", NULL}, {"timeout", NULL},   {"tags", NULL},
                       {"configurations", NULL}, {"expect", NULL}, {"trim", NULL}};
    RT_TRY(mf_collect(c, node, "a trace", s, sizeof s / sizeof s[0]));
    t->line = mf_line_of(node);
    RT_TRY(parse_source(c, node, &s[1], &s[2], &s[3], t));
    if (s[0].node)
        RT_TRY(mf_get_name(c, s[0].node, "trace name", &t->name));
    else if (!mf_name_ok(t->name = default_name(c, t)))
        return mf_failf(c, node, "name this trace: '%s' is not a usable name", t->name);
    if (s[4].node || d->frames)
        RT_TRY(mf_get_frames(c, s[4].node ? s[4].node : d->frames, t));
    else {
        static uint32_t first[] = {1};
        t->frames = "1", t->frame_numbers = first, t->frame_count = 1;
    }
    t->threshold = d->threshold, t->tile_threshold = d->tile_threshold, t->timeout_s = d->timeout_s;
    if (s[5].node)
        RT_TRY(mf_get_double(c, s[5].node, "threshold", &t->threshold));
    if (s[6].node)
        RT_TRY(mf_get_double(c, s[6].node, "tile-threshold", &t->tile_threshold));
    if (s[7].node)
        RT_TRY(mf_get_timeout(c, s[7].node, &t->timeout_s));
    if (s[8].node)
        RT_TRY(mf_get_list(c, s[8].node, "tags", &t->tags, &t->tag_count));
    if (s[9].node)
        RT_TRY(parse_trace_configs(c, s[9].node, t));
    if (s[10].node)
        RT_TRY(parse_expects(c, s[10].node, t));
    if (s[11].node)
        RT_TRY(parse_trim(c, s[11].node, t));
    return rt_ok_status();
}

static rt_status parse_defaults(struct mf_ctx *c, yaml_node_t *node, struct trace_defaults *d)
{
    d->threshold = DEFAULT_THRESHOLD, d->tile_threshold = DEFAULT_TILE_THRESHOLD;
    d->timeout_s = DEFAULT_TIMEOUT_S;
    if (!node)
        return rt_ok_status();
    struct mf_slot s[] = {{"frames", NULL}, {"threshold", NULL}, {"tile-threshold", NULL}, {"timeout", NULL}};
    RT_TRY(mf_collect(c, node, "defaults", s, 4));
    d->frames = s[0].node;
    if (s[1].node)
        RT_TRY(mf_get_double(c, s[1].node, "threshold", &d->threshold));
    if (s[2].node)
        RT_TRY(mf_get_double(c, s[2].node, "tile-threshold", &d->tile_threshold));
    if (s[3].node)
        RT_TRY(mf_get_timeout(c, s[3].node, &d->timeout_s));
    return rt_ok_status();
}

static rt_status parse_traces(struct mf_ctx *c, yaml_node_t *node, const struct trace_defaults *d)
{
    struct rt_manifest *m = c->m;
    if (!node || node->type != YAML_SEQUENCE_NODE)
        return mf_failf(c, node ? node : mf_node_at(c, 1), "the manifest needs a list of traces");
    size_t n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0) /* a run of nothing would "pass" */
        return mf_failf(c, node, "the list of traces is empty: a run would replay nothing");
    m->traces = rt_arena_calloc(&m->arena, n ? n : 1, sizeof *m->traces, 8);
    if (!m->traces)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct rt_manifest_trace *t = &m->traces[i];
        RT_TRY(parse_trace(c, mf_node_at(c, node->data.sequence.items.start[i]), d, t));
        for (size_t j = 0; j < i; j++)
            if (!strcmp(m->traces[j].name, t->name))
                return mf_failf(c, mf_node_at(c, node->data.sequence.items.start[i]),
                             "trace '%s' is already listed on line %d", t->name, m->traces[j].line);
        if (t->config_count == 0) { /* every configuration */
            t->configs = rt_arena_calloc(&m->arena, m->config_count, sizeof *t->configs, 8);
            if (!t->configs)
                return rt_errorf(RT_ERR_INTERNAL, "out of memory");
            for (size_t k = 0; k < m->config_count; k++)
                t->configs[t->config_count++] = k;
        }
        m->trace_count = i + 1;
    }
    return rt_ok_status();
}

/* $RETRACE_CACHE, else ($XDG_CACHE_HOME or ~/.cache)/retrace/traces. */
static const char *default_cache(struct mf_ctx *c)
{
    char buf[PATH_MAX];
    const char *env = getenv("RETRACE_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env && *env)
        snprintf(buf, sizeof buf, "%s", env);
    else if (xdg && *xdg)
        snprintf(buf, sizeof buf, "%s/retrace/traces", xdg);
    else
        snprintf(buf, sizeof buf, "%s/.cache/retrace/traces", home && *home ? home : "/tmp");
    return mf_dup_str(c, buf);
}

static rt_status parse_root(struct mf_ctx *c, yaml_node_t *root)
{
    struct mf_slot s[] = {{"label", NULL}, {"cache", NULL}, {"defaults", NULL},
                       {"configurations", NULL}, {"traces", NULL}};
    RT_TRY(mf_collect(c, root, "the manifest", s, 5));
    c->m->label = "";
    if (s[0].node)
        RT_TRY(mf_get_name(c, s[0].node, "label", &c->m->label));
    if (s[1].node) {
        const char *dir;
        RT_TRY(mf_get_string(c, s[1].node, "cache", &dir));
        c->m->cache_dir = resolve_path(c, dir);
    } else {
        c->m->cache_dir = default_cache(c);
    }
    if (!c->m->cache_dir)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    struct trace_defaults d = {0};
    RT_TRY(parse_defaults(c, s[2].node, &d));
    RT_TRY(parse_configs(c, s[3].node));
    return parse_traces(c, s[4].node ? s[4].node : root, &d);
}

static rt_status load_document(struct mf_ctx *c, FILE *f)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    yaml_parser_set_input_file(&parser, f);
    rt_status s = rt_ok_status();
    if (!yaml_parser_load(&parser, &c->doc))
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s:%zu: %s%s%s", c->path, parser.problem_mark.line + 1,
                      parser.problem ? parser.problem : "not valid YAML",
                      parser.context ? " " : "", parser.context ? parser.context : "");
    else if (!yaml_document_get_root_node(&c->doc)) {
        yaml_document_delete(&c->doc);
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s:1: the manifest is empty", c->path);
    }
    yaml_parser_delete(&parser);
    return s;
}

rt_status rt_manifest_load(const char *path, struct rt_manifest *out)
{
    memset(out, 0, sizeof *out);
    FILE *f;
    RT_TRY(rt_file_open_read(path, "manifest", &f));
    struct mf_ctx c = {.path = path, .m = out};
    rt_arena_init(&out->arena, 0, 0);
    rt_status s = load_document(&c, f);
    fclose(f);
    if (!rt_ok(&s)) {
        rt_arena_finish(&out->arena);
        return s;
    }
    char dir[PATH_MAX];
    if (realpath(path, dir)) {
        *strrchr(dir, '/') = 0;
        c.dir = dir;
        out->path = mf_dup_str(&c, path);
        s = parse_root(&c, yaml_document_get_root_node(&c.doc));
    } else {
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", path, strerror(errno));
    }
    yaml_document_delete(&c.doc);
    if (!rt_ok(&s))
        rt_manifest_finish(out);
    return s;
}

void rt_manifest_finish(struct rt_manifest *manifest)
{
    rt_arena_finish(&manifest->arena);
    memset(manifest, 0, sizeof *manifest);
}

const struct rt_manifest_expect *rt_manifest_expect_for(const struct rt_manifest_trace *trace,
                                                        const char *device_key, const char *device_name)
{
    for (size_t i = 0; i < trace->expect_count; i++) {
        const char *pat = trace->expects[i].device;
        if (!strcmp(pat, "*") || (device_key && !fnmatch(pat, device_key, 0)) ||
            (device_name && !fnmatch(pat, device_name, 0)))
            return &trace->expects[i];
    }
    return NULL;
}
