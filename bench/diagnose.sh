#!/bin/sh
# bench/diagnose.sh — what `retrace diagnose` costs on a frame of many draws:
# for seeded breaks (--against-config skip-draws=F:N) at several N spread over
# the frame, the replays and draw images the search took (from --json) and
# its wall time, beside the cost of dumping every draw of the frame on both
# sides (what a search that compares every draw would pay). Fails when a
# diagnosis misses its draw or takes more than 12 replays (issue 19's bound
# for 1,000 draws).
# Usage: bench/diagnose.sh TRACE FRAME  (after ./run build; BUILD=build)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RETRACE=${RETRACE:-$BUILD/cli/retrace}
TRACE=$1
FRAME=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/retrace-bench-diagnose.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

now() { date +%s.%N; }

# Every draw of the frame dumped once: the draws, and the ones that save an image.
start=$(now)
"$RETRACE" replay "$TRACE" --end-frame "$FRAME" --dump-draws "$FRAME" --dump-dir "$WORK/all" >/dev/null 2>&1
full=$(echo "$(now) - $start" | bc)
set -- $(python3 -c "
import json, sys
d = json.load(open('$WORK/all/draws.json'))
drawn = [e['draw'] for e in d['draws'] if e['files']]
print(d['frame_draws'], len(drawn), *[drawn[int(len(drawn) * f)] for f in (0, 0.25, 0.5, 0.75)], drawn[-1])")
draws=$1 drawn=$2
shift 2
echo "frame $FRAME of $TRACE: $draws draws, $drawn save an image; one full dump: ${full} s (x2 for both sides)"
printf '%8s %8s %8s %8s\n' draw replays dumps seconds
worst=0
for n in "$@"; do
    start=$(now)
    rc=0
    "$RETRACE" diagnose "$TRACE" --frame "$FRAME" --against-config "skip-draws=$FRAME:$n" --out "$WORK/d$n" \
        --json >"$WORK/d$n.json" 2>"$WORK/d$n.log" || rc=$?
    secs=$(echo "$(now) - $start" | bc)
    [ "$rc" = 1 ] || { echo "bench/diagnose: skip of draw $n exited $rc" >&2; cat "$WORK/d$n.log" >&2; exit 1; }
    set -- $(python3 -c "
import json
a = json.load(open('$WORK/d$n.json'))
print(a['first_divergent']['draw'], a['replays'], a['dumps'])")
    [ "$1" = "$n" ] || { echo "bench/diagnose: skip of draw $n found draw $1" >&2; exit 1; }
    printf '%8s %8s %8s %8.2f\n' "$n" "$2" "$3" "$secs"
    [ "$2" -gt "$worst" ] && worst=$2
done
echo "most replays: $worst (bound 12)"
[ "$worst" -le 12 ]
