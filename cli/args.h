/*
 * cli/args.h — the one way a subcommand reads its command line.
 *
 * Owns: option scanning (long "--name V" / "--name=V", short "-o V" / "-oV",
 * "--" ends options, -h/--help anywhere among the options), number and choice
 * parsing that refuses negative, overflowing and junk values, and the wording
 * of every option error, so all subcommands say the same thing:
 *
 *   retrace replay: unknown option '--frobnicate' (see retrace replay --help)
 *   retrace replay: --device needs a value (see retrace replay --help)
 *   retrace replay: --loop: expected a whole number from 1 to 4294967295, got '-1' (...)
 *   retrace replay: --memory: expected auto, direct or rebind, got 'x' (...)
 *
 * Must not touch: module internals, exit(). Errors are printed through
 * cli_usage_error (cli.h), so with --json they become a JSON object on stdout.
 *
 * Use:
 *     static const struct cli_option options[] = {
 *         {"device", 'd', CLI_VALUE, OPT_DEVICE}, {"json", 0, CLI_FLAG, OPT_JSON}, {0}};
 *     struct cli_args p;
 *     cli_args_init(&p, cli_find_command("replay"), argc, argv, options, 0);
 *     for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
 *         switch (id) {
 *         case CLI_ARGS_STOP: return p.result;          // help shown (-1) or usage error (2)
 *         case CLI_ARGS_POSITIONAL: path = p.value; break;
 *         case OPT_LOOP: if ((rc = cli_args_u32(&p, 1, UINT32_MAX, &loop))) return rc; break;
 *         ...
 * A parse function returns 0 to go on, CLI_HELP_SHOWN (-1) after help (the
 * subcommand then exits 0: cli_exit_code), or an exit code (2) after an error.
 */
#ifndef RT_CLI_ARGS_H
#define RT_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

enum cli_value_kind {
    CLI_FLAG,  /* no value: "--json" ("--json=x" is an error) */
    CLI_VALUE, /* one value: "--device 1", "--device=1", "-d 1", "-d1" */
    /* A value that may be left out: "--diagnose=REF" always; "--diagnose REF"
     * only where takes(REF) says the next argument is one (so "--diagnose
     * MANIFEST" leaves MANIFEST a positional); alone, p.value is implied. */
    CLI_OPTIONAL_VALUE,
};

struct cli_option {
    const char *name;   /* long name without the dashes; NULL ends the table */
    char short_name;    /* 'o' for -o, or 0 */
    enum cli_value_kind kind;
    int id;             /* what cli_args_next returns for it; must be > 0 */
    const char *value;  /* what the value is, for the usage text: "FILE", "auto|direct|rebind" */
    const char *help;   /* one paragraph for the usage text; NULL: not listed (an alias) */
    const char *implied;           /* CLI_OPTIONAL_VALUE: the value when none is written */
    bool (*takes)(const char *arg); /* CLI_OPTIONAL_VALUE: whether the next argument is its value */
};

enum {
    CLI_ARGS_END = 0,         /* no arguments left */
    CLI_ARGS_POSITIONAL = -1, /* p.value is a non-option argument */
    CLI_ARGS_STOP = -2,       /* help printed or error reported: return p.result */
};

#define CLI_HELP_SHOWN (-1) /* a parse result: help was printed, exit 0 */

/* Flags for cli_args_init. */
#define CLI_ARGS_STOP_AT_POSITIONAL 1u /* options only before the first positional
                                          (capture: PROGRAM's own flags are its own) */

struct cli_args {
    const struct rt_command *cmd;
    const struct cli_option *options;
    int argc;
    char **argv;
    int next;          /* index of the next element of argv */
    unsigned flags;
    bool options_done; /* after "--" (or the first positional with STOP_AT_POSITIONAL) */
    char option[64];   /* the option just read, as "--name" or "-o", for messages */
    const char *value; /* its value (CLI_VALUE, CLI_OPTIONAL_VALUE) or the positional argument */
    int result;        /* after CLI_ARGS_STOP: CLI_HELP_SHOWN or the exit code */
};

/** Starts reading ARGV[1..ARGC-1] (argv[0] is the subcommand's name). */
void cli_args_init(struct cli_args *p, const struct rt_command *cmd, int argc, char **argv,
                   const struct cli_option *options, unsigned flags);

/** The next option's id, CLI_ARGS_POSITIONAL, CLI_ARGS_END or CLI_ARGS_STOP. */
int cli_args_next(struct cli_args *p);

/** The arguments not read yet (with STOP_AT_POSITIONAL: after the first positional). */
static inline char **cli_args_rest(const struct cli_args *p, int *count_out)
{
    *count_out = p->argc - p->next;
    return p->argv + p->next;
}

/*
 * Value parsers for the option just read (p->option, p->value). Each returns
 * 0 and sets *out, or prints the one wording of a bad value and returns 2.
 */
int cli_args_u64(struct cli_args *p, uint64_t min, uint64_t max, uint64_t *out);
int cli_args_u32(struct cli_args *p, uint32_t min, uint32_t max, uint32_t *out);
int cli_args_double(struct cli_args *p, double min, double max, double *out);
/** CHOICES is NULL-terminated; *index_out is the position of the match. */
int cli_args_choice(struct cli_args *p, const char *const *choices, int *index_out);

/**
 * "retrace CMD: WHAT: expected EXPECTED, got 'VALUE'": the wording of every bad
 * value, for options (WHAT = "--loop") and positional arguments (WHAT = "ID").
 * Returns 2.
 */
int cli_bad_value(const struct rt_command *cmd, const char *what, const char *expected,
                  const char *value);

/**
 * Strict unsigned decimal: digits only (no sign, space, or 0x), at most MAX,
 * at least MIN. False for anything else, including overflow.
 */
bool cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/** A finite decimal number in MIN..MAX ("0.99", "1", "1e-3"); no nan, inf, junk. */
bool cli_parse_double(const char *text, double min, double max, double *out);

/** "a whole number from MIN to MAX" into BUF (for messages). */
const char *cli_range_text(char *buf, unsigned long size, uint64_t min, uint64_t max);

/**
 * The usage text's option list, from the table every subcommand parses with,
 * so the two cannot drift: "  -o, --output FILE         HELP" per option
 * with a help text, HELP wrapped at 100 columns under column 29.
 * tests/cli/options_test.py checks README's option tables against it.
 */
void cli_usage_options(FILE *out, const struct cli_option *options);

/* What an exit status means for one subcommand: {RT_ERR_USAGE, "usage"}; the
 * numbers are written once, in common/status.h and cli.h. Ends with {0, NULL}. */
struct cli_exit {
    int code;
    const char *when;
};

/** "exit: 0 ok, 2 usage, ..." from EXITS, wrapped at 100 columns. */
void cli_usage_exits(FILE *out, const struct cli_exit *exits);

/* What every exit status means for all subcommands (errors.c): `retrace help`
 * prints it and tests/cli/options_test.py checks README's list against it. */
extern const struct cli_exit cli_exit_codes[];

/** The exit code of a parse result: CLI_HELP_SHOWN becomes 0. */
static inline int cli_exit_code(int parse_result)
{
    return parse_result == CLI_HELP_SHOWN ? 0 : parse_result;
}

#endif
