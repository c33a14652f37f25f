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
# Killed while frames are being saved: the last frames' PNGs are on disk but
# their calls were in the block the kill lost. They are named as saved past
# the trace's end (and kept), never as not saved. Whether any PNG lies past
# the end depends on when the kill lands: up to 3 tries for one that does.
app=$1
shift
killed_capture() { # sets frames (the trace's) and newest (the highest PNG)
    rm -rf "$work/kcap" "$work"/k.rtrace*
    "$retrace" capture -o "$work/k.rtrace" --screenshots "$work/kcap" --screenshot-frames 1-1000000 -- \
        "$app" --frames 1000000 >/dev/null 2>"$work/err" &
    capture=$!
    for _ in $(seq 300); do
        [ "$(ls "$work/kcap" 2>/dev/null | wc -l)" -ge 20 ] && break
        sleep 0.1
    done
    pkill -9 -P $capture
    wait $capture
    frames=$(sed -n 's/.*retrace finished it: \([0-9]*\) whole frames.*/\1/p' "$work/err")
    [ -n "$frames" ] || { cat "$work/err"; fail "killed capture: no frame count"; }
    newest=$(ls "$work/kcap" | sed 's/frame_0*//; s/\.png//' | sort -n | tail -n 1)
}
for try in 1 2 3; do
    killed_capture
    [ "${newest:-0}" -gt "$frames" ] && break
done
for f in "$work"/kcap/frame_*.png; do
    n=$(basename "$f" .png | sed 's/frame_0*//')
    grep -q "frames\? \($n\|[0-9]*-$n\|$n-[0-9]*\) not saved" "$work/err" && { cat "$work/err"; fail "killed: frame $n is on disk and named as not saved"; }
    [ "$n" -le "$frames" ] && continue
    grep -q "frames\? [0-9-]* saved in .* but past the end of the trace ($frames frames)" "$work/err" ||
        { cat "$work/err"; fail "killed: frame $n saved past the trace's end is not named"; }
done
if [ "${newest:-0}" -gt "$frames" ]; then
    grep -q "frames $((newest + 1))-1000000 not saved: past the end" "$work/err" ||
        { cat "$work/err"; fail "killed: the frames after the last one on disk ($newest) are not the ones named as not saved"; }
    echo "ok: killed (try $try): $frames frames in the trace, PNGs up to frame $newest kept and named"
else
    echo "ok: killed: no PNG past the trace's end in 3 tries ($frames frames, newest PNG $newest): nothing more to check"
fi
