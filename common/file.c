/* common/file.c — reading a whole file, making folders (see file.h). */
#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reads F to its end into a buffer grown by doubling. */
static rt_status read_stream(FILE *f, const char *path, uint8_t **data_out, size_t *size_out)
{
    uint8_t *data = NULL;
    size_t size = 0, capacity = 0, got;
    do {
        if (size == capacity) {
            capacity = capacity ? capacity * 2 : 65536;
            uint8_t *grown = realloc(data, capacity);
            if (!grown) {
                free(data);
                return rt_errorf(RT_ERR_INTERNAL, "out of memory reading %s", path);
            }
            data = grown;
        }
        got = fread(data + size, 1, capacity - size, f);
        size += got;
    } while (got > 0);
    if (ferror(f)) {
        free(data);
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot read %s", path);
    }
    *data_out = data;
    *size_out = size;
    return rt_ok_status();
}

rt_status rt_file_read(const char *path, uint8_t **data_out, size_t *size_out)
{
    *data_out = NULL;
    *size_out = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot open %s: %s", path, strerror(errno));
    rt_status s = read_stream(f, path, data_out, size_out);
    fclose(f);
    return s;
}

static rt_status make_one(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST)
        return rt_ok_status();
    return rt_errorf(RT_ERR_BAD_INPUT, "cannot create %s: %s", path, strerror(errno));
}

rt_status rt_make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot create %.200s...: the path is too long", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        RT_TRY(make_one(buf));
        *p = '/';
    }
    return make_one(buf);
}
