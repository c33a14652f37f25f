/* cli/errors.c — how every subcommand reports an error: one line on stderr, or
 * with --json one object on stdout; and how --json answers are printed (see cli.h). */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "cli.h"

const struct cli_exit cli_exit_codes[] = {
    {RT_OK, "success"},
    {RT_ERR_FAILED, "a comparison or regression failed"},
    {RT_ERR_USAGE, "usage error"},
    {RT_ERR_BAD_INPUT, "bad input (unreadable or corrupt trace, image, manifest, database)"},
    {RT_ERR_CANNOT_REPLAY, "replay could not run"},
    {RT_ERR_INTERNAL, "internal error"},
    {CLI_EXIT_PROGRAM_FAILED, "the program under retrace capture failed (the trace is kept)"},
    {CLI_EXIT_DRIVER_CRASHED,
     "retrace replay: the driver crashed (a fatal signal outside retrace's own code; the message names the call)"},
    {0, NULL},
};

static bool json_errors;

void cli_set_json_errors(bool on) { json_errors = on; }

bool cli_json_errors(void) { return json_errors; }

/* {"error": {"code": N, "name": "...", "message": "..."}} on stdout; cJSON
 * escapes whatever bytes the message holds. */
static void print_json_error(enum rt_code code, const char *command, const char *message)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *error = cJSON_AddObjectToObject(root, "error");
    cJSON_AddNumberToObject(error, "code", code);
    cJSON_AddStringToObject(error, "name", rt_code_name(code));
    if (command)
        cJSON_AddStringToObject(error, "command", command);
    cJSON_AddStringToObject(error, "message", message);
    char *text = cJSON_PrintUnformatted(root);
    if (text)
        printf("%s\n", text);
    else /* out of memory: still one valid object */
        printf("{\"error\":{\"code\":%d}}\n", (int)code);
    fflush(stdout);
    cJSON_free(text);
    cJSON_Delete(root);
}

int cli_fail(rt_status status)
{
    if (status.code == RT_OK)
        return 0;
    if (json_errors)
        print_json_error(status.code, NULL, status.msg);
    else
        fprintf(stderr, "retrace: error: %s\n", status.msg);
    int line;
    const char *file = rt_status_where(&status, &line);
    if (getenv("RETRACE_DEBUG") && file[0])
        fprintf(stderr, "retrace: (made at %s:%d)\n", file, line);
    return (int)rt_status_drop(status); /* the error ends here */
}

int cli_usage_error(const struct rt_command *cmd, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (json_errors)
        print_json_error(RT_ERR_USAGE, cmd->name, message);
    else
        fprintf(stderr, "retrace %s: %s (see retrace %s --help)\n", cmd->name, message,
                cmd->name);
    return RT_ERR_USAGE;
}

rt_status cli_print_json(cJSON *json)
{
    char *text = json ? cJSON_Print(json) : NULL;
    cJSON_Delete(json);
    if (!text)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory printing JSON");
    printf("%s\n", text);
    cJSON_free(text);
    return rt_ok_status();
}
