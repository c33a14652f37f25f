#!/bin/sh
# tests/cli/lean_test.sh RETRACE FARM_INSTALL_PATH TRACES_DIR — issue 21: the
# retrace users run links none of the farm's libraries (SQLite, libcurl,
# libmicrohttpd and what they bring), so `retrace capture`'s process, which
# lives as long as the program it captures, never maps them; the farm's
# subcommands (golden, serve, run, upload) still answer through `retrace`,
# which execs retrace-farm (cli/farm.c), and run's replays are retrace's own;
# without retrace-farm they fail with one line and exit 5. Prints TAP.
set -u
retrace=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1") farm_install_path=$2 traces=$3
. "$(dirname "$0")/tap.sh"
farm_libs='libcurl\|libmicrohttpd\|libsqlite3\|libgnutls\|libldap\|libkrb5\|libssh2'

echo "1..13"
libs=$(ldd "$retrace" 2>&1)
if printf '%s\n' "$libs" | grep -q "$farm_libs"; then
    not_ok "retrace links no farm library" "$(printf '%s\n' "$libs" | grep "$farm_libs")"
else
    ok "retrace links no farm library ($(printf '%s\n' "$libs" | wc -l) in ldd)"
fi

# Nor OpenSSL's libcrypto: ~4,200 symbol lookups at every start, which every
# capture's parent paid; its SHA-256 is Nettle's (digest/).
if printf '%s\n' "$libs" | grep -q 'libcrypto\|libssl'; then
    not_ok "retrace links no libcrypto" "$(printf '%s\n' "$libs" | grep 'libcrypto\|libssl')"
else
    ok "retrace links no libcrypto"
fi

# The capture's own process while its program runs: the program (a child of
# retrace capture) copies its parent's maps; no Vulkan, so no trace (exit 3).
"$retrace" capture -o "$work/t.rtrace" -- sh -c 'cat /proc/$PPID/maps >"$0"' "$work/maps" >"$work/capture.log" 2>&1
if [ ! -s "$work/maps" ]; then
    not_ok "retrace capture's process maps no farm library" "no maps copied: $(cat "$work/capture.log")"
elif grep -q "$farm_libs" "$work/maps"; then
    not_ok "retrace capture's process maps no farm library" "$(grep -o '/[^ ]*\.so[^ ]*' "$work/maps" | grep "$farm_libs" | sort -u)"
else
    ok "retrace capture's process maps no farm library ($(grep -o '/[^ ]*\.so[^ ]*' "$work/maps" | sort -u | wc -l) objects)"
fi

# The farm's subcommands, through retrace.
check "help lists the farm's subcommands" 0 "serve  *the dashboard" -- "$retrace" help
check "help of a farm subcommand" 0 "usage: retrace golden add" -- "$retrace" help golden
check "a farm subcommand's --help" 0 "usage: retrace serve" -- "$retrace" serve --help
check "a farm subcommand's usage error" 2 "retrace upload: unknown option '--frobnicate'" -- "$retrace" upload --frobnicate
check "a farm subcommand's JSON error" 3 '"code":3' -- "$retrace" golden list --json --db "$work/missing.db"
check "retrace-farm alone says to run retrace" 2 "run \`retrace COMMAND\`" -- "$(dirname "$retrace")/retrace-farm" serve

# retrace run (in retrace-farm) replays with retrace, not retrace-farm.
cp "$traces/vkcube.rtrace" "$work/"
printf 'label: lean\ntraces:\n  - path: vkcube.rtrace\n    frames: [1]\n' >"$work/manifest.yml"
printf '#!/bin/sh\necho "$1" >>"%s"\nexec "$@"\n' "$work/argv0" >"$work/wrap.sh"
chmod +x "$work/wrap.sh"
out=$(cd "$work" && "$retrace" run manifest.yml --db run.db --wrapper "$work/wrap.sh" 2>&1)
rc=$?
if [ "$rc" -le 1 ] && [ -s "$work/argv0" ] && ! grep -qvx "$retrace" "$work/argv0"; then
    ok "retrace run's replays run retrace"
else
    not_ok "retrace run's replays run retrace (exit $rc)" "$(cat "$work/argv0" 2>/dev/null; printf '%s\n' "$out")"
fi

# Without retrace-farm (a copy of retrace alone in a prefix): one line, exit 5.
mkdir -p "$work/alone/bin"
cp "$retrace" "$work/alone/bin/retrace"
if [ -e "$farm_install_path" ]; then
    for i in 1 2 3; do ok "without retrace-farm # SKIP $farm_install_path is installed"; done
else
    check "without retrace-farm: the missing path, exit 5" 5 \
        "^retrace: error: retrace serve is run by $work/alone/libexec/retrace/retrace-farm, which is missing; reinstall retrace\$" \
        -- "$work/alone/bin/retrace" serve
    lines=$("$work/alone/bin/retrace" run manifest.yml 2>&1 | wc -l)
    [ "$lines" -eq 1 ] && ok "without retrace-farm: one line" || not_ok "without retrace-farm: one line" "$lines lines"
    check "without retrace-farm: --json" 5 '"code":5' -- "$work/alone/bin/retrace" golden list --json
fi
[ "$failed" -eq 0 ]
