#!/bin/sh
# docs/diagnose_device_compare.sh RETRACE TRACEDIR RESULTS — the other half of
# docs/diagnose_device.sh: dumps the same frames here (lavapipe) and compares
# every draw image the GPU saved with lavapipe's of the same draw and role
# (`retrace compare`: compare/'s frame verdict, SSIM 0.99, worst tile 0.95,
# delta E 3, the base thresholds of `retrace diagnose`). Prints per trace the
# draws compared, how many fail the verdict, and the lowest SSIM seen.
set -eu
R=$1 traces=$2 results=$3
while read -r name frame; do
    [ -f "$results/$name/draws.json" ] || { echo "$name: no dump from the device"; continue; }
    here=$results/lavapipe-$name
    "$R" replay "$traces/$name.rtrace" --end-frame "$frame" --dump-draws "$frame" --dump-dir "$here" >/dev/null 2>&1
    python3 - "$R" "$results/$name" "$here" "$name" <<'EOF'
import json, os, subprocess, sys
retrace, gpu, cpu, name = sys.argv[1:]
files = lambda d: {(e["draw"], f["role"]): f["path"] for e in json.load(open(os.path.join(d, "draws.json")))["draws"]
                   for f in e["files"] if f["path"].endswith(".png")}
g, c = files(gpu), files(cpu)
failed, worst, draws = [], 1.0, set()
for key in sorted(g.keys() & c.keys()):
    out = subprocess.run([retrace, "compare", os.path.join(cpu, c[key]), os.path.join(gpu, g[key])],
                         capture_output=True, text=True).stdout
    fields = dict(kv.split("=", 1) for kv in out.split() if "=" in kv)
    draws.add(key[0])
    if fields.get("result") != "pass":
        failed.append(f"{key[0]}:{key[1]}")
    if "ssim" in fields:
        worst = min(worst, float(fields["ssim"]))
print(f"{name}: {len(draws)} draws ({len(g.keys() & c.keys())} images) compared, {len(failed)} images fail "
      f"the verdict {failed[:8]}, lowest ssim {worst:.6f}")
EOF
done < "$traces/frames.txt"
