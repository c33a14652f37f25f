#!/bin/sh
# docs/cross_device_compare.sh RETRACE HERE_TRACES RESULTS — the second half of
# the cross-device check, on the machine the traces came from.
#   HERE_TRACES: NAME.rtrace captured here, NAME/frame_*.png their capture-time
#                screenshots, frames.txt ("NAME FRAMES").
#   RESULTS:     what docs/cross_device.sh wrote on the other machine.
# Prints, for every frame, the SSIM of the other device's replay against the
# capture-time screenshot, then replays the other device's offscreen captures
# here (--readbacks) and prints the SSIM of each against the program's own
# screenshots taken there during capture.
set -u
retrace=$1 here=$2 results=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ssim() { "$retrace" compare "$1" "$2" | sed -n 's/^ssim=\([0-9.]*\) min_tile_ssim=\([-0-9.]*\).*diff_pixels=\([0-9]*\).*/ssim \1  worst tile \2  differing pixels \3/p'; }

echo "== captured here, replayed there (replay vs capture-time screenshot)"
while read -r name frames; do
    for f in $(echo "$frames" | tr ',' ' '); do
        png=$(printf 'frame_%06d.png' "$f")
        printf '%-10s frame %-3s ' "$name" "$f"
        if [ -f "$results/replay/$name/$png" ]; then ssim "$here/$name/$png" "$results/replay/$name/$png"
        else echo "missing: $(tail -n 1 "$results/replay/$name.log")"; fi
    done
done < "$here/frames.txt"

echo "== captured there (offscreen), replayed here (readback vs the program's own screenshot)"
for trace in "$results"/capture/*.rtrace; do
    name=$(basename "$trace" .rtrace)
    "$retrace" replay "$trace" --readbacks "$tmp/$name" --validate > "$tmp/$name.log" 2>&1
    echo "$name: replay exit $?, $(tail -n 1 "$tmp/$name.log")"
    for own in "$results/capture/$name"/frame_*.png; do
        best=""
        # The program reads back its frame (and, for readback, checks more):
        # its own screenshot is the readback that matches best.
        for rb in "$tmp/$name"/readback_*.png; do
            line=$(ssim "$own" "$rb")
            value=$(echo "$line" | awk '{print $2}')
            if [ -n "$value" ] && { [ -z "$best" ] || awk -v a="$value" -v b="$best" 'BEGIN { exit !(a > b) }'; }; then
                best=$value bestline=$line
            fi
        done
        printf '%-10s %s  %s\n' "$name" "$(basename "$own")" "${bestline:-no readback}"
    done
done
