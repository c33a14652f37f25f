#!/bin/sh
# tests/cli/info_test.sh RETRACE MAKE_TRACE REFDIR — golden tests of
# `retrace info`: stdout, stderr and exit code per case, compared with
# REFDIR/info_CASE.{out,err,code}. Prints TAP. RT_UPDATE_GOLDEN=1 rewrites
# the references instead (review the diff before committing).
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
retrace=$(abs "$1")
make_trace=$(abs "$2")
refdir=$(abs "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# Uncompressed traces: their bytes do not depend on the zstd version.
"$make_trace" good.rtrace --none --frames 3 >/dev/null || exit 1
"$make_trace" late.rtrace --none --frames 2 --late-device >/dev/null || exit 1
head -c 1500 good.rtrace >truncated.rtrace
: >empty.rtrace
printf 'this is not a trace at all, just text\n' >text.rtrace
cp good.rtrace flipped.rtrace
printf 'X' | dd of=flipped.rtrace bs=1 seek=1700 conv=notrunc 2>/dev/null

cases="good:good.rtrace
check:--check good.rtrace
json:--json good.rtrace
late:late.rtrace
truncated:truncated.rtrace
truncated_check:--check truncated.rtrace
truncated_json:--json --check truncated.rtrace
flipped_check:--check flipped.rtrace
empty:empty.rtrace
wrong_magic:text.rtrace
missing:--check missing.rtrace
no_args:
bad_option:--frobnicate good.rtrace
two_traces:good.rtrace late.rtrace"

n=0
echo "1..$(echo "$cases" | wc -l)"
echo "$cases" | while IFS=: read -r name args; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$retrace" info $args >out 2>err
    echo $? >code
    if [ "${RT_UPDATE_GOLDEN:-}" = 1 ]; then
        cp out "$refdir/info_$name.out"
        cp err "$refdir/info_$name.err"
        cp code "$refdir/info_$name.code"
        echo "ok $n - $name (reference updated)"
        continue
    fi
    bad=""
    for kind in out err code; do
        if ! diff -u "$refdir/info_$name.$kind" "$kind" >diff.txt 2>&1; then
            bad="$bad $kind"
            sed 's/^/# /' diff.txt
        fi
    done
    if [ -z "$bad" ]; then
        echo "ok $n - info $args"
    else
        echo "not ok $n - info $args (differs:$bad)"
    fi
done
