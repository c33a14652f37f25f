#!/bin/sh
# tests/cli/commands_test.sh RETRACE TRACES_DIR MAKE_TRACE — exit codes and key
# output of retrace, capture, replay and dump, per error class. Prints TAP.
set -u
retrace=$1 traces=$2 make_trace=$3
. "$(dirname "$0")/tap.sh"

head -c 30000 "$traces/textured.rtrace" > "$work/cut.rtrace"
"$make_trace" "$work/synthetic.rtrace" --frames 2 >/dev/null

echo "1..29"
check "no command" 2 "usage: retrace" -- "$retrace"
check "version" 0 "retrace 0" -- "$retrace" --version
check "help lists replay" 0 "replay" -- "$retrace" help
check "help of a command" 0 "usage: retrace replay" -- "$retrace" help replay
check "unknown command" 2 "unknown command" -- "$retrace" frobnicate
check "replay: no trace" 2 "expected one TRACE" -- "$retrace" replay
check "replay: unknown flag" 2 "unknown" -- "$retrace" replay --frobnicate "$traces/vkcube.rtrace"
check "replay: --frames without --screenshots" 2 "needs --screenshots" -- "$retrace" replay --frames 1 "$traces/vkcube.rtrace"
check "replay: bad frame list" 2 "frames" -- "$retrace" replay --screenshots "$work/s" --frames 0 "$traces/vkcube.rtrace"
check "replay: bad --memory" 2 "auto, direct or rebind" -- "$retrace" replay --memory sideways "$traces/vkcube.rtrace"
check "replay: missing trace" 3 "cannot open" -- "$retrace" replay "$work/missing.rtrace"
check "replay: truncated trace replays its good part" 3 "replayed the good part" -- "$retrace" replay "$work/cut.rtrace"
check "replay: a trace of nonsense calls" 3 "error" -- "$retrace" replay "$work/synthetic.rtrace"
check "replay: no such device" 4 "no Vulkan device matches" -- "$retrace" replay --device 99 "$traces/vkcube.rtrace"
check "replay: --end-frame" 0 "replayed 3 frames" -- "$retrace" replay --end-frame 3 "$traces/vkcube.rtrace"
check "replay: --loop" 0 "replayed 20 frames" -- "$retrace" replay --loop 2 "$traces/vkcube.rtrace"
check "replay: --stats" 0 "frames per second" -- "$retrace" replay --stats --device llvmpipe "$traces/vkcube.rtrace"
check "info --check: a real trace decodes" 0 "every call decodes" -- "$retrace" info --check "$traces/vkcube.rtrace"
check "info --check: names the call replay refuses" 3 "replay would refuse call 0 (vkCreateInstance)" -- "$retrace" info --check "$work/synthetic.rtrace"
check "replay: --frames past the end" 2 "frame 50 not saved: past the last frame replayed (10" -- "$retrace" replay --screenshots "$work/s" --frames 2,50 "$traces/vkcube.rtrace"
: >"$work/a-file"
check "replay: a screenshot directory that is a file" 2 "is not a directory" -- "$retrace" replay --screenshots "$work/a-file" "$traces/vkcube.rtrace"
check "replay: --loop names screenshots per pass" 0 "frame_000003_loop2.png" -- sh -c "\"\$0\" replay --loop 2 --screenshots \"\$1\" --frames 3 \"\$2\" && ls \"\$1\"" "$retrace" "$work/loop" "$traces/vkcube.rtrace"
check "capture: no program" 2 "no program" -- "$retrace" capture -o "$work/x.rtrace"
check "capture: bad setting" 2 "--memory-tracking: expected page-guard or full" -- "$retrace" capture --memory-tracking shadow -- true
check "capture: a program without Vulkan" 3 "wrote no trace" -- "$retrace" capture -o "$work/t.rtrace" -- true
check "capture: a program that does not exist" 3 "wrote no trace" -- "$retrace" capture -o "$work/t.rtrace" -- "$work/nope"
check "dump: first call" 0 "^0 vkCreateInstance(" -- "$retrace" dump --calls 0-0 "$traces/vkcube.rtrace"
check "dump: json" 0 '"command":"vkCreateInstance"' -- "$retrace" dump --json --calls 0-0 "$traces/vkcube.rtrace"
check "dump: bad frame" 2 "frames count from 1" -- "$retrace" dump --frame 0 "$traces/vkcube.rtrace"
[ "$failed" -eq 0 ]
