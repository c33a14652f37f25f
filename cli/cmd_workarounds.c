/* cli/cmd_workarounds.c — `retrace workarounds list|show NAME`: the
 * workaround catalogue and the named sets (replay/workarounds/ and a user's
 * --workarounds-dir). */
#include <string.h>

#include "args.h"
#include "cli.h"
#include "config.h"

static const struct cli_option options[] = {
    {"workarounds-dir", 0, CLI_VALUE, 1, "DIR", "your own sets (NAME.set), looked up before the shipped ones"}, {0}};

void cmd_workarounds_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace workarounds list [--workarounds-dir DIR]\n"
            "       retrace workarounds show NAME [--workarounds-dir DIR]\n"
            "Lists every workaround and workaround set, one line each, or shows what one does and\n"
            "what it changes (for a set: its file and the workarounds it resolves to).\n"
            "Replay with them: retrace replay TRACE --workarounds NAME[,NAME].\n"
            "A set is a file NAME.set: a first comment line saying what it is for, then one\n"
            "workaround or 'include OTHER-SET' per line. Shipped sets: %s\n"
            ,
            rt_workarounds_builtin_dir());
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "ok"},
        {RT_ERR_USAGE, "usage (an unknown NAME lists the known ones)"},
        {RT_ERR_BAD_INPUT, "a broken set file"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

static void print_set(void *user, const char *name, const char *summary)
{
    FILE *out = user;
    fprintf(out, "  %-22s %s\n", name, summary);
}

static void list(const char *user_dir)
{
    printf("workarounds:\n");
    for (int i = 0; i < RT_WA_COUNT; i++) {
        const struct rt_workaround_info *w = rt_workaround_info((enum rt_workaround)i);
        printf("  %-22s %s\n", w->name, w->summary);
    }
    if (user_dir) {
        printf("sets in %s:\n", user_dir);
        rt_workaround_sets_each(user_dir, print_set, stdout);
    }
    printf("sets:\n");
    rt_workaround_sets_each(rt_workarounds_builtin_dir(), print_set, stdout);
}

int cmd_workarounds_run(int argc, char **argv)
{
    const struct rt_command *self = cli_find_command("workarounds");
    const char *words[2] = {NULL, NULL}, *dir = NULL;
    int nwords = 0;
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, 0);
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        if (id == CLI_ARGS_STOP)
            return cli_exit_code(p.result);
        if (id == 1)
            dir = p.value;
        else if (nwords == 2)
            return cli_usage_error(self, "unexpected '%s'", p.value);
        else
            words[nwords++] = p.value;
    }
    if (nwords == 1 && !strcmp(words[0], "list")) {
        list(dir);
        return 0;
    }
    if (nwords == 2 && !strcmp(words[0], "show")) {
        rt_status s = rt_workaround_show(stdout, words[1], dir);
        if (s.code != RT_ERR_USAGE)
            return cli_fail(s);
        int rc = cli_usage_error(self, "%s", s.msg);
        rt_status_free(&s);
        return rc;
    }
    return cli_usage_error(self, "expected 'list' or 'show NAME'");
}
