#!/bin/sh
# tests/integration/layer_not_loaded.sh RETRACE LAYER_DIR PROGRAM... — when
# the capture layer does not load (its manifest names a library that is not
# there), `retrace capture` exits 3 saying so, in the Vulkan loader's own
# words; a program that never creates an instance is told apart.
set -u
retrace=$1 layer=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bad"
sed 's|"library_path": "[^"]*"|"library_path": "/nonexistent/libVkLayer_RETRACE_capture.so"|' \
    "$layer/VkLayer_RETRACE_capture.json" >"$work/bad/VkLayer_RETRACE_capture.json"
RETRACE_LAYER_DIR="$work/bad" "$retrace" capture -o "$work/bad.rtrace" -- "$@" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 3 ] || { cat "$work/err"; fail "a layer that cannot load: exit $rc, not 3"; }
grep -q "the capture layer did not load; the Vulkan loader says: .*/nonexistent/libVkLayer_RETRACE_capture.so: cannot open shared object file" "$work/err" ||
    { cat "$work/err"; fail "the error does not quote the loader"; }
echo "ok: $(tail -n 1 "$work/err")"
"$retrace" capture -o "$work/true.rtrace" -- true >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 3 ] && grep -q "true wrote no trace: it never created a Vulkan instance" "$work/err" ||
    { cat "$work/err"; fail "a program without Vulkan: exit $rc"; }
echo "ok: $(tail -n 1 "$work/err")"
