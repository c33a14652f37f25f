#!/bin/sh
# tests/integration/instances.sh RETRACE INSTANCES MODE COUNT — captures
# tests/integration/instances.c (instances, devices and queues alive at once;
# handles reused), replays it with its memory as captured and rebound, and
# compares every read-back with the one the program saw, pixel for pixel.
set -u
retrace=$1 program=$2 mode=$3 count=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/own"
out=$("$retrace" capture -o "$work/t.rtrace" --frame-delimiter submit -- "$program" "$mode" "$work/own" 2>&1) ||
    { echo "FAIL: capture"; echo "$out"; exit 1; }
echo "$out" | grep -q "^$count read-backs, 0 wrong pixels" || { echo "FAIL: the program itself"; echo "$out"; exit 1; }
"$retrace" info --check "$work/t.rtrace" >/dev/null || { echo "FAIL: info --check"; exit 1; }
for memory in direct rebind; do
    out=$("$retrace" replay "$work/t.rtrace" --validate --memory $memory --readbacks "$work/$memory" 2>&1) ||
        { echo "FAIL: replay ($memory memory)"; echo "$out"; exit 1; }
    echo "$out" | grep -q "validation: 0 errors" || { echo "FAIL: validation ($memory)"; echo "$out"; exit 1; }
    n=0
    for own in "$work"/own/readback_*.png; do
        name=$(basename "$own")
        line=$("$retrace" compare "$own" "$work/$memory/$name" 2>&1)
        case "$line" in *diff_pixels=0\ *) n=$((n + 1)) ;; *) echo "FAIL: $memory: $name: $line"; exit 1 ;; esac
    done
    [ "$n" -eq "$count" ] || { echo "FAIL: $memory: $n of $count read-backs compared"; exit 1; }
done
echo "ok: $mode: $count read-backs replayed pixel for pixel, memory direct and rebound"
