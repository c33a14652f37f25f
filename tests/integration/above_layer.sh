#!/bin/sh
# tests/integration/above_layer.sh RETRACE LAYER_DIR TEST_LAYER_DIR PROC_ADDR —
# a layer above the capture layer that fetches the next vkCreateDevice with
# vkGetInstanceProcAddr(NULL, ...) (vkBasalt, GFXReconstruct): the program
# runs as without the capture layer, and the trace checks and replays.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$work/names"
out=$(VK_ADD_LAYER_PATH="$3:$2" VK_INSTANCE_LAYERS=VK_LAYER_RETRACE_test_above:VK_LAYER_RETRACE_capture \
      RETRACE_OUTPUT="$work/t.rtrace" "$4" "$work/names" 2>&1) ||
    { echo "FAIL: the program failed with the capture layer under the test layer"; echo "$out"; exit 1; }
"$1" info --check "$work/t.rtrace" >/dev/null || { echo "FAIL: info --check"; exit 1; }
"$1" replay "$work/t.rtrace" >/dev/null 2>&1 || { echo "FAIL: replay"; exit 1; }
echo "ok: a layer above that calls vkGetInstanceProcAddr(NULL, \"vkCreateDevice\") works"
