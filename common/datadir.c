/* common/datadir.c — see datadir.h. */
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEVELS_UP 3

static bool is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool rt_datadir_find(const char *subpath, const char *fallback, char *out, size_t size)
{
    char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    for (int level = 0; n > 0 && level <= LEVELS_UP; level++) {
        dir[n] = '\0';
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = '\0'; /* the folder of what was there */
        n = slash - dir;
        int w = snprintf(out, size, "%s/share/%s", dir, subpath);
        if (w > 0 && (size_t)w < size && is_dir(out))
            return true;
    }
    if (fallback && is_dir(fallback) && (size_t)snprintf(out, size, "%s", fallback) < size)
        return true;
    if (size)
        out[0] = '\0';
    return false;
}
