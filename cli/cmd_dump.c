/* cli/cmd_dump.c — placeholder until its module lands. */
#include "cli.h"

void cmd_dump_usage(FILE *out) { fprintf(out, "usage: retrace dump ...\n"); }

int cmd_dump_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(rt_errorf(RT_ERR_INTERNAL, "'dump' is not built yet"));
}
