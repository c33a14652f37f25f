#!/bin/sh
# tests/integration/outputs.sh RETRACE MAKE_OUTPUTS_TRACE — one call making more
# handles than replay follows stops the replay: exit 5 (internal), named.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$2" "$work/outputs.rtrace" || { echo "FAIL: could not write the trace"; exit 1; }
out=$("$1" replay "$work/outputs.rtrace" 2>&1)
rc=$?
[ "$rc" -eq 5 ] && echo "$out" | grep -q "call 4 makes more than 4096 handles" ||
    { echo "FAIL: expected exit 5 naming call 4, got exit $rc:"; echo "$out"; exit 1; }
echo "ok: $out" | tail -n 1
