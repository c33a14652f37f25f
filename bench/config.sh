#!/bin/sh
# bench/config.sh — what replay configurations cost, measured (the tests only
# count; timings live here):
#   1. no configuration vs the replay before configurations existed: the same
#      trace replayed alternately by both builds, median wall time of REPS
#      runs after a warm-up each, ratio baseline/ours (1.00: as fast);
#   2. --delay create-pipeline=25ms: added wall time vs P x 25 ms, P the
#      trace's pipeline creations;
#   3. --delay gpu=2ms: added wall time per submission, and the stall the
#      replay measured on the device (the report's gpu_stall).
# Run from the repository root after ./run build. Environment: BUILD (build),
# REPS (7), TRACES (traces/vkcube.rtrace traces/textured.rtrace),
# BASELINE (a retrace binary from before configurations; default: built here
# from the parent of the commit that added them, in a temporary worktree).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RETRACE=${RETRACE:-$BUILD/cli/retrace}
REPS=${REPS:-7}
TRACES=${TRACES:-traces/vkcube.rtrace traces/textured.rtrace}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/retrace-bench-config.XXXXXX")
cleanup() {
    if [ -n "${BASE_TREE:-}" ]; then git worktree remove --force "$BASE_TREE" >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${BASELINE:-}" ]; then
    rev=$(git log --format=%H -1 --grep='^replay configurations: workaround catalogue')
    [ -n "$rev" ] || { echo "bench/config: set BASELINE (no commit adding configurations found)" >&2; exit 1; }
    BASE_TREE=$WORK/baseline
    git worktree add --detach "$BASE_TREE" "$rev^" >/dev/null 2>&1
    (cd "$BASE_TREE" && meson setup build --buildtype=debugoptimized >"$WORK/baseline.log" 2>&1 &&
        ninja -C build cli/retrace >>"$WORK/baseline.log" 2>&1) ||
        { echo "bench/config: the baseline did not build:" >&2; tail -n 5 "$WORK/baseline.log" >&2; exit 1; }
    BASELINE=$BASE_TREE/build/cli/retrace
fi
[ -x "$BASELINE" ] || { echo "bench/config: $BASELINE is not a program" >&2; exit 1; }

# wall CMD...: seconds of wall time of CMD (its output discarded).
wall() {
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo fail; return; }
    t1=$(date +%s.%N)
    echo "$t1 $t0" | awk '{ printf "%.4f\n", $1 - $2 }'
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

calls() { "$RETRACE" dump "$1" | grep -c -E "^[0-9]+ ($2)\(" || true; }

echo "==> bench/config ($(nproc) CPUs, $REPS runs + 1 warm-up, medians)"
printf '%-28s %10s %10s %8s\n' "trace: no configuration" "before s" "now s" "ratio"
for t in $TRACES; do
    name=$(basename "$t" .rtrace)
    "$BASELINE" replay "$t" >/dev/null 2>&1
    "$RETRACE" replay "$t" >/dev/null 2>&1
    : >"$WORK/$name.base"
    : >"$WORK/$name.ours"
    i=0
    while [ "$i" -lt "$REPS" ]; do
        if [ $((i % 2)) -eq 0 ]; then
            wall "$BASELINE" replay "$t" >>"$WORK/$name.base"
            wall "$RETRACE" replay "$t" >>"$WORK/$name.ours"
        else
            wall "$RETRACE" replay "$t" >>"$WORK/$name.ours"
            wall "$BASELINE" replay "$t" >>"$WORK/$name.base"
        fi
        i=$((i + 1))
    done
    b=$(median "$WORK/$name.base") o=$(median "$WORK/$name.ours")
    printf '%-28s %10s %10s %8s\n' "$name" "$b" "$o" "$(echo "$b $o" | awk '{ printf "%.3f", $1 / $2 }')"
done

echo
printf '%-12s %6s %10s %10s %10s %12s\n' "delays" "P/S" "none s" "delayed s" "added ms" "asked ms"
for t in $TRACES; do
    name=$(basename "$t" .rtrace)
    p=$(calls "$t" "vkCreateGraphicsPipelines|vkCreateComputePipelines")
    s=$(calls "$t" "vkQueueSubmit|vkQueueSubmit2")
    : >"$WORK/n" ; : >"$WORK/p" ; : >"$WORK/g"
    i=0
    while [ "$i" -lt "$REPS" ]; do
        wall "$RETRACE" replay "$t" >>"$WORK/n"
        wall "$RETRACE" replay "$t" --delay create-pipeline=25ms >>"$WORK/p"
        wall "$RETRACE" replay "$t" --delay gpu=2ms >>"$WORK/g"
        i=$((i + 1))
    done
    n=$(median "$WORK/n") pd=$(median "$WORK/p") g=$(median "$WORK/g")
    printf '%-12s %6s %10s %10s %10s %12s\n' "$name pipe" "$p" "$n" "$pd" \
        "$(echo "$pd $n" | awk '{ printf "%.1f", ($1 - $2) * 1000 }')" "$((p * 25))"
    printf '%-12s %6s %10s %10s %10s %12s\n' "$name gpu" "$s" "$n" "$g" \
        "$(echo "$g $n" | awk '{ printf "%.1f", ($1 - $2) * 1000 }')" "$((s * 2))"
    "$RETRACE" replay "$t" --delay gpu=2ms --report "$WORK/r.json" >/dev/null 2>&1
    python3 -c "import json,sys; g=json.load(open(sys.argv[1]))['gpu_stall']; \
print(f'  {sys.argv[2]}: gpu stall asked {g[\"asked_us\"]} us, measured {g[\"measured_us\"]} us ({g[\"method\"]})')" \
        "$WORK/r.json" "$name"
done
