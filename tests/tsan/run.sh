#!/bin/sh
# tests/tsan/run.sh — the multi-threaded capture tests under ThreadSanitizer.
# Builds build-tsan (gcc -fsanitize=thread) and runs, under the capture layer:
# six threads recording and submitting (mt_submit), the threads sample app,
# four busy threads of which one calls exit() while the others call Vulkan,
# and busy threads killed with SIGTERM on a worker. Prints each report's first
# frames and exits 1 if ThreadSanitizer reported anything in our code.
# Slow (a few minutes); not part of ./run test. Needs DISPLAY for the app.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
if [ ! -f build-tsan/build.ninja ]; then
    meson setup build-tsan -Dwerror=true --buildtype=debug -Db_sanitize=thread -Db_lundef=false >/dev/null || exit 1
fi
ninja -C build-tsan capture/libVkLayer_RETRACE_capture.so tests/integration/mt_submit \
    tests/integration/busy_threads tests/apps/rt_app_threads >/dev/null || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TSAN_OPTIONS="halt_on_error=0 report_signal_unsafe=0 suppressions=$root/tests/tsan/suppressions.txt log_path=$work/report"
export VK_ADD_LAYER_PATH=$root/build-tsan/capture VK_INSTANCE_LAYERS=VK_LAYER_RETRACE_capture
b=$root/build-tsan
# The programs run twice: page-guard tracking through signals
# (RETRACE_USERFAULTFD=0) and through userfaultfd. Under userfaultfd a write
# to a guarded page waits in the kernel for our fault thread, an ordering
# ThreadSanitizer cannot see, so that pass adds tests/tsan/uffd.supp
# (a later suppressions= replaces an earlier one: the files are joined).
run_programs() { # PASS
    mkdir -p "$work/own$1"
    RETRACE_FRAME_DELIMITER=submit RETRACE_OUTPUT=$work/mt$1.rtrace "$b/tests/integration/mt_submit" "$work/own$1" 6 5 >/dev/null
    if [ -n "${DISPLAY:-}" ]; then
        RETRACE_OUTPUT=$work/threads$1.rtrace "$b/tests/apps/rt_app_threads" --frames 5 --threads 8 >/dev/null
    fi
    for i in 1 2 3; do
        RETRACE_FRAME_DELIMITER=submit RETRACE_OUTPUT=$work/exit$1$i.rtrace "$b/tests/integration/busy_threads" 4 exit 30 2>/dev/null
    done
    for i in 1 2 3; do
        RETRACE_FRAME_DELIMITER=submit RETRACE_OUTPUT=$work/term$1$i.rtrace "$b/tests/integration/busy_threads" 4 2>/dev/null &
        pid=$!
        sleep 3
        kill -TERM $pid
        wait $pid
    done
}
RETRACE_USERFAULTFD=0 run_programs signals
cat "$root/tests/tsan/suppressions.txt" "$root/tests/tsan/uffd.supp" >"$work/uffd-all.supp"
TSAN_OPTIONS="$TSAN_OPTIONS suppressions=$work/uffd-all.supp" run_programs uffd
left=$(ls "$work"/*.part 2>/dev/null)
[ -z "$left" ] || { echo "FAIL: left unfinished: $left"; exit 1; }
reports=$(ls "$work"/report.* 2>/dev/null)
if [ -z "$reports" ]; then
    echo "ok: no ThreadSanitizer reports"
    exit 0
fi
for r in $reports; do
    grep -E "WARNING: ThreadSanitizer|^    #[0-3] |Previous" "$r" | head -40
done
echo "FAIL: ThreadSanitizer reported $(cat $reports | grep -c 'WARNING: ThreadSanitizer') races"
exit 1
