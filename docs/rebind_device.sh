#!/bin/sh
# docs/rebind_device.sh — run on a machine with a real GPU (no window system
# needed): replays traces captured elsewhere (lavapipe; the memory layout
# differs, so --memory auto rebinds) with validation, --verify and
# screenshots, then captures rt_app_memory there (device-local memory) and
# replays it direct, rebound and with RETRACE_REBIND_MOVE_ALL=1.
#
# usage: sh docs/rebind_device.sh BUNDLE OUTDIR
#   BUNDLE: from docs/make_bundle.sh (bin/retrace, the capture layer and
#           rt_app_memory, lib/, vl/, traces/*.rtrace and traces/frames.txt)
#   OUTDIR: NAME/frame_*.png, NAME.log, NAME.json per trace, hN.* for the
#           captures made here, summary.txt and device.txt
# Compare OUTDIR's frames with the capture-time screenshots where the traces
# were made (`retrace compare CAPTURED.png OUTDIR/NAME/frame_N.png`).
set -u
bundle=$(cd "$1" && pwd) out=$2
R=$bundle/bin/retrace
mkdir -p "$out"
# Only the libraries this machine lacks: Debian's next to the driver's can
# break its ICD (NVIDIA's then answers no vkCreateInstance).
mkdir -p "$bundle/need"
for l in "$bundle"/lib/*; do
    n=$(basename "$l")
    ldconfig -p | grep -q "^[[:space:]]*$n " || ln -sf "$l" "$bundle/need/$n"
done
export LD_LIBRARY_PATH="$bundle/need" VK_ADD_LAYER_PATH="$bundle/vl"
(nvidia-smi -L || vulkaninfo --summary) > "$out/device.txt" 2>&1
while read -r name frames; do
    /usr/bin/time -f "%e s" timeout 300 "$R" replay "$bundle/traces/$name.rtrace" --workarounds strip-unsupported \
        --validate --verify --report "$out/$name.json" --screenshots "$out/$name" --frames "$frames" \
        > "$out/$name.log" 2>&1
    echo "$name: exit $? $(grep -E 'replayed|validation:|verify:|warning' "$out/$name.log" | tr '\n' ' ')" >> "$out/summary.txt"
done < "$bundle/traces/frames.txt"
# rt_app_memory captured here, offscreen: memory the host cannot see (case 1
# asks for device-local memory), so moved aliases must refuse (exit 4).
mkdir -p "$bundle/layer"
sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$bundle/bin/libVkLayer_RETRACE_capture.so\"|" \
    "$bundle/bin/VkLayer_RETRACE_capture.json" > "$bundle/layer/VkLayer_RETRACE_capture.json"
for c in 1 2 3 4; do
    RETRACE_LAYER_DIR="$bundle/layer" timeout 60 "$R" capture -o "$out/h$c.rtrace" --frame-delimiter submit -- \
        "$bundle/bin/rt_app_memory" --case $c --offscreen --frames 5 --screenshot-dir "$out/h${c}_own" \
        --screenshot-frames 1,3,5 > "$out/h$c.cap.log" 2>&1
    echo "h$c capture: exit $?" >> "$out/summary.txt"
    for mode in direct rebind; do
        timeout 60 "$R" replay "$out/h$c.rtrace" --memory $mode --verify --validate > "$out/h$c.$mode.log" 2>&1
        echo "h$c $mode: exit $? $(grep -E 'validation:|verify:|warning|error' "$out/h$c.$mode.log" | tr '\n' ' ')" >> "$out/summary.txt"
    done
    RETRACE_REBIND_MOVE_ALL=1 timeout 60 "$R" replay "$out/h$c.rtrace" --memory rebind --verify > "$out/h$c.moved.log" 2>&1
    echo "h$c moved: exit $? $(grep -E 'verify:|warning|error' "$out/h$c.moved.log" | tr '\n' ' ')" >> "$out/summary.txt"
done
cat "$out/summary.txt"
