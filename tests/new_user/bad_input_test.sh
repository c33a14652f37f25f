#!/bin/sh
# tests/new_user/bad_input_test.sh RETRACE TRACES_DIR — a folder given where
# a file belongs is bad input (exit 3) that says so. Linux opens a folder for
# reading; reading it then fails, which came out as "not a PNG file" (compare)
# and "DIR:1: input error" (run, from libyaml). Prints TAP.
R=$1 T=$2
. "$(dirname "$0")/../cli/tap.sh"
G=$T/golden/1-vkcube-f1.png
mkdir "$work/folder"
check "compare: a folder as the golden is exit 3 saying so" 3 "folder: cannot open: it is a directory" -- \
    "$R" compare "$work/folder" "$G"
check "compare: a folder as the actual image is exit 3 saying so" 3 "folder: cannot open: it is a directory" -- \
    "$R" compare "$G" "$work/folder"
check "run: a folder as the manifest is exit 3 saying so" 3 "folder: cannot open manifest: it is a directory" -- \
    "$R" run "$work/folder" --db "$work/g.db"
check "run: a missing manifest is still named" 3 "none.yml: cannot open manifest: No such file or directory" -- \
    "$R" run "$work/none.yml" --db "$work/g.db"
# replay refuses a trace it cannot open before anything else (one line); a
# folder was let through as if it were a pipe: the configuration and
# "replayed 0 frames ... on no device" came before the error.
mkdir "$work/t.rtrace"
out=$("$R" replay "$work/t.rtrace" 2>&1); rc=$?
if [ "$rc" -eq 3 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -q 't.rtrace: cannot read'; then
    ok "replay: a folder as the trace is exit 3, the error its only line"
else not_ok "replay: a folder as the trace is exit 3, the error its only line (exit $rc)" "$out"; fi
# A trace cut before its first call replays nothing: no device, no memory mode.
head -c 30000 "$T/textured.rtrace" >"$work/cut.rtrace"
out=$("$R" replay "$work/cut.rtrace" --json 2>/dev/null)
case $out in
*'"memory"'*) not_ok "replay --json: no memory mode where no device was chosen" "$out" ;;
*'"code":3'*) ok "replay --json: no memory mode where no device was chosen" ;;
*) not_ok "replay --json: no memory mode where no device was chosen (no error object)" "$out" ;;
esac

echo "1..$n"
[ "$failed" -eq 0 ]
