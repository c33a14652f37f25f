#!/bin/sh
# bench/capture_ab.sh — two builds' capture cost side by side: glxgears
# through zink (FRAMES frames, as bench/zink.sh) bare, captured by the OLD
# build and captured by this one (BUILD), interleaved in rotating order for
# ROUNDS rounds, so a host that speeds up and slows down moves all three
# alike. Prints the per-round ratios new/old, old/bare and new/bare (wall
# and CPU) with their medians and ~95% intervals. Not part of `./run bench`:
# a tool for deciding whether a change to the capture path paid (bench/
# README.md, session 12); a new/old interval across 1.00 means this host
# cannot tell.
#
#   OLD=/path/to/old/build [BUILD=build] [ROUNDS=60] [FRAMES=1000] sh bench/capture_ab.sh
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-60}
FRAMES=${FRAMES:-1000}
[ -n "${OLD:-}" ] && [ -x "$OLD/cli/retrace" ] || bench_die "OLD must name another build folder (OLD/cli/retrace)"
for tool in glxgears cc; do
    command -v "$tool" >/dev/null 2>&1 || bench_die "$tool not found (apt-get install mesa-utils build-essential)"
done
bench_init capture_ab
cc -O2 -shared -fPIC -o "$WORK/glx_frames.so" bench/zink/glx_frames.c -ldl
GEARS="env vblank_mode=0 MESA_LOADER_DRIVER_OVERRIDE=zink LIBGL_ALWAYS_SOFTWARE=1 BENCH_FRAMES=$FRAMES
       LD_PRELOAD=$WORK/glx_frames.so glxgears"
echo "==> bench/capture_ab: glxgears ($FRAMES frames) bare, $OLD, $BUILD; $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"

run() { # bare | old | new
    case $1 in
    bare) t=$(timed "$WORK/run.log" $GEARS) ;;
    old) t=$(timed "$WORK/run.log" "$OLD/cli/retrace" capture -o "$WORK/old.rtrace" -- $GEARS) ;;
    new) t=$(timed "$WORK/run.log" "$RETRACE" capture -o "$WORK/new.rtrace" -- $GEARS) ;;
    esac
    [ "${t% *}" = fail ] && bench_fail "$([ "$1" = bare ] && echo bare || echo ours)" "glxgears $1" "$WORK/run.log"
    echo "$t" >>"$WORK/times.$1"
}

round=0
while [ "$round" -lt "$ROUNDS" ]; do
    case $((round % 3)) in
    0) run bare; run old; run new ;;
    1) run old; run new; run bare ;;
    *) run new; run bare; run old ;;
    esac
    round=$((round + 1))
done
for pair in new:old old:bare new:bare; do
    a=${pair%:*} b=${pair#*:}
    pair_ratio "$WORK/times.$a" "$WORK/times.$b" 1 >"$WORK/r.wall"
    pair_ratio "$WORK/times.$a" "$WORK/times.$b" 2 >"$WORK/r.cpu"
    goal=1.10
    [ "$b" = old ] && goal=1.00
    bench_ratio "capture-$a-$b-wall" "$goal" "$WORK/r.wall" "$a/$b wall time"
    bench_ratio "capture-$a-$b-cpu" "$goal" "$WORK/r.cpu" "$a/$b CPU time"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_failures
