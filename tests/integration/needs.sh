#!/bin/sh
# tests/integration/needs.sh RETRACE MAKE_NEEDS_TRACE KIND EXPECTED — a trace
# needing what the device lacks is refused with exit 4, naming it; EXPECTED
# "ok" means the trace must replay (exit 0) instead.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$2" "$work/needs.rtrace" "$3" || { echo "FAIL: could not write the trace"; exit 1; }
out=$("$1" replay "$work/needs.rtrace" 2>&1)
rc=$?
if [ "$4" = ok ]; then
    [ "$rc" -eq 0 ] && { echo "ok: replayed"; exit 0; }
    echo "FAIL: expected a replay, got exit $rc:"; echo "$out"; exit 1
fi
if [ "$rc" -ne 4 ] || ! echo "$out" | grep -q "$4"; then
    echo "FAIL: expected exit 4 naming $4, got exit $rc:"
    echo "$out"
    exit 1
fi
echo "ok: $out" | tail -n 1
