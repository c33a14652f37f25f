/* cli/cmd_serve.c — `retrace serve`: the dashboard (server/) until SIGINT or SIGTERM. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

#include "args.h"
#include "cli.h"
#include "datadir.h"
#include "server.h"

enum {
    OPT_DB = 1, OPT_LISTEN, OPT_TOKEN, OPT_WEB, OPT_THREADS, OPT_CONNS, OPT_TIMEOUT, OPT_BODY,
    OPT_CACHE, OPT_CACHE_BYTES, OPT_PER_ADDRESS, OPT_HEADER_TIMEOUT, OPT_TOKENS, OPT_KEEP_RUNS,
};

static const struct cli_option options[] = {
    {"db", 0, CLI_VALUE, OPT_DB, "DB", "the golden store (default $RETRACE_DB; created when missing)"},
    {"listen", 0, CLI_VALUE, OPT_LISTEN, "ADDR",
     "HOST:PORT, [IPV6]:PORT or PORT (default 127.0.0.1:8470; only loopback unless you say otherwise; "
     "port 0 = any free)"},
    {"tokens", 0, CLI_VALUE, OPT_TOKENS, "FILE",
     "named write tokens, one 'NAME TOKEN' per line: the name is recorded as who approved, marked or "
     "set an expectation"},
    {"token-file", 0, CLI_VALUE, OPT_TOKEN, "FILE",
     "one bearer token (named 'token') that writes (upload, approve, known-bad) need; without this or "
     "--tokens the server is read-only"},
    {"web", 0, CLI_VALUE, OPT_WEB, "DIR",
     "the pages (default $RETRACE_WEB_DIR, else share/retrace/web beside the binary: the installed pages, or a build tree's link to web/)"},
    {"threads", 0, CLI_VALUE, OPT_THREADS, "N", "worker threads, each with its own read connection (4)"},
    {"max-connections", 0, CLI_VALUE, OPT_CONNS, "N", "open connections at once; more are answered 503 (256)"},
    {"max-per-address", 0, CLI_VALUE, OPT_PER_ADDRESS, "N", "of them from one client address; more get 429 (32)"},
    {"timeout", 0, CLI_VALUE, OPT_TIMEOUT, "SECONDS", "an idle connection is closed after this long (15)"},
    {"header-timeout", 0, CLI_VALUE, OPT_HEADER_TIMEOUT, "SECONDS", "a request head must arrive within this (10)"},
    {"max-body", 0, CLI_VALUE, OPT_BODY, "BYTES", "largest request body (67108864, as docs/FORMATS.md says)"},
    {"cache", 0, CLI_VALUE, OPT_CACHE, "N",
     "JSON answers each worker keeps until the database changes (64; 0 = none)"},
    {"cache-bytes", 0, CLI_VALUE, OPT_CACHE_BYTES, "BYTES", "their size, all workers together (33554432)"},
    {"keep-runs", 0, CLI_VALUE, OPT_KEEP_RUNS, "DAYS",
     "remove runs older than DAYS (their results and images, never goldens) at start and hourly"},
    {0},
};

void cmd_serve_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace serve [--db DB] [--listen ADDR] [--tokens FILE] [--token-file FILE] [--web DIR]\n"
            "                     [--threads N] [--max-connections N] [--timeout SECONDS]\n"
            "                     [--max-body BYTES] [--cache N] [--cache-bytes BYTES]\n"
            "                     [--max-per-address N] [--header-timeout SECONDS] [--keep-runs DAYS]\n"
            "Serves the dashboard (runs, failures, diffs, history, approvals) and its JSON\n"
            "API over the golden store DB, and prints its URL. Stops cleanly on Ctrl-C or SIGTERM.\n");
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "stopped by a signal"},
        {RT_ERR_USAGE, "usage"},
        {RT_ERR_BAD_INPUT, "unusable database or token file"},
        {RT_ERR_INTERNAL, "the address is taken"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

/* The pages: $RETRACE_WEB_DIR, else share/retrace/web beside the binary (an
 * installed copy, or a build tree's link to the sources), else the configured
 * install location (common/datadir.h). */
static const char *default_web_root(void)
{
    static char found[PATH_MAX];
    const char *env = getenv("RETRACE_WEB_DIR");
    if (env && *env)
        return env;
    return rt_datadir_find("retrace/web", RT_WEB_INSTALL_DIR, found, sizeof found) ? found
                                                                                  : NULL;
}

static int parse(int argc, char **argv, struct rt_server_options *o)
{
    struct cli_args p;
    cli_args_init(&p, cli_find_command("serve"), argc, argv, options, 0);
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    int rc = 0;
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END && !rc;) {
        switch (id) {
        case CLI_ARGS_STOP: return p.result;
        case CLI_ARGS_POSITIONAL:
            return cli_usage_error(p.cmd, "unexpected argument '%s'", p.value);
        case OPT_DB: o->db_path = p.value; break;
        case OPT_LISTEN: o->listen = p.value; break;
        case OPT_TOKEN: o->token_file = p.value; break;
        case OPT_TOKENS: o->tokens_file = p.value; break;
        case OPT_WEB: o->web_root = p.value; break;
        case OPT_THREADS: rc = cli_args_u32(&p, 1, 256, &u32), o->threads = u32; break;
        case OPT_CONNS: rc = cli_args_u32(&p, 1, 100000, &u32), o->max_connections = u32; break;
        case OPT_TIMEOUT: rc = cli_args_u32(&p, 1, 86400, &u32), o->timeout_s = u32; break;
        case OPT_BODY: rc = cli_args_u64(&p, 1, (uint64_t)1 << 32, &u64), o->max_body = u64; break;
        case OPT_CACHE: rc = cli_args_u32(&p, 0, 65536, &u32), o->cache_entries = u32; break;
        case OPT_CACHE_BYTES:
            rc = cli_args_u64(&p, 0, (uint64_t)1 << 40, &u64), o->cache_bytes = u64;
            break;
        case OPT_PER_ADDRESS:
            rc = cli_args_u32(&p, 1, 100000, &u32), o->max_per_address = u32;
            break;
        case OPT_KEEP_RUNS: rc = cli_args_u32(&p, 1, 100000, &u32), o->keep_runs_days = u32; break;
        case OPT_HEADER_TIMEOUT:
            rc = cli_args_u32(&p, 1, 86400, &u32), o->header_timeout_s = u32;
            break;
        }
    }
    if (!rc && !o->db_path)
        return cli_usage_error(p.cmd, "no database: give --db DB or set RETRACE_DB");
    return rc;
}

int cmd_serve_run(int argc, char **argv)
{
    struct rt_server_options o;
    rt_server_options_init(&o);
    o.db_path = getenv("RETRACE_DB");
    o.web_root = default_web_root();
    int rc = parse(argc, argv, &o);
    if (rc)
        return cli_exit_code(rc);
    /* Block the stop signals before the workers start, so they inherit the
     * mask and only this thread receives them, in sigwait. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct rt_server *server = NULL;
    rt_status s = rt_server_start(&o, &server);
    if (!rt_ok(&s))
        return cli_fail(s);
    printf("retrace serve: dashboard at %s (store %s%s)\n", rt_server_url(server), o.db_path,
           o.token_file || o.tokens_file ? "" : "; read-only: no --tokens or --token-file");
    fflush(stdout);
    int sig = 0;
    while (sigwait(&stop, &sig) != 0 && errno == EINTR)
        ;
    fprintf(stderr, "retrace serve: %s, stopping\n", sig == SIGINT ? "interrupted" : "terminated");
    rt_server_stop(server);
    return 0;
}
