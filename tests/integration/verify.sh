#!/bin/sh
# tests/integration/verify.sh RETRACE HOST_POINTER EDIT_TRACE TRACES_DIR — memory
# imported from a host pointer is captured (memory updates, verification
# points), the replay verifies clean, and the same trace without its memory
# updates fails --verify (exit 1) at the readback, naming the memory.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$1" capture -o "$work/h.rtrace" -- "$2" >"$work/capture.txt" 2>&1
rc=$?
[ "$rc" -eq 77 ] && { echo "skip: no VK_EXT_external_memory_host"; exit 77; }
[ "$rc" -eq 0 ] || { cat "$work/capture.txt"; fail "capture exited $rc"; }
info=$("$1" info "$work/h.rtrace") || fail "info"
echo "$info" | grep -q "^memory  *[1-9][0-9]* updates, 65536 bytes" || { echo "$info"; fail "the imported memory's writes are not in the trace"; }
echo "$info" | grep -q "^verification [1-9]" || { echo "$info"; fail "no verification point"; }
out=$("$1" replay "$work/h.rtrace" --verify 2>&1) || { echo "$out"; fail "replay --verify of the capture"; }
echo "$out" | grep -q "verify: [1-9][0-9]* points .* 0 divergences" || { echo "$out"; fail "no clean verify line"; }
"$3" drop-updates "$work/h.rtrace" "$work/dropped.rtrace" >/dev/null || fail "edit_trace drop-updates"
out=$("$1" replay "$work/dropped.rtrace" --verify 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "$out"; fail "expected exit 1 without the imported memory's content, got $rc"; }
# The program maps the copy after vkQueueWaitIdle and reads it: the point follows the map.
echo "$out" | grep -q "error: verify: .*after call [0-9]* (vkMapMemory): memory 0x[0-9a-f]* offset 0x0 length 4096: bytes 0x0-0xfff differ (16 of 16 pieces of 256 bytes; here:" ||
    { echo "$out"; fail "the error does not name the readback after the wait"; }
# Without --verify the same replay is silent about it: this is what --verify is for.
"$1" replay "$work/dropped.rtrace" >/dev/null 2>&1 || fail "plain replay of the dropped trace"
echo "ok: $(echo "$out" | grep 'error: verify' | head -n 1)"

# Traces with verification points written by earlier builds keep verifying
# (the readback sample app, and piglit's fbo-blit through zink, on lavapipe).
for t in "$4"/v1.1-*.rtrace; do
    out=$("$1" replay "$t" --verify 2>&1) || { echo "$out"; fail "replay --verify of $t"; }
    echo "$out" | grep -q "verify: [1-9][0-9]* points .* 0 divergences" || { echo "$out"; fail "$t did not verify clean"; }
done

# Query results: the replay's vkGetQueryPoolResults compared with the capture's.
"$1" capture -o "$work/q.rtrace" -- "$2" query >"$work/capture.txt" 2>&1 || { cat "$work/capture.txt"; fail "query capture"; }
out=$("$1" replay "$work/q.rtrace" --verify 2>&1) || { echo "$out"; fail "replay --verify of the query trace"; }
echo "$out" | grep -q "verify: .* 1 query reads: 0 divergences" || { echo "$out"; fail "query results not compared"; }
"$3" bump-queries "$work/q.rtrace" "$work/q2.rtrace" >/dev/null || fail "edit_trace bump-queries"
out=$("$1" replay "$work/q2.rtrace" --verify 2>&1)
rc=$?
[ "$rc" -eq 1 ] && echo "$out" | grep -q "error: verify: .*(vkGetQueryPoolResults): query results of queries 0-0 (8 bytes) differ" ||
    { echo "$out"; fail "expected exit 1 naming the query results that differ, got $rc"; }
echo "ok: $(echo "$out" | grep 'error: verify' | head -n 1)"

# Memory imported from a file descriptor: listed by info, warned about by replay.
"$1" capture -o "$work/fd.rtrace" -- "$2" fd >"$work/capture.txt" 2>&1
rc=$?
[ "$rc" -eq 77 ] && { echo "skip: no opaque fd import"; exit 0; }
[ "$rc" -eq 0 ] || { cat "$work/capture.txt"; fail "fd capture exited $rc"; }
grep -q "imported from a file descriptor" "$work/capture.txt" || { cat "$work/capture.txt"; fail "capture did not warn"; }
info=$("$1" info "$work/fd.rtrace")
echo "$info" | grep -q "^external     1 memory objects" || { echo "$info"; fail "info does not list the external memory"; }
out=$("$1" replay "$work/fd.rtrace" 2>&1) || { echo "$out"; fail "replay of the fd trace"; }
echo "$out" | grep -q "imported from a file descriptor .*the replay does not reproduce it" ||
    { echo "$out"; fail "replay does not warn about the external memory"; }
echo "ok: $(echo "$out" | grep 'file descriptor' | head -n 1)"
