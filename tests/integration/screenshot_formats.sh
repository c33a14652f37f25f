#!/bin/sh
# tests/integration/screenshot_formats.sh RETRACE MAKE_SWAPCHAIN_TRACE — a swapchain
# of RGBA16F, A2B10G10R10 or R5G6B5 presents one cleared frame: the replay's
# screenshot is byte for byte the PNG readback/ makes of the texels the clear
# must write (16-bit RGBA for the first two, 8-bit RGB for the last); the
# trace's Wayland surface extension is left out of the headless replay; the
# program's own copy of its presented image is saved by --readbacks the same.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for format in rgba16f a2b10g10r10 r5g6b5; do
    "$2" "$work/$format.rtrace" "$work/expected_$format" "$format" || { echo "FAIL: $format: no trace"; exit 1; }
    out=$(env -u XDG_RUNTIME_DIR "$1" replay "$work/$format.rtrace" --validate --screenshots "$work/$format" \
        --frames 1 --readbacks "$work/rb_$format" 2>&1) ||
        { echo "FAIL: $format: replay"; echo "$out"; exit 1; }
    echo "$out" | grep -q "validation: 0 errors" || { echo "FAIL: $format: validation"; echo "$out"; exit 1; }
    # The trace enables VK_KHR_wayland_surface: a headless replay leaves it out,
    # so Mesa's Wayland WSI has nothing to say about XDG_RUNTIME_DIR.
    echo "$out" | grep -q "XDG_RUNTIME_DIR" && { echo "FAIL: $format: window system reached"; echo "$out"; exit 1; }
    cmp "$work/expected_$format.png" "$work/$format/frame_000001.png" ||
        { echo "FAIL: $format: the screenshot differs"; echo "$out"; exit 1; }
    cmp "$work/expected_$format.png" "$work/rb_$format/readback_000001.png" ||
        { echo "FAIL: $format: the read-back of the presented image differs"; echo "$out"; exit 1; }
done
echo "ok: RGBA16F, A2B10G10R10 and R5G6B5 screenshots as documented"
