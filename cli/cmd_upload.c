/* cli/cmd_upload.c — `retrace upload`: send the runs waiting in the spool. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runner.h"

void cmd_upload_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace upload --server URL --token-file FILE [--spool DIR]\n"
            "Sends every run that `retrace run --server` could not deliver (server down, or a 5xx\n"
            "answer) to the dashboard server, and removes each one the server took. A run the\n"
            "server already has counts as delivered: runs carry an id, so nothing arrives twice.\n"
            "  --spool DIR   where the runs wait (default RETRACE_SPOOL or ~/.cache/retrace/spool)\n"
            "exit: 0 the spool is empty, 2 usage, 3 the server refused a run (wrong token: kept;\n"
            "malformed or too large: moved to DIR/rejected), 5 the server could not be reached or\n"
            "answered 5xx (the runs stay for the next try).\n");
}

int cmd_upload_run(int argc, char **argv)
{
    static const struct option options[] = {{"server", required_argument, NULL, 'S'},
                                            {"token-file", required_argument, NULL, 'T'},
                                            {"spool", required_argument, NULL, 'P'},
                                            {"help", no_argument, NULL, 'h'}, {0}};
    const struct rt_command *self = cli_find_command("upload");
    const char *server = NULL, *token_file = NULL, *spool_arg = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (c) {
        case 'S': server = optarg; break;
        case 'T': token_file = optarg; break;
        case 'P': spool_arg = optarg; break;
        case 'h': cmd_upload_usage(stdout); return 0;
        default: return cli_usage_error(self, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error(self, "unexpected argument '%s'", argv[optind]);
    if (!server || !token_file)
        return cli_usage_error(self, "needs --server URL and --token-file FILE");
    char spool[4096], token[1024];
    rt_status s = spool_arg ? rt_ok_status() : rt_upload_default_spool(spool, sizeof spool);
    if (!rt_ok(&s))
        return cli_fail(s);
    if (spool_arg)
        snprintf(spool, sizeof spool, "%s", spool_arg);
    FILE *f = fopen(token_file, "r");
    if (!f)
        return cli_fail(rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", token_file, strerror(errno)));
    size_t n = fread(token, 1, sizeof token - 1, f);
    fclose(f);
    token[n] = 0;
    while (n && strchr(" \t\r\n", token[n - 1]))
        token[--n] = 0;
    if (!n || strpbrk(token, "\r\n"))
        return cli_fail(rt_errorf(RT_ERR_BAD_INPUT, "%s: the token must be one non-empty line", token_file));
    struct rt_upload_counts counts;
    s = rt_upload_spool_send(spool, server, token, &counts);
    printf("sent %zu run(s), %zu already on the server, %zu still waiting in %s\n", counts.sent,
           counts.duplicates, counts.kept, spool);
    return cli_fail(s);
}
