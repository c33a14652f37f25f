#!/bin/sh
# tests/integration/verify_nothing.sh RETRACE TRACE — --verify on a trace with
# no verification points (a program that only presents) says that nothing was
# checked and why, in the text, the report and --json, and does not fail.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
out=$("$1" replay "$2" --verify --report "$work/r.json" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "$out"; fail "replay --verify exited $rc"; }
echo "$out" | grep -q "^verify: nothing was checked: the trace has no verification points (the program read nothing back" ||
    { echo "$out"; fail "no 'nothing was checked' line"; }
python3 - "$work/r.json" <<'PY' || fail "report"
import json, sys
v = json.load(open(sys.argv[1]))["verify"]
assert v["points"] == 0 and v["checked"] is False and "no verification points" in v["note"], v
PY
"$1" replay "$2" --verify --json >"$work/j.json" 2>/dev/null || fail "replay --verify --json"
python3 - "$work/j.json" <<'PY' || fail "--json"
import json, sys
v = json.load(open(sys.argv[1]))["verify"]
assert v["checked"] is False and "no verification points" in v["note"], v
PY
echo "ok: $(echo "$out" | grep '^verify: nothing')"
