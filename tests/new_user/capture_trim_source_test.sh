#!/bin/sh
# tests/new_user/capture_trim_source_test.sh RETRACE APP — a trace made by
# `retrace capture --trim-frames` names its source as the run it was cut from,
# not as the temporary STEM.untrimmed.rtrace that capture removed once the
# trim was written (before, `info` and `dump` sent a reader looking for a
# file that never stays). Prints TAP.
R=$1 APP=$2
. "$(dirname "$0")/../cli/tap.sh"
check "capture --trim-frames writes the trimmed trace" 0 "trimmed frames 2-3 of the run's 5" -- \
    "$R" capture --trim-frames 2-3 --frame-delimiter submit -o "$work/t.rtrace" -- "$APP" --offscreen --frames 5
check "info names the run, not the removed untrimmed trace" 0 \
    '^trimmed      frames 2-3 of the run captured with --trim-frames (not kept) (5 frames, sha256' -- \
    "$R" info "$work/t.rtrace"
out=$("$R" info "$work/t.rtrace" 2>&1; "$R" dump "$work/t.rtrace" 2>&1; "$R" info --json "$work/t.rtrace")
case $out in
*untrimmed*) not_ok "no output names t.untrimmed.rtrace" "$(printf '%s\n' "$out" | grep untrimmed)" ;;
*) ok "no output names t.untrimmed.rtrace" ;;
esac
# retrace trim of a trace still names that trace, by its file name.
check "retrace trim still names its source file" 0 "" -- \
    "$R" trim "$work/t.rtrace" --frames 2 -o "$work/u.rtrace"
check "info of a trim of a trim names its direct source" 0 '^trimmed      frames 2-2 of t.rtrace (2 frames' -- \
    "$R" info "$work/u.rtrace"
echo "1..$n"
[ "$failed" -eq 0 ]
