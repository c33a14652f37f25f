#!/bin/sh
# tests/cli/config_test.sh RETRACE TRACES_DIR — `retrace workarounds` and the
# configuration options of `retrace replay`: exit codes and key output. TAP.
set -u
retrace=$1 traces=$2
. "$(dirname "$0")/tap.sh"

cube=$traces/vkcube.rtrace
printf '# mine: for the test\ninclude race-hunt\nzero-init\n' > "$work/mine.set"
printf '# broken\nzero-inti\n' > "$work/broken.set"

echo "1..21"
check "list: every workaround" 0 "strip-unsupported" -- "$retrace" workarounds list
check "list: the shipped sets" 0 "race-hunt" -- "$retrace" workarounds list
check "list: a user's sets" 0 "mine .*for the test" -- "$retrace" workarounds list --workarounds-dir "$work"
check "show: a workaround says what it changes" 0 "device creation" -- "$retrace" workarounds show robust-buffer-access
check "show: a set resolves its includes" 0 "resolved: readback-barrier serialize-submits zero-init serialize-frames" -- \
    "$retrace" workarounds show mine --workarounds-dir "$work"
check "show: unknown name lists the known" 2 "known: robust-buffer-access.*race-hunt" -- "$retrace" workarounds show nope
check "workarounds: no verb" 2 "expected 'list' or 'show NAME'" -- "$retrace" workarounds
check "replay: unknown workaround" 2 "known: robust-buffer-access" -- "$retrace" replay --workarounds nope "$cube"
check "replay: a broken set" 3 "zero-inti" -- "$retrace" replay --workarounds broken --workarounds-dir "$work" "$cube"
check "replay: configuration printed" 0 "configuration: workarounds readback-barrier, serialize-submits, zero-init, serialize-frames (sets mine); delays present=1ms; seed 5" -- \
    "$retrace" replay --workarounds mine --workarounds-dir "$work" --delay present=1ms --seed 5 --end-frame 2 "$cube"
check "replay: default configuration printed" 0 "configuration: workarounds none; delays none; seed [0-9]*; pipeline cache none; validation off" -- \
    "$retrace" replay --end-frame 1 "$cube"
check "replay: --validate says validation on" 0 "configuration: .*; validation on\$" -- \
    "$retrace" replay --validate --end-frame 1 "$cube"
check "replay: bad delay event" 2 "unknown event" -- "$retrace" replay --delay teleport=1ms "$cube"
check "replay: delay without unit" 2 "bad duration" -- "$retrace" replay --delay submit=5 "$cube"
check "replay: delay given twice" 2 "submit is given twice" -- "$retrace" replay --delay submit=1ms --delay submit=2ms "$cube"
check "replay: gpu delay takes no jitter" 2 "no jitter" -- "$retrace" replay --delay gpu=1ms~1ms "$cube"
check "replay: bad seed" 2 "--seed needs a whole number" -- "$retrace" replay --seed -3 "$cube"
check "replay: --validate takes only sync" 2 "validate" -- "$retrace" replay --validate=async "$cube"
check "replay: --validate sync counts hazards" 0 "0 synchronization hazards" -- \
    "$retrace" replay --validate sync --end-frame 2 "$cube"
check "replay: report written" 0 "" -- "$retrace" replay --end-frame 2 --report "$work/r.json" "$cube"
head -c 30000 "$traces/textured.rtrace" > "$work/cut.rtrace"
check "replay: report of a failed replay" 3 "" -- sh -c "'$retrace' replay --report '$work/f.json' '$work/cut.rtrace'; rc=\$?; grep -q '\"code\":	3' '$work/f.json' && exit \$rc"
[ "$failed" -eq 0 ]
