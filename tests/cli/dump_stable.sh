#!/bin/sh
# tests/cli/dump_stable.sh RETRACE TRACES — `retrace dump` numbers handles
# the same whatever part is asked: every line of `--frame N` or `--calls
# A-B` is the line of the full dump with that sequence number (a buffer that
# is <VkBuffer 109> in the full dump is not <VkBuffer 18> in frame 22).
set -u
retrace=$1 traces=$2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in vkcube textured; do
    "$retrace" dump "$traces/$t.rtrace" >"$work/full" || fail "$t: full dump"
    for part in "--frame 3" "--frame 5" "--calls 150-400"; do
        # shellcheck disable=SC2086
        "$retrace" dump "$traces/$t.rtrace" $part >"$work/part" || fail "$t: dump $part"
        [ -s "$work/part" ] || fail "$t: dump $part printed nothing"
        first=$(head -n 1 "$work/part" | cut -d' ' -f1) last=$(tail -n 1 "$work/part" | cut -d' ' -f1)
        awk -v a="$first" -v b="$last" '$1 >= a && $1 <= b' "$work/full" >"$work/same"
        cmp -s "$work/part" "$work/same" ||
            { diff "$work/same" "$work/part" | head -n 6; fail "$t: dump $part numbers handles differently"; }
    done
done
echo "ok: handle numbers of --frame and --calls dumps are the full dump's"
