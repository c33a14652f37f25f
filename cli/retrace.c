/* cli/retrace.c — the subcommand table, help, --version, and main(). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

static const struct rt_command commands[] = {
    {"capture", "run a program under the capture layer and record a trace",
     cmd_capture_usage, cmd_capture_run},
    {"replay", "re-execute a trace headless, saving chosen frames as PNG", cmd_replay_usage,
     cmd_replay_run},
    {"info", "summarise a trace: device, frames, calls, sizes; --check validates it",
     cmd_info_usage, cmd_info_run},
    {"dump", "print a trace's calls one per line", cmd_dump_usage, cmd_dump_run},
    {"trim", "cut a trace to frames A..B: a state snapshot, then those frames", cmd_trim_usage,
     cmd_trim_run},
    {"import", "convert a GFXReconstruct capture (.gfxr) into a trace", cmd_import_usage,
     cmd_import_run},
    {"diagnose", "the first draw of a frame whose output diverges from a reference replay",
     cmd_diagnose_usage, cmd_diagnose_run},
    {"compare", "SSIM, PSNR and pixel differences of two PNG images",
     cmd_compare_usage, cmd_compare_run},
    {"golden", "manage golden images in the SQLite store", cmd_golden_usage,
     cmd_golden_run},
    {"devices", "list the Vulkan devices replay --device can name", cmd_devices_usage,
     cmd_devices_run},
    {"serve", "the dashboard: runs, diffs, history and approvals over HTTP", cmd_serve_usage,
     cmd_serve_run},
    {"run", "replay a manifest of traces, compare with the goldens, record the run",
     cmd_run_usage, cmd_run_run},
    {"upload", "send the runs waiting in the spool to the dashboard server", cmd_upload_usage,
     cmd_upload_run},
    {"workarounds", "list the replay workarounds and sets, or show one", cmd_workarounds_usage,
     cmd_workarounds_run},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

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
        cmd->usage(stdout);
        return 0;
    }
    return cmd->run(argc - 1, argv + 1);
}
