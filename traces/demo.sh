#!/bin/sh
# traces/demo.sh — the main job on the bundled traces, run by `./run demo`:
# import the golden images into a local SQLite store, then `retrace run`
# replays traces/manifest.yml (every trace under two configurations: as
# captured, and with injected delays), compares each chosen frame with its
# golden, records the run in the store and prints the summary table.
set -u
cd "$(dirname "$0")/.."
retrace=${RETRACE:-build/cli/retrace}
work=${DEMO_DIR:-build/demo}
rm -rf "$work"
mkdir -p "$work"
db="$work/golden.db"

echo "==> golden store $db"
$retrace golden import --db "$db" traces/golden || exit $?
echo

echo "==> retrace run traces/manifest.yml"
$retrace run traces/manifest.yml --db "$db" --junit "$work/junit.xml" -j 2
status=$?
echo
echo "JUnit: $work/junit.xml; every result, with the actual and diff images of failures, is in $db"
echo "(retrace golden list --db $db; sqlite3 $db 'select * from results')"
echo "dashboard: $retrace serve --db $db, then open the URL it prints (Ctrl-C stops it)"
exit $status
