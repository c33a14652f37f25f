#!/bin/sh
# bench/serve_callgrind.sh — instructions per request of the dashboard's
# big pages, which a loaded machine does not change (wall-clock p99s do:
# bench/store_scale.sh). Starts `retrace serve --threads 1 --cache 0` under
# callgrind, collecting only inside libmicrohttpd's request callback
# (on_request: the SQL and the JSON of an answer, not the socket work),
# asks each kind of page N times after one warm-up, and prints
# instructions per request from one callgrind dump per kind.
#
#   bench/serve_callgrind.sh DB [N]
#
# DB is a store (build/store-scale/10000000.db from bench/store_scale.sh,
# or one from build/tests/server/make_store); the server has no token, so
# nothing is written through it (run it on a copy of a store you keep
# anyway: opening one may migrate its schema). The pages asked for are
# picked from the store itself with a fixed seed, so two builds over the
# same store are asked the same pages. Loopback only. Environment: BUILD
# (build).
set -eu
BUILD=${BUILD:-build}
DB=${1:?usage: bench/serve_callgrind.sh DB [N]}
N=${2:-20}
RETRACE=$BUILD/cli/retrace
command -v valgrind >/dev/null || { echo "bench/serve_callgrind: valgrind not found" >&2; exit 1; }
WORK=$(mktemp -d)
SERVER=
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM PIPE
valgrind --tool=callgrind --toggle-collect=on_request --callgrind-out-file="$WORK/cg.%p" \
    "$RETRACE" serve --db "$DB" --listen 127.0.0.1:0 --threads 1 --cache 0 \
    >"$WORK/serve.log" 2>&1 &
SERVER=$!
tries=0
until URL=$(grep -o 'http://[^ ]*' "$WORK/serve.log" 2>/dev/null); do
    tries=$((tries + 1))
    [ "$tries" -gt 3000 ] && { echo "bench/serve_callgrind: the server did not start" >&2; cat "$WORK/serve.log" >&2; exit 1; }
    sleep 0.1
done
python3 - "$URL" "$DB" "$N" "$SERVER" "$WORK" <<'EOF'
import glob, http.client, os, random, sqlite3, subprocess, sys, urllib.parse
url, db_path, n, pid, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
rng = random.Random(18)
db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
q = lambda sql: [r[0] for r in db.execute(sql)]
top = q("SELECT max(id) FROM runs")[0]
traces = q("SELECT name FROM traces ORDER BY name")
devices = q("SELECT DISTINCT device_key FROM runs WHERE device_key IS NOT NULL ORDER BY 1 LIMIT 50")
total_runs = q("SELECT count(*) FROM runs")[0]
kinds = {
    "GET /api/runs/ID": [f"/api/runs/{rng.randint(1, top)}" for _ in range(n + 1)],
    "GET /api/history?trace=": [
        f"/api/history?trace={urllib.parse.quote(rng.choice(traces))}" +
        (f"&device={urllib.parse.quote(rng.choice(devices))}" if i % 2 and devices else "")
        for i in range(n + 1)],
    "GET /api/runs": [
        ["/api/runs", f"/api/runs?limit=50&offset={rng.randint(0, max(0, total_runs - 50))}",
         "/api/runs?label=nightly&device=" + urllib.parse.quote(rng.choice(devices or [""])),
         "/api/runs?status=crash"][i % 4] for i in range(n + 1)],
}
u = urllib.parse.urlparse(url)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
def get(path):
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit(f"serve_callgrind: {path}: {r.status} {body[:200]!r}")
    return len(body)
def dump():
    subprocess.run(["callgrind_control", "-d", pid], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def total_ir():
    files = sorted(glob.glob(f"{work}/cg.{pid}.*"), key=lambda f: int(f.rsplit(".", 1)[1]))
    for line in open(files[-1]):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    return 0
print(f"| request (uncached, --threads 1) | n | instructions per request | bytes per answer |")
print("| --- | ---: | ---: | ---: |")
for name, paths in kinds.items():
    get(paths[0])  # a warm-up: the worker's connection, the statements prepared
    dump()
    size = sum(get(p) for p in paths[1:])
    dump()
    print(f"| {name} | {n} | {total_ir() / n / 1e6:.2f} M | {size // n:,} |")
EOF
