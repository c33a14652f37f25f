#!/bin/sh
# tests/integration/newer_loader.sh RETRACE LAYER_DIR PROGRAM... — capture
# works under a newer Vulkan loader than Debian's 1.3.239: the 1.4.x one
# Debian's chromium package bundles (as Electron apps and game runtimes
# do). Such a loader drops a second manifest of the same layer in a folder
# as a duplicate and fails to load the one it kept, so the folder retrace
# hands to the loader must hold exactly one manifest of the layer.
# Skips (77) without a display or where chromium's loader is absent.
set -u
retrace=$1 layer=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${DISPLAY:-}" ] || { echo "skip: no DISPLAY"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=$(grep -l '"VK_LAYER_RETRACE_capture"' "$layer"/*.json | wc -l)
[ "$n" -eq 1 ] || fail "$layer holds $n manifests of the layer: $(ls "$layer"/*.json)"

lib=$(dpkg -L chromium-common 2>/dev/null | grep '/libvulkan\.so\.1$' | head -n 1)
[ -n "$lib" ] || { echo "skip: chromium-common's libvulkan.so.1 is not installed"; exit 77; }
LD_LIBRARY_PATH="$(dirname "$lib")" "$retrace" capture --json -o "$work/new.rtrace" -- "$@" >"$work/out" 2>"$work/err" ||
    { cat "$work/err"; fail "capture under $lib failed"; }
tail -n 1 "$work/out" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
assert o["frames"] >= 1, o' || { cat "$work/out" "$work/err"; fail "no frames under $lib"; }
"$retrace" info --check "$work/new.rtrace" >/dev/null || fail "the trace does not check"
echo "ok: $* captured under $lib: $(tail -n 1 "$work/out")"
