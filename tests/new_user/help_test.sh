#!/bin/sh
# tests/new_user/help_test.sh RETRACE — `retrace help` lists the commands in
# two columns: every synopsis starts in one column, one space or more after
# the longest name (before, "workarounds" ran into its synopsis: the column
# was a fixed 10 wide). Prints TAP.
R=$1
. "$(dirname "$0")/../cli/tap.sh"
"$R" help >"$work/help" 2>&1
sed -n '/^commands:/,/^$/p' "$work/help" | sed '1d;$d' >"$work/rows"
[ "$(wc -l <"$work/rows")" -ge 10 ] && ok "help lists the commands" || not_ok "help lists the commands" "$(cat "$work/help")"
# The column each synopsis starts in: after the name and its run of spaces.
cols=$(awk '{ match($0, /^  [a-z]+ +/); print RLENGTH }' "$work/rows" | sort -u)
[ "$(echo "$cols" | wc -l)" = 1 ] && ok "every synopsis starts in one column" ||
    not_ok "every synopsis starts in one column (columns: $(echo $cols))" "$(cat "$work/rows")"
awk '!/^  [a-z]+  +/ { bad = 1 } END { exit bad }' "$work/rows" && ok "two spaces or more after each name" ||
    not_ok "two spaces or more after each name" "$(cat "$work/rows")"
echo "1..$n"
[ "$failed" -eq 0 ]
