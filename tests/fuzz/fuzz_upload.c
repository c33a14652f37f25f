/*
 * libFuzzer harness for the run upload (docs/FORMATS.md sections 2 and 5.2)
 * as the server receives it: the body decoded and checked by wire/
 * (rt_upload_decode, images included), its regressions recomputed, and what
 * passes imported into a store (rt_store_upload_import), which must record
 * it whole or refuse it with an error. The store is a file in /dev/shm, started
 * afresh every 5,000 recorded runs so it stays small.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store.h"
#include "wire.h"

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
    struct rt_upload u;
    rt_status s = rt_upload_decode((const char *)data, size, &u);
    if (!rt_ok(&s)) {
        rt_status_free(&s); /* an error's message is the caller's to free */
        return 0;
    }
    rt_upload_recompute(&u);
    int64_t run = 0;
    bool duplicate = false;
    s = rt_store_upload_import(store, &u.rec, &run, &duplicate);
    if (rt_ok(&s) && run <= 0)
        abort(); /* recorded, but under no run */
    rt_upload_finish(&u);
    bool ok = rt_ok(&s);
    rt_status_free(&s);
    if (ok && ++recorded >= 5000)
        open_store();
    return 0;
}
