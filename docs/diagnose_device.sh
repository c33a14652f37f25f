#!/bin/sh
# docs/diagnose_device.sh — run on a machine with a real GPU (no window system
# needed): dumps every draw of one frame of each trace (captured on lavapipe
# elsewhere) with `retrace replay --dump-draws`, and diagnoses there, both
# sides on this GPU: a seeded skipped draw (timed) and the bug apps against
# their workarounds. Bring OUTDIR back and compare its dumps draw by draw with
# lavapipe's: docs/diagnose_device_compare.sh.
#
# usage: sh docs/diagnose_device.sh BUNDLE OUTDIR
#   BUNDLE: from docs/make_bundle.sh (bin/retrace, lib/, traces/*.rtrace and
#           traces/frames.txt, "NAME FRAME" per line)
#   OUTDIR: NAME/ (draws.json and images) and NAME.log per trace,
#           diagnose-NAME.json and .log, summary.txt, device.txt
set -u
bundle=$(cd "$1" && pwd) out=$2
R=$bundle/bin/retrace
mkdir -p "$out" "$bundle/need"
# Only the libraries this machine lacks (docs/rebind_device.sh says why).
for l in "$bundle"/lib/*; do
    n=$(basename "$l")
    ldconfig -p | grep -q "^[[:space:]]*$n " || ln -sf "$l" "$bundle/need/$n"
done
export LD_LIBRARY_PATH="$bundle/need"
(nvidia-smi -L || vulkaninfo --summary) > "$out/device.txt" 2>&1
"$R" devices >> "$out/device.txt" 2>&1
while read -r name frame; do
    /usr/bin/time -f "%e s" timeout 200 "$R" replay "$bundle/traces/$name.rtrace" --end-frame "$frame" \
        --dump-draws "$frame" --dump-dir "$out/$name" > "$out/$name.log" 2>&1
    echo "$name: exit $? $(grep -E 'replayed|warning| s$' "$out/$name.log" | tr '\n' ' ')" >> "$out/summary.txt"
done < "$bundle/traces/frames.txt"
for spec in "readback skip-draws=2:136" "oob workarounds=robust-buffer-access" "uninit workarounds=zero-init" \
            "race workarounds=readback-barrier"; do
    set -- $spec
    /usr/bin/time -f "%e s" timeout 200 "$R" diagnose "$bundle/traces/$1.rtrace" --frame 2 --against-config "$2" \
        --out "$out/diag-$1" --json > "$out/diagnose-$1.json" 2> "$out/diagnose-$1.log"
    echo "diagnose $1 against $2: exit $? $(tail -n 2 "$out/diagnose-$1.log" | tr '\n' ' ')" >> "$out/summary.txt"
done
cat "$out/summary.txt"
