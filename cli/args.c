/* cli/args.c — option scanning and value parsing for every subcommand (see args.h). */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_args_init(struct cli_args *p, const struct rt_command *cmd, int argc, char **argv,
                   const struct cli_option *options, unsigned flags)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->options = options;
    p->argc = argc;
    p->argv = argv;
    p->next = 1;
    p->flags = flags;
}

static int stop(struct cli_args *p, int result)
{
    p->result = result;
    return CLI_ARGS_STOP;
}

static const struct cli_option *find_long(const struct cli_args *p, const char *name, size_t len)
{
    for (const struct cli_option *o = p->options; o && o->name; o++)
        if (strlen(o->name) == len && !strncmp(o->name, name, len))
            return o;
    return NULL;
}

static const struct cli_option *find_short(const struct cli_args *p, char c)
{
    for (const struct cli_option *o = p->options; o && o->name; o++)
        if (o->short_name && o->short_name == c)
            return o;
    return NULL;
}

/* "--name", "--name=V": sets p->option and, for "=", *inline_value. */
static const struct cli_option *read_long(struct cli_args *p, const char *arg,
                                          const char **inline_value)
{
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    snprintf(p->option, sizeof p->option, "--%.*s", (int)len, name);
    *inline_value = eq ? eq + 1 : NULL;
    return find_long(p, name, len);
}

/* "-o", "-oV": sets p->option and, for "-oV", *inline_value. */
static const struct cli_option *read_short(struct cli_args *p, const char *arg,
                                           const char **inline_value)
{
    snprintf(p->option, sizeof p->option, "-%c", arg[1]);
    *inline_value = arg[2] ? arg + 2 : NULL;
    return find_short(p, arg[1]);
}

static bool is_help(const char *arg)
{
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

static int read_option(struct cli_args *p, const char *arg)
{
    const char *inline_value;
    const struct cli_option *o = arg[1] == '-' ? read_long(p, arg, &inline_value)
                                               : read_short(p, arg, &inline_value);
    if (!o && is_help(arg)) {
        p->cmd->usage(stdout);
        return stop(p, CLI_HELP_SHOWN);
    }
    if (!o)
        return stop(p, cli_usage_error(p->cmd, "unknown option '%s'", arg));
    if (o->kind == CLI_FLAG) {
        if (inline_value && arg[1] == '-')
            return stop(p, cli_usage_error(p->cmd, "%s takes no value", p->option));
        if (inline_value) /* "-ab": we have no bundled short flags */
            return stop(p, cli_usage_error(p->cmd, "unknown option '%s'", arg));
        p->value = NULL;
        return o->id;
    }
    if (o->kind == CLI_OPTIONAL_VALUE && !inline_value) {
        const char *next = p->next < p->argc ? p->argv[p->next] : NULL;
        bool taken = next && next[0] != '-' && o->takes && o->takes(next);
        p->next += taken;
        p->value = taken ? next : o->implied;
        return o->id;
    }
    if (!inline_value) {
        if (p->next >= p->argc)
            return stop(p, cli_usage_error(p->cmd, "%s needs a value", p->option));
        inline_value = p->argv[p->next++];
    }
    p->value = inline_value;
    return o->id;
}

int cli_args_next(struct cli_args *p)
{
    while (p->next < p->argc) {
        const char *arg = p->argv[p->next++];
        if (!p->options_done && !strcmp(arg, "--")) {
            p->options_done = true;
            continue;
        }
        if (p->options_done || arg[0] != '-' || !arg[1]) {
            if (p->flags & CLI_ARGS_STOP_AT_POSITIONAL)
                p->options_done = true;
            p->value = arg;
            return CLI_ARGS_POSITIONAL;
        }
        return read_option(p, arg);
    }
    return CLI_ARGS_END;
}

int cli_bad_value(const struct rt_command *cmd, const char *what, const char *expected,
                  const char *value)
{
    return cli_usage_error(cmd, "%s: expected %s, got '%s'", what, expected, value);
}

const char *cli_range_text(char *buf, unsigned long size, uint64_t min, uint64_t max)
{
    snprintf(buf, size, "a whole number from %llu to %llu", (unsigned long long)min,
             (unsigned long long)max);
    return buf;
}

bool cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    /* strtoull alone takes " 12", "+12" and "-1" (as 2^64 - 1): digits first. */
    if (!text || *text < '0' || *text > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool cli_parse_double(const char *text, double min, double max, double *out)
{
    if (!text || !((*text >= '0' && *text <= '9') || *text == '.' || *text == '-'))
        return false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < min || v > max)
        return false;
    *out = v;
    return true;
}

int cli_args_u64(struct cli_args *p, uint64_t min, uint64_t max, uint64_t *out)
{
    if (cli_parse_u64(p->value, min, max, out))
        return 0;
    char expected[96];
    return cli_bad_value(p->cmd, p->option, cli_range_text(expected, sizeof expected, min, max),
                         p->value);
}

int cli_args_u32(struct cli_args *p, uint32_t min, uint32_t max, uint32_t *out)
{
    uint64_t v;
    int rc = cli_args_u64(p, min, max, &v);
    if (!rc)
        *out = (uint32_t)v;
    return rc;
}

int cli_args_double(struct cli_args *p, double min, double max, double *out)
{
    if (cli_parse_double(p->value, min, max, out))
        return 0;
    char expected[96];
    snprintf(expected, sizeof expected, "a number from %g to %g", min, max);
    return cli_bad_value(p->cmd, p->option, expected, p->value);
}

int cli_args_choice(struct cli_args *p, const char *const *choices, int *index_out)
{
    char expected[256] = "";
    size_t used = 0, n = 0;
    while (choices[n])
        n++;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(p->value, choices[i])) {
            *index_out = (int)i;
            return 0;
        }
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(expected + used, sizeof expected - used, "%s%s", sep, choices[i]);
        if (w > 0 && used + (size_t)w < sizeof expected)
            used += (size_t)w;
    }
    return cli_bad_value(p->cmd, p->option, expected, p->value);
}

