#!/bin/sh
# tests/integration/validate_ignore.sh RETRACE LEAKY — a program's own
# validation error (a device destroyed with live objects, as zink does) fails
# `replay --validate` with its id among the most frequent; --validate-ignore
# that id makes the replay pass, counts it apart and lists it in the report.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
vuid=VUID-vkDestroyDevice-device-00378
"$1" capture -o "$work/l.rtrace" --frame-delimiter submit -- "$2" >"$work/capture.txt" 2>&1
rc=$?
[ "$rc" -eq 77 ] && { echo "skip: no Vulkan device"; exit 77; }
[ "$rc" -eq 0 ] || { cat "$work/capture.txt"; fail "capture exited $rc"; }
out=$("$1" replay "$work/l.rtrace" --validate 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "$out"; fail "expected exit 1 for the leak, got $rc"; }
echo "$out" | grep -q "^validation: most frequent: $vuid (2 errors, 0 warnings)" || { echo "$out"; fail "no per-id count"; }
out=$("$1" replay "$work/l.rtrace" --validate --validate-ignore UNKNOWN-1,$vuid --report "$work/r.json" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "$out"; fail "expected exit 0 with $vuid ignored, got $rc"; }
echo "$out" | grep -q "^validation: 0 errors" && echo "$out" | grep -q "^validation: 2 messages of --validate-ignore ids not counted" ||
    { echo "$out"; fail "ignored messages not counted apart"; }
echo "$out" | grep -q "$vuid" && { echo "$out"; fail "an ignored message was printed"; }
python3 - "$work/r.json" "$vuid" <<'PY' || fail "report"
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
assert v["errors"] == 0 and v["ignored"] == 2 and v["ignore"] == ["UNKNOWN-1", sys.argv[2]], v
assert {"id": sys.argv[2], "errors": 2, "warnings": 0, "ignored": True} in v["by_id"], v
PY
out=$("$1" replay "$work/l.rtrace" --validate-ignore $vuid 2>&1)
[ $? -eq 2 ] || { echo "$out"; fail "--validate-ignore without --validate is not a usage error"; }
echo "ok: $vuid set aside"
