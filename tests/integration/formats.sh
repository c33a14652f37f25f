#!/bin/sh
# tests/integration/formats.sh RETRACE FORMATS — read-backs of R8_UNORM,
# R32G32B32A32_SFLOAT, A8B8G8R8_SRGB_PACK32, A1R5G5B5_UNORM_PACK16 and the
# depth and stencil aspects of D32_SFLOAT_S8_UINT (tests/integration/formats.c): the replay saves every one (no exit 4) and
# its files are byte for byte the ones the program made from its own bytes.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/own"
out=$("$1" capture -o "$work/t.rtrace" --frame-delimiter submit -- "$2" "$work/own" 2>&1) ||
    { echo "FAIL: capture"; echo "$out"; exit 1; }
echo "$out" | grep -q "^6 formats, 0 wrong bytes" || { echo "FAIL: the program itself"; echo "$out"; exit 1; }
out=$("$1" replay "$work/t.rtrace" --readbacks "$work/replay" 2>&1) || { echo "FAIL: replay"; echo "$out"; exit 1; }
echo "$out" | grep -q "6 read-backs in" || { echo "FAIL: not every read-back saved"; echo "$out"; exit 1; }
for own in "$work"/own/*; do
    cmp "$own" "$work/replay/$(basename "$own")" || { echo "FAIL: $(basename "$own") differs"; exit 1; }
done
[ "$(ls "$work/own" | wc -l)" -eq 6 ] || { echo "FAIL: $(ls "$work/own")"; exit 1; }
echo "ok: 6 formats (depth and stencil aspects too) read back and saved by the replay as the program saw them"
