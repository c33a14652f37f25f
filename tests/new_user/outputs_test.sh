#!/bin/sh
# tests/new_user/outputs_test.sh RETRACE TRACES_DIR — an output path that
# cannot be written is a usage error (exit 2) said before any work, the way
# capture's -o, replay's --screenshots and diagnose's --out already are; never
# exit 5 ("internal error") after the work is done and lost. Prints TAP.
R=$1 T=$2
. "$(dirname "$0")/../cli/tap.sh"
G=$T/golden/1-vkcube-f1.png A=$T/golden/2-vkcube-f10.png

# compare --diff into a folder that does not exist: before, the comparison ran,
# its result line was never printed and the exit was 5.
check "compare --diff into a missing folder is exit 2" 2 "^retrace compare: --diff: cannot write $work/none/d.png" -- \
    "$R" compare --diff "$work/none/d.png" "$G" "$A"
mkdir "$work/dir"
check "compare --diff naming a folder is exit 2" 2 "--diff: cannot write $work/dir: it is a directory" -- \
    "$R" compare --diff "$work/dir" "$G" "$A"
check "compare --diff into a folder that is a file is exit 2" 2 "--diff: cannot write" -- \
    "$R" compare --diff "$G/d.png" "$G" "$A"
check "compare --diff --json says it as one JSON error" 2 '"code":2' -- \
    "$R" compare --json --diff "$work/none/d.png" "$G" "$A"
check "compare --diff into a writable folder still writes it" 1 "result=fail" -- \
    "$R" compare --diff "$work/d.png" "$G" "$A"
[ -s "$work/d.png" ] && ok "the diff image is there" || not_ok "the diff image is there" "$(ls -l "$work")"
# The diff is made only for images of one size; a missing folder is still
# refused before reading them, whatever their sizes.
check "compare --diff on a directory path ending in / is exit 2" 2 "--diff: cannot write" -- \
    "$R" compare --diff "$work/none/" "$G" "$A"

echo "1..$n"
[ "$failed" -eq 0 ]
