/* cli/cmd_upload.c — `retrace upload`: send the runs waiting in the spool. */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "runner.h"

enum { OPT_SERVER = 1, OPT_TOKEN, OPT_SPOOL };
static const struct cli_option options[] = {
    {"server", 0, CLI_VALUE, OPT_SERVER, "URL", "the dashboard server (retrace serve)"},
    {"token-file", 0, CLI_VALUE, OPT_TOKEN, "FILE", "the upload token"},
    {"spool", 0, CLI_VALUE, OPT_SPOOL, "DIR", "where the runs wait (default RETRACE_SPOOL or ~/.cache/retrace/spool)"},
    {0}};

void cmd_upload_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace upload --server URL --token-file FILE [--spool DIR]\n"
            "Sends every run that `retrace run --server` could not deliver (server down, or a 5xx\n"
            "answer) to the dashboard server, and removes each one the server took. A run the\n"
            "server already has counts as delivered: runs carry an id, so nothing arrives twice.\n");
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "the spool is empty"},
        {RT_ERR_USAGE, "usage"},
        {RT_ERR_BAD_INPUT, "the server refused a run (wrong token: kept; malformed or too large: moved to DIR/rejected)"},
        {RT_ERR_INTERNAL, "the server could not be reached or answered 5xx (the runs stay for the next try)"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

int cmd_upload_run(int argc, char **argv)
{
    const struct rt_command *self = cli_find_command("upload");
    const char *server = NULL, *token_file = NULL, *spool_arg = NULL;
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, 0);
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        switch (id) {
        case CLI_ARGS_STOP: return cli_exit_code(p.result);
        case CLI_ARGS_POSITIONAL: return cli_usage_error(self, "unexpected argument '%s'", p.value);
        case OPT_SERVER: server = p.value; break;
        case OPT_TOKEN: token_file = p.value; break;
        case OPT_SPOOL: spool_arg = p.value; break;
        }
    }
    if (!server || !token_file)
        return cli_usage_error(self, "needs --server URL and --token-file FILE");
    char spool[4096], token[1024];
    rt_status s = spool_arg ? rt_ok_status() : rt_upload_default_spool(spool, sizeof spool);
    if (!rt_ok(&s))
        return cli_fail(s);
    if (spool_arg)
        snprintf(spool, sizeof spool, "%s", spool_arg);
    s = rt_upload_read_token(token_file, token, sizeof token);
    if (!rt_ok(&s))
        return cli_fail(s);
    struct rt_upload_counts counts;
    s = rt_upload_spool_send(spool, server, token, &counts);
    printf("sent %zu run(s), %zu already on the server, %zu still waiting in %s", counts.sent,
           counts.duplicates, counts.kept, spool);
    if (counts.rejected)
        printf(", %zu refused by the server (moved to %s/rejected)", counts.rejected, spool);
    printf("\n");
    return cli_fail(s);
}
