/*
 * cli/cmd_devices.c — `retrace devices`: the Vulkan devices `replay --device`
 * can name (index, name, vendor, driver, API version), and the line that
 * lists them when a --device names none.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "devices.h"

static const char *const device_types[] = {"other", "integrated GPU", "discrete GPU",
                                           "virtual GPU", "CPU"};

static const struct cli_option options[] = {{"json", 0, CLI_FLAG, 1, NULL, "one JSON array of objects"}, {0}};

void cmd_devices_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace devices [--json]\n"
            "Lists the Vulkan devices replay can run on, one per line:\n"
            "  INDEX  NAME  vendor VENDOR (0xID), TYPE  driver DRIVER  API X.Y.Z  key KEY\n"
            "KEY (VVVV:DDDD/DRIVER) is what goldens and expectations are stored under.\n"
            "`retrace replay --device INDEX` picks one by index, `--device TEXT` the first\n"
            "whose name contains TEXT.\n");
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "ok"},
        {RT_ERR_USAGE, "usage"},
        {RT_ERR_CANNOT_REPLAY, "no Vulkan loader or instance"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

static const char *type_name(uint32_t type)
{
    return type < sizeof device_types / sizeof device_types[0] ? device_types[type] : "unknown";
}

static void vendor_text(uint32_t id, char out[64])
{
    const char *name = rt_replay_vendor_name(id);
    snprintf(out, 64, "%s (0x%04x)", name ? name : "unknown", id);
}

static void driver_text(const struct rt_replay_device *d, char out[600])
{
    if (d->driver_name[0])
        snprintf(out, 600, "%s%s%s%s", d->driver_name, d->driver_info[0] ? " (" : "",
                 d->driver_info, d->driver_info[0] ? ")" : "");
    else
        snprintf(out, 600, "version 0x%08x", d->driver_version);
}

static void print_text(const struct rt_replay_device *list, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        char vendor[64], driver[600], api[32], key[600];
        vendor_text(list[i].vendor_id, vendor);
        driver_text(&list[i], driver);
        rt_replay_version_text(list[i].api_version, api);
        rt_replay_device_key(list[i].vendor_id, list[i].device_id, list[i].driver_info, list[i].driver_version, key,
                             sizeof key);
        printf("%u  %s  vendor %s, %s  driver %s  API %s  key %s\n", list[i].index, list[i].name, vendor,
               type_name(list[i].device_type), driver, api, key);
    }
    if (count == 0)
        printf("no Vulkan devices\n");
}

static cJSON *device_json(const struct rt_replay_device *d)
{
    char api[32], vendor[64], key[600];
    rt_replay_version_text(d->api_version, api);
    const char *vendor_name = rt_replay_vendor_name(d->vendor_id);
    snprintf(vendor, sizeof vendor, "%s", vendor_name ? vendor_name : "unknown");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", d->index);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "vendor", vendor);
    cJSON_AddNumberToObject(o, "vendor_id", d->vendor_id);
    cJSON_AddNumberToObject(o, "device_id", d->device_id);
    cJSON_AddStringToObject(o, "type", type_name(d->device_type));
    cJSON_AddStringToObject(o, "driver_name", d->driver_name);
    cJSON_AddStringToObject(o, "driver_info", d->driver_info);
    cJSON_AddNumberToObject(o, "driver_version", d->driver_version);
    cJSON_AddStringToObject(o, "api_version", api);
    rt_replay_device_key(d->vendor_id, d->device_id, d->driver_info, d->driver_version, key, sizeof key);
    cJSON_AddStringToObject(o, "device_key", key);
    return o;
}

static rt_status print_json(const struct rt_replay_device *list, uint32_t count)
{
    cJSON *array = cJSON_CreateArray();
    for (uint32_t i = 0; array && i < count; i++) {
        cJSON *device = device_json(&list[i]);
        if (!device || !cJSON_AddItemToArray(array, device)) {
            cJSON_Delete(device);
            cJSON_Delete(array);
            array = NULL; /* out of memory: an error, never a shorter list */
        }
    }
    return cli_print_json(array);
}

int cmd_devices_run(int argc, char **argv)
{
    bool json = false;
    struct cli_args p;
    cli_args_init(&p, cli_find_command("devices"), argc, argv, options, 0);
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        if (id == CLI_ARGS_STOP)
            return cli_exit_code(p.result);
        if (id == CLI_ARGS_POSITIONAL)
            return cli_usage_error(p.cmd, "unexpected argument '%s'", p.value);
        json = true;
    }
    struct rt_replay_device *list = NULL;
    uint32_t count = 0;
    rt_status s = rt_replay_list_devices(&list, &count);
    if (rt_ok(&s) && json)
        s = print_json(list, count);
    else if (rt_ok(&s))
        print_text(list, count);
    free(list);
    return cli_fail(s);
}

rt_status cli_check_device(const char *want)
{
    struct rt_replay_device *list = NULL;
    uint32_t count = 0;
    if (!want)
        return rt_ok_status();
    rt_status listed = rt_replay_list_devices(&list, &count);
    if (!rt_ok(&listed)) {
        rt_status_free(&listed);
        return rt_ok_status(); /* replay itself will say what is wrong */
    }
    bool found = false;
    char names[RT_STATUS_MSG_MAX] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < count && !found; i++) {
        found = rt_replay_device_matches(want, i, list[i].name);
        int n = snprintf(names + used, sizeof names - used, "%s%u \"%s\"", i ? ", " : "", i,
                         list[i].name);
        if (n > 0 && used + (size_t)n < sizeof names)
            used += (size_t)n;
    }
    free(list);
    if (found)
        return rt_ok_status();
    return rt_errorf(RT_ERR_CANNOT_REPLAY, "no Vulkan device matches --device %s; --device can "
                     "name %s (retrace devices lists them)", want, count ? names : "none: no devices");
}
