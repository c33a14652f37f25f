#!/bin/sh
# docs/two_way_device.sh — run on a machine with a real GPU (no window system):
# lavapipe traces from BUNDLE/traces replayed there (--memory auto and rebind,
# validation, --verify, screenshots), and the offscreen sample apps captured
# there (--frame-delimiter submit) and replayed there, for bringing home and
# replaying on lavapipe (`retrace replay --readbacks`).
# usage: OUT=DIR sh docs/two_way_device.sh, from a folder holding bundle/ (docs/make_bundle.sh)
# and gl/ (Debian debs of libvulkan1 and libglvnd: the device has no Vulkan loader).
set -u
root=${ROOT:-$(pwd)} out=$OUT
mkdir -p "$root/glx" && for d in "$root"/gl/*.deb; do dpkg -x "$d" "$root/glx"; done
B=$root/bundle R=$B/bin/retrace
mkdir -p "$B/need"
for l in "$B"/lib/*; do n=$(basename "$l"); ldconfig -p | grep -q "^[[:space:]]*$n " || ln -sf "$l" "$B/need/$n"; done
export LD_LIBRARY_PATH="$B/need:$root/glx/usr/lib/x86_64-linux-gnu" VK_ADD_LAYER_PATH="$B/vl"
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
uname -r > "$out/kernel.txt"; "$R" devices > "$out/devices.txt" 2>&1
while read -r name frames; do
  for mode in auto rebind; do
    timeout 120 "$R" replay "$B/traces/$name.rtrace" --memory $mode --workarounds strip-unsupported --validate --verify \
      --screenshots "$out/$name.$mode" --frames "$frames" > "$out/$name.$mode.log" 2>&1
    echo "$name $mode: exit $? $(grep -E 'replayed|validation:|verify:' "$out/$name.$mode.log" | tr '\n' ' ')" >> "$out/summary.txt"
  done
done < "$B/traces/frames.txt"
mkdir -p "$B/layer"
sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$B/bin/libVkLayer_RETRACE_capture.so\"|" \
    "$B/bin/VkLayer_RETRACE_capture.json" > "$B/layer/VkLayer_RETRACE_capture.json"
for app in memory particles queries trails persist passes readback msaa reuse; do
  args="--offscreen --frames 10 --screenshot-dir $out/h_$app.own --screenshot-frames 1,5,10"
  [ $app = memory ] && args="--case 1 $args"
  RETRACE_LAYER_DIR="$B/layer" timeout 120 "$R" capture -o "$out/h_$app.rtrace" --frame-delimiter submit -- "$B/bin/rt_app_$app" $args > "$out/h_$app.cap.log" 2>&1
  echo "h_$app capture: exit $? $(grep -E 'memory tracking|frames' "$out/h_$app.cap.log" | tr '\n' ' ')" >> "$out/summary.txt"
  timeout 120 "$R" replay "$out/h_$app.rtrace" --validate --verify --readbacks "$out/h_$app.replay" > "$out/h_$app.replay.log" 2>&1
  echo "h_$app replay here: exit $? $(grep -E 'replayed|validation:|verify:' "$out/h_$app.replay.log" | tr '\n' ' ')" >> "$out/summary.txt"
done
cat "$out/summary.txt"
