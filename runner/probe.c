/*
 * runner/probe.c — which device this run replays on, found before the first
 * job (as `retrace devices --json` lists them, in a child process like every
 * Vulkan call of the runner), so that goldens, expectations and the sync
 * apply from the first trace on. The device is named by --device (INDEX or
 * a substring of the name), else it is the first device; the run then gives
 * every replay that device's index, so that what it replays on is what it
 * records (a replay left to itself prefers the capture's vendor).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "internal.h"

/* The line of the output that is the JSON array (the loader may print before it). */
static cJSON *parse_list(const char *out)
{
    for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (*line == '[') {
            cJSON *list = cJSON_Parse(line);
            if (cJSON_IsArray(list))
                return list;
            cJSON_Delete(list);
        }
    return NULL;
}

static bool matches(const cJSON *d, const char *want)
{
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(d, "index");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
    char *end = NULL;
    unsigned long n = strtoul(want, &end, 10);
    if (end != want && *end == '\0')
        return cJSON_IsNumber(index) && index->valuedouble == (double)n;
    return cJSON_IsString(name) && strstr(name->valuestring, want);
}

static char *field(const cJSON *d, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, key);
    return strdup(cJSON_IsString(v) ? v->valuestring : "");
}

rt_status rt_run_probe_device(const char *retrace, const char *want, struct rt_probed_device *out)
{
    memset(out, 0, sizeof *out);
    char *argv[] = {(char *)retrace, "devices", "--json", NULL};
    static char buf[RT_CHILD_TAIL + 1];
    RT_TRY(rt_child_capture(argv, 60, buf, sizeof buf));
    cJSON *list = parse_list(buf);
    if (!list)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "retrace devices --json listed no devices");
    const cJSON *d, *chosen = NULL;
    cJSON_ArrayForEach(d, list)
        if (!chosen && (!want || matches(d, want)))
            chosen = d;
    rt_status s = rt_ok_status();
    if (chosen) {
        const cJSON *index = cJSON_GetObjectItemCaseSensitive(chosen, "index");
        snprintf(out->index, sizeof out->index, "%.0f", cJSON_IsNumber(index) ? index->valuedouble : 0);
        out->name = field(chosen, "name");
        out->key = field(chosen, "device_key");
        /* Worded as the replay report words it (replay/report.c). */
        char *driver = field(chosen, "driver_name"), *info = field(chosen, "driver_info");
        const cJSON *version = cJSON_GetObjectItemCaseSensitive(chosen, "driver_version");
        size_t n = (driver ? strlen(driver) : 0) + (info ? strlen(info) : 0) + 24;
        out->driver = driver && info ? malloc(n) : NULL;
        if (out->driver && *driver)
            snprintf(out->driver, n, "%s %s", driver, info);
        else if (out->driver)
            snprintf(out->driver, n, "%.0f", cJSON_IsNumber(version) ? version->valuedouble : 0);
        free(driver);
        free(info);
        if (!out->name || !out->key || !out->driver)
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory");
    } else {
        s = rt_errorf(RT_ERR_CANNOT_REPLAY, "no Vulkan device matches --device %s (retrace devices lists them)",
                      want ? want : "");
        out->none_matched = true;
    }
    cJSON_Delete(list);
    if (!rt_ok(&s)) {
        bool none_matched = out->none_matched;
        rt_probed_device_finish(out);
        out->none_matched = none_matched;
    }
    return s;
}

void rt_probed_device_finish(struct rt_probed_device *d)
{
    free(d->name);
    free(d->key);
    free(d->driver);
    memset(d, 0, sizeof *d);
}
