/*
 * libFuzzer harness for the run upload (docs/FORMATS.md section 2) as the
 * server receives it: the body parsed with cJSON and imported into a store
 * (rt_store_upload_import), which must refuse anything malformed with an
 * error and record nothing half. The store is a file in /dev/shm, started
 * afresh every 5,000 recorded runs so it stays small.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rt_store *store;
static char path[64];
static unsigned recorded;

static void open_store(void)
{
    if (store)
        rt_store_close(store);
    snprintf(path, sizeof path, "/dev/shm/retrace-fuzz-upload-%d.db", (int)getpid());
    unlink(path);
    rt_status s = rt_store_open(path, RT_STORE_CREATE, &store);
    if (!rt_ok(&s)) {
        fprintf(stderr, "fuzz_upload: %s\n", s.msg);
        abort();
    }
    recorded = 0;
}

static void remove_store(void)
{
    rt_store_close(store);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!store) {
        open_store();
        atexit(remove_store);
    }
    cJSON *json = cJSON_ParseWithLength((const char *)data, size);
    if (!json)
        return 0;
    int64_t run = 0;
    bool duplicate = false;
    rt_status s = rt_store_upload_import(store, json, &run, &duplicate);
    if (rt_ok(&s) && run <= 0)
        abort(); /* recorded, but under no run */
    cJSON_Delete(json);
    if (rt_ok(&s) && ++recorded >= 5000)
        open_store();
    return 0;
}
