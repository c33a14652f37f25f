#!/bin/sh
# tests/integration/same_output.sh LAYER_DIR RETRACE PROGRAM... — two processes
# capturing to the same RETRACE_OUTPUT at once (a launcher and its child, say)
# must not write into one file: the second gets NAME-PID.rtrace, and both
# traces are whole.
set -u
layer=$1 retrace=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export VK_ADD_LAYER_PATH="$layer" VK_INSTANCE_LAYERS=VK_LAYER_RETRACE_capture RETRACE_OUTPUT="$work/same.rtrace"
"$@" >/dev/null 2>&1 &
first=$!
"$@" >/dev/null 2>&1 &
second=$!
wait $first && wait $second || { echo "FAIL: a program failed"; exit 1; }
unset VK_ADD_LAYER_PATH VK_INSTANCE_LAYERS RETRACE_OUTPUT
n=0
for t in "$work"/*.rtrace; do
    "$retrace" info --check "$t" >/dev/null || { echo "FAIL: $t is not a whole trace"; exit 1; }
    n=$((n + 1))
done
[ "$n" -eq 2 ] || { echo "FAIL: $n traces for two processes:"; ls -la "$work"; exit 1; }
echo "ok: two whole traces"
