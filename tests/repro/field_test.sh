#!/bin/sh
# The field test of docs/FIELD_TEST.md, repeatable: captures real Debian
# programs with `retrace capture`, checks, replays (validated, verified) and
# compares capture-time with replay screenshots (as captured and with
# --memory rebind, the cross-device path), printing one line per step
# (exit status, wall seconds). Not part of `./run test`: it needs the programs
# (apt-get install vulkan-tools mpv ffmpeg vkd3d-demos mesa-utils glmark2-x11
# neverball extremetuxracer) and a display.
#
#   tests/repro/field_test.sh [BUILD_DIR] [WORK_DIR]
set -u
BUILD=$(cd "${1:-build}" && pwd)
WORK=${2:-/tmp/retrace-field}
R="$BUILD/cli/retrace"
mkdir -p "$WORK" "$WORK/xdg" && chmod 700 "$WORK/xdg" && cd "$WORK" || exit 2
export DISPLAY="${DISPLAY:-:99}" XDG_RUNTIME_DIR="$WORK/xdg" SDL_AUDIODRIVER=dummy ALSOFT_DRIVERS=null

step() { # NAME COMMAND...: run it, print status and wall time
    name=$1; shift
    t0=$(date +%s.%N)
    "$@" >"$name.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    printf '%-28s rc=%-3s %6.2fs  %s\n' "$name" "$rc" "$(echo "$t1 - $t0" | bc)" "$(tail -n 1 "$name.log" | cut -c1-110)"
}

# NAME FRAMES DELIM TIMEOUT PROGRAM... (TIMEOUT 0: runs to its end; else SIGINT after it)
run_one() {
    n=$1 frames=$2 delim=$3 to=$4; shift 4
    rm -rf "$n".rtrace* "${n}_cap" "${n}_rep" "${n}_reb"
    shots=""
    [ "$delim" = present ] && shots="--screenshots ${n}_cap --screenshot-frames $frames"
    if [ "$to" = 0 ]; then
        step "$n.capture" "$R" capture -o "$n.rtrace" --frame-delimiter "$delim" $shots -- "$@"
    else
        step "$n.capture" timeout -s INT "$to" "$R" capture -o "$n.rtrace" --frame-delimiter "$delim" $shots -- "$@"
    fi
    printf '%-28s %s bytes; %s\n' "$n.trace" "$(stat -c %s "$n.rtrace" 2>/dev/null)" \
        "$("$R" info "$n.rtrace" 2>/dev/null | grep -E '^(frames|calls|verification)' | tr -s ' ' | tr '\n' ';')"
    step "$n.info-check" "$R" info "$n.rtrace" --check
    if [ "$delim" = present ]; then
        step "$n.replay-validate" "$R" replay "$n.rtrace" --validate --screenshots "${n}_rep" --frames "$frames"
        for f in $(echo "$frames" | tr ',' ' '); do
            p=$(printf 'frame_%06d.png' "$f")
            step "$n.compare.$f" "$R" compare "${n}_cap/$p" "${n}_rep/$p"
        done
        # The cross-device path: every buffer and image placed anew.
        step "$n.replay-rebind" "$R" replay "$n.rtrace" --memory rebind --screenshots "${n}_reb" --frames "$frames"
        for f in $(echo "$frames" | tr ',' ' '); do
            p=$(printf 'frame_%06d.png' "$f")
            step "$n.compare-rebind.$f" "$R" compare "${n}_cap/$p" "${n}_reb/$p"
        done
    else
        step "$n.replay-validate" "$R" replay "$n.rtrace" --validate
        step "$n.replay-rebind" "$R" replay "$n.rtrace" --memory rebind --verify
    fi
    step "$n.replay-verify" "$R" replay "$n.rtrace" --verify
}

ZINK="env MESA_LOADER_DRIVER_OVERRIDE=zink LIBGL_ALWAYS_SOFTWARE=1"
LVP="llvmpipe (LLVM 15.0.6, 256 bits)"
[ -f test.mp4 ] || ffmpeg -y -loglevel error -f lavfi -i testsrc=size=320x240:rate=30 -t 3 \
    -c:v libx264 -pix_fmt yuv420p test.mp4

run_one vkcube 1,10,100 present 0 vkcube --c 100
run_one mpv 1,30,60 present 0 mpv --no-config --vo=gpu-next --gpu-api=vulkan --gpu-context=x11vk \
    "--vulkan-device=$LVP" --frames=60 --ao=null --really-quiet test.mp4
run_one ffmpeg x submit 0 ffmpeg -y -hide_banner -loglevel error -init_hw_device vulkan=vk:0 \
    -filter_hw_device vk -f lavfi -i testsrc=size=320x240:rate=30 -frames:v 10 \
    -vf format=yuv420p,hwupload,scale_vulkan=w=640:h=480,avgblur_vulkan=sizeX=3,hwdownload,format=yuv420p \
    -f framemd5 ffmpeg.md5
run_one vkd3d-gears 1,10,50 present 5 vkd3d-gears
run_one glxgears 1,10,100 present 5 $ZINK glxgears
run_one glmark2 1,20,60 present 0 $ZINK glmark2 -s 320x240 -b build:duration=1 -b texture:duration=1 \
    -b shading:shading=phong:duration=1 -b terrain:duration=1
run_one neverball 1,20,50 present 60 $ZINK /usr/games/neverball
run_one etr 1,60,300 present 40 $ZINK /usr/games/etr
