/*
 * runner/manifest_yaml.c — reading YAML values for the manifest: scalars,
 * lists, numbers, names, frames, timeouts, and mappings whose keys are
 * checked against the known ones; every error names the node's line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framelist.h"
#include "manifest_yaml.h"

#define MAX_FRAMES 1000 /* frames compared per trace: a typo such as 1-100000 is an error */

int mf_line_of(const yaml_node_t *node) { return node ? (int)node->start_mark.line + 1 : 0; }

rt_status mf_failf(struct mf_ctx *c, const yaml_node_t *node, const char *fmt, ...)
{
    char msg[RT_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: %s", c->path, mf_line_of(node), msg);
}

yaml_node_t *mf_node_at(struct mf_ctx *c, int index) { return yaml_document_get_node(&c->doc, index); }

const char *mf_scalar(const yaml_node_t *node)
{
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

char *mf_dup_str(struct mf_ctx *c, const char *s) { return rt_arena_strndup(&c->m->arena, s, strlen(s)); }

/* Fills SLOTS from mapping NODE; an unknown or repeated key is an error. */
rt_status mf_collect(struct mf_ctx *c, yaml_node_t *node, const char *what, struct mf_slot *slots, size_t n)
{
    if (!node || node->type != YAML_MAPPING_NODE)
        return mf_failf(c, node, "%s must be a mapping of keys to values", what);
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
        yaml_node_t *key = mf_node_at(c, p->key);
        const char *k = mf_scalar(key);
        size_t i = 0;
        while (i < n && (!k || strcmp(slots[i].key, k)))
            i++;
        if (i == n) {
            char known[256] = "";
            for (size_t j = 0; j < n; j++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", j ? ", " : "",
                         slots[j].key);
            return mf_failf(c, key, "unknown key '%s' in %s (known: %s)", k ? k : "?", what, known);
        }
        if (slots[i].node)
            return mf_failf(c, key, "duplicate key '%s' in %s", k, what);
        slots[i].node = mf_node_at(c, p->value);
    }
    return rt_ok_status();
}

rt_status mf_get_string(struct mf_ctx *c, yaml_node_t *node, const char *what, const char **out)
{
    const char *s = mf_scalar(node);
    if (!s || !*s)
        return mf_failf(c, node, "%s must be a non-empty string", what);
    *out = mf_dup_str(c, s);
    return *out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

bool mf_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 128)
        return false;
    for (; *s; s++)
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') &&
            !strchr("._+-", *s))
            return false;
    return true;
}

rt_status mf_get_name(struct mf_ctx *c, yaml_node_t *node, const char *what, const char **out)
{
    RT_TRY(mf_get_string(c, node, what, out));
    if (!mf_name_ok(*out))
        return mf_failf(c, node, "%s '%s': use letters, digits and . _ + - (at most 128)", what, *out);
    return rt_ok_status();
}

rt_status mf_get_double(struct mf_ctx *c, yaml_node_t *node, const char *what, double *out)
{
    const char *s = mf_scalar(node);
    char *end = NULL;
    errno = 0;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || !*s || *end || errno || !isfinite(v) || v < 0 || v > 1)
        return mf_failf(c, node, "%s must be a number from 0 to 1, not '%s'", what, s ? s : "(not a scalar)");
    *out = v;
    return rt_ok_status();
}

bool mf_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

/* Seconds: "90", "90s" or "5m"; at least 1, at most a day. */
rt_status mf_get_timeout(struct mf_ctx *c, yaml_node_t *node, uint32_t *out)
{
    const char *s = mf_scalar(node);
    char digits[32];
    uint64_t v = 0, scale = 1;
    size_t n = s ? strlen(s) : 0;
    if (n > 1 && n < sizeof digits && (s[n - 1] == 's' || s[n - 1] == 'm')) {
        scale = s[n - 1] == 'm' ? 60 : 1;
        n--;
    }
    if (s && n < sizeof digits) {
        memcpy(digits, s, n);
        digits[n] = 0;
    }
    if (!s || n >= sizeof digits || !mf_parse_uint(digits, 86400, &v) || v * scale < 1 || v * scale > 86400)
        return mf_failf(c, node, "timeout must be seconds (90, 90s or 5m) from 1 s to a day, not '%s'",
                     s ? s : "(not a scalar)");
    *out = (uint32_t)(v * scale);
    return rt_ok_status();
}

