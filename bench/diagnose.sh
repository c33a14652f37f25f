#!/bin/sh
# bench/diagnose.sh — what `retrace diagnose` costs on a frame of many draws:
# for seeded breaks (--against-config skip-draws=F:N) at several N spread over
# the frame, the replays and draw images the search took (from --json) and
# its wall time, beside the cost of dumping every draw of the frame on both
# sides (what a search that compares every draw would pay). Prints the draw
# each diagnosis found ("none": the skipped draw changed no image beyond the
# thresholds, a tiny or hidden object). Fails when one takes more than 12
# replays (issue 19's bound for 1,000 draws).
# Usage: bench/diagnose.sh TRACE FRAME  (after ./run build; BUILD=build;
# AT: where in the frame the breaks go, fractions of its draws, default
# "0 0.5 1"; each must be a draw that saves an image, or its break is missed)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RETRACE=${RETRACE:-$BUILD/cli/retrace}
TRACE=$1
FRAME=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/retrace-bench-diagnose.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

now() { date +%s.%N; }

# The frame's draws (a replay that saves none), and one replay's time.
start=$(now)
"$RETRACE" replay "$TRACE" --end-frame "$FRAME" --dump-draws "$FRAME" --dump-dir "$WORK/count" \
    --dump-only 4294967295 >/dev/null 2>&1
once=$(echo "$(now) - $start" | bc)
set -- $(python3 -c "
import json
n = json.load(open('$WORK/count/draws.json'))['frame_draws']
print(n, *sorted({min(max(round(n * float(f)), 1), n) for f in '${AT:-0 0.5 1}'.split()}))")
draws=$1
shift
echo "frame $FRAME of $TRACE: $draws draws; one replay to it: ${once} s"
printf '%8s %8s %8s %8s\n' skipped replays dumps seconds
worst=0
for n in "$@"; do
    start=$(now)
    rc=0
    "$RETRACE" diagnose "$TRACE" --frame "$FRAME" --against-config "skip-draws=$FRAME:$n" --out "$WORK/d$n" \
        --json >"$WORK/d$n.json" 2>"$WORK/d$n.log" || rc=$?
    secs=$(echo "$(now) - $start" | bc)
    [ "$rc" -le 1 ] || { echo "bench/diagnose: skip of draw $n exited $rc" >&2; cat "$WORK/d$n.log" >&2; exit 1; }
    set -- $(python3 -c "
import json
a = json.load(open('$WORK/d$n.json'))
print((a['first_divergent'] or {}).get('draw', 'none'), a['replays'], a['dumps'])")
    # none: the skipped draw changed no image beyond the thresholds (a tiny or hidden object)
    printf '%8s %8s %8s %8.2f  found %s\n' "$n" "$2" "$3" "$secs" "$1"
    [ "$2" -gt "$worst" ] && worst=$2
done
echo "most replays: $worst (bound 12)"
[ "$worst" -le 12 ]
