#!/bin/sh
# tests/integration/api10.sh RETRACE API10 — a validation-clean Vulkan 1.0
# program without extensions (api10.c) replays under --validate with no
# message at all: replay makes no validation error of its own.
set -u
retrace=$1 program=$2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$program" >"$work/native" 2>&1
rc=$?
[ $rc -eq 77 ] && { echo "skip: no Vulkan device"; exit 77; }
[ $rc -eq 0 ] || { cat "$work/native"; fail "api10 failed natively"; }
grep -q "Validation" "$work/native" && { cat "$work/native"; fail "api10 is not validation-clean natively"; }
"$retrace" capture -o "$work/t.rtrace" --frame-delimiter submit -- "$program" >/dev/null 2>"$work/err" ||
    { cat "$work/err"; fail "capture"; }
"$retrace" replay "$work/t.rtrace" --validate --json >"$work/out" 2>"$work/err" ||
    { rc=$?; cat "$work/err"; fail "replay --validate exit $rc"; }
tail -n 1 "$work/out" | python3 -c '
import json, sys
v = json.loads(sys.stdin.read())["validation"]
assert v["errors"] == 0 and v["warnings"] == 0, v' || { cat "$work/err"; fail "replay made validation messages"; }
grep -q "validation (call" "$work/err" && { cat "$work/err"; fail "a validation message was printed"; }
echo "ok: $(grep '^validation:' "$work/err")"
