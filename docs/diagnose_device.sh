#!/bin/sh
# docs/diagnose_device.sh — run on a machine with a real GPU (no window system
# needed): dumps every draw of one frame of each trace (captured on lavapipe
# elsewhere) with `retrace replay --dump-draws`, and times diagnoses there,
# both sides on this GPU (seeded breaks: skipped draws, the test-only
# test-flip-blend). Bring OUTDIR back and compare its dumps draw by draw with
# lavapipe's: docs/diagnose_device_compare.sh.
#
# usage: sh docs/diagnose_device.sh BUNDLE OUTDIR
#   BUNDLE: bin/retrace, lib/ (its libraries, linked where this machine lacks
#           them), traces/*.rtrace, traces/frames.txt ("NAME FRAME" per line)
#           and traces/diagnose.txt ("NAME FRAME CONFIG [FLIP_K [TEST]]" per
#           line: diagnose NAME's FRAME against --against-config CONFIG, with
#           RETRACE_TEST_FLIP_BLEND=FLIP_K where given and not "-", the test
#           side's --config TEST where given, else workarounds=strip-unsupported;
#           RETRACE_TEST_DRIVER=1 lets the test-only models of a bug run)
#   Every replay has strip-unsupported (a trace made on lavapipe may enable
#   what this device lacks). The machine needs a Vulkan loader (libvulkan1
#   and Debian's libglvnd packages, dpkg -x) and VK_DRIVER_FILES for NVIDIA.
#   OUTDIR: NAME/ (draws.json and images) and NAME.log per trace,
#           diagnose-N-NAME-FRAME.json and .log (N: the line), summary.txt, device.txt
set -u
bundle=$(cd "$1" && pwd) out=$2
R=$bundle/bin/retrace
mkdir -p "$out" "$bundle/need"
for l in "$bundle"/lib/*; do
    n=$(basename "$l")
    ldconfig -p | grep -q "^[[:space:]]*$n " || ln -sf "$l" "$bundle/need/$n"
done
export LD_LIBRARY_PATH="$bundle/need"
(nvidia-smi -L || true; "$R" devices) > "$out/device.txt" 2>&1
while read -r name frame; do
    s=$(date +%s.%N)
    timeout 200 "$R" replay "$bundle/traces/$name.rtrace" --end-frame "$frame" --workarounds strip-unsupported \
        --dump-draws "$frame" --dump-dir "$out/$name" > "$out/$name.log" 2>&1
    rc=$?
    echo "$name: exit $rc $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s $(grep -E 'replayed|error' "$out/$name.log" | tr '\n' ' ')" \
        >> "$out/summary.txt"
done < "$bundle/traces/frames.txt"
n=0
while read -r name frame config flip test; do
    n=$((n + 1)) tag=$n-$name-$frame
    [ "${flip:-}" = "-" ] && flip=
    s=$(date +%s.%N)
    RETRACE_TEST_DRIVER=1 RETRACE_TEST_FLIP_BLEND=${flip:-} timeout 200 "$R" diagnose \
        "$bundle/traces/$name.rtrace" --frame "$frame" --config "${test:-workarounds=strip-unsupported}" \
        --against-config "$config" --out "$out/diag-$tag" --json > "$out/diagnose-$tag.json" 2> "$out/diagnose-$tag.log"
    rc=$?
    echo "diagnose $name $frame ${test:+($test) }against $config ${flip:+(K=$flip)}: exit $rc" \
         "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s $(tail -n 1 "$out/diagnose-$tag.log")" \
         "$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); d=a["first_divergent"] or {}
print("found", d.get("draw"), d.get("target"), "diff_pixels", d.get("diff_pixels"), "ssim", d.get("ssim"))' \
            "$out/diagnose-$tag.json" 2>&1)" >> "$out/summary.txt"
done < "$bundle/traces/diagnose.txt"
cat "$out/summary.txt"
