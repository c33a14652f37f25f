#!/bin/sh
# tests/integration/unrecorded.sh RETRACE APP RANDR_CALL — a command the layer has no
# recorder for (review R1's second half: vkCreateWaylandSurfaceKHR on a build
# without wayland-client.h) is named at once, not found at replay:
# RETRACE_TEST_UNRECORDED=vkCreateSampler makes the layer answer that
# command's lookups as such a build does, so APP's samplers reach the driver
# unrecorded. Capture warns by name; the trace's note makes `info` list it,
# `info --json` too, and `info --check` say that the handle replay lacks is
# one the capture did not record. Without the variable: no such word.
# RANDR_CALL calls vkGetRandROutputDisplayEXT, which a build without
# X11/extensions/Xrandr.h does not record: then capture says so at that call
# (the loader looks it up for every program, which must not warn), and with
# the header the call is in the trace: never silently lost either way.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
RETRACE_TEST_UNRECORDED=vkCreateSampler "$1" capture -o "$work/t.rtrace" --frame-delimiter submit -- \
    "$2" --offscreen --frames 2 >"$work/out" 2>"$work/err" || { cat "$work/out" "$work/err"; fail "capture"; }
[ "$(grep -c 'vkCreateSampler was looked up and this build does not record it' "$work/err")" -eq 1 ] ||
    { cat "$work/err"; fail "capture does not warn once, by name"; }
"$1" info "$work/t.rtrace" >"$work/info" 2>&1 || { cat "$work/info"; fail "info"; }
grep -q '^unrecorded   vkCreateSampler: ' "$work/info" || { cat "$work/info"; fail "info does not list it"; }
"$1" info --json "$work/t.rtrace" | python3 -c '
import json, sys
assert json.load(sys.stdin)["unrecorded"] == ["vkCreateSampler"]' || fail "info --json"
"$1" info --check "$work/t.rtrace" >"$work/check" 2>&1
rc=$?
[ "$rc" -eq 3 ] || { cat "$work/check"; fail "info --check exited $rc, not 3"; }
grep -q "never created: the capture did not record vkCreateSampler" "$work/check" ||
    { cat "$work/check"; fail "info --check does not say why"; }
"$1" capture -o "$work/plain.rtrace" --frame-delimiter submit -- "$2" --offscreen --frames 2 \
    >"$work/out" 2>"$work/err" || { cat "$work/out" "$work/err"; fail "plain capture"; }
! grep -q 'does not record' "$work/err" || { cat "$work/err"; fail "a plain capture warns"; }
"$1" info --check "$work/plain.rtrace" >"$work/info" 2>&1 || { cat "$work/info"; fail "plain info --check"; }
! grep -q '^unrecorded' "$work/info" || { cat "$work/info"; fail "a plain trace lists unrecorded commands"; }
"$1" capture -o "$work/randr.rtrace" --frame-delimiter submit -- "$3" >"$work/out" 2>"$work/err" ||
    { cat "$work/out" "$work/err"; fail "capture of $3"; }
"$1" info "$work/randr.rtrace" >"$work/info" 2>&1 || { cat "$work/info"; fail "info of randr.rtrace"; }
if grep -q ' vkGetRandROutputDisplayEXT$' "$work/info"; then
    randr="recorded"
else
    [ "$(grep -c 'vkGetRandROutputDisplayEXT was called and this build does not record it' "$work/err")" -eq 1 ] ||
        { cat "$work/err"; fail "the unrecorded call is not named once, at the call"; }
    grep -q '^unrecorded   vkGetRandROutputDisplayEXT: ' "$work/info" || { cat "$work/info"; fail "info does not list it"; }
    randr="named at its call"
fi
echo "ok: $(grep 'never created' "$work/check"); vkGetRandROutputDisplayEXT $randr"
