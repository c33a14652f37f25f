#!/bin/sh
# tests/integration/mt_submit.sh RETRACE MT_SUBMIT — threads recording and
# submitting at once under the capture layer: the replay's read-back images
# must equal, in submission order, the ones the program saw.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/own"
out=$("$1" capture -o "$work/t.rtrace" --frame-delimiter submit -- "$2" "$work/own" 6 5 2>&1) ||
    { echo "FAIL: capture"; echo "$out"; exit 1; }
echo "$out" | grep -q "0 wrong pixels" || { echo "FAIL: the program saw wrong pixels"; echo "$out"; exit 1; }
ls "$work"/t-*.rtrace >/dev/null 2>&1 && { echo "FAIL: the capture split into several traces"; ls "$work"; exit 1; }
"$1" info --check "$work/t.rtrace" | grep -q "^end  *clean close" || { echo "FAIL: not closed cleanly"; exit 1; }
out=$("$1" replay "$work/t.rtrace" --validate --readbacks "$work/replay" 2>&1) ||
    { echo "FAIL: replay"; echo "$out"; exit 1; }
echo "$out" | grep -q "validation: 0 errors, 0 warnings" || { echo "FAIL: validation"; echo "$out"; exit 1; }
n=0
for own in "$work"/own/readback_*.png; do
    name=$(basename "$own")
    line=$("$1" compare "$own" "$work/replay/$name" 2>&1)
    case "$line" in *diff_pixels=0\ *) n=$((n + 1)) ;; *) echo "FAIL: $name: $line"; exit 1 ;; esac
done
[ "$n" -eq 30 ] || { echo "FAIL: $n of 30 read-backs compared"; exit 1; }
echo "ok: 30 submissions from 6 threads replayed in order, pixel for pixel"
