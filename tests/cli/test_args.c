/* Unit tests for cli/args.c and cli/errors.c: option scanning, strict numbers,
 * the one wording of option errors, and --json error objects. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "escape.h"

static void usage(FILE *out) { fputs("usage: retrace demo [--loop N] [--json] FILE\n", out); }

static const struct rt_command demo = {"demo", "a test command", usage, NULL};

enum { OPT_LOOP = 1, OPT_JSON, OPT_OUT, OPT_SCALE, OPT_AGAINST };

/* --against's value when written alone, and what it takes as its value from the next argument. */
static bool against_takes(const char *arg) { return !strncmp(arg, "ref:", 4); }

static const struct cli_option options[] = {
    {"loop", 0, CLI_VALUE, OPT_LOOP},
    {"json", 0, CLI_FLAG, OPT_JSON},
    {"output", 'o', CLI_VALUE, OPT_OUT},
    {"scale", 0, CLI_VALUE, OPT_SCALE},
    {"against", 0, CLI_OPTIONAL_VALUE, OPT_AGAINST, "[REF]", NULL, "lavapipe", against_takes},
    {0},
};

static void start(struct cli_args *p, char **argv, unsigned flags)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    cli_set_json_errors(false);
    cli_args_init(p, &demo, argc, argv, options, flags);
}

Test(args, strict_u64_refuses_sign_space_junk_and_overflow)
{
    uint64_t v = 7;
    cr_assert(cli_parse_u64("0", 0, 10, &v) && v == 0);
    cr_assert(cli_parse_u64("18446744073709551615", 0, UINT64_MAX, &v) && v == UINT64_MAX);
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "12abc",
                         "18446744073709551616", "99999999999999999999999", NULL};
    for (int i = 0; bad[i]; i++)
        cr_assert(!cli_parse_u64(bad[i], 0, UINT64_MAX, &v), "accepted '%s'", bad[i]);
    cr_assert(!cli_parse_u64("0", 1, 10, &v));
    cr_assert(!cli_parse_u64("11", 1, 10, &v));
    cr_assert(!cli_parse_u64(NULL, 0, 10, &v));
}

Test(args, strict_double_refuses_nan_inf_junk_and_range)
{
    double v = 0;
    cr_assert(cli_parse_double("0.99", 0, 1, &v) && v == 0.99);
    cr_assert(cli_parse_double("1e-3", 0, 1, &v) && v == 1e-3);
    cr_assert(cli_parse_double(".5", 0, 1, &v) && v == 0.5);
    const char *bad[] = {"", "nan", "inf", "-inf", "1.5", "-0.1", "0.5x", " 0.5", "+0.5",
                         "1e999", NULL};
    for (int i = 0; bad[i]; i++)
        cr_assert(!cli_parse_double(bad[i], 0, 1, &v), "accepted '%s'", bad[i]);
}

Test(args, long_short_inline_and_positional_forms)
{
    char *argv[] = {"demo", "--loop", "3", "a", "--json", "-o", "x.png", "--scale=0.5",
                    "-oy.png", "--", "--loop", NULL};
    struct cli_args p;
    start(&p, argv, 0);
    int want[] = {OPT_LOOP, CLI_ARGS_POSITIONAL, OPT_JSON, OPT_OUT, OPT_SCALE, OPT_OUT,
                  CLI_ARGS_POSITIONAL, CLI_ARGS_END};
    const char *values[] = {"3", "a", NULL, "x.png", "0.5", "y.png", "--loop", NULL};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int id = cli_args_next(&p);
        cr_assert_eq(id, want[i], "argument %zu: got %d", i, id);
        if (values[i])
            cr_assert_str_eq(p.value, values[i]);
    }
}

Test(args, stop_at_positional_leaves_the_program_its_flags)
{
    char *argv[] = {"demo", "-o", "t.rtrace", "vkcube", "--loop", "9", NULL};
    struct cli_args p;
    start(&p, argv, CLI_ARGS_STOP_AT_POSITIONAL);
    cr_assert_eq(cli_args_next(&p), OPT_OUT);
    cr_assert_eq(cli_args_next(&p), CLI_ARGS_POSITIONAL);
    cr_assert_str_eq(p.value, "vkcube");
    int rest_count;
    char **rest = cli_args_rest(&p, &rest_count);
    cr_assert_eq(rest_count, 2);
    cr_assert_str_eq(rest[0], "--loop");
}

