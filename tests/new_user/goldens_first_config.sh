#!/bin/sh
# tests/new_user/goldens_first_config.sh RETRACE TRACES_DIR — `retrace run
# --update-goldens -j 2` on a manifest whose second configuration breaks a
# draw on purpose: the goldens are the first configuration's images, every
# time. Before, the two configurations of a trace ran at once and whichever
# finished first wrote its frames as the device's goldens, so the broken
# configuration's image became the golden and the plain replay "failed"
# (found on vkcube, mpv and gears with -j 2). Prints TAP.
R=$1 T=$2
. "$(dirname "$0")/../cli/tap.sh"
cp "$T/vkcube.rtrace" "$work/"
# The plain configuration is slowed down (same pixels), so without the fix
# the broken one always finishes first.
cat >"$work/m.yml" <<YML
configurations:
  - name: plain-slow
    delays: [present=300ms]
  - name: broken
    skip-draws: "10:1"
traces:
  - path: vkcube.rtrace
    frames: [10]
YML
"$R" run "$work/m.yml" --db "$work/g.db" --update-goldens -j 2 --json >"$work/run.json" 2>"$work/run.err"
rc=$?
status() { # CONFIG: the status of its frame 10
    python3 -c '
import json, sys
run = json.load(open(sys.argv[1]))
for r in run["results"]:
    if r["configuration"] == sys.argv[2]:
        print(r["status"])' "$work/run.json" "$1"
}
[ "$(status plain-slow)" = new ] && ok "the first configuration's frame is new (its image is the golden)" ||
    not_ok "the first configuration's frame is new" "plain-slow: $(status plain-slow); $(cat "$work/run.err")"
[ "$(status broken)" = fail ] && ok "the broken configuration is compared with it and fails" ||
    not_ok "the broken configuration fails" "broken: $(status broken); $(cat "$work/run.err")"
[ "$rc" = 1 ] && ok "the run is a regression (exit 1)" || not_ok "the run is a regression (exit 1)" "exit $rc"
goldens=$("$R" golden list --db "$work/g.db" | grep -c 'vkcube')
[ "$goldens" = 1 ] && ok "one golden, not one per configuration" || not_ok "one golden" "$("$R" golden list --db "$work/g.db")"
check "a second run passes the plain configuration" 1 "plain-slow *pass" -- \
    "$R" run "$work/m.yml" --db "$work/g.db" -j 2

echo "1..$n"
[ "$failed" -eq 0 ]
