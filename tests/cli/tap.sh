# tests/cli/tap.sh — sourced (`. "$(dirname "$0")/tap.sh"`) by the CLI tests
# that print TAP: a scratch folder $work, removed at exit; the counters n and
# failed; ok NAME, not_ok NAME OUTPUT; and
#   check NAME EXPECTED_EXIT PATTERN -- COMMAND...
# which runs COMMAND and passes when it exits EXPECTED_EXIT and its stdout +
# stderr match the grep PATTERN ('' matches anything, even no output). The
# test prints its plan ("1..N") and ends with [ "$failed" -eq 0 ].
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; printf '%s\n' "$2" | head -n 5 | sed 's/^/# /'; }

check() {
    name=$1 want=$2 pattern=$3
    shift 4
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$want" ] && { [ -z "$pattern" ] || printf '%s' "$out" | grep -q -- "$pattern"; }; then
        ok "$name"
    else
        not_ok "$name (exit $rc, wanted $want and /$pattern/)" "$out"
    fi
}
