#!/bin/sh
# docs/cross_device.sh — run on a machine with a real GPU and no window system:
# replays traces captured elsewhere (lavapipe) with screenshots, and captures
# the sample apps in --offscreen mode (their own PNGs are the capture-time
# truth), so the results can be compared on the other machine.
#
# usage: sh docs/cross_device.sh BUNDLE OUTDIR
#   BUNDLE: bin/ (retrace, libVkLayer_RETRACE_capture.so, rt_app_*), lib/ (shared
#           libraries the binaries need), vl/ (the Khronos validation layer and
#           its manifest), traces/*.rtrace with traces/frames.txt ("name frames").
#   OUTDIR: receives replay/NAME/frame_*.png, replay/NAME.log, capture/NAME.rtrace,
#           capture/NAME/frame_*.png and device.txt.
set -u
bundle=$(cd "$1" && pwd)
out=$2
mkdir -p "$out/replay" "$out/capture"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_ADD_LAYER_PATH="$bundle/vl"
retrace="$bundle/bin/retrace"

# The capture layer's manifest, pointing at this bundle's library.
mkdir -p "$bundle/layer"
sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$bundle/bin/libVkLayer_RETRACE_capture.so\"|" \
    "$bundle/bin/VkLayer_RETRACE_capture.json" > "$bundle/layer/VkLayer_RETRACE_capture.json"

vulkaninfo --summary > "$out/device.txt" 2>&1 || echo "no vulkaninfo" > "$out/device.txt"

# 1. Traces from another device, replayed here with screenshots.
while read -r name frames; do
    "$retrace" replay "$bundle/traces/$name.rtrace" --validate --screenshots "$out/replay/$name" \
        --frames "$frames" > "$out/replay/$name.log" 2>&1
    echo "replay $name: exit $?" >> "$out/summary.txt"
done < "$bundle/traces/frames.txt"

# 2. The sample apps captured here, offscreen, with their own screenshots.
for app in "$bundle"/bin/rt_app_*; do
    name=$(basename "$app" | sed 's/^rt_app_//')
    mkdir -p "$out/capture/$name"
    RETRACE_LAYER_DIR="$bundle/layer" "$retrace" capture -o "$out/capture/$name.rtrace" \
        --frame-delimiter submit -- "$app" --offscreen --frames 5 --validate \
        --screenshot-dir "$out/capture/$name" --screenshot-frames 1,3,5 > "$out/capture/$name.log" 2>&1
    echo "capture $name: exit $?" >> "$out/summary.txt"
done
cat "$out/summary.txt"
