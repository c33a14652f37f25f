#!/bin/sh
# docs/bda_check.sh — run from a bundle (docs/make_bundle.sh; copy this file into it)
# on a device with bufferDeviceAddressCaptureReplay: captures rt_app_modern
# offscreen, replays it with the opaque capture addresses (auto: the same
# device) and without them (rebind: addresses moved by the replayer), and
# compares the read-back frames with the program's own screenshots.
b=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$b/lib VK_ADD_LAYER_PATH=$b/vl RETRACE_LAYER_DIR=$b/layer
mkdir -p $b/layer; sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$b/bin/libVkLayer_RETRACE_capture.so\"|" $b/bin/VkLayer_RETRACE_capture.json > $b/layer/VkLayer_RETRACE_capture.json
r=$b/bin/retrace; w=/tmp/bda; rm -rf $w; mkdir -p $w
$r capture -o $w/m.rtrace --frame-delimiter submit -- $b/bin/rt_app_modern --offscreen --frames 5 --validate --screenshot-dir $w/own --screenshot-frames 1,3,5 2>&1 | tail -3
echo "opaque addresses recorded: $($r dump $w/m.rtrace | grep -c 'OPAQUE_CAPTURE_ADDRESS')"
for mode in auto rebind; do
  $r replay $w/m.rtrace --validate --memory $mode --readbacks $w/rb_$mode 2>&1 | tail -2
  i=1; for f in 1 3 5; do echo "$mode frame $f: $($r compare $w/own/$(printf frame_%06d.png $f) $w/rb_$mode/$(printf readback_%06d.png $i))"; i=$((i+1)); done
done
