#!/bin/sh
# bench/capture.sh — capture cost of retrace's layer against GFXReconstruct's
# (Debian gfxreconstruct), in one run, on vkcube and the heaviest sample apps:
# wall time of the whole program with no layer, with ours (page-guard and full
# memory tracking) and with GFXReconstruct's (page_guard and unassisted, its
# whole-mapped-memory mode), and the size of each zstd trace. Every program
# runs windowed under the same Xvfb; configurations are interleaved (order
# reversed on every other repetition) so that load from other processes hits
# all of them alike; each figure is the median of REPS runs after one warm-up.
# Then it checks that `retrace replay` replays each of our traces.
#
# Run from the repository root after ./run build (./run bench does both).
# Environment: BUILD (default build), REPS (5), VKCUBE_FRAMES (1000),
# APP_FRAMES (300), PROGRAMS ("vkcube particles readback"), BENCH_TIMEOUT (300 s).
# particles is the heaviest app to render, readback the heaviest call stream
# (300 draws a frame, ~160k calls in 300 frames).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
PROGRAMS=${PROGRAMS:-vkcube particles readback}
CONFIGS="none ours-pg gfxr ours-full gfxr-full"
REVERSED="gfxr-full ours-full gfxr ours-pg none"

bench_init capture
echo "==> bench/capture: retrace layer vs GFXReconstruct layer ($(nproc) CPUs, DISPLAY=$DISPLAY, $REPS runs + 1 warm-up, medians)"

# measure PROG CFG REP: one timed run; appends the time to PROG.CFG.times.
measure() {
    out="$WORK/$1.$2"
    rm -f "$out.rtrace" "$out.gfxr"
    t=$(timed "$out.log" run_program "$1" under "$2" "$1" "$out")
    if [ "$3" -gt 0 ]; then
        echo "$t" >>"$out.times"
    fi
    if [ "${t% *}" = fail ]; then
        bench_fail "$(echo "$2" | sed 's/-.*//')" "$1 under $2" "$out.log"
    fi
}

for prog in $PROGRAMS; do
    printf '  %s (%s frames):' "$prog" "$(bench_frames "$prog")"
    rep=0
    while [ "$rep" -le "$REPS" ]; do
        order=$CONFIGS
        [ $((rep % 2)) -eq 0 ] && order=$REVERSED
        for cfg in $order; do
            measure "$prog" "$cfg" "$rep"
        done
        printf ' %s' "$rep"
        rep=$((rep + 1))
    done
    echo
done

# Our traces must replay; a trace that does not is reported, not hidden.
replay_status() {
    [ -f "$1" ] || { echo "no trace"; return 0; }
    rc=0
    timeout "$BENCH_TIMEOUT" "$RETRACE" replay "$1" >"$1.replay.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ]; then
        echo ok
    else
        echo "FAILED($rc)"
        bench_fail ours "retrace replay of $(basename "$1")" "$1.replay.log"
    fi
}

# times_table COLUMN WHAT: medians of COLUMN (1 wall, 2 CPU) per program and
# configuration, saved as PROG.CFG.COLUMN for overhead_table.
times_table() {
    echo
    echo "$2 of the whole program, seconds (median of $REPS):"
    printf '%-10s %6s %8s %8s %9s %8s %9s\n' program frames none ours-pg ours-full gfxr gfxr-full
    for prog in $PROGRAMS; do
        printf '%-10s %6s' "$prog" "$(bench_frames "$prog")"
        for cfg in none ours-pg ours-full gfxr gfxr-full; do
            m=$(median "$WORK/$prog.$cfg.times" "$1")
            echo "$m" >"$WORK/$prog.$cfg.$1"
            printf ' %8s' "$m"
        done
        echo
    done
}

# overhead PROG CFG COLUMN: median(CFG) - median(none) in seconds.
overhead() {
    awk -v a="$(cat "$WORK/$1.$2.$3")" -v b="$(cat "$WORK/$1.none.$3")" \
        'BEGIN { if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/) print "-"; else printf "%.3f\n", a - b }'
}

# overhead_table COLUMN WHAT: the layers' cost over no layer, and the ratios.
overhead_table() {
    echo
    echo "Capture overhead in $2 = layer - no layer, seconds; ovh ratio = ours/GFXR overhead,"
    echo "time ratio = ours/GFXR $2 with the layer (<= 1 meets the target):"
    printf '%-10s %8s %8s %9s %10s | %9s %9s %9s %10s\n' program ours-pg gfxr 'ovh ratio' \
        'time ratio' ours-full gfxr-full 'ovh ratio' 'time ratio'
    for prog in $PROGRAMS; do
        o_pg=$(overhead "$prog" ours-pg "$1")
        g_pg=$(overhead "$prog" gfxr "$1")
        o_full=$(overhead "$prog" ours-full "$1")
        g_full=$(overhead "$prog" gfxr-full "$1")
        printf '%-10s %8s %8s %9s %10s | %9s %9s %9s %10s\n' "$prog" "$o_pg" "$g_pg" \
            "$(ratio "$o_pg" "$g_pg")" \
            "$(ratio "$(cat "$WORK/$prog.ours-pg.$1")" "$(cat "$WORK/$prog.gfxr.$1")")" \
            "$o_full" "$g_full" "$(ratio "$o_full" "$g_full")" \
            "$(ratio "$(cat "$WORK/$prog.ours-full.$1")" "$(cat "$WORK/$prog.gfxr-full.$1")")"
    done
}

times_table 1 "Wall time"
times_table 2 "CPU time (user+sys)"
overhead_table 1 "wall time"
overhead_table 2 "CPU time"

echo
echo "Trace size, bytes (zstd, last run); ratio ours/GFXR (<= 1 meets the target); replay = retrace replay of our trace:"
printf '%-10s %10s %10s %6s | %10s %10s %6s | %-8s %-8s\n' program ours-pg gfxr ratio \
    ours-full gfxr-full ratio 'replay-pg' 'replay-full'
for prog in $PROGRAMS; do
    s_opg=$(file_size "$WORK/$prog.ours-pg.rtrace")
    s_gpg=$(file_size "$WORK/$prog.gfxr.gfxr")
    s_ofull=$(file_size "$WORK/$prog.ours-full.rtrace")
    s_gfull=$(file_size "$WORK/$prog.gfxr-full.gfxr")
    printf '%-10s %10s %10s %6s | %10s %10s %6s | %-8s %-8s\n' "$prog" "$s_opg" "$s_gpg" \
        "$(ratio "$s_opg" "$s_gpg")" "$s_ofull" "$s_gfull" "$(ratio "$s_ofull" "$s_gfull")" \
        "$(replay_status "$WORK/$prog.ours-pg.rtrace")" \
        "$(replay_status "$WORK/$prog.ours-full.rtrace")"
done
echo "none: the program alone; ours-pg/ours-full: retrace capture --memory-tracking page-guard/full;"
echo "gfxr/gfxr-full: VK_LAYER_LUNARG_gfxreconstruct with GFXRECON_MEMORY_TRACKING_MODE=page_guard/unassisted."
echo "Times include process start and the trace's final flush; all traces zstd. A negative"
echo "overhead is noise: the layer's cost is below what this machine can resolve."
bench_failures
