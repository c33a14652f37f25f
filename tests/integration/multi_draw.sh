#!/bin/sh
# tests/integration/multi_draw.sh RETRACE MULTI_DRAW — review R5: the trace of
# a vkCmdDrawMultiEXT whose records are 12 bytes apart (multi_draw.c) holds
# its three draws as the driver read them, densely (stride 8), never the
# marker word 7777 of each record; and it replays under --validate.
set -u
retrace=$1 program=$2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$program" >"$work/native" 2>&1
rc=$?
[ $rc -eq 77 ] && { echo "skip: no device with VK_EXT_multi_draw"; exit 77; }
[ $rc -eq 0 ] || { cat "$work/native"; fail "multi_draw failed natively"; }
"$retrace" capture -o "$work/t.rtrace" --frame-delimiter submit -- "$program" >/dev/null 2>"$work/err" ||
    { cat "$work/err"; fail "capture"; }
"$retrace" dump "$work/t.rtrace" >"$work/dump" 2>"$work/err" || { cat "$work/err"; fail "dump"; }
line=$(grep 'vkCmdDrawMultiEXT(' "$work/dump") || fail "no vkCmdDrawMultiEXT in the trace"
want='pVertexInfo=[{firstVertex=0, vertexCount=3}, {firstVertex=3, vertexCount=3}, {firstVertex=6, vertexCount=3}], instanceCount=1, firstInstance=0, stride=8)'
case $line in
*"$want"*) ;;
*) fail "recorded as: $line" ;;
esac
"$retrace" replay "$work/t.rtrace" --validate >/dev/null 2>"$work/err" ||
    { rc=$?; cat "$work/err"; fail "replay --validate exit $rc"; }
echo "ok: $line"
