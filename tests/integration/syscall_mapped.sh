#!/bin/sh
# tests/integration/syscall_mapped.sh RETRACE SYSCALL_MAPPED EDIT_TRACE — system
# calls on mapped memory under capture with default settings (docs/FIELD_TEST.md,
# finding 1): write(2) from memory the GPU wrote and read(2) into memory the
# GPU then copies work as natively, the replay verifies what the program read
# (what read(2) put there reached the trace: without the memory updates the
# replay's copy differs), and without userfaultfd the capture says what cannot
# work and the kernel can still read mapped memory.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
out=$("$1" capture -o "$work/s.rtrace" --frame-delimiter submit -- "$2" 2>&1) || { echo "$out"; fail "capture"; }
echo "$out" | grep -q "^ok: 0 failed" || { echo "$out"; fail "the program's system calls failed under capture"; }
out=$("$1" replay "$work/s.rtrace" --verify 2>&1) || { echo "$out"; fail "replay --verify"; }
echo "$out" | grep -q "verify: [2-9][0-9]* points .* 0 divergences" || { echo "$out"; fail "no clean verify line with 2+ points"; }
"$3" drop-updates "$work/s.rtrace" "$work/dropped.rtrace" >/dev/null || fail "edit_trace drop-updates"
out=$("$1" replay "$work/dropped.rtrace" --verify 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "$out"; fail "without the memory updates --verify must fail (exit 1), got $rc"; }
echo "ok: both directions under capture; replay verifies the downloaded and uploaded bytes"

# The signal fallback (no userfaultfd): said once on stderr; the kernel reads mapped memory.
out=$(RETRACE_USERFAULTFD=0 "$1" capture -o "$work/f.rtrace" --frame-delimiter submit -- "$2" 2>&1)
echo "$out" | grep -q "retrace: page-guard memory tracking uses signals .*--memory-tracking full" ||
    { echo "$out"; fail "the fallback does not say what cannot work"; }
echo "$out" | grep -q "^write(2) from mapped memory the GPU wrote: ok" || { echo "$out"; fail "fallback: write(2) from mapped memory"; }
echo "$out" | grep -q "^the file holds the GPU's bytes: ok" || { echo "$out"; fail "fallback: wrong bytes"; }
echo "ok: the signal fallback lets the kernel read mapped memory and says read(2) into it cannot work"
