/* cli/cmd_compare.c — placeholder until its module lands. */
#include "cli.h"

void cmd_compare_usage(FILE *out) { fprintf(out, "usage: retrace compare ...\n"); }

int cmd_compare_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(rt_errorf(RT_ERR_INTERNAL, "'compare' is not built yet"));
}
