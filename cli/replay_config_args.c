/* cli/replay_config_args.c — the options of `retrace replay` that make its
 * configuration: --workarounds, --workarounds-dir, --delay, --seed,
 * --pipeline-cache, --validate sync and --report. cmd_replay.c hands each
 * such option here, then calls cli_replay_config_finish once. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "replay_config_args.h"

int cli_replay_config_option(const struct rt_command *self, const char *option, const char *value,
                             struct cli_replay_config *c)
{
    if (!strcmp(option, "workarounds")) {
        if (c->workaround_arg_count == CLI_MAX_WORKAROUND_ARGS)
            return cli_usage_error(self, "--workarounds is given more than %d times", CLI_MAX_WORKAROUND_ARGS);
        c->workaround_args[c->workaround_arg_count++] = value;
    } else if (!strcmp(option, "workarounds-dir")) {
        c->workarounds_dir = value;
    } else if (!strcmp(option, "delay")) {
        rt_status s = rt_replay_config_add_delay(&c->config, value);
        if (!rt_ok(&s)) {
            int rc = cli_usage_error(self, "%s", s.msg);
            rt_status_free(&s);
            return rc;
        }
        if (c->config.delays[c->config.delay_count - 1].event == RT_DELAY_GPU &&
            c->config.delays[c->config.delay_count - 1].jitter_us)
            return cli_usage_error(self, "--delay: the gpu delay takes no jitter (its stall is recorded once)");
    } else if (!strcmp(option, "seed")) {
        char *end;
        if (!value[0] || !strchr("0123456789", value[0]) || (c->config.seed = strtoull(value, &end, 10), *end))
            return cli_usage_error(self, "--seed needs a whole number, not '%s'", value);
        c->seed_given = true;
    } else if (!strcmp(option, "pipeline-cache")) {
        c->config.pipeline_cache = value;
    } else if (!strcmp(option, "skip-draws")) {
        rt_status s = rt_replay_config_set_skip_draws(&c->config, value);
        if (!rt_ok(&s)) {
            int rc = cli_usage_error(self, "%s", s.msg);
            rt_status_free(&s);
            return rc;
        }
    } else if (!strcmp(option, "report")) {
        c->report = value;
    } else if (!strcmp(option, "validate")) {
        if (value && strcmp(value, "sync"))
            return cli_usage_error(self, "--validate takes nothing or 'sync', not '%s'", value);
        c->config.validate = value ? RT_VALIDATE_SYNC : RT_VALIDATE_ON;
    } else {
        return cli_usage_error(self, "unknown option '--%s'", option);
    }
    return 0;
}

int cli_replay_config_finish(const struct rt_command *self, struct cli_replay_config *c)
{
    for (uint32_t i = 0; i < c->workaround_arg_count; i++) {
        rt_status s = rt_replay_config_add_workarounds(&c->config, c->workaround_args[i], c->workarounds_dir);
        if (s.code == RT_ERR_USAGE) {
            int rc = cli_usage_error(self, "--workarounds: %s", s.msg);
            rt_status_free(&s);
            return rc;
        }
        if (!rt_ok(&s))
            return cli_fail(s);
    }
    if (!c->seed_given)
        c->config.seed = rt_replay_random_seed();
    return 0;
}

void cli_replay_config_print(const struct cli_replay_config *c)
{
    char text[2048];
    rt_replay_config_describe(&c->config, text, sizeof text);
    fprintf(stderr, "configuration: %s\n", text);
}

char **cli_replay_config_join_validate(int argc, char **argv)
{
    char **out = calloc((size_t)argc + 1, sizeof *out);
    if (!out)
        return NULL;
    for (int i = 0, n = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--validate") && i + 1 < argc && !strcmp(argv[i + 1], "sync")) {
            out[n++] = "--validate-sync"; /* `--validate sync` reads as DESIGN.md writes it */
            i++;
        } else {
            out[n++] = !strcmp(argv[i], "--validate=sync") ? "--validate-sync" : argv[i];
        }
    }
    return out;
}
