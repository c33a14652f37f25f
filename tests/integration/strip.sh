#!/bin/sh
# tests/integration/strip.sh RETRACE MAKE_NEEDS_TRACE KIND EXPECTED — the
# strip-unsupported workaround on a trace enabling VK_NV_ray_tracing and
# depthBounds, which lavapipe lacks. EXPECTED "ok": the trace never uses them
# and replays (exit 0), the report listing what was left out; otherwise exit 4
# with a message containing EXPECTED (the call that uses what was left out).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$2" "$work/t.rtrace" "$3" || { echo "FAIL: could not write the trace"; exit 1; }
out=$("$1" replay "$work/t.rtrace" 2>&1)
if [ $? -ne 4 ]; then
    echo "FAIL: without the workaround the trace should be refused (exit 4):"; echo "$out"; exit 1
fi
out=$("$1" replay "$work/t.rtrace" --workarounds strip-unsupported --validate --report "$work/r.json" 2>&1)
rc=$?
if [ "$4" = ok ]; then
    # validation-clean: nothing of a stripped extension is left in device creation
    if [ "$rc" -ne 0 ] || ! grep -q '"VK_NV_ray_tracing"' "$work/r.json" ||
       ! grep -q '"VK_NV_ray_tracing_motion_blur"' "$work/r.json" ||
       ! grep -q '"structures_removed":	1' "$work/r.json" ||
       ! echo "$out" | grep -q "validation: 0 errors, 0 warnings" ||
       ! grep -q '"depthBounds (VkPhysicalDeviceFeatures)"' "$work/r.json"; then
        echo "FAIL: expected a replay listing what was stripped, got exit $rc:"; echo "$out"; cat "$work/r.json"
        exit 1
    fi
    echo "ok: replayed with VK_NV_ray_tracing and depthBounds left out"
    exit 0
fi
if [ "$4" = query-ok ]; then
    # a physical-device query chaining a stripped extension's structure only
    # asks about the device: the structure is left out (one from device
    # creation, one from the query), the replay goes on
    if [ "$rc" -ne 0 ] || ! grep -q '"structures_removed":	2' "$work/r.json" ||
       ! echo "$out" | grep -q "validation: 0 errors, 0 warnings"; then
        echo "FAIL: expected the query's structure dropped and exit 0, got exit $rc:"; echo "$out"; cat "$work/r.json"
        exit 1
    fi
    echo "ok: the query ran without the stripped extension's structure"
    exit 0
fi
if [ "$rc" -ne 4 ] || ! echo "$out" | grep -q "$4"; then
    echo "FAIL: expected exit 4 naming '$4', got exit $rc:"; echo "$out"; exit 1
fi
grep -q '"code":	4' "$work/r.json" || { echo "FAIL: the report does not say exit 4"; exit 1; }
echo "ok: $out" | tail -n 1
