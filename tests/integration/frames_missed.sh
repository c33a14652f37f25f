#!/bin/sh
# tests/integration/frames_missed.sh RETRACE APP [ARGS...] — every frame
# asked for and not saved is named with why, at capture (--screenshot-frames;
# exit status unchanged) and at replay (--frames; exit 2): past the end, and
# with --frame-delimiter submit, a frame that presented no image (APP's first
# submit comes before its first present). `retrace info` says
# screenshots=yes only for the frames actually saved, and names them.
# Skips (77) without a display.
set -u
retrace=$1
shift
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${DISPLAY:-}" ] || { echo "skip: no DISPLAY"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$retrace" capture -o "$work/t.rtrace" --frame-delimiter submit --screenshots "$work/cap" \
    --screenshot-frames 1-8 -- "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; fail "capture exit $?"; }
grep -q "warning: --screenshot-frames: frame 1 not saved: it presented no image" "$work/err" ||
    { cat "$work/err"; fail "capture does not name frame 1"; }
grep -q "warning: --screenshot-frames: frames [0-9]*-8 not saved: past the end of the trace" "$work/err" ||
    { cat "$work/err"; fail "capture does not name the frames past the end"; }
for f in "$work"/cap/frame_*.png; do
    n=$(basename "$f" .png | sed 's/frame_0*//')
    grep -q "frames\? [0-9-]*\b$n\b.*not saved" "$work/err" && fail "frame $n is saved and named as not saved"
done
echo "ok: capture: $(grep -c 'not saved' "$work/err") warnings"
saved=$(ls "$work/cap" | sed 's/frame_0*//; s/\.png//' | sort -n | tr '\n' ',' | sed 's/,$//; s/,/, /g')
"$retrace" info "$work/t.rtrace" >"$work/info" || fail "info"
grep -q "screenshots=yes" "$work/info" && grep -q "^screenshots  [0-9]* saved at capture: frames\? $saved\$" "$work/info" ||
    { cat "$work/info"; fail "info does not name the frames saved ($saved)"; }
"$retrace" capture -o "$work/none.rtrace" --screenshots "$work/none" --screenshot-frames 50 -- "$@" >/dev/null 2>&1 ||
    fail "capture with a frame past the end"
"$retrace" info "$work/none.rtrace" >"$work/info" || fail "info"
grep -q "screenshots=no" "$work/info" && ! grep -q "^screenshots " "$work/info" ||
    { cat "$work/info"; fail "info says screenshots for a trace that saved none"; }
echo "ok: info: screenshots of frames $saved"
"$retrace" replay "$work/t.rtrace" --screenshots "$work/rep" --frames 1-8 >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 2 ] || { cat "$work/err"; fail "replay exit $rc, not 2"; }
grep -q "warning: --frames: frame 1 not saved: it presented no image" "$work/err" ||
    { cat "$work/err"; fail "replay does not name frame 1"; }
grep -q "warning: --frames: frames\? [0-9-]* not saved: past the last frame replayed" "$work/err" ||
    { cat "$work/err"; fail "replay does not name the frames past the end"; }
echo "ok: replay: $(grep 'not saved' "$work/err" | tr '\n' ' ')"
