#!/bin/sh
# tests/cli/consistency_test.sh RETRACE TRACES_DIR MAKE_HOSTILE_TRACE PYTHON —
# one command line for every subcommand: -h/--help, the wording of bad
# option values, --json errors as one JSON object on stdout, dump's escaping,
# and a read-only golden store that can still be read. Prints TAP.
set -u
retrace=$1 traces=$2 make_hostile=$3 python=$4
. "$(dirname "$0")/tap.sh"

# json_error NAME CODE -- COMMAND...: stdout is exactly one JSON object whose
# error.code is CODE, and the exit code is CODE.
json_error() {
    name=$1 want=$2
    shift 3
    "$@" >"$work/out" 2>"$work/err"
    rc=$?
    if [ "$rc" -eq "$want" ] && "$python" -c '
import json, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()
assert len(lines) == 1, lines
e = json.loads(lines[0])["error"]
assert e["code"] == int(sys.argv[2]) and e["message"], e' "$work/out" "$want" 2>"$work/py"; then
        ok "$name"
    else
        not_ok "$name (exit $rc, wanted $want)" "$(cat "$work/out" "$work/err" "$work/py")"
    fi
}

commands=$("$retrace" help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
"$make_hostile" "$work/hostile.rtrace" || exit 1
mkdir -p "$work/store"
"$retrace" golden import "$traces/golden" --db "$work/store/g.db" >/dev/null || exit 1

echo "1..$(( $(echo "$commands" | wc -l) * 4 + 47 ))"
for c in $commands; do
    check "$c -h" 0 "usage: retrace $c" -- "$retrace" "$c" -h
    check "$c --help" 0 "usage: retrace $c" -- "$retrace" "$c" --help
    check "$c: an unknown option is named" 2 "retrace $c: unknown option '--no-such-option'\|unknown action" -- "$retrace" "$c" --no-such-option
    json_error "$c --json: a usage error is a JSON object on stdout" 2 -- "$retrace" "$c" --json --no-such-option
done

# Numbers: negative, overflowing and junk values are refused, naming the option.
check "replay --loop -1" 2 "\-\-loop: expected a whole number from 1 to 4294967295, got '-1'" -- "$retrace" replay --loop -1 x.rtrace
check "replay --end-frame overflow" 2 "\-\-end-frame: expected a whole number .* got '99999999999999999999999'" -- "$retrace" replay --end-frame 99999999999999999999999 x.rtrace
check "replay --device without a value" 2 "\-\-device needs a value" -- "$retrace" replay x.rtrace --device
check "dump --frame junk" 2 "\-\-frame: expected a frame number" -- "$retrace" dump --frame 2x x.rtrace
check "dump --calls negative" 2 "\-\-calls: expected A-B" -- "$retrace" dump --calls -1-5 x.rtrace
check "compare --threads negative" 2 "\-\-threads: expected a whole number from 1 to 8, got '-2'" -- "$retrace" compare --threads -2 a.png b.png
check "compare --threshold junk" 2 "\-\-threshold: expected a number from 0 to 1, got 'high'" -- "$retrace" compare --threshold high a.png b.png
check "golden --frame negative" 2 "\-\-frame: expected a whole number from 1 to 4294967295, got '-3'" -- "$retrace" golden list --frame -3 --db "$work/store/g.db"
check "golden: a negative id" 2 "ID: expected a golden id" -- "$retrace" golden show --db "$work/store/g.db" -- -4
check "capture: a setting's error names the flag" 2 "retrace capture: --screenshots: cannot create /proc/x" -- "$retrace" capture --screenshots /proc/x -- true
check "capture --compression junk" 2 "\-\-compression: expected zstd or none, got 'lz4'" -- "$retrace" capture --compression lz4 -- true

# --json: bad input is a JSON object on stdout too.
json_error "dump --json: a missing trace" 3 -- "$retrace" dump --json "$work/missing.rtrace"
json_error "compare --json: a missing image" 3 -- "$retrace" compare --json "$work/a.png" "$work/b.png"
json_error "golden --json: a missing store" 3 -- "$retrace" golden list --json --db "$work/missing.db"
"$retrace" replay --json --end-frame 2 "$traces/vkcube.rtrace" >"$work/replay.json" 2>"$work/err"
if "$python" -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[0])
assert len(lines) == 1 and r["frames"] == 2 and r["calls"] > 0 and "error" not in r, r' "$work/replay.json" 2>"$work/py"; then
    ok "replay --json: the result is one object"
