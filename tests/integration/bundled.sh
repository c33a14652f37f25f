#!/bin/sh
# tests/integration/bundled.sh RETRACE TRACES_DIR — every bundled trace still
# replays (validation-clean) and matches its golden pixel for pixel: traces
# written by earlier builds must keep replaying.
set -u
retrace=$1 traces=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
while read -r name frames; do
    case "$name" in ''|'#'*) continue ;; esac
    out=$("$retrace" replay "$traces/$name.rtrace" --validate --verify --screenshots "$work/$name" --frames "$frames" 2>&1)
    if [ $? -ne 0 ] || ! echo "$out" | grep -q "validation: 0 errors, 0 warnings"; then
        echo "FAIL: $name did not replay cleanly:"; echo "$out"; status=1; continue
    fi
    for f in $(echo "$frames" | tr ',' ' '); do
        golden=$(ls "$traces/golden/"*"-$name-f$f.png")
        line=$("$retrace" compare "$golden" "$work/$name/$(printf 'frame_%06d.png' "$f")")
        case "$line" in
        *diff_pixels=0\ *) echo "ok: $name frame $f" ;;
        *) echo "FAIL: $name frame $f: $line"; status=1 ;;
        esac
    done
done < "$traces/manifest.txt"
exit $status