/* A mf_scalar, or a sequence of scalars, as an array of strings. */
rt_status mf_get_list(struct mf_ctx *c, yaml_node_t *node, const char *what, const char ***out, size_t *count)
{
    if (node && node->type == YAML_SCALAR_NODE) {
        *out = rt_arena_calloc(&c->m->arena, 1, sizeof **out, 8);
        *count = 1;
        return *out ? mf_get_string(c, node, what, &(*out)[0]) : rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    if (!node || node->type != YAML_SEQUENCE_NODE)
        return mf_failf(c, node, "%s must be a string or a list of strings", what);
    yaml_node_item_t *items = node->data.sequence.items.start;
    size_t n = (size_t)(node->data.sequence.items.top - items);
    *out = rt_arena_calloc(&c->m->arena, n ? n : 1, sizeof **out, 8);
    if (!*out)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++)
        RT_TRY(mf_get_string(c, mf_node_at(c, items[i]), what, &(*out)[i]));
    *count = n;
    return rt_ok_status();
}

/* Frames: 5, "1,10,20-22" or [1, 10]; a closed list of at most MAX_FRAMES. */
rt_status mf_get_frames(struct mf_ctx *c, yaml_node_t *node, struct rt_manifest_trace *t)
{
    const char **parts;
    size_t count;
    RT_TRY(mf_get_list(c, node, "frames", &parts, &count));
    char text[1024] = "";
    for (size_t i = 0; i < count; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", i ? "," : "", parts[i]);
    struct rt_frame_list list;
    rt_status s = rt_frame_list_parse(text, &list);
    if (!rt_ok(&s)) {
        rt_status e = mf_failf(c, node, "frames: %s", s.msg);
        rt_status_free(&s);
        return e;
    }
    uint64_t last = rt_frame_list_last(&list);
    uint64_t n = 0;
    for (size_t i = 0; i < list.count && last <= UINT32_MAX; i++)
        n += list.ranges[i].last - list.ranges[i].first + 1;
    if (last == 0 || last > UINT32_MAX || n > MAX_FRAMES) {
        rt_frame_list_finish(&list);
        return mf_failf(c, node, "frames must name 1 to %d frames (not 'all' or 'N-'), not '%s'", MAX_FRAMES, text);
    }
    t->frame_numbers = rt_arena_calloc(&c->m->arena, n, sizeof *t->frame_numbers, 8);
    t->frame_count = 0;
    for (size_t i = 0; t->frame_numbers && i < list.count; i++)
        for (uint64_t f = list.ranges[i].first; f <= list.ranges[i].last; f++)
            t->frame_numbers[t->frame_count++] = (uint32_t)f;
    rt_frame_list_finish(&list);
    t->frames = mf_dup_str(c, text);
    return t->frame_numbers && t->frames ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

/* "EVENT=DURATION[~JITTER]": the shape only; `retrace replay --delay` judges the rest. */
/* "F:N[-M]", each a whole number from 1, M >= N: the shape `retrace replay --skip-draws` takes. */
rt_status mf_check_skip_draws(struct mf_ctx *c, yaml_node_t *node, const char **out)
{
    const char *v = mf_scalar(node);
    unsigned long long f = 0, n = 0, m = 0;
    int used = 0, got = v ? sscanf(v, "%llu:%llu%n-%llu%n", &f, &n, &used, &m, &used) : 0;
    if ((got != 2 && got != 3) || v[used] || !f || !n || n > UINT32_MAX || m > UINT32_MAX || strchr(v, ' ') ||
        strchr(v, '+') || (got == 3 && m < n))
        return mf_failf(c, node, "skip-draws '%s' must be FRAME:N or FRAME:N-M (from 1, M >= N), e.g. \"3:12\"",
                        v ? v : "(not a scalar)");
    *out = mf_dup_str(c, v);
    return *out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

rt_status mf_check_delay(struct mf_ctx *c, yaml_node_t *node, const char *spec)
{
    const char *eq = strchr(spec, '=');
    bool ok = eq && eq > spec && eq[1];
    for (const char *p = spec; ok && p < eq; p++)
        ok = (*p >= 'a' && *p <= 'z') || *p == '-';
    if (!ok)
        return mf_failf(c, node, "delay '%s' must be EVENT=DURATION[~JITTER], e.g. create-pipeline=25ms~5ms", spec);
    return rt_ok_status();
}
