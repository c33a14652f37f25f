#!/bin/sh
# tests/integration/driver_crash.sh RETRACE DRIVER_CRASH — a trace that
# crashes the driver at a submit (driver_crash.c) replays to that crash and
# says where: "the driver crashed (SIGSEGV) at call N (vkQueueSubmit, frame
# 1 ...)" on stderr, in the --json object and in the --report, exit 7; and
# `retrace run` records it as a crash naming the call.
set -u
retrace=$1 program=$2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$retrace" capture -o "$work/crash.rtrace" --frame-delimiter submit -- "$program" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 6 ] || { cat "$work/err"; fail "capture of a program the driver crashes: exit $rc, not 6"; }
"$retrace" replay "$work/crash.rtrace" --json --report "$work/report.json" >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 7 ] || { cat "$work/out" "$work/err"; fail "replay: exit $rc, not 7"; }
line=$(grep "retrace: error: the driver crashed (SIGSEGV) at call [0-9]* (vkQueueSubmit, frame 1" "$work/err") ||
    { cat "$work/err"; fail "replay does not say where the driver crashed"; }
python3 - "$work/out" "$work/report.json" <<'END' || fail "the JSON or the report"
import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[-1])
e = o["error"]
assert e["code"] == 7 and e["name"] == "driver-crashed" and "(vkQueueSubmit, frame 1" in e["message"], o
assert o["calls"] > 0, o
r = json.load(open(sys.argv[2]))
assert r["exit"]["code"] == 7 and r["exit"]["message"] == e["message"], r["exit"]
END
echo "ok: $line"
cat >"$work/manifest.yml" <<'END'
traces:
  - path: crash.rtrace
    frames: [1]
END
"$retrace" run "$work/manifest.yml" --db "$work/db.sqlite" --json >"$work/run.json" 2>"$work/err"
rc=$?
[ $rc -eq 1 ] || { cat "$work/err"; fail "retrace run: exit $rc, not 1 (a regression)"; }
python3 - "$work/run.json" <<'END' || { cat "$work/run.json"; fail "retrace run does not record a crash at the call"; }
import json, sys
text = open(sys.argv[1]).read()
run = json.loads(text[text.index("{"):])
found = []
def walk(x):
    if isinstance(x, dict):
        if x.get("status") == "crash":
            found.append(x.get("message", ""))
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(run)
assert any("the driver crashed (SIGSEGV) at call" in m and "vkQueueSubmit" in m for m in found), found
print("ok: retrace run: crash: " + found[0])
END
