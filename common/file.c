/* common/file.c — reading a whole file, making folders, checking outputs (see file.h). */
#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

rt_status rt_output_file_check(const char *flag, const char *path)
{
    char dir[4096];
    struct stat st;
    size_t n = strlen(path);
    if (n == 0 || path[n - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        return rt_errorf(RT_ERR_USAGE, "%s: cannot write %s: it is a directory; name a file", flag, path);
    if (n >= sizeof dir)
        return rt_errorf(RT_ERR_USAGE, "%s: cannot write %.200s...: the path is too long", flag, path);
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0'; /* "/name": the root folder */
    else
        *slash = '\0';
    if (stat(dir, &st) != 0)
        return rt_errorf(RT_ERR_USAGE, "%s: cannot write %s: folder %s: %s", flag, path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rt_errorf(RT_ERR_USAGE, "%s: cannot write %s: %s is not a folder", flag, path, dir);
    /* access(W_OK) says yes to root on a read-only mount and on /proc: only
     * making a file there tells. */
    char probe[4096 + 32];
    snprintf(probe, sizeof probe, "%s/.retrace-probe-XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0)
        return rt_errorf(RT_ERR_USAGE, "%s: cannot write %s: folder %s: %s", flag, path, dir, strerror(errno));
    close(fd);
    unlink(probe);
    return rt_ok_status();
}

rt_status rt_file_open_read(const char *path, const char *what, FILE **out)
{
    const char *sep = what ? " " : "";
    what = what ? what : "";
    struct stat st;
    *out = fopen(path, "rb");
    if (!*out)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: cannot open%s%s: %s", path, sep, what, strerror(errno));
    if (fstat(fileno(*out), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(*out);
        *out = NULL;
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: cannot open%s%s: it is a directory", path, sep, what);
    }
    return rt_ok_status();
}

bool rt_same_file(const char *x, const char *y)
{
    if (!strcmp(x, y))
        return true;
    struct stat sx, sy;
    return stat(x, &sx) == 0 && stat(y, &sy) == 0 && sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
}
