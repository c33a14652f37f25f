#!/bin/sh
# docs/make_bundle.sh BUILDDIR TRACEDIR BUNDLE — gathers what docs/cross_device.sh
# needs on a machine without retrace's build dependencies: the binaries, the
# shared libraries they load (from this machine), the validation layer, and the
# traces to replay (TRACEDIR/*.rtrace and TRACEDIR/frames.txt).
set -eu
build=$1 traces=$2 bundle=$3
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/vl" "$bundle/traces"
cp "$build/cli/retrace" "$build/capture/libVkLayer_RETRACE_capture.so" "$build/capture/libVkLayer_RETRACE_capture_screenshots.so" \
   "$build/capture/VkLayer_RETRACE_capture.json" "$build"/tests/apps/rt_app_* "$bundle/bin/" 2>/dev/null || true
rm -rf "$bundle"/bin/*.p
for f in "$bundle"/bin/*; do
    ldd "$f" 2>/dev/null | awk '/=> \// {print $3}'
done | sort -u | grep -v -E '/libc\.so|/libm\.so|/libdl\.so|/libpthread\.so|/ld-linux' |
    while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
cp /usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so "$bundle/vl/"
sed 's|"library_path": "[^"]*"|"library_path": "./libVkLayer_khronos_validation.so"|' \
    /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json > "$bundle/vl/VkLayer_khronos_validation.json"
cp "$traces"/*.rtrace "$traces/frames.txt" "$bundle/traces/"
du -sh "$bundle"
