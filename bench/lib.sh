# bench/lib.sh — helpers shared by bench/capture.sh and bench/replay.sh; sourced
# from the repository root, never run. It owns the work directory, the Xvfb
# display, the program table, the capture configurations and the timing; it
# never touches the build (the scripts read BUILD, default `build`, the one
# `./run bench` builds) and writes nothing outside the temporary work folder.
#
# Fairness rules that live here so both scripts follow them:
# - every program runs under the same Xvfb display (or offscreen), whatever
#   tool captures or replays it;
# - every timed command runs under the same `timeout` wrapper, so a hang is a
#   "fail" in the table instead of a stuck benchmark;
# - GFXReconstruct and retrace both write zstd-compressed traces.

BUILD=${BUILD:-build}
RETRACE=${RETRACE:-$BUILD/cli/retrace}
REPS=${REPS:-5}
VKCUBE_FRAMES=${VKCUBE_FRAMES:-1000}
APP_FRAMES=${APP_FRAMES:-300}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-300}
# The capture layer must not leak in from the caller's environment into the
# "no layer" runs.
unset VK_INSTANCE_LAYERS VK_LOADER_LAYERS_ENABLE
BENCH_XVFB_PID=

bench_die() {
    echo "bench/$BENCH_NAME: $*" >&2
    exit 1
}

bench_cleanup() {
    if [ -n "$BENCH_XVFB_PID" ]; then
        kill "$BENCH_XVFB_PID" 2>/dev/null || true
        wait "$BENCH_XVFB_PID" 2>/dev/null || true
    fi
    if [ -n "${WORK:-}" ]; then
        rm -rf "$WORK"
    fi
}

# Windowed programs (vkcube, the apps without --offscreen) need an X server;
# start a private Xvfb on the first free display from :95 when DISPLAY is unset.
bench_display() {
    [ -n "${DISPLAY:-}" ] && return 0
    n=95
    while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do
        n=$((n + 1))
        [ "$n" -gt 120 ] && bench_die "no free X display between :95 and :120"
    done
    Xvfb ":$n" -screen 0 1280x1024x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
    BENCH_XVFB_PID=$!
    DISPLAY=:$n
    export DISPLAY
    tries=0
    # The socket appears once the server accepts clients (no x11-utils needed).
    until [ -S "/tmp/.X11-unix/X$n" ]; do
        tries=$((tries + 1))
        [ "$tries" -gt 50 ] && bench_die "Xvfb :$n did not start (see $WORK/xvfb.log)"
        sleep 0.1
    done
}

# bench_init NAME: checks tools and the build, makes $WORK, sets the exit trap.
bench_init() {
    BENCH_NAME=$1
    for tool in "$RETRACE" vkcube gfxrecon-replay Xvfb timeout; do
        command -v "$tool" >/dev/null 2>&1 ||
            bench_die "$tool not found (./run build; apt-get install vulkan-tools gfxreconstruct xvfb)"
    done
    for app in textured particles readback modern; do
        [ -x "$BUILD/tests/apps/rt_app_$app" ] ||
            bench_die "$BUILD/tests/apps/rt_app_$app missing (run ./run build, or set BUILD)"
    done
    [ -f "$BUILD/capture/VkLayer_RETRACE_capture.json" ] ||
        bench_die "$BUILD/capture/VkLayer_RETRACE_capture.json missing (run ./run build)"
    gfxr_json=/usr/share/vulkan/explicit_layer.d/VkLayer_gfxreconstruct.json
    [ -f "$gfxr_json" ] || bench_die "$gfxr_json missing (apt-get install gfxreconstruct)"
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/retrace-bench.XXXXXX")
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
    bench_display
}

# Program names: vkcube (windowed), NAME (rt_app_NAME in a window) and
# NAME-off (rt_app_NAME --offscreen: no window system, no present).
bench_frames() {
    case $1 in
    vkcube) echo "$VKCUBE_FRAMES" ;;
    *) echo "$APP_FRAMES" ;;
    esac
}

# run_program NAME PREFIX...: runs PREFIX... followed by NAME's command line.
run_program() {
    name=$1
    shift
    case $name in
    vkcube) "$@" vkcube --c "$VKCUBE_FRAMES" ;;
    *-off) "$@" "$BUILD/tests/apps/rt_app_${name%-off}" --offscreen --frames "$APP_FRAMES" ;;
    *) "$@" "$BUILD/tests/apps/rt_app_$name" --frames "$APP_FRAMES" ;;
    esac
}

# under CONFIG NAME OUT CMD...: runs CMD with no layer (none), retrace's
# layer (ours-pg: page-guard, ours-full: full copies) or GFXReconstruct's
# (gfxr: page_guard, gfxr-full: unassisted, i.e. copy all mapped memory at
# submit), writing OUT.rtrace or OUT.gfxr, both zstd.
under() {
    cfg=$1 name=$2 out=$3
    shift 3
    delim=present
    case $name in *-off) delim=submit ;; esac
    case $cfg in
    none) timeout "$BENCH_TIMEOUT" "$@" ;;
    ours-pg | ours-full)
        mode=page-guard
        [ "$cfg" = ours-full ] && mode=full
        timeout "$BENCH_TIMEOUT" "$RETRACE" capture -o "$out.rtrace" --compression zstd \
            --memory-tracking "$mode" --frame-delimiter "$delim" -- "$@"
        ;;
    gfxr | gfxr-full)
        mode=page_guard
        [ "$cfg" = gfxr-full ] && mode=unassisted
        timeout "$BENCH_TIMEOUT" env VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct \
            GFXRECON_CAPTURE_FILE="$out.gfxr" GFXRECON_CAPTURE_FILE_TIMESTAMP=false \
            GFXRECON_CAPTURE_COMPRESSION_TYPE=ZSTD GFXRECON_MEMORY_TRACKING_MODE="$mode" \
            GFXRECON_LOG_LEVEL=warning "$@"
        ;;
    *) bench_die "unknown configuration $cfg" ;;
    esac
}

