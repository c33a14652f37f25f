#!/bin/sh
# tests/new_user/run_reason.sh RETRACE TRACES_DIR — an error result's reason
# is the replay's own line saying what went wrong (README: "its own last
# error line is the reason"), also when that line is a warning: a manifest
# asking frame 500 of a 10-frame trace. Before, the reason was the replay's
# last three lines joined ("configuration: workarounds none; ... replayed 10
# frames ...; retrace: warning: ..."), which the summary table cut to its
# useless start. Prints TAP.
R=$1 T=$2
. "$(dirname "$0")/../cli/tap.sh"
cp "$T/vkcube.rtrace" "$work/"
printf 'traces:\n  - path: vkcube.rtrace\n    frames: [500]\n' >"$work/m.yml"
"$R" run "$work/m.yml" --db "$work/g.db" --json >"$work/run.json" 2>/dev/null
msg=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["message"])' "$work/run.json")
case $msg in
"the replay exited 2: retrace: warning: --frames: frame 500 not saved: past the last frame replayed (10 of the trace)")
    ok "the reason is the replay's warning line" ;;
*) not_ok "the reason is the replay's warning line" "$msg" ;;
esac
check "the summary table shows that line's start" 1 "error! .*the replay exited 2: retrace: warning: --frames: frame 500" -- \
    "$R" run "$work/m.yml" --db "$work/g.db"

echo "1..$n"
[ "$failed" -eq 0 ]
