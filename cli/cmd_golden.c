/* cli/cmd_golden.c — placeholder until its module lands. */
#include "cli.h"

void cmd_golden_usage(FILE *out) { fprintf(out, "usage: retrace golden ...\n"); }

int cmd_golden_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(rt_errorf(RT_ERR_INTERNAL, "'golden' is not built yet"));
}
