#!/bin/sh
# bench/serve.sh — the dashboard server under load: wrk (Debian's, bench
# only) against `retrace serve` on loopback, for the runs API, one run, a
# result's diff image and that image's 304 revalidation, with the answer
# cache on (the default) and off (--cache 0, every request asks SQLite).
# Prints requests per second and latency percentiles as a markdown table,
# with the machine's load average before and after (a busy machine makes the
# p99 meaningless: measure when it is quiet), and the server's own CPU time
# per request (user + system from /proc, which other jobs do not inflate). Traffic goes to 127.0.0.1 only;
# each measurement runs DURATION seconds and stops by itself.
#
# Environment: BUILD (build), RUNS (runs in the test store, 200), DURATION
# (seconds per measurement, 10), CONNECTIONS (wrk connections, 16),
# WRK_THREADS (wrk threads, 1; issue 18's goal is read at 2 with 32
# connections), THREADS (server worker threads, 2: one per core of this machine).
set -eu
BUILD=${BUILD:-build}
RUNS=${RUNS:-200}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-16}
WRK_THREADS=${WRK_THREADS:-1}
THREADS=${THREADS:-2}
RETRACE=$BUILD/cli/retrace
MAKE_STORE=$BUILD/tests/server/make_store

for tool in wrk python3 "$RETRACE" "$MAKE_STORE"; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "bench/serve: $tool not found (./run build; apt-get install wrk)" >&2
        exit 1
    }
done
WORK=$(mktemp -d)
SERVER=
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

"$MAKE_STORE" "$WORK/bench.db" "$RUNS" >/dev/null

# start_server ARGS...: sets SERVER and URL.
start_server() {
    "$RETRACE" serve --db "$WORK/bench.db" --listen 127.0.0.1:0 --threads "$THREADS" \
        --max-connections 256 "$@" >"$WORK/serve.log" 2>&1 &
    SERVER=$!
    tries=0
    until URL=$(grep -o 'http://[^ ]*' "$WORK/serve.log" 2>/dev/null); do
        tries=$((tries + 1))
        [ "$tries" -gt 100 ] && { cat "$WORK/serve.log" >&2; exit 1; }
        sleep 0.05
    done
}

stop_server() {
    kill "$SERVER"
    wait "$SERVER" || true
    SERVER=
}

# measure NAME PATH [HEADER]: one markdown row from wrk's --latency report.
measure() {
    name=$1 path=$2
    set -- -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency
    [ -n "${3:-}" ] && set -- "$@" -H "$3"
    before=$(cut -d' ' -f14,15 "/proc/$SERVER/stat")
    wrk "$@" "$URL${path#/}" >"$WORK/wrk.txt" 2>&1
    after=$(cut -d' ' -f14,15 "/proc/$SERVER/stat")
    python3 - "$name" "$WORK/wrk.txt" "$before" "$after" "$(getconf CLK_TCK)" <<'PY'
import re, sys
name, text = sys.argv[1], open(sys.argv[2]).read()
ticks = sum(map(int, sys.argv[4].split())) - sum(map(int, sys.argv[3].split()))
requests = int(re.search(r"(\d+) requests in", text).group(1))
cpu_us = ticks / int(sys.argv[5]) / max(requests, 1) * 1e6
rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
pct = dict(re.findall(r"^\s+(50|90|99)%\s+(\S+)", text, re.M))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
socket = re.search(r"Socket errors: (.*)", text)
print(f"| {name} | {float(rps.group(1)):,.0f} | {pct.get('50', '?')} | {pct.get('90', '?')} | "
      f"{pct.get('99', '?')} | {cpu_us:.0f} us | {errors.group(1) if errors else 0}{' (' + socket.group(1) + ')' if socket else ''} |")
PY
}

start_server
RUN=$(python3 -c "import json,urllib.request; print(json.load(urllib.request.urlopen('${URL}api/runs?limit=1'))['runs'][0]['id'])")
RESULT=$(python3 -c "import json,urllib.request; print(json.load(urllib.request.urlopen('${URL}api/runs/$RUN'))['results'][0]['id'])")
ETAG=$(python3 -c "import urllib.request; print(urllib.request.urlopen('${URL}api/images/result/$RESULT/diff').headers['ETag'])")

echo "# retrace serve: $RUNS runs, $THREADS worker threads, wrk -t$WRK_THREADS -c$CONNECTIONS, ${DURATION}s each"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
echo "| request | requests/s | p50 | p90 | p99 | server CPU/request | non-2xx/3xx |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
measure "GET /api/runs?limit=20 (cached)" "/api/runs?limit=20"
measure "GET /api/runs/ID (cached)" "/api/runs/$RUN"
measure "GET diff image (3 KB PNG)" "/api/images/result/$RESULT/diff"
measure "GET diff image, If-None-Match (304)" "/api/images/result/$RESULT/diff" "If-None-Match: $ETAG"
stop_server
start_server --cache 0
measure "GET /api/runs?limit=20 (--cache 0)" "/api/runs?limit=20"
measure "GET /api/runs/ID (--cache 0)" "/api/runs/$RUN"
stop_server
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
