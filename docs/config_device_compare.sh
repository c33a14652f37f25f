#!/bin/sh
# docs/config_device_compare.sh RETRACE RESULTS — on the lavapipe machine,
# after docs/config_device.sh ran on the other GPU and its OUT_DIR was copied
# back as RESULTS: replays the zink trace here with --readbacks and prints the
# SSIM of each of the other GPU's read-backs (RESULTS/zink/) against this
# replay's, then the mean and the worst.
set -u
retrace=$1 results=$2
zink=tests/data/traces/v1.1-zink-piglit-fbo-blit.rtrace
here=$(mktemp -d)
trap 'rm -rf "$here"' EXIT
"$retrace" replay "$zink" --readbacks "$here" >/dev/null 2>&1 || { echo "replay here failed"; exit 1; }
for f in "$here"/readback_*.png; do
    other="$results/zink/$(basename "$f")"
    if [ ! -f "$other" ]; then
        echo "$(basename "$f") missing in $results/zink"
        continue
    fi
    "$retrace" compare "$f" "$other" | sed "s|^|$(basename "$f" .png) |"
done | tee "$here/all.txt"
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ssim=/) { v = substr($i, 6); s += v; n++; if (n == 1 || v < w) w = v } }
     END { if (n) printf "%d read-backs: mean SSIM %.6f, worst %.6f\n", n, s / n, w }' "$here/all.txt"
