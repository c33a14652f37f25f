#!/bin/sh
# tests/ref/colour_gate_pairs.sh RETRACE RESULTS — the colour gate on real
# rasteriser differences: the bundled goldens (captured on lavapipe) against
# the same frames replayed on another GPU by docs/cross_device.sh (RESULTS is
# its OUTDIR: replay/NAME/frame_NNNNNN.png). Prints tests/ref/colour_gate.py's
# table: ssim, worst tile, delta_e and the verdict of every pair.
#   mkdir -p /tmp/xt && cp traces/*.rtrace /tmp/xt/ &&
#     grep -v '^#' traces/manifest.txt > /tmp/xt/frames.txt &&
#     sh docs/make_bundle.sh build /tmp/xt bundle      # here
#   sh docs/cross_device.sh bundle results              # on the other machine
#   sh tests/ref/colour_gate_pairs.sh build/cli/retrace results   # here
set -eu
retrace=$1 results=$2
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/golden" "$tmp/replay"
for g in traces/golden/*-f*.png; do
    base=$(basename "$g" .png)          # 1-vkcube-f10
    name=${base#*-} frame=${base##*-f}  # vkcube-f10, 10
    name=${name%-f*}
    r="$results/replay/$name/$(printf 'frame_%06d.png' "$frame")"
    if [ -f "$r" ]; then
        cp "$g" "$tmp/golden/$name-f$frame.png"
        cp "$r" "$tmp/replay/$name-f$frame.png"
    else
        echo "no replay of $name frame $frame in $results" >&2
    fi
done
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" tests/ref/colour_gate.py "$retrace" --pairs "$tmp/golden" "$tmp/replay"
