#!/bin/sh
# traces/demo.sh — the main job on the bundled traces, run by `./run demo`:
# import the golden images into a SQLite store, then for every trace of
# traces/manifest.txt: check it, replay it headless with screenshots, and
# compare each frame with its golden. Until `retrace run` exists, this script
# is the regression runner.
set -u
cd "$(dirname "$0")/.."
retrace=${RETRACE:-build/cli/retrace}
work=${DEMO_DIR:-build/demo}
rm -rf "$work"
mkdir -p "$work"
db="$work/golden.db"

echo "==> golden store $db"
$retrace golden import --db "$db" traces/golden || exit $?
$retrace golden list --db "$db" | head -n 5
echo

failures=0
while read -r name frames; do
    case "$name" in ''|'#'*) continue ;; esac
    trace="traces/$name.rtrace"
    echo "==> $name"
    $retrace info --check "$trace" | sed -n '1,4p;/^frames/p;/^bytes/p'
    $retrace replay "$trace" --screenshots "$work/$name" --frames "$frames" || { failures=$((failures + 1)); continue; }
    for f in $(echo "$frames" | tr ',' ' '); do
        png=$(printf 'frame_%06d.png' "$f")
        id=$($retrace golden list --db "$db" --trace "$name" --frame "$f" | cut -f1 | head -n 1)
        $retrace golden show --db "$db" "$id" -o "$work/golden_$png" >/dev/null
        printf '  frame %-4s ' "$f"
        $retrace compare --diff "$work/$name/diff_$png" "$work/golden_$png" "$work/$name/$png" ||
            failures=$((failures + 1))
    done
    echo
done < traces/manifest.txt

if [ "$failures" -eq 0 ]; then
    echo "demo: every frame matches its golden"
else
    echo "demo: $failures frame(s) or trace(s) failed"
    exit 1
fi
