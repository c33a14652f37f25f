#!/bin/sh
# docs/verify_device.sh — replay --verify on a real GPU (the H200 of the
# device machine), for docs/VERIFY.md. Run from the repository root, with a
# build in build/ (./run build, or carried there):
#
#   sh docs/verify_device.sh [OUT_DIR]
#
# 1. captures the readback sample app offscreen on this machine's GPU and
#    replays it with --verify on the same GPU: every verification point must
#    hold (exit 0, "0 divergences"); a divergence there is a failure (exit 1);
# 2. replays the lavapipe traces in tests/data/traces (v1.1-*: the readback
#    app, and piglit's fbo-blit through zink) with --verify on this GPU: a
#    different kind of device, so divergences are counted, not failures;
# 3. prints one line per run: name, exit status, the verify line, seconds with
#    and without --verify.
# Everything it writes goes to OUT_DIR (default $OUT, else /tmp/verify_device).
set -u
out=${1:-${OUT:-/tmp/verify_device}}
mkdir -p "$out"
retrace=build/cli/retrace
app=build/tests/apps/rt_app_readback
[ -x "$retrace" ] && [ -x "$app" ] || { echo "verify_device: no build in build/ (run ./run build)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'

seconds() { # CMD... : runs it, prints its wall time in seconds
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    awk "BEGIN { printf \"%.3f\", $e - $s }"
}

replay_line() { # NAME TRACE
    "$retrace" replay "$2" --verify >"$out/$1.verify.txt" 2>&1
    rc=$?
    plain=$(seconds "$retrace" replay "$2")
    verify=$(seconds "$retrace" replay "$2" --verify)
    printf '%s\texit %s\t%s\tplain %ss\tverify %ss\n' "$1" "$rc" \
        "$(grep '^verify: [0-9]' "$out/$1.verify.txt" | head -n 1)" "$plain" "$verify"
    grep -m 3 'warning: verify\|retrace: error' "$out/$1.verify.txt" | sed 's/^/    /'
}

# 1. same device: capture here, replay here.
"$retrace" capture -o "$out/readback-here.rtrace" -- "$app" --offscreen --frames 5 >"$out/capture.txt" 2>&1 ||
    { echo "capture failed:"; cat "$out/capture.txt"; }
"$retrace" info "$out/readback-here.rtrace" | grep -E '^device|^verification'
replay_line readback-captured-here "$out/readback-here.rtrace"

# 2. another device: lavapipe traces replayed here.
for t in tests/data/traces/v1.1-*.rtrace; do
    replay_line "$(basename "$t" .rtrace)-from-lavapipe" "$t"
done
