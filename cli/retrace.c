/*
 * cli/retrace.c — the subcommand table, help, --version, and main(), built
 * twice: into `retrace` (RT_CLI_FARM 0), which users run and which has every
 * subcommand but the farm's, and into `retrace-farm` (RT_CLI_FARM 1, in
 * LIBEXECDIR/retrace/), which has only the farm's (golden, serve, run, upload:
 * the ones that link SQLite, libmicrohttpd, libcurl and libyaml: with what
 * those bring, 30 of the 48 libraries that ldd listed for the one binary
 * there was). `retrace` execs retrace-farm with the
 * same arguments for those (farm.c), so `retrace capture` and the others start
 * without loading those libraries and users still type one command.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"

#ifndef RT_CLI_FARM
#error "cli/meson.build sets RT_CLI_FARM: 0 for retrace, 1 for retrace-farm"
#endif
/* A subcommand of this binary, or of the other one (NULL functions: in_other). */
#if RT_CLI_FARM
#define LEAN(NAME) NULL, NULL, false
#define FARM(NAME) cmd_##NAME##_usage, cmd_##NAME##_run, true
#else
#define LEAN(NAME) cmd_##NAME##_usage, cmd_##NAME##_run, false
#define FARM(NAME) NULL, NULL, true
#endif

static const struct rt_command commands[] = {
    {"capture", "run a program under the capture layer and record a trace", LEAN(capture)},
    {"replay", "re-execute a trace headless, saving chosen frames as PNG", LEAN(replay)},
    {"info", "summarise a trace: device, frames, calls, sizes; --check validates it", LEAN(info)},
    {"dump", "print a trace's calls one per line", LEAN(dump)},
    {"trim", "cut a trace to frames A..B: a state snapshot, then those frames", LEAN(trim)},
    {"import", "convert a GFXReconstruct capture (.gfxr) into a trace", LEAN(import)},
    {"diagnose", "the first draw of a frame whose output diverges from a reference replay", LEAN(diagnose)},
    {"compare", "SSIM, PSNR and pixel differences of two PNG images", LEAN(compare)},
    {"golden", "manage golden images in the SQLite store", FARM(golden)},
    {"devices", "list the Vulkan devices replay --device can name", LEAN(devices)},
    {"serve", "the dashboard: runs, diffs, history and approvals over HTTP", FARM(serve)},
    {"run", "replay a manifest of traces, compare with the goldens, record the run", FARM(run)},
    {"upload", "send the runs waiting in the spool to the dashboard server", FARM(upload)},
    {"workarounds", "list the replay workarounds and sets, or show one", LEAN(workarounds)},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static bool in_other(const struct rt_command *cmd) { return cmd->farm != RT_CLI_FARM; }

const struct rt_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static void print_overview(FILE *out)
{
    fprintf(out, "usage: retrace COMMAND [ARGS...]\n"
                 "       retrace help [COMMAND]\n"
                 "       retrace --version\n\ncommands:\n");
    int width = 0; /* the longest name, so no synopsis runs into its name */
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if ((int)strlen(commands[i].name) > width)
            width = (int)strlen(commands[i].name);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-*s  %s\n", width, commands[i].name, commands[i].synopsis);
    fputc('\n', out);
    cli_usage_exits(out, cli_exit_codes);
}

#if RT_CLI_FARM
static char retrace_path[PATH_MAX];

const char *cli_retrace_path(void) { return retrace_path; }

/* retrace-farm is run by retrace (farm.c), which passes its own path as
 * argv[0]: an executable other than this one. */
static bool find_retrace(const char *argv0)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    return argv0 && argv0[0] == '/' && realpath(argv0, retrace_path) && access(retrace_path, X_OK) == 0 &&
           strcmp(retrace_path, self) != 0;
}

/* A subcommand of retrace's own: this binary has only the farm's. */
static int other_binary(const struct rt_command *cmd, char **argv)
{
    (void)argv;
    return cli_fail(rt_errorf(RT_ERR_USAGE, "retrace-farm has only the farm's subcommands; run `retrace %s`",
                              cmd->name));
}
#else
/* A farm subcommand: retrace-farm runs it with these arguments (farm.c). */
static int other_binary(const struct rt_command *cmd, char **argv)
{
    return cli_exec_farm(cmd->name, argv);
}
#endif

static int run_help(int argc, char **argv)
{
    if (argc < 3) {
        print_overview(stdout);
        return 0;
    }
    const struct rt_command *cmd = cli_find_command(argv[2]);
    if (!cmd) {
        fprintf(stderr, "retrace: unknown command '%s'\n", argv[2]);
        print_overview(stderr);
        return RT_ERR_USAGE;
    }
    if (in_other(cmd))
        return other_binary(cmd, argv);
    cmd->usage(stdout);
    return 0;
}

/* --json among the subcommand's arguments; PROGRAM's own after "--" are not. */
static bool wants_json(int argc, char **argv)
{
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--json"))
            return true;
    return false;
}

int main(int argc, char **argv)
{
#if RT_CLI_FARM
    if (!find_retrace(argv[0])) {
        fprintf(stderr, "retrace-farm: retrace runs this, passing its own path as argv[0]; "
                        "run `retrace COMMAND`\n");
        return RT_ERR_USAGE;
    }
#endif
    if (argc < 2) {
        print_overview(stderr);
        return RT_ERR_USAGE;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("retrace %s\n", RT_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return run_help(argc, argv);
    const struct rt_command *cmd = cli_find_command(argv[1]);
    cli_set_json_errors(wants_json(argc, argv));
    if (!cmd) {
        if (cli_json_errors())
            return cli_fail(rt_errorf(RT_ERR_USAGE, "unknown command '%s'", argv[1]));
        fprintf(stderr, "retrace: unknown command '%s'\n", argv[1]);
        print_overview(stderr);
        return RT_ERR_USAGE;
    }
    /* Every subcommand answers -h and --help, also one that reads no options. */
    if (argc == 3 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
        if (in_other(cmd))
            return other_binary(cmd, argv);
        cmd->usage(stdout);
        return 0;
    }
    if (in_other(cmd))
        return other_binary(cmd, argv);
    return cmd->run(argc - 1, argv + 1);
}
