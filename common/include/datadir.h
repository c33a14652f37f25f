/*
 * common/include/datadir.h — where retrace's data folders are (the dashboard's
 * pages, the workaround sets, the layer manifest), found from the running
 * binary rather than from paths compiled in: an installed retrace may have
 * been built on another machine, or installed under a DESTDIR or another
 * prefix, and no path into a source or build tree may be compiled into it.
 * The build tree looks like an installed tree for this (its share/retrace/
 * holds links into the sources, made by meson at configure time).
 * Must not touch: anything but libc.
 */
#ifndef RT_DATADIR_H
#define RT_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

/**
 * Finds the folder SUBPATH ("retrace/web", "vulkan/explicit_layer.d") under a
 * share/ folder beside or above the running binary (the binary's folder and
 * up to three above it: BUILD/cli/retrace finds BUILD/share/SUBPATH,
 * PREFIX/bin/retrace finds PREFIX/share/SUBPATH), else FALLBACK (the
 * configured install location) when that exists. Writes the folder to OUT;
 * false when none exists.
 */
bool rt_datadir_find(const char *subpath, const char *fallback, char *out, size_t size);

#endif