/* --- usage text ---------------------------------------------------------------- */

#define USAGE_COLUMN 28 /* where help text starts */
#define USAGE_WIDTH 100

/* TEXT wrapped at USAGE_WIDTH from column AT on, later lines indented to COLUMN. */
static void wrap_from(FILE *out, const char *text, int at, int column)
{
    int start = at;
    while (*text) {
        size_t word = strcspn(text, " ");
        if (at > start && at + 1 + (int)word > USAGE_WIDTH) {
            fprintf(out, "\n%*s", column, "");
            at = start = column;
        } else if (at > start) {
            fputc(' ', out);
            at++;
        }
        fprintf(out, "%.*s", (int)word, text);
        at += (int)word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

static void wrap(FILE *out, const char *text, int column) { wrap_from(out, text, column, column); }

void cli_usage_options(FILE *out, const struct cli_option *options)
{
    for (const struct cli_option *o = options; o && o->name; o++) {
        if (!o->help)
            continue;
        char left[128];
        int n = o->short_name ? snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->name)
                              : snprintf(left, sizeof left, "--%s", o->name);
        if (o->value && n > 0 && (size_t)n < sizeof left)
            snprintf(left + n, sizeof left - (size_t)n, " %s", o->value);
        if ((int)strlen(left) + 3 > USAGE_COLUMN)
            fprintf(out, "  %s\n%*s", left, USAGE_COLUMN, "");
        else
            fprintf(out, "  %-*s", USAGE_COLUMN - 2, left);
        wrap(out, o->help, USAGE_COLUMN);
    }
}

void cli_usage_exits(FILE *out, const struct cli_exit *exits)
{
    char text[2048];
    size_t used = 0;
    text[0] = '\0';
    for (const struct cli_exit *e = exits; e->when && used < sizeof text; e++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%d %s", used ? ", " : "", e->code, e->when);
    fputs("exit: ", out);
    wrap_from(out, text, 6, 0);
}