Test(args, help_anywhere_among_options, .init = cr_redirect_stdout)
{
    char *argv[] = {"demo", "a", "--help", NULL};
    struct cli_args p;
    start(&p, argv, 0);
    cr_assert_eq(cli_args_next(&p), CLI_ARGS_POSITIONAL);
    cr_assert_eq(cli_args_next(&p), CLI_ARGS_STOP);
    cr_assert_eq(p.result, CLI_HELP_SHOWN);
    cr_assert_eq(cli_exit_code(p.result), 0);
    fflush(stdout);
    cr_assert_stdout_eq_str("usage: retrace demo [--loop N] [--json] FILE\n");
}

static void expect_error(char **argv, const char *message)
{
    struct cli_args p;
    start(&p, argv, 0);
    int id;
    while ((id = cli_args_next(&p)) > 0 || id == CLI_ARGS_POSITIONAL) {
        if (id == OPT_LOOP) {
            uint32_t n;
            if ((p.result = cli_args_u32(&p, 1, UINT32_MAX, &n)))
                break;
        } else if (id == OPT_SCALE) {
            double d;
            if ((p.result = cli_args_double(&p, 0, 1, &d)))
                break;
        }
    }
    cr_assert_eq(p.result, 2);
    fflush(stderr);
    cr_assert_stderr_eq_str(message);
}

Test(args, missing_value_names_the_option, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "x", "--loop", NULL};
    expect_error(argv, "retrace demo: --loop needs a value (see retrace demo --help)\n");
}

Test(args, negative_number_is_refused, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--loop=-1", NULL};
    expect_error(argv, "retrace demo: --loop: expected a whole number from 1 to 4294967295, "
                       "got '-1' (see retrace demo --help)\n");
}

Test(args, overflowing_number_is_refused, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--loop", "4294967296", NULL};
    expect_error(argv, "retrace demo: --loop: expected a whole number from 1 to 4294967295, "
                       "got '4294967296' (see retrace demo --help)\n");
}

Test(args, junk_number_is_refused, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--scale", "half", NULL};
    expect_error(argv, "retrace demo: --scale: expected a number from 0 to 1, got 'half' "
                       "(see retrace demo --help)\n");
}

Test(args, unknown_option, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--lop", "3", NULL};
    expect_error(argv, "retrace demo: unknown option '--lop' (see retrace demo --help)\n");
}

Test(args, flag_with_a_value, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--json=yes", NULL};
    expect_error(argv, "retrace demo: --json takes no value (see retrace demo --help)\n");
}

Test(args, choice_lists_the_choices, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--output", "sideways", NULL};
    struct cli_args p;
    start(&p, argv, 0);
    cr_assert_eq(cli_args_next(&p), OPT_OUT);
    static const char *const choices[] = {"auto", "direct", "rebind", NULL};
    int index = -1;
    cr_assert_eq(cli_args_choice(&p, choices, &index), 2);
    p.value = "direct";
    cr_assert_eq(cli_args_choice(&p, choices, &index), 0);
    cr_assert_eq(index, 1);
    fflush(stderr);
    cr_assert_stderr_eq_str("retrace demo: --output: expected auto, direct or rebind, got "
                            "'sideways' (see retrace demo --help)\n");
}

/* Reads what the test wrote to stdout and parses it as one JSON object. */
static cJSON *stdout_json(void)
{
    fflush(stdout);
    FILE *f = cr_get_redirected_stdout();
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    cr_assert(n > 0 && text[n - 1] == '\n' && !strchr(text, '\n')[1], "one line: %s", text);
    cJSON *root = cJSON_Parse(text);
    cr_assert_not_null(root, "not JSON: %s", text);
    return root;
}

