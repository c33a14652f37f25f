/*
 * libFuzzer harness for the run manifest (docs/manifest.md, YAML read with
 * libyaml by runner/manifest*.c): the bytes are written to a file in
 * /dev/shm and loaded; anything wrong must be an error, never a crash, a
 * leak or undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void remove_file(void) { unlink(path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/dev/shm/retrace-fuzz-manifest-%d.yml", (int)getpid());
        atexit(remove_file);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    struct rt_manifest m;
    rt_status s = rt_manifest_load(path, &m);
    if (rt_ok(&s))
        rt_manifest_finish(&m);
    rt_status_free(&s); /* an error's message is the caller's to free */
    return 0;
}
