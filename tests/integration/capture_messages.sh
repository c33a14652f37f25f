#!/bin/sh
# tests/integration/capture_messages.sh RETRACE LEAKY BUSY_THREADS — what
# `retrace capture` says:
# - a program (sh) that never creates an instance and whose two processes
#   write NAME-PID.rtrace: -o becomes the first one's trace, which retrace
#   says, and the summary lists both traces with their frames and calls
#   (text and --json other_traces);
# - SIGTERM while worker threads go on calling Vulkan: calls after the
#   emergency flush are not an error ("writing the trace failed"), the trace
#   is complete and checks.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$1" capture -o "$work/sh.rtrace" --frame-delimiter submit -- sh -c "'$2'; '$2'" >"$work/out" 2>"$work/err" ||
    { cat "$work/out" "$work/err"; fail "capture of two processes"; }
grep -q "the program created no Vulkan instance; $work/sh.rtrace is the trace of its process [0-9]*, the first" "$work/err" ||
    { cat "$work/err"; fail "retrace does not say whose trace -o is"; }
[ "$(grep -c "^trace: $work/sh\(-[0-9]*\)\?.rtrace$" "$work/out")" -eq 2 ] || { cat "$work/out"; fail "the summary lists not both traces"; }
rm -f "$work"/sh*.rtrace
"$1" capture --json -o "$work/sh.rtrace" --frame-delimiter submit -- sh -c "'$2'; '$2'" >"$work/out" 2>"$work/err" ||
    { cat "$work/out" "$work/err"; fail "capture --json of two processes"; }
tail -n 1 "$work/out" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
others = o["other_traces"]
assert o["trace"].endswith("/sh.rtrace") and o["pid"] > 0 and o["calls"] > 0, o
assert len(others) == 1 and "/sh-" in others[0]["trace"] and others[0]["calls"] > 0 and "frames" in others[0], o' ||
    { cat "$work/out"; fail "--json: other_traces"; }
echo "ok: $(grep 'created no Vulkan instance' "$work/err")"

notes=0
for run in 1 2 3; do
    "$1" capture -o "$work/b$run.rtrace" --frame-delimiter submit -- "$3" 4 >"$work/out" 2>"$work/err" &
    pid=$!
    for _ in $(seq 100); do
        [ -f "$work/b$run.rtrace.part" ] && [ "$(stat -c %s "$work/b$run.rtrace.part")" -gt 65536 ] && break
        sleep 0.1
    done
    # SIGTERM, not SIGINT: a background job of this shell starts with SIGINT
    # ignored, and retrace starts the program so, as it would run bare.
    kill -TERM $pid
    wait $pid
    grep -q "writing the trace failed" "$work/err" && { cat "$work/err"; fail "run $run: calls after the emergency flush reported as an error"; }
    grep -q "note: capture: the trace was finished by the emergency flush" "$work/err" && notes=$((notes + 1))
    "$1" info --check "$work/b$run.rtrace" >/dev/null 2>&1 || { cat "$work/err"; fail "run $run: the trace does not check"; }
done
echo "ok: $notes of 3 runs had calls after the emergency flush (a note, not an error)"
