#!/bin/sh
# tests/integration/probe_children.sh RETRACE PROBE_CHILD APP [ARGS...] —
# `retrace capture -o T` gives T to the program it started, not to a probe
# child that created an instance first (probe_child.c; godot3's GL probes
# through zink, when godot3 is installed), and the summary gives frames and
# calls for every trace written. Skips (77) without a display.
set -u
retrace=$1 probe=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${DISPLAY:-}" ] || { echo "skip: no DISPLAY"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# $1: what; $2: least frames of T; the JSON summary on stdin.
check() {
    python3 -c '
import json, sys
o = json.loads(sys.stdin.readlines()[-1])
least = int(sys.argv[1])
assert o["trace"].endswith("/t.rtrace") and o["frames"] >= least and o["calls"] > 0, o
assert o["other_traces"], o
for t in o["other_traces"]:
    assert t["frames"] == 0 and t["calls"] > 0 and t["pid"] > 0 and "-%d." % t["pid"] in t["trace"], o
print("%d frames, %d calls; other traces: %s" % (o["frames"], o["calls"],
      ", ".join("%d frames %d calls" % (t["frames"], t["calls"]) for t in o["other_traces"])))' "$2" ||
        fail "$1: the summary"
}

"$retrace" capture --json -o "$work/t.rtrace" -- "$probe" "$@" >"$work/out" 2>"$work/err" ||
    { cat "$work/err"; fail "capture of probe_child $*"; }
r=$(check probe_child 1 <"$work/out") || { echo "$r"; exit 1; }
echo "ok: probe_child: $r"

command -v godot3 >/dev/null || { echo "skip: godot3 is not installed"; exit 0; }
mkdir "$work/game"
cat >"$work/game/project.godot" <<'END'
config_version=4

[application]
config/name="probe-children"
run/main_scene="res://main.tscn"
END
cat >"$work/game/main.gd" <<'END'
extends Node2D
var frames = 0
func _process(_delta):
    frames += 1
    update()
    if frames >= 20:
        get_tree().quit()
func _draw():
    draw_rect(Rect2(10, 10, 100 + frames, 80), Color(0.2, 0.6, 0.9))
END
cat >"$work/game/main.tscn" <<'END'
[gd_scene load_steps=2 format=2]

[ext_resource path="res://main.gd" type="Script" id=1]

[node name="Main" type="Node2D"]
script = ExtResource( 1 )
END
rm -f "$work"/t*.rtrace
MESA_LOADER_DRIVER_OVERRIDE=zink LIBGL_ALWAYS_SOFTWARE=1 HOME="$work" \
    "$retrace" capture --json -o "$work/t.rtrace" -- godot3 --path "$work/game" >"$work/out" 2>"$work/err" ||
    { tail -n 20 "$work/err"; fail "capture of godot3"; }
r=$(check godot3 10 <"$work/out") || { echo "$r"; exit 1; }
echo "ok: godot3: $r"
