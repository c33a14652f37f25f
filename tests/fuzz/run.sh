#!/bin/sh
# tests/fuzz/run.sh BUILDDIR SECONDS [HARNESS...] — runs each libFuzzer
# harness built in BUILDDIR (configured with -Dfuzz=true; all of them unless
# named: reader, vkdecode, png, upload, manifest, head, router, import) for SECONDS,
# or until FUZZ_RUNS executions when that is set (FUZZ_SEED: libFuzzer's
# -seed, 0 for a random one), and prints the executions
# and findings of each. Exit 1 if anything was found. Seeds: traces written
# by the trace writer (tests/cli/make_trace) for the reader, the PNGs of
# tests/data/images for png, and tests/fuzz/seeds/ (uploads, manifests,
# raw HTTP requests for head and router).
# The corpus and any crashing inputs stay in BUILDDIR/fuzz/.
set -eu
build=${1:?usage: run.sh BUILDDIR SECONDS [HARNESS...]}
seconds=${2:-60}
shift 2 || shift $#
only="$*"
here=$(cd "$(dirname "$0")" && pwd)
work=$build/fuzz
make_trace=$build/tests/cli/make_trace

if [ ! -x "$build/tests/fuzz/fuzz_reader" ]; then
    echo "run.sh: $build/tests/fuzz/fuzz_reader is not built (configure with -Dfuzz=true)" >&2
    exit 2
fi
mkdir -p "$work/seeds-reader" "$work/corpus-reader" "$work/findings"

# Seeds: every packet type, both compressions, a late device, many blocks.
"$make_trace" "$work/seeds-reader/zstd.rtrace" --frames 2 >/dev/null
"$make_trace" "$work/seeds-reader/none.rtrace" --frames 2 --none >/dev/null
"$make_trace" "$work/seeds-reader/late.rtrace" --frames 2 --late-device --none >/dev/null
"$make_trace" "$work/seeds-reader/blocks.rtrace" --frames 1 --draws 300 --block-size 4096 >/dev/null
for f in "$here"/../data/traces/*.rtrace; do
    [ -f "$f" ] && cp "$f" "$work/seeds-reader/"
done
mkdir -p "$work/seeds-png" "$work/seeds-head" "$work/seeds-router" "$work/seeds-upload" \
    "$work/seeds-manifest"
cp "$here"/../data/images/png/*.png "$here"/../data/images/bad/*.png "$work/seeds-png/"
cp "$here"/seeds/http/* "$work/seeds-head/"
cp "$here"/seeds/http/* "$work/seeds-router/"
cp "$here"/seeds/upload/* "$work/seeds-upload/"
cp "$here"/seeds/manifest/* "$work/seeds-manifest/"

# import: real GFXReconstruct captures (each compression) where its layer is
# installed, and prefixes and byte-flipped copies of the uncompressed one.
mkdir -p "$work/seeds-import"
cp "$here"/seeds/import/* "$work/seeds-import/" # inputs fuzz_import once found bugs with
triangle=$build/tests/apps/rt_app_triangle
if ls /usr/share/vulkan/explicit_layer.d/*gfxreconstruct*.json >/dev/null 2>&1 && [ -x "$triangle" ]; then
    for c in NONE LZ4 ZSTD; do
        VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE="$work/seeds-import/$c.gfxr" \
            GFXRECON_CAPTURE_FILE_TIMESTAMP=false GFXRECON_CAPTURE_COMPRESSION_TYPE=$c GFXRECON_LOG_LEVEL=error \
            "$triangle" --offscreen --frames 2 >/dev/null 2>&1 || true
    done
    # trimmed by GFXReconstruct (a state snapshot; needs presents, so a window)
    if [ -n "${DISPLAY:-}" ]; then
        for c in NONE LZ4; do
            VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE="$work/seeds-import/t$c.gfxr" \
                GFXRECON_CAPTURE_FILE_TIMESTAMP=false GFXRECON_CAPTURE_COMPRESSION_TYPE=$c GFXRECON_LOG_LEVEL=error \
                GFXRECON_CAPTURE_FRAMES=2-3 "$triangle" --frames 4 --width 64 --height 48 >/dev/null 2>&1 || true
            for t in "$work/seeds-import/t${c}_frames_"*.gfxr; do
                [ -f "$t" ] && mv "$t" "$work/seeds-import/trimmed-$c.gfxr"
            done
        done
    fi
    full=$work/seeds-import/NONE.gfxr
    if [ -f "$full" ]; then
        size=$(wc -c <"$full")
        for k in 1 2 3 5 8 13 21 34 55 89; do
            head -c $((size * k / 100)) "$full" >"$work/seeds-import/prefix-$k.gfxr"
            cp "$full" "$work/seeds-import/flip-$k.gfxr"
            printf '\377' | dd of="$work/seeds-import/flip-$k.gfxr" bs=1 seek=$((size * k / 100)) \
                conv=notrunc 2>/dev/null
        done
    fi
else
    echo "run.sh: GFXReconstruct's capture layer is not installed: fuzz_import starts without real captures" >&2
    printf 'GFXR\0\0\0\0\0\0\0\0\0\0\0\0' >"$work/seeds-import/empty.gfxr"
fi

status=0
ran=""
for harness in "$build"/tests/fuzz/fuzz_*; do
    [ -f "$harness" ] && [ -x "$harness" ] || continue
    name=$(basename "$harness" | sed 's/^fuzz_//')
    if [ -n "$only" ] && ! echo " $only " | grep -q " $name "; then
        continue
    fi
    ran="$ran $name"
    mkdir -p "$work/corpus-$name" "$work/seeds-$name"
    log=$work/$name.log
    before=$(ls "$work/findings" | grep -c "^$name-" || true)
    # import: inputs past 64 KiB cost more per run than they add (the
    # compressed seeds fit whole; the larger ones are fuzzed as prefixes).
    max_len=""
    [ "$name" = import ] && max_len=-max_len=65536
    # -fork would use both cores; one process keeps the machine usable.
    nice "$harness" $max_len -max_total_time="$seconds" -runs="${FUZZ_RUNS:--1}" -seed="${FUZZ_SEED:-0}" -print_final_stats=1 \
        -artifact_prefix="$work/findings/$name-" \
        "$work/corpus-$name" "$work/seeds-$name" >"$log" 2>&1 || true
    after=$(ls "$work/findings" | grep -c "^$name-" || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
    corpus=$(ls "$work/corpus-$name" | wc -l)
    findings=$((after - before))
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    echo "fuzz $name: ${took:-$seconds}s, ${execs:-0} executions, coverage ${cov:-?} edges," \
         "corpus $corpus, findings $findings"
    if [ "$findings" -gt 0 ] || grep -q "ERROR: libFuzzer\|SUMMARY: .*Sanitizer" "$log"; then
        echo "fuzz $name: FINDING, see $log and $work/findings/" >&2
        status=1
    fi
done
if [ -z "$ran" ]; then # a misspelt name must not pass as a clean run
    echo "run.sh: no harness named: $only (built: $(ls "$build"/tests/fuzz/ | sed -n 's/^fuzz_\([a-z_]*\)$/\1/p' | tr '\n' ' '))" >&2
    exit 2
fi
exit $status
