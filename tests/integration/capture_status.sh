#!/bin/sh
# tests/integration/capture_status.sh RETRACE BUSY_THREADS — retrace capture's
# exit status says whether the program failed (6, the trace kept and printed),
# and an output directory it cannot write is refused (2) before the program
# starts. Prints TAP.
set -u
retrace=$1 busy=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 failed=0
check() { # NAME WANT_CODE WANT_TEXT -- CMD...
    name=$1 want=$2 text=$3
    shift 4
    n=$((n + 1))
    out=$("$@" 2>&1)
    code=$?
    if [ "$code" = "$want" ] && printf '%s' "$out" | grep -q -- "$text"; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name (exit $code, wanted $want and '$text')"
        printf '%s\n' "$out" | sed 's/^/# /'
        failed=1
    fi
}
check "a program that crashes on a worker thread: 6, trace kept and printed" 6 "trace: $work/segv.rtrace" -- \
    "$retrace" capture -o "$work/segv.rtrace" --frame-delimiter submit -- "$busy" 3 segv 20
n=$((n + 1))
if [ -f "$work/segv.rtrace" ] && "$retrace" info --check "$work/segv.rtrace" >/dev/null; then
    echo "ok $n - the crashed program's trace checks"
else
    echo "not ok $n - the crashed program's trace checks"; failed=1
fi
check "--json says how the program ended" 6 '"program":{"signal":11' -- \
    "$retrace" capture --json -o "$work/j.rtrace" --frame-delimiter submit -- "$busy" 3 segv 5
check "a program that exits non-zero: 6" 6 "exited with status 3" -- \
    "$retrace" capture -o "$work/x.rtrace" -- sh -c 'exit 3'
check "a program env cannot find: 3, could not be run" 3 "could not be run (exit 127" -- \
    "$retrace" capture -o "$work/e.rtrace" -- env /nonexistent/program
check "a command that is not executable, no trace: 3" 3 "could not be run (exit 126" -- \
    "$retrace" capture -o "$work/f.rtrace" -- sh -c 'exit 126'
check "a failed program: retrace's own status named as such" 6 "exited with status 3.*" -- \
    "$retrace" capture -o "$work/g.rtrace" -- sh -c 'exit 3'
check "... and the last line says 6 is retrace's" 6 "sh failed, so retrace exits 6" -- \
    "$retrace" capture -o "$work/h.rtrace" -- sh -c 'exit 3'
check "a program that exits 0 without Vulkan: 3" 3 "wrote no trace" -- \
    "$retrace" capture -o "$work/y.rtrace" -- true
check "an output directory that does not exist: 2, program not run" 2 "does-not-exist" -- \
    "$retrace" capture -o "$work/does-not-exist/t.rtrace" -- touch "$work/ran"
check "an output directory that takes no files: 2" 2 "cannot write" -- \
    "$retrace" capture -o /proc/t.rtrace -- touch "$work/ran"
check "an output that is a directory: 2" 2 "is a directory" -- \
    "$retrace" capture -o "$work" -- touch "$work/ran"
touch "$work/file"
check "a screenshot directory that is a file: 2" 2 "not a directory" -- \
    "$retrace" capture -o "$work/s.rtrace" --screenshots "$work/file" -- touch "$work/ran"
check "a screenshot directory that takes no files: 2" 2 "cannot write into" -- \
    "$retrace" capture -o "$work/s.rtrace" --screenshots /proc/self -- touch "$work/ran"
n=$((n + 1))
if [ -e "$work/ran" ]; then echo "not ok $n - the program ran despite a bad output"; failed=1
else echo "ok $n - the program never ran with a bad output"; fi
echo "1..$n"
exit $failed
