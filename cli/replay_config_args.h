/*
 * cli/replay_config_args.h — reading a replay configuration from the command
 * line (cmd_replay.c): workarounds, delays, seed, pipeline cache, sync
 * validation, the report file. Errors are usage errors (exit 2) naming the
 * option; an unknown workaround lists the known ones.
 */
#ifndef RT_CLI_REPLAY_CONFIG_ARGS_H
#define RT_CLI_REPLAY_CONFIG_ARGS_H

#include "cli.h"
#include "config.h"

#define CLI_MAX_WORKAROUND_ARGS 16

struct cli_replay_config {
    struct rt_replay_config config;
    const char *workaround_args[CLI_MAX_WORKAROUND_ARGS]; /* resolved once --workarounds-dir is known */
    uint32_t workaround_arg_count;
    const char *workarounds_dir;
    bool seed_given;
    const char *report; /* --report FILE.json, or NULL */
};

/** OPTION is the long name without dashes; VALUE may be NULL for --validate. 0 or an exit code. */
int cli_replay_config_option(const struct rt_command *self, const char *option, const char *value,
                             struct cli_replay_config *c);
/** After every option: resolves the workarounds and picks a seed when none was given. */
int cli_replay_config_finish(const struct rt_command *self, struct cli_replay_config *c);
/** "configuration: ..." on stderr, at the start of a replay. */
void cli_replay_config_print(const struct cli_replay_config *c);
/** A copy of ARGV (free it, not its strings) where "--validate sync" and "--validate=sync"
 * are "--validate-sync". */
char **cli_replay_config_join_validate(int argc, char **argv);

#endif