Test(args, json_mode_usage_error_is_an_object_on_stdout, .init = cr_redirect_stdout)
{
    cli_set_json_errors(true);
    cr_assert_eq(cli_usage_error(&demo, "bad \"%s\"\n\x01", "quote"), 2);
    cJSON *root = stdout_json();
    cJSON *error = cJSON_GetObjectItem(root, "error");
    cr_assert_eq(cJSON_GetObjectItem(error, "code")->valueint, 2);
    cr_assert_str_eq(cJSON_GetObjectItem(error, "name")->valuestring, "usage");
    cr_assert_str_eq(cJSON_GetObjectItem(error, "command")->valuestring, "demo");
    cr_assert_str_eq(cJSON_GetObjectItem(error, "message")->valuestring, "bad \"quote\"\n\x01");
    cJSON_Delete(root);
}

Test(args, json_mode_failure_is_an_object_on_stdout, .init = cr_redirect_stdout)
{
    cli_set_json_errors(true);
    cr_assert_eq(cli_fail(rt_errorf(RT_ERR_BAD_INPUT, "cannot open x.rtrace")), 3);
    cr_assert_eq(cli_fail(rt_ok_status()), 0);
    cJSON *root = stdout_json();
    cJSON *error = cJSON_GetObjectItem(root, "error");
    cr_assert_eq(cJSON_GetObjectItem(error, "code")->valueint, 3);
    cr_assert_str_eq(cJSON_GetObjectItem(error, "message")->valuestring, "cannot open x.rtrace");
    cJSON_Delete(root);
}

Test(args, text_mode_failure_is_one_line_on_stderr, .init = cr_redirect_stderr)
{
    cli_set_json_errors(false);
    cr_assert_eq(cli_fail(rt_errorf(RT_ERR_CANNOT_REPLAY, "no device")), 4);
    fflush(stderr);
    cr_assert_stderr_eq_str("retrace: error: no device\n");
}

Test(escape, control_bytes_backslash_and_invalid_utf8_are_escaped)
{
    struct cli_text t = {0};
    static const char in[] = "a\tb\n\r\x01\x7f\\ \xc3\xa9 \xf0\x9f\x98\x80 \x80 \xc0\xaf \xed\xa0\x80 "
                             "\xe2\x82 \xf4\x90\x80\x80 \0z";
    cr_assert(cli_escape(&t, in, sizeof in - 1));
    cr_assert_str_eq(t.data, "a\\tb\\n\\r\\x01\\x7f\\\\ \xc3\xa9 \xf0\x9f\x98\x80 \\x80 \\xc0\\xaf "
                             "\\xed\\xa0\\x80 \\xe2\\x82 \\xf4\\x90\\x80\\x80 \\x00z");
    cr_assert_eq(t.len, strlen(t.data));
    cr_assert(cli_escape(&t, "", 0));
    cr_assert_str_eq(t.data, "");
    cli_text_finish(&t);
}

/* An optional value: "--against=V" always, "--against V" only where V is one
 * (the option's takes()), else the implied value and V stays a positional. */
Test(args, optional_value_implied_inline_or_taken)
{
    struct {
        char *argv[5];
        const char *value, *positional;
    } cases[] = {
        {{"demo", "--against", NULL}, "lavapipe", NULL},
        {{"demo", "--against", "file.toml", NULL}, "lavapipe", "file.toml"},
        {{"demo", "--against", "ref:x", "file.toml", NULL}, "ref:x", "file.toml"},
        {{"demo", "--against=sideways", "file.toml", NULL}, "sideways", "file.toml"},
        {{"demo", "--against", "--json", NULL}, "lavapipe", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cli_args p;
        start(&p, cases[i].argv, 0);
        const char *value = NULL, *positional = NULL;
        for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
            cr_assert(id != CLI_ARGS_STOP, "case %zu stopped", i);
            if (id == OPT_AGAINST)
                value = p.value;
            else if (id == CLI_ARGS_POSITIONAL)
                positional = p.value;
        }
        cr_assert_str_eq(value, cases[i].value, "case %zu", i);
        cr_assert(positional ? cases[i].positional && !strcmp(positional, cases[i].positional)
                             : !cases[i].positional, "case %zu: positional %s", i, positional ? positional : "none");
    }
}
