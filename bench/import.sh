#!/bin/sh
# bench/import.sh BUILDDIR [WORKDIR] — `retrace import` against gfxrecon-replay,
# on captures made here with GFXReconstruct's layer (vkcube, glmark2 through
# zink): import time against gfxrecon-replay's replay of the same capture
# (wall and CPU seconds, /usr/bin/time), and the imported trace's size against
# the zstd GFXReconstruct file (gfxrecon-compress). Needs DISPLAY (Xvfb).
# Goals (issue 20): import faster than gfxrecon-replay replays; the trace no
# larger than the zstd .gfxr.
set -eu
build=$(cd "$1" && pwd)
work=${2:-$build/bench/import}
retrace=$build/cli/retrace
mkdir -p "$work"
capture() { # NAME PROGRAM ARGS...
    name=$1
    shift
    VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE="$work/$name.gfxr" \
        GFXRECON_CAPTURE_FILE_TIMESTAMP=false GFXRECON_LOG_LEVEL=error "$@" >/dev/null 2>&1
    gfxrecon-compress "$work/$name.gfxr" "$work/$name.zstd.gfxr" zstd >/dev/null 2>&1
}
seconds() { # LABEL COMMAND... : "wall user+sys"
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>&1 || true
    awk '{printf "%.2f %.2f", $1, $2 + $3}' "$work/time"
}
capture vkcube vkcube --c 300
MESA_LOADER_DRIVER_OVERRIDE=zink LIBGL_ALWAYS_SOFTWARE=1 \
    capture glmark2 glmark2 -b build:duration=3 -b texture:duration=3 --size 320x240
printf '%-10s %12s %12s %10s %16s %14s %14s\n' capture gfxr-lz4 gfxr-zstd imported 'size/zstd' \
    'import s (cpu)' 'gfxrecon s (cpu)'
for name in vkcube glmark2; do
    imp=$(seconds "$retrace" import "$work/$name.gfxr" -o "$work/$name.rtrace")
    rep=$(seconds gfxrecon-replay --wsi xlib "$work/$name.gfxr")
    lz4=$(wc -c <"$work/$name.gfxr") zstd=$(wc -c <"$work/$name.zstd.gfxr") out=$(wc -c <"$work/$name.rtrace")
    printf '%-10s %12d %12d %10d %16.3f %14s %14s\n' "$name" "$lz4" "$zstd" "$out" \
        "$(echo "$out $zstd" | awk '{print $1 / $2}')" "$imp" "$rep"
done