# timed LOG CMD...: runs CMD with its output in LOG; prints "WALL CPU": the
# wall time in seconds, and the user+system CPU seconds of CMD and everything
# it waited for (llvmpipe's threads included), or "fail fail" (LOG is kept)
# when CMD fails or times out. Callers run it in $(...): a fresh process whose
# `times` counts only CMD. CPU time suffers less than wall time from other
# processes on a shared machine, so both are reported.
timed() {
    log=$1
    shift
    t0=$(date +%s.%N)
    if "$@" >"$log" 2>&1; then
        t1=$(date +%s.%N)
        # Redirected, not piped: a pipeline would run `times` in a child.
        times >"$log.cpu"
        awk -v a="$t0" -v b="$t1" 'function sec(f) { split(f, p, "m"); return p[1] * 60 + p[2] }
            NR == 2 { printf "%.3f %.3f\n", b - a, sec($1) + sec($2) }' "$log.cpu"
    else
        echo "fail fail"
    fi
}

# median FILE [COLUMN]: the median of the numbers in COLUMN (default 1) of
# FILE; "fail" if any is not a number (a failed run must not hide behind the
# others).
median() {
    awk -v c="${2:-1}" '{ print $c }' "$1" | sort -n | awk '
        !/^[0-9.]+$/ { bad = 1 }
        { v[NR] = $1 }
        END { if (bad || NR == 0) print "fail"
              else if (NR % 2) printf "%.3f\n", v[(NR + 1) / 2]
              else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A/B to two decimals, "-" when either is missing or B is not > 0.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a !~ /^-?[0-9.]+$/ || b !~ /^-?[0-9.]+$/ || b + 0 <= 0) print "-"
        else printf "%.2f\n", a / b }'
}

# bench_fail WHO WHAT LOG: records a failed run (WHO: ours or gfxr), once per
# WHAT, with the last lines of LOG; bench_failures prints them after the tables.
bench_fail() {
    key=$(echo "$2" | tr -c 'A-Za-z0-9\n' _)
    [ -e "$WORK/failed.$key" ] && return 0
    : >"$WORK/failed.$key"
    [ "$1" = ours ] && : >"$WORK/failed-ours"
    {
        echo "  $2 FAILED; last lines of its output:"
        tail -n 4 "$3" | sed 's/^/    /'
    } >>"$WORK/failures"
}

# bench_failures: prints the failures; returns 1 when one of ours failed, so
# that ./run bench stops on a regression of retrace but not on one of GFXR.
bench_failures() {
    [ -f "$WORK/failures" ] || return 0
    echo
    echo "Failures (medians above say \"fail\" where any run failed):"
    cat "$WORK/failures"
    [ ! -e "$WORK/failed-ours" ]
}

# file_size FILE: bytes, or "-" when FILE does not exist.
file_size() {
    if [ -f "$1" ]; then wc -c <"$1" | tr -d ' '; else echo -; fi
}

# median_interval GOAL [COUNT]: reads ratios (one line, sorted) and prints their
# median, a distribution-free interval for it (order statistics k and n+1-k,
# k the largest with P(Binomial(n, 1/2) < k) <= 2.5%: at least 95% cover,
# whatever the noise's shape; below 6 values, min..max: 94% for n = 5), and
# the verdict against GOAL: "met" when the whole interval is at or below it,
# "not met" when it is all above, else "undecided" (more pairs, or a
# quieter machine), "too few" under 5 values unless COUNT is set (a size,
# rows named size-*: a count, judged as it is). bench/summary.py computes the
# same for the table (tests/unit/test_bench_interval.py checks both).
median_interval() {
    awk -v goal="$1" -v count="${2:-}" '{ n = NF; for (i = 1; i <= n; i++) v[i] = $i }
        END {
            if (n == 0) { print "no values"; exit }
            med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            k = 1; p = 0.5 ^ n; cdf = p
            for (j = 1; j < n; j++) { p = p * (n - j + 1) / j; if (cdf + p > 0.025) break; cdf += p; k = j + 1 }
            lo = v[k]; hi = v[n + 1 - k]
            verdict = n < 5 && count == "" ? "too few" : hi <= goal ? "met" : lo > goal ? "not met" : "undecided"
            printf "median %.3f, 95%% interval %.3f-%.3f over %d pairs: %s\n", med, lo, hi, n, verdict }'
}

# bench_ratio NAME GOAL FILE WHAT: FILE holds one ratio per run (lower is
# better; GOAL is the most the goal allows). Prints min/median/max and, when
# ./run bench set BENCH_RATIOS, appends "NAME<TAB>GOAL<TAB>WHAT<TAB>values"
# there for bench/summary.sh's table and JSON.
bench_ratio() {
    values=$(sort -n "$3" | tr '\n' ' ' | sed 's/ $//')
    printf '  %-28s %s (goal <= %s): %s\n' "$1" "$4" "$2" "$values"
    case $1 in size-*) count=1 ;; *) count= ;; esac
    printf '  %-28s %s\n' "" "$(echo "$values" | median_interval "$2" $count)"
    if [ -n "${BENCH_RATIOS:-}" ]; then
        printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$4" "$values" >>"$BENCH_RATIOS"
    fi
}

# pair_ratio A B COLUMN: per-run ratios A/B of COLUMN (1 wall, 2 CPU) of the
# times files A and B, whose lines are the paired runs in order.
pair_ratio() {
    paste -d' ' "$1" "$2" | awk -v c="$3" '{ a = $c; b = $(c + 2)
        if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.3f\n", a / b }'
}
