/* cli/cmd_info.c — placeholder until its module lands. */
#include "cli.h"

void cmd_info_usage(FILE *out) { fprintf(out, "usage: retrace info ...\n"); }

int cmd_info_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(rt_errorf(RT_ERR_INTERNAL, "'info' is not built yet"));
}
