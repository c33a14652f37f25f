#!/bin/sh
# docs/config_device.sh — replay configurations on a real GPU (the H200 of the
# device machine), for docs/CROSS_DEVICE.md. Run from the repository root with
# a build in build/ (./run build, or carried there):
#
#   sh docs/config_device.sh [OUT_DIR]
#
# 1. the gpu delay: traces/vkcube.rtrace and traces/textured.rtrace replayed
#    with --delay gpu=1ms, 2ms and 5ms: the stall the replay measured on the
#    device (timestamps around the calibrated dispatch, from the report) next
#    to the asked duration, and the wall time added per submission against an
#    undelayed replay (medians of 3);
# 2. strip-unsupported: the lavapipe trace of piglit's fbo-blit through zink
#    (tests/data/traces/v1.1-zink-piglit-fbo-blit.rtrace) replayed without
#    the workaround (expected: exit 4 naming an extension this GPU lacks) and
#    with it, saving every read-back to OUT_DIR/zink/ (compared with
#    lavapipe's by docs/config_device_compare.sh on the lavapipe machine);
# 3. the readback race captured here (rt_app_race, offscreen): --validate sync
#    without and with readback-barrier (hazards, exit status).
# Everything goes to OUT_DIR (default $OUT, else /tmp/config_device);
# summary.txt holds the lines to copy into docs/CROSS_DEVICE.md.
set -u
out=${1:-${OUT:-/tmp/config_device}}
mkdir -p "$out"
retrace=build/cli/retrace
[ -x "$retrace" ] || { echo "config_device: no build in build/ (run ./run build)"; exit 2; }
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' | tee -a "$summary"

wall() { # CMD...: wall seconds
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    awk "BEGIN { printf \"%.4f\", $e - $s }"
}
median3() { printf '%s\n%s\n%s\n' "$1" "$2" "$3" | sort -n | sed -n 2p; }
json() { # FILE EXPR: a value of the report
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"
}

# 1. gpu delay
say "== gpu delay: asked, measured on the device, wall time added per submission"
for t in traces/vkcube.rtrace traces/textured.rtrace; do
    name=$(basename "$t" .rtrace)
    subs=$("$retrace" dump "$t" | grep -c -E '^[0-9]+ vkQueueSubmit2?\(')
    "$retrace" replay "$t" >/dev/null 2>&1 # warm-up
    base=$(median3 "$(wall "$retrace" replay "$t")" "$(wall "$retrace" replay "$t")" "$(wall "$retrace" replay "$t")")
    for d in 1ms 2ms 5ms; do
        r="$out/$name-gpu-$d.json"
        "$retrace" replay "$t" --delay gpu=$d --report "$r" >"$out/$name-gpu-$d.log" 2>&1
        slow=$(median3 "$(wall "$retrace" replay "$t" --delay gpu=$d)" "$(wall "$retrace" replay "$t" --delay gpu=$d)" \
            "$(wall "$retrace" replay "$t" --delay gpu=$d)")
        say "$(printf '%-9s gpu=%-4s %4s submissions  measured %8s us (%s)  added %6.3f ms/submission' "$name" "$d" \
            "$subs" "$(json "$r" "r['gpu_stall']['measured_us']")" "$(json "$r" "r['gpu_stall']['method']")" \
            "$(awk "BEGIN { print ($slow - $base) * 1000 / $subs }")")"
    done
done

# 2. strip-unsupported on a GL-through-zink trace from lavapipe
zink=tests/data/traces/v1.1-zink-piglit-fbo-blit.rtrace
say "== strip-unsupported: $zink"
"$retrace" replay "$zink" >"$out/zink-plain.log" 2>&1
say "without: exit $? $(grep 'retrace: error' "$out/zink-plain.log" | head -n 1)"
rm -rf "$out/zink"
"$retrace" replay "$zink" --workarounds strip-unsupported --readbacks "$out/zink" --report "$out/zink.json" \
    --validate >"$out/zink-strip.log" 2>&1
say "with strip-unsupported: exit $? ($(ls "$out/zink" 2>/dev/null | wc -l) read-backs); $(grep '^validation' "$out/zink-strip.log")"
say "  stripped: $(json "$out/zink.json" "r['workarounds_acted'].get('strip-unsupported', {}).get('stripped')")"

# 3. the readback race on this GPU
say "== readback race (rt_app_race captured here, offscreen)"
if "$retrace" capture -o "$out/race.rtrace" --frame-delimiter submit -- build/tests/apps/rt_app_race --offscreen \
    --frames 5 >"$out/race-capture.log" 2>&1; then
    "$retrace" replay "$out/race.rtrace" --validate sync --report "$out/race.json" >"$out/race.log" 2>&1
    say "--validate sync: exit $?, hazards $(json "$out/race.json" "r['validation']['sync_hazards']")"
    "$retrace" replay "$out/race.rtrace" --validate sync --workarounds readback-barrier --report "$out/race-fixed.json" \
        >"$out/race-fixed.log" 2>&1
    say "+ readback-barrier: exit $?, hazards $(json "$out/race-fixed.json" "r['validation']['sync_hazards']"), \
acted $(json "$out/race-fixed.json" "r['workarounds_acted'].get('readback-barrier')")"
else
    say "capture failed: $(tail -n 2 "$out/race-capture.log")"
fi