else not_ok "replay --json: the result is one object" "$(cat "$work/replay.json" "$work/err" "$work/py")"; fi
head -c 30000 "$traces/textured.rtrace" >"$work/cut.rtrace"
check "replay --json: a truncated trace, the error inside the result" 3 '"good_prefix_only":true,.*"error":{"code":3' -- "$retrace" replay --json "$work/cut.rtrace"
json_error "capture --json: a program without Vulkan" 3 -- "$retrace" capture --json -o "$work/t.rtrace" -- true
check "capture: the program's own --json is not ours" 3 "^retrace: error: echo wrote no trace" -- "$retrace" capture -o "$work/t.rtrace" echo --json
check "info --json: the report carries the error object" 3 '"code":	3' -- "$retrace" info --json "$work/missing.rtrace"

# diagnose: a trace that cannot be read is exit 3 naming it, as every command, with no folder left.
here=$(pwd)
abs_retrace=$(cd "$(dirname "$retrace")" && pwd)/$(basename "$retrace")
cd "$work" || exit 1
check "diagnose: a missing trace" 3 "missing.rtrace: cannot open" -- \
    "$abs_retrace" diagnose "$work/missing.rtrace" --frame 1 --against-config seed=1
if [ -e "$work/diagnose-1" ]; then not_ok "diagnose: no folder for a missing trace" "$(ls "$work")"
else ok "diagnose: no folder for a missing trace"; fi
"$python" -c '
import sys
d = open(sys.argv[1], "rb").read()
n = len(d) // 2
open(sys.argv[2], "wb").write(d[:n] + bytes(64) + d[n + 64:])' "$traces/vkcube.rtrace" "$work/corrupt.rtrace"
check "diagnose: a corrupt trace is bad input" 3 "checksum mismatch" -- \
    "$abs_retrace" diagnose "$work/corrupt.rtrace" --frame 50 --against-config seed=1
cd "$here" || exit 1
lines=$("$retrace" replay "$work/missing.rtrace" 2>&1 | wc -l)
if [ "$lines" -eq 1 ]; then ok "replay: a missing trace is one line, the error"
else not_ok "replay: a missing trace is one line, the error" "$("$retrace" replay "$work/missing.rtrace" 2>&1)"; fi
check "replay --skip-draws naming a draw the frame lacks warns" 0 \
    "warning: --skip-draws 3:5: frame 3 has 1 draws, so none was skipped" -- \
    "$retrace" replay "$traces/vkcube.rtrace" --skip-draws 3:5 --end-frame 4
check "diagnose: a reference device that does not exist is exit 4 before any replay" 4 \
    "no Vulkan device matches --device nosuchgpu" -- \
    "$retrace" diagnose "$traces/vkcube.rtrace" --frame 5 --against-device nosuchgpu --out "$work/diag-nodev"
check "diagnose: an ICD file that does not exist is exit 3 naming it" 3 \
    "--against-icd /nonexistent/icd.json: cannot open" -- \
    "$retrace" diagnose "$traces/vkcube.rtrace" --frame 5 --against-icd /nonexistent/icd.json --out "$work/diag-noicd"
check "replay --report into a folder that does not exist is refused before the replay" 2 \
    "--report: cannot write /nonexistent/r.json" -- \
    "$retrace" replay "$traces/vkcube.rtrace" --report /nonexistent/r.json --end-frame 2
# a skip in a recording made before the frame touches only that frame's
# submission (replay/draws_mirror.c): vkcube's frame 1 stays as it was
"$retrace" replay "$traces/vkcube.rtrace" --end-frame 10 --screenshots "$work/cube-plain" --frames 1,10 >/dev/null 2>&1
"$retrace" replay "$traces/vkcube.rtrace" --skip-draws 10:1 --end-frame 10 --screenshots "$work/cube-skip" \
    --frames 1,10 >"$work/skip.out" 2>&1
if cmp -s "$work/cube-plain/frame_000001.png" "$work/cube-skip/frame_000001.png" &&
    ! cmp -s "$work/cube-plain/frame_000010.png" "$work/cube-skip/frame_000010.png" &&
    ! grep -q "every frame" "$work/skip.out"; then
    ok "replay --skip-draws 10:1 on a recording made before frame 10 changes frame 10 only"
else
    not_ok "replay --skip-draws 10:1 on a recording made before frame 10 changes frame 10 only" "$(cat "$work/skip.out")"
fi

