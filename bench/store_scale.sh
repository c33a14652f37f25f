#!/bin/sh
# bench/store_scale.sh — the dashboard over months of a farm's nightly runs
# (issue 18 §3): build/bench/store_fill fills build/store-scale/RESULTS.db
# (kept between runs, never in git: made again only when missing or from an
# older schema; about 15-40 minutes for 10 million on this 2-core machine),
# then bench/store_scale.py times, uncached (`retrace serve --cache 0`), the
# runs list, a run page, a result page and a trace's history (p99 goal
# 20 ms each), and the upload of a 20,000-result run (goal 2 s), and prints
# the store's size per million results. Loopback only; the server is
# stopped on exit. The uploads go into a copy of the store, so the
# generated one stays as it was made.
#
# Environment: BUILD (build), RESULTS (10000000), REQUESTS (per request
# kind, 400), THREADS (server worker threads, 2).
set -eu
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-10000000}
REQUESTS=${REQUESTS:-400}
THREADS=${THREADS:-2}
RETRACE=$BUILD/cli/retrace
GEN=$BUILD/bench/store_fill
STORE_DIR=$BUILD/store-scale
STORE=$STORE_DIR/$RESULTS.db

for tool in python3 "$RETRACE" "$GEN" "$BUILD/tests/server/make_store"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench/store_scale: $tool not found (./run build)" >&2; exit 1; }
done
mkdir -p "$STORE_DIR"
version() {
    python3 -c "import sqlite3, sys
try:
    print(sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True).execute('PRAGMA user_version').fetchone()[0])
except Exception:
    print(-1)" "$1"
}
# the schema this build writes: a small store made by it
fresh=$STORE_DIR/fresh.db
rm -f "$fresh"
"$BUILD/tests/server/make_store" "$fresh" 2 >/dev/null
current=$(version "$fresh")
rm -f "$fresh" "$fresh-wal" "$fresh-shm"
want=$(version "$STORE")
if [ "$want" != "$current" ]; then
    echo "bench/store_scale: generating $RESULTS results into $STORE (schema $current)" >&2
    t0=$(date +%s)
    "$GEN" "$STORE.tmp" "$RESULTS" 2>"$STORE_DIR/gen.log"
    mv "$STORE.tmp" "$STORE"
    echo "bench/store_scale: generated in $(( $(date +%s) - t0 )) s" >&2
fi

WORK=$(mktemp -d)
SERVER=
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM PIPE # PIPE: piped into head, the server and the 2 GB copy would stay
cp "$STORE" "$WORK/store.db"
# The copy's 2 GB are still dirty in the page cache: flush them now, or the
# first upload's WAL checkpoint (its fsync) pays for writing them out
# (2.5 s where the next two took 0.87).
sync "$WORK/store.db"
echo "bench-token-$(date +%s%N)" >"$WORK/token"
"$RETRACE" serve --db "$WORK/store.db" --listen 127.0.0.1:0 --threads "$THREADS" --cache 0 \
    --token-file "$WORK/token" >"$WORK/serve.log" 2>&1 &
SERVER=$!
t0=$(date +%s)
tries=0
until URL=$(grep -o 'http://[^ ]*' "$WORK/serve.log" 2>/dev/null); do
    tries=$((tries + 1))
    # opening a store for writing checks it first (PRAGMA quick_check): minutes at this size
    [ "$tries" -gt 6000 ] && { echo "bench/store_scale: the server did not start" >&2; cat "$WORK/serve.log" >&2; exit 1; }
    sleep 0.1
done

echo "# retrace serve over $RESULTS results, $THREADS worker threads, one client"
echo "the server started in $(( $(date +%s) - t0 )) s (opening the store read-write runs PRAGMA quick_check)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
python3 bench/store_scale.py "$URL" "$WORK/store.db" "$(cat "$WORK/token")" "$REQUESTS" "$SERVER"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
