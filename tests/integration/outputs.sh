#!/bin/sh
# tests/integration/outputs.sh RETRACE MAKE_OUTPUTS_TRACE — one call making more
# handles than replay follows stops the replay: exit 5 (internal), named; a
# call using a handle the trace never made is refused by replay and by
# `info --check` at the same call (exit 3).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$2" "$work/outputs.rtrace" || { echo "FAIL: could not write the trace"; exit 1; }
out=$("$1" replay "$work/outputs.rtrace" 2>&1)
rc=$?
[ "$rc" -eq 5 ] && echo "$out" | grep -q "call 4 makes more than 4096 handles" ||
    { echo "FAIL: expected exit 5 naming call 4, got exit $rc:"; echo "$out"; exit 1; }
"$2" "$work/orphan.rtrace" orphan || { echo "FAIL: could not write the orphan trace"; exit 1; }
out=$("$1" replay "$work/orphan.rtrace" 2>&1)
rc=$?
[ "$rc" -eq 3 ] && echo "$out" | grep -q "call 3 uses a handle .* never created" ||
    { echo "FAIL: replay: expected exit 3 naming call 3, got exit $rc:"; echo "$out"; exit 1; }
out=$("$1" info --check "$work/orphan.rtrace" 2>&1)
rc=$?
[ "$rc" -eq 3 ] && echo "$out" | grep -q "replay would refuse call 3 uses a handle" ||
    { echo "FAIL: info --check: expected exit 3 naming call 3, got exit $rc:"; echo "$out"; exit 1; }
echo "ok: replay and info --check both stop at the call"
