#!/bin/sh
# docs/verify_device.sh — replay --verify on a real GPU (the H200 of the
# device machine), for docs/VERIFY.md. Run from the repository root:
#
#   sh docs/verify_device.sh [BUNDLE] [OUT_DIR]
#
# BUNDLE is what docs/make_bundle.sh gathers (bin/retrace, the capture layer,
# bin/rt_app_readback, lib/) for a machine without retrace's build
# dependencies; without one (or with "build") it uses build/.
#  1. captures the readback sample app offscreen on this machine's GPU and
#     replays it with --verify on the same GPU: every verification point must
#     hold (exit 0, "0 divergences"); a divergence there is a failure (exit 1);
#  2. replays the lavapipe traces in tests/data/traces (v1.1-*: the readback
#     app, and piglit's fbo-blit through zink) with --verify on this GPU: a
#     different kind of device, so divergences are counted, not failures;
#  3. prints one line per run: name, exit status, the verify line, seconds
#     without and with --verify (best of 3).
# Everything it writes goes to OUT_DIR (default $OUT, else /tmp/verify_device).
#
# For the device machine, from this machine (the bundle is 59 MB, under the
# 64 MiB a run may carry; build-* is ignored by git):
#   mkdir -p build-vt && : > build-vt/frames.txt && sh docs/make_bundle.sh build build-vt build-verify
#   then run there, carrying build-verify:  sh docs/verify_device.sh build-verify "$OUT"
set -u
bundle=${1:-build}
out=${2:-${OUT:-/tmp/verify_device}}
mkdir -p "$out"
if [ "$bundle" = build ]; then
    retrace=build/cli/retrace app=build/tests/apps/rt_app_readback layer_dir=build/capture
else
    bundle=$(cd "$bundle" && pwd)
    export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    retrace=$bundle/bin/retrace app=$bundle/bin/rt_app_readback layer_dir=$out/layer
    mkdir -p "$layer_dir" # the layer's manifest, pointing at this bundle's library
    sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$bundle/bin/libVkLayer_RETRACE_capture.so\"|" \
        "$bundle/bin/VkLayer_RETRACE_capture.json" > "$layer_dir/VkLayer_RETRACE_capture.json"
fi
[ -x "$retrace" ] && [ -x "$app" ] || { echo "verify_device: no retrace or rt_app_readback in $bundle"; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'

seconds() { # CMD... : best wall time of 3 runs, in seconds
    best=""
    for _ in 1 2 3; do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        best=$(awk "BEGIN { t = $e - $s; b = \"$best\"; printf \"%.3f\", (b == \"\" || t < b) ? t : b }")
    done
    echo "$best"
}

replay_line() { # NAME TRACE
    "$retrace" replay "$2" --verify >"$out/$1.verify.txt" 2>&1
    rc=$?
    printf '%s\texit %s\t%s\tplain %ss\tverify %ss\n' "$1" "$rc" \
        "$(grep '^verify: [0-9]' "$out/$1.verify.txt" | head -n 1)" \
        "$(seconds "$retrace" replay "$2")" "$(seconds "$retrace" replay "$2" --verify)"
    grep -m 3 'warning: verify\|retrace: error\|bytes were not checked' "$out/$1.verify.txt" | sed 's/^/    /'
}

# 1. same device: capture here, replay here.
RETRACE_LAYER_DIR=$layer_dir "$retrace" capture -o "$out/readback-here.rtrace" -- "$app" --offscreen --frames 5 \
    >"$out/capture.txt" 2>&1 || { echo "capture failed:"; cat "$out/capture.txt"; }
"$retrace" info "$out/readback-here.rtrace" | grep -E '^device|^verification'
replay_line readback-captured-here "$out/readback-here.rtrace"

# 2. another device: lavapipe traces replayed here.
for t in tests/data/traces/v1.1-*.rtrace; do
    replay_line "$(basename "$t" .rtrace)-from-lavapipe" "$t"
done
