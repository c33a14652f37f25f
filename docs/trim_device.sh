#!/bin/bash
# docs/trim_device.sh — run on a machine with a real GPU (no window system
# needed): replays trimmed traces made on lavapipe, and for comparison the
# untrimmed traces they were cut from, two ways: as captured (--memory
# direct: the capture's allocations as they were) and rebound (--memory
# rebind: an allocation per buffer and image, what auto picks between two
# devices). Every frame is compared there with lavapipe's screenshot of the
# same frame of the untrimmed run.
#
# usage: bash docs/trim_device.sh BUNDLE OUTDIR
#   BUNDLE: from docs/make_bundle.sh (bin/retrace, lib/), plus
#           traces/list.txt: one line per replay, "NAME FIRST COUNT REF REF_FIRST":
#           replay traces/NAME.rtrace's frames FIRST..FIRST+COUNT-1 against
#           refs/REF/frame_N.png, N from REF_FIRST on
#   The device machine has no Vulkan loader: unpack libvulkan1 and libglvnd's
#   packages (libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2, from
#   `apt-get download`) there with dpkg -x first, and export
#   VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json.
#   OUTDIR: summary.txt (one line per trace and mode: exit, wall ms, each
#           frame's SSIM and worst 32x32 tile) and logs.tgz (every replay's output)
set -u
bundle=$(cd "$1" && pwd) out=$2
R=$bundle/bin/retrace
mkdir -p "$out/logs" "$out/shots" "$bundle/need"
# Only the libraries this machine lacks (docs/rebind_device.sh says why).
for l in "$bundle"/lib/*; do
    n=$(basename "$l")
    ldconfig -p | grep -q "^[[:space:]]*$n " || ln -sf "$l" "$bundle/need/$n"
done
export LD_LIBRARY_PATH="$bundle/need"
nvidia=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f $nvidia ] && export VK_DRIVER_FILES=$nvidia
(nvidia-smi -L; "$R" devices) > "$out/device.txt" 2>&1
while read -r name first count ref ref_first; do
    last=$((first + count - 1))
    for mode in direct rebind; do
        memory=()
        [ "$mode" != auto ] && memory=(--memory "$mode")
        start=$(date +%s%N)
        timeout 120 "$R" replay "$bundle/traces/$name.rtrace" "${memory[@]}" --workarounds strip-unsupported \
            --screenshots "$out/shots/$name.$mode" --frames "$first-$last" > "$out/logs/$name.$mode.log" 2>&1
        rc=$?
        line="$name $mode: exit $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms"
        for ((i = 0; i < count; i++)); do
            got=$(printf "%s/shots/%s.%s/frame_%06d.png" "$out" "$name" "$mode" $((first + i)))
            want=$(printf "%s/refs/%s/frame_%06d.png" "$bundle" "$ref" $((ref_first + i)))
            c=$("$R" compare "$want" "$got" 2>&1 | grep -o "ssim=[0-9.]* min_tile_ssim=[0-9.]*")
            line="$line | ${c:-no frame}"
        done
        echo "$line" >> "$out/summary.txt"
    done
done < "$bundle/traces/list.txt"
tar czf "$out/logs.tgz" -C "$out" logs device.txt
rm -rf "$out/logs" "$out/shots"
cat "$out/summary.txt"
