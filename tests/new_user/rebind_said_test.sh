#!/bin/sh
# tests/new_user/rebind_said_test.sh RETRACE TRACES_DIR — a replay whose memory
# was rebound says so, with how many buffers and images kept their captured
# offsets and how many got memory of their own; a direct replay says nothing
# of it. Before, `--memory rebind` (the cross-device path, which `auto`
# takes on another GPU) printed the same lines as a direct replay: a farm log
# could not tell which path ran. Prints TAP.
R=$1 T=$2
. "$(dirname "$0")/../cli/tap.sh"
check "--memory rebind says the memory was rebound" 0 \
    '^memory: rebound (--memory rebind): [0-9][0-9]* buffers and images at their captured offsets, 0 in memory of their own$' -- \
    "$R" replay "$T/vkcube.rtrace" --memory rebind --end-frame 3
out=$("$R" replay "$T/vkcube.rtrace" --memory direct --end-frame 3 2>&1)
case $out in
*rebound*) not_ok "--memory direct says nothing of rebinding" "$out" ;;
*) ok "--memory direct says nothing of rebinding" ;;
esac
# auto on the capture's own kind of device replays direct (same layout).
out=$("$R" replay "$T/vkcube.rtrace" --end-frame 3 2>&1)
case $out in
*rebound*) not_ok "auto on the capture's device says nothing of rebinding" "$out" ;;
*) ok "auto on the capture's device says nothing of rebinding" ;;
esac
# RETRACE_REBIND_MOVE_ALL moves every resource: the count says so.
check "every resource moved is counted as moved" 0 \
    '^memory: rebound (--memory rebind): 0 buffers and images at their captured offsets, [1-9][0-9]* in memory of their own$' -- \
    env RETRACE_REBIND_MOVE_ALL=1 "$R" replay "$T/vkcube.rtrace" --memory rebind --end-frame 3
check "--json says it too" 0 '"memory":{"mode":"rebind","placed":[0-9]*,"moved":0}' -- \
    "$R" replay "$T/vkcube.rtrace" --memory rebind --end-frame 3 --json
echo "1..$n"
[ "$failed" -eq 0 ]
