#!/bin/sh
# tests/integration/info_unnamed.sh RETRACE LEAKY — `retrace info` on the trace
# of a program that names no application and asks for API 1.0 (so no driver
# properties): the lines say so instead of leaving holes (`driver       ,  (driver
# id 0 ...)`, `application   0.0.0`).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$1" capture -o "$work/a.rtrace" --frame-delimiter submit -- "$2" api10 >"$work/capture.txt" 2>&1
rc=$?
[ "$rc" -eq 77 ] && { echo "skip: no Vulkan device"; exit 77; }
[ "$rc" -eq 0 ] || { cat "$work/capture.txt"; fail "capture exited $rc"; }
info=$("$1" info "$work/a.rtrace") || fail "info"
echo "$info" | grep -q "^application  (none given) (engine (none given), API 1.0.0)$" || { echo "$info"; fail "application line"; }
echo "$info" | grep -q "^driver       not reported (API 1.0 device properties only; version 0x[0-9a-f]*)$" ||
    { echo "$info"; fail "driver line"; }
echo "ok: $(echo "$info" | grep '^driver')"
