/*
 * cli/farm.c — how `retrace` runs its farm subcommands (golden, serve, run,
 * upload): it execs retrace-farm, the binary that links SQLite, libcurl and
 * libmicrohttpd, with the same arguments (cli.h). retrace-farm is found from
 * the running binary, as common/datadir.c finds the data folders: at
 * RT_FARM_FROM_BIN from the binary's folder (PREFIX/bin/retrace finds
 * PREFIX/LIBEXECDIR/retrace/retrace-farm under any prefix or DESTDIR; the
 * build tree has the same link, made by cli/meson.build), else at the
 * configured RT_FARM_INSTALL_PATH.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* DIR/REL, each "../" that starts REL taking a folder off DIR's end, so that
 * the path an error names is the one a person would look for. */
static void join(char *out, size_t size, const char *dir, const char *rel)
{
    if (rel[0] == '/') {
        snprintf(out, size, "%s", rel);
        return;
    }
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", dir);
    for (char *slash; !strncmp(rel, "../", 3) && (slash = strrchr(d, '/')) && slash != d; rel += 3)
        *slash = '\0';
    snprintf(out, size, "%s/%s", d, rel);
}

int cli_exec_farm(const char *name, char **argv)
{
    static char self[PATH_MAX]; /* argv[0] of retrace-farm, so static */
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return cli_fail(rt_errorf(RT_ERR_INTERNAL, "retrace %s: cannot read /proc/self/exe to find retrace-farm: %s",
                                  name, strerror(errno)));
    self[n] = '\0';
    char dir[PATH_MAX], farm[PATH_MAX + sizeof RT_FARM_FROM_BIN + sizeof RT_FARM_INSTALL_PATH];
    snprintf(dir, sizeof dir, "%s", self);
    char *slash = strrchr(dir, '/'); /* the kernel's path is absolute */
    if (slash)
        *slash = '\0';
    join(farm, sizeof farm, dir, RT_FARM_FROM_BIN);
    if (access(farm, X_OK) != 0 && access(RT_FARM_INSTALL_PATH, X_OK) == 0)
        snprintf(farm, sizeof farm, "%s", RT_FARM_INSTALL_PATH);
    argv[0] = self;
    execv(farm, argv);
    if (errno == ENOENT)
        return cli_fail(rt_errorf(RT_ERR_INTERNAL, "retrace %s is run by %s, which is missing; reinstall retrace",
                                  name, farm));
    return cli_fail(rt_errorf(RT_ERR_INTERNAL, "retrace %s is run by %s, which cannot be run: %s; reinstall retrace",
                              name, farm, strerror(errno)));
}