# dump: any bytes in a trace print escaped; --json is valid JSON (UTF-8).
check "dump escapes control characters and invalid UTF-8" 0 'pApplicationName="a\\tb\\nc\\x1b\[31m\\x7f"q\\\\\\x80\\xe2\\x82\\xc0' -- "$retrace" dump "$work/hostile.rtrace"
"$retrace" dump "$work/hostile.rtrace" >"$work/dump.txt" 2>&1
if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$work/dump.txt" || [ "$(wc -l <"$work/dump.txt")" -ne 5 ]; then
    not_ok "dump: no raw control character, one line per packet" "$(od -c "$work/dump.txt" | head)"
else ok "dump: no raw control character, one line per packet"; fi
"$retrace" dump --json "$work/hostile.rtrace" >"$work/dump.json" 2>"$work/err"
if "$python" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], "rb").read().decode("utf-8").splitlines()]
assert len(rows) == 5, rows
assert rows[3]["command"] == "vkWeird\\x01\\xff\"Name", rows[3]
assert "\\xed\\xa0\\x80 \u00e9\U0001f600" in rows[0]["text"], rows[0]' "$work/dump.json" 2>"$work/py"; then
    ok "dump --json: valid JSON, every string escaped"
else not_ok "dump --json: valid JSON, every string escaped" "$(cat "$work/py")"; fi
check "dump: a real trace still decodes" 0 "^0 vkCreateInstance(" -- "$retrace" dump --calls 0-0 "$traces/vkcube.rtrace"

# A read-only store (read-only file in a read-only directory, WAL mode, no
# -wal/-shm) can be read: list, show, export. Root ignores permissions, so
# the reads run as nobody when we are root.
chmod 755 "$work"
mkdir "$work/export" && chmod 777 "$work/export"
chmod 444 "$work/store/g.db" && chmod 555 "$work/store"
as_reader() { if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
check "read-only store: list" 0 "vkcube	10" -- as_reader "$retrace" golden list --db "$work/store/g.db"
check "read-only store: show" 0 "trace: " -- as_reader "$retrace" golden show 1 --db "$work/store/g.db"
check "read-only store: export" 0 "exported 8 goldens" -- as_reader "$retrace" golden export "$work/export/out" --db "$work/store/g.db"
check "read-only store: a write is refused" 3 "read-only" -- as_reader "$retrace" golden mark 1 known-bad --db "$work/store/g.db"
ls "$work/store" >"$work/ls"
check "read-only store: nothing was created beside it" 0 "^g.db$" -- cat "$work/ls"
check "read-only store: a one-line error names the store once" 3 "^retrace: error: $work/store/g.db: " -- as_reader "$retrace" golden rm 1 --db "$work/store/g.db"

# Messages name the path once.
for c in info dump replay "compare $work/missing.rtrace"; do
    line=$("$retrace" $c "$work/missing.rtrace" 2>&1 | grep "error")
    if [ "$(printf '%s' "$line" | grep -o "missing.rtrace" | wc -l)" -eq 1 ]; then ok "$c: a missing file is named once"
    else not_ok "$c: a missing file is named once" "$line"; fi
done

# devices: what --device can name; a --device that names nothing lists them.
check "devices: index, name, vendor, driver, API" 0 "^0  llvmpipe.*  vendor Mesa (0x10005), CPU  driver llvmpipe (Mesa .*)  API 1\.[0-9]*\.[0-9]*  key 10005:0000/Mesa .*$" -- "$retrace" devices
"$retrace" devices --json >"$work/devices.json" 2>&1
if "$python" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d and d[0]["index"] == 0 and d[0]["vendor"] == "Mesa", d
assert all(k in d[0] for k in ("name", "driver_name", "driver_info", "api_version")), d' "$work/devices.json" 2>"$work/py"; then
    ok "devices --json"
else not_ok "devices --json" "$(cat "$work/devices.json" "$work/py")"; fi
# The key printed is the one a replay's report (and so the goldens) uses.
"$retrace" replay "$traces/vkcube.rtrace" --end-frame 1 --report "$work/key.json" >/dev/null 2>&1
if "$python" -c '
import json, sys
d, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d[0]["device_key"] == r["device"]["device_key"], (d, r["device"])' "$work/devices.json" "$work/key.json" 2>"$work/py"; then
    ok "devices: the key is the report's device_key"
else not_ok "devices: the key is the report's device_key" "$(cat "$work/py")"; fi
check "devices: no driver is exit 4, said so" 4 "no Vulkan driver found" -- env VK_ICD_FILENAMES="$work/none.json" "$retrace" devices
check "replay: an unknown --device lists the devices" 4 "no Vulkan device matches --device 99; --device can name 0 \"llvmpipe" -- "$retrace" replay --device 99 "$traces/vkcube.rtrace"
[ "$failed" -eq 0 ]
