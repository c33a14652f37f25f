#!/bin/sh
# bench/compare.sh — `retrace compare` against ffmpeg's ssim filter and
# scikit-image, on deterministic 1920x1080 and 3840x2160 PNG pairs, in one run.
# Run from the repository root after ./run build (./run bench does both).
# Times are medians of whole commands (ours, ffmpeg), wall and CPU (user + sys,
# all threads); skimage is timed inside Python after import. Ratios > 1 mean
# retrace is faster; the target is 4x ffmpeg.
set -eu
cd "$(dirname "$0")/.."
RETRACE=${RETRACE:-build/cli/retrace}
REPS=${REPS:-7}
# Debian's python3-numpy/-skimage/-pil live in the system interpreter.
PY=${PYTHON:-python3}
[ -x /usr/bin/python3 ] && PY=${PYTHON:-/usr/bin/python3}

for tool in "$RETRACE" ffmpeg; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "bench/compare: $tool not found (run ./run build; apt-get install ffmpeg)" >&2
        exit 1
    fi
done
if ! "$PY" -c 'import numpy, PIL, skimage' 2>/dev/null; then
    echo "bench/compare: $PY lacks numpy, PIL or skimage (python3-skimage)" >&2
    exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "==> bench/compare: retrace compare vs ffmpeg -lavfi ssim vs scikit-image ($(nproc) CPUs, $REPS runs, medians)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%10s %8s %8s %8s %8s %8s %8s %9s %8s %8s %8s %8s\n' size ours_ms ours_cpu rgb_ms rgb_cpu \
    ff_ms ff_cpu skimage_ms sk_ssim ff/us ff/us_cpu sk/us
for size in 1920x1080 3840x2160; do
    w=${size%x*}
    h=${size#*x}
    "$PY" bench/compare/make_pair.py "$w" "$h" "$WORK/golden_$size.png" "$WORK/actual_$size.png"
    "$PY" bench/compare/timing.py "$RETRACE" "$WORK/golden_$size.png" "$WORK/actual_$size.png" \
        "$size" "$REPS"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "_ms: wall, _cpu: user+sys CPU ms; ff/us: ffmpeg/ours wall, ff/us_cpu: ffmpeg/ours CPU (target >= 4)"
echo "ours: luma SSIM + worst tile + PSNR + pixel counts, PNG decode included; rgb: --channels rgb"
echo "ffmpeg: 8x8-window SSIM on R, G, B planes, PNG decode included; skimage_ms: PNG load + SSIM; sk_ssim: SSIM only"
