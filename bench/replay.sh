#!/bin/sh
# bench/replay.sh — replay speed of `retrace replay` against gfxrecon-replay
# (Debian gfxreconstruct), in one run. Each program is captured once by each
# tool (page-guard memory tracking, zstd), both captures of the same program
# with the same frames under the same conditions; then the two traces are
# replayed alternately (ours, theirs, ours, theirs; the order reversed on every
# other repetition) after one untimed warm-up replay each, and the median wall
# time of REPS replays is reported with the ratio GFXR/ours (> 1: ours faster).
#
# Conditions: the apps are also captured --offscreen (NAME-off), so that
# neither replay presents and both run with no window system: that is the like
# for like comparison. Windowed captures (vkcube, particles) replay headless
# with retrace (its virtual swapchain; it has no window mode) but in an Xvfb
# window with gfxrecon-replay, because Mesa 22.3's lavapipe lacks
# VK_EXT_headless_surface, which `gfxrecon-replay --wsi headless` needs. Those
# rows include GFXR's present cost; the NAME vs NAME-off rows show its size.
# gfxrecon-replay uses --wsi xlib: its xcb window waits forever for an event
# with the 320x240 sample apps under Xvfb (checked with 0.9.18).
#
# Run from the repository root after ./run build (./run bench does both).
# Environment: BUILD (default build), REPS (5), VKCUBE_FRAMES (1000),
# APP_FRAMES (300), PROGRAMS (below), BENCH_TIMEOUT (300 s).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
PROGRAMS=${PROGRAMS:-vkcube particles textured-off particles-off modern-off readback-off}

bench_init replay
echo "==> bench/replay: retrace replay vs gfxrecon-replay ($(nproc) CPUs, DISPLAY=$DISPLAY, $REPS runs + 1 warm-up, medians)"

# replay_trace TOOL PROG: replays PROG's trace by TOOL (ours or gfxr).
replay_trace() {
    if [ "$1" = ours ]; then
        timeout "$BENCH_TIMEOUT" "$RETRACE" replay "$WORK/$2.ours-pg.rtrace"
        return
    fi
    case $2 in
    *-off) timeout "$BENCH_TIMEOUT" gfxrecon-replay "$WORK/$2.gfxr.gfxr" ;;
    *) timeout "$BENCH_TIMEOUT" gfxrecon-replay --wsi xlib "$WORK/$2.gfxr.gfxr" ;;
    esac
}

# measure PROG TOOL REP: one timed replay; appends the time to PROG.TOOL.times.
measure() {
    log="$WORK/$1.replay-$2.log"
    t=$(timed "$log" replay_trace "$2" "$1")
    if [ "$3" -gt 0 ]; then
        echo "$t" >>"$WORK/$1.$2.times"
    fi
    if [ "${t% *}" = fail ]; then
        bench_fail "$2" "$2 replay of $1" "$log"
    fi
}

for prog in $PROGRAMS; do
    printf '  %s (%s frames): capture' "$prog" "$(bench_frames "$prog")"
    for cfg in ours-pg gfxr; do
        t=$(timed "$WORK/$prog.$cfg.log" run_program "$prog" under "$cfg" "$prog" "$WORK/$prog.$cfg")
        if [ "${t% *}" = fail ]; then
            bench_fail "${cfg%-pg}" "$cfg capture of $prog" "$WORK/$prog.$cfg.log"
        fi
    done
    printf ', replay'
    rep=0
    while [ "$rep" -le "$REPS" ]; do
        if [ $((rep % 2)) -eq 0 ]; then
            measure "$prog" ours "$rep"
            measure "$prog" gfxr "$rep"
        else
            measure "$prog" gfxr "$rep"
            measure "$prog" ours "$rep"
        fi
        printf ' %s' "$rep"
        rep=$((rep + 1))
    done
    echo
done

echo
echo "Replay time, seconds (median of $REPS): wall and CPU (user+sys); ratio GFXR/ours (> 1: ours faster, the target):"
printf '%-14s %6s %7s %8s %8s %6s | %8s %8s %6s  %s\n' program frames calls \
    'ours' 'gfxr' ratio 'ours cpu' 'gfxr cpu' ratio 'gfxrecon-replay presents to'
for prog in $PROGRAMS; do
    calls=$(sed -n 's/^frames: *[0-9]* *calls: *\([0-9]*\).*/\1/p' "$WORK/$prog.ours-pg.log")
    ours=$(median "$WORK/$prog.ours.times" 1)
    gfxr=$(median "$WORK/$prog.gfxr.times" 1)
    ours_cpu=$(median "$WORK/$prog.ours.times" 2)
    gfxr_cpu=$(median "$WORK/$prog.gfxr.times" 2)
    case $prog in
    *-off) where="nothing (offscreen capture)" ;;
    *) where="an Xvfb window (ours: headless)" ;;
    esac
    printf '%-14s %6s %7s %8s %8s %6s | %8s %8s %6s  %s\n' "$prog" "$(bench_frames "$prog")" \
        "${calls:--}" "$ours" "$gfxr" "$(ratio "$gfxr" "$ours")" \
        "$ours_cpu" "$gfxr_cpu" "$(ratio "$gfxr_cpu" "$ours_cpu")" "$where"
done
# The call-heavy offscreen sample is issue 21's replay goal (ours/GFXR <= 0.5).
for prog in $PROGRAMS; do
    [ "$prog" = readback-off ] || continue
    pair_ratio "$WORK/$prog.ours.times" "$WORK/$prog.gfxr.times" 1 >"$WORK/r.$prog"
    bench_ratio "replay-$prog-wall" 0.50 "$WORK/r.$prog" "retrace/gfxrecon-replay wall"
    pair_ratio "$WORK/$prog.ours.times" "$WORK/$prog.gfxr.times" 2 >"$WORK/r.$prog.cpu"
    bench_ratio "replay-$prog-cpu" 0.50 "$WORK/r.$prog.cpu" "retrace/gfxrecon-replay CPU"
done
# Render-bound replays: how much of the process's CPU time is the driver's
# (its floor) and how much ours, from perf samples by thread and object.
share_row() { # PROG
    command -v perf >/dev/null 2>&1 || { echo "  $1: perf not found (apt-get install linux-perf): no share"; return 0; }
    perf record -q -F 1999 -o "$WORK/$1.perf" -- "$RETRACE" replay "$WORK/$1.ours-pg.rtrace" \
        >"$WORK/$1.perf.log" 2>&1 || { echo "  $1: perf record failed: no share"; return 0; }
    perf report -i "$WORK/$1.perf" --sort pid,dso --stdio -q --no-children 2>/dev/null |
        python3 bench/replay_share.py "$1" "$(basename "$RETRACE")" >"$WORK/$1.share" ||
        { echo "  $1: no samples: no share"; return 0; }
    head -n 1 "$WORK/$1.share"
    tail -n 1 "$WORK/$1.share" >"$WORK/r.$1.share"
    bench_ratio "replay-$1-ours-share" 0.05 "$WORK/r.$1.share" "our part of a render-bound replay's CPU"
}
echo
echo "Where a render-bound replay's CPU time goes (perf, all threads; 'ours' counts retrace, zstd, xxhash"
echo "and libc and the kernel on the replay thread; the driver: lavapipe, its JIT code, LLVM, its threads):"
for prog in $PROGRAMS; do
    [ "$prog" = particles-off ] && share_row "$prog"
done
echo "ours: retrace replay TRACE (headless); gfxr: gfxrecon-replay [--wsi xlib] TRACE."
echo "Times are whole processes: start, trace load and decompression, device setup, replay, teardown."
bench_failures
