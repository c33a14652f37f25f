/*
 * cli/cli.h — the retrace command-line program: one file per subcommand.
 *
 * Owns: argument parsing, printing results, and turning an rt_status into an
 * exit code (the only place exit codes are decided; DESIGN.md lists them).
 * Must not touch: module internals; it calls each module's public header.
 * Adding a subcommand: write cli/cmd_NAME.c with cmd_NAME_usage and
 * cmd_NAME_run, add one line to the table in retrace.c and one to meson.build:
 * to retrace's sources, or to retrace-farm's when it links SQLite, libcurl or
 * libmicrohttpd (the farm's modules: store, wire, server, runner), so that
 * every other subcommand starts without loading them (retrace.c, farm.c).
 */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "status.h"

/* retrace capture: the program crashed, was killed or exited non-zero (the
 * trace is kept). Beside the codes of common/status.h. */
#define CLI_EXIT_PROGRAM_FAILED 6
/* retrace replay: the driver crashed (a fatal signal outside retrace's own
 * code) at the call the message names; the report and --json say it too. */
#define CLI_EXIT_DRIVER_CRASHED 7

struct rt_command {
    const char *name;
    const char *synopsis;          /* one line for `retrace help` */
    void (*usage)(FILE *out);      /* full usage for `retrace help NAME` */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    bool farm; /* in retrace-farm; usage and run are NULL in the other binary */
};

/**
 * In `retrace`, for a farm subcommand NAME: execs retrace-farm (found from
 * the running binary, as farm.c says) with ARGV, main's, its argv[0] made
 * this binary's path. Returns only when that fails: the exit code of the
 * one-line error, RT_ERR_INTERNAL (an installation missing a part).
 */
int cli_exec_farm(const char *name, char **argv);

/**
 * In retrace-farm: the `retrace` that ran it (its argv[0]), for the
 * subcommands that run retrace again (run's replays and device probe).
 */
const char *cli_retrace_path(void);

/**
 * Prints "retrace: error: MSG" on stderr and returns the status's exit code
 * (0 for RT_OK, printing nothing). In JSON mode the error is instead one
 * object on stdout: {"error": {"code": 3, "name": "bad-input", "message": MSG}}.
 */
int cli_fail(rt_status status);

/**
 * JSON mode: main() turns it on when --json appears among a subcommand's
 * arguments (before any "--"), so every error of every subcommand, usage
 * errors included, is a JSON object on stdout.
 */
void cli_set_json_errors(bool on);
bool cli_json_errors(void);

/**
 * Prints "retrace NAME: MSG (see retrace NAME --help)" on stderr (or, in JSON
 * mode, the error object with code 2 on stdout); returns 2. args.h words the
 * option errors.
 */
int cli_usage_error(const struct rt_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct cJSON;
/**
 * Prints JSON (taken over, then freed) indented on stdout with a newline.
 * RT_ERR_INTERNAL when JSON is NULL (its builder ran out of memory) or
 * cannot be printed, so `--json` never prints half an answer.
 */
RT_MUST_CHECK rt_status cli_print_json(struct cJSON *json);

/** The table entry for NAME, or NULL. */
const struct rt_command *cli_find_command(const char *name);

#define CLI_DECLARE(NAME)                       \
    void cmd_##NAME##_usage(FILE *out);         \
    int cmd_##NAME##_run(int argc, char **argv)

CLI_DECLARE(info);
CLI_DECLARE(dump);
CLI_DECLARE(trim);
CLI_DECLARE(import);
CLI_DECLARE(diagnose);
CLI_DECLARE(compare);
CLI_DECLARE(golden);
CLI_DECLARE(capture);
CLI_DECLARE(replay);
CLI_DECLARE(devices);

/**
 * For `replay --device WANT` (NULL: nothing to check): RT_ERR_CANNOT_REPLAY
 * naming every device --device can name when WANT names none (cmd_devices.c).
 */
rt_status cli_check_device(const char *want);

struct rt_replay_options;
struct rt_replay_result;
/**
 * `replay --json`: prints the result as one JSON object on stdout, with an
 * "error" object when STATUS failed, FRAMES_RC (the --frames check) is set,
 * validation found errors or --verify diverged; returns the exit code
 * (replay_json.c).
 */
int cli_replay_json_result(const struct rt_replay_options *o, const struct rt_replay_result *res,
                           rt_status status, int frames_rc);

/** --json after a fatal signal (cmd_replay.c): the object with the error
 * CODE (CLI_EXIT_DRIVER_CRASHED, or 5 for a fault in retrace) and MESSAGE. */
void cli_replay_json_crash(const struct rt_replay_options *o, const struct rt_replay_result *res, int code,
                           const char *message);
CLI_DECLARE(serve);
CLI_DECLARE(run);
CLI_DECLARE(upload);
CLI_DECLARE(workarounds);

#endif
