#!/bin/sh
# bench/serve_soak.sh — `retrace serve` under the hostile loads of issue 18,
# all at once, on loopback: slow clients (a header line every second) from
# 127.0.0.2, unauthenticated uploads of 60 MB each from 127.0.0.3,
# requests with distinct junk query arguments from 127.0.0.4, and a burst of
# 1,000 connections from 127.0.0.5..9, while an ordinary client on 127.0.0.1
# asks for /api/runs twice a second. Prints the server's resident memory
# (VmRSS) before, the highest seen during and after, how the ordinary client
# fared, and what the hostile ones were answered. Bounded: DURATION seconds.
#
# Environment: BUILD (build), DURATION (30), RUNS (runs in the store, 200).
set -eu
BUILD=${BUILD:-build}
DURATION=${DURATION:-30}
RUNS=${RUNS:-200}
RETRACE=$BUILD/cli/retrace
MAKE_STORE=$BUILD/tests/server/make_store
for tool in python3 "$RETRACE" "$MAKE_STORE"; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "bench/serve_soak: $tool not found (./run build)" >&2
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

"$MAKE_STORE" "$WORK/soak.db" "$RUNS" >/dev/null
echo "soak-token-0123456789" >"$WORK/token"
"$RETRACE" serve --db "$WORK/soak.db" --listen 127.0.0.1:0 --token-file "$WORK/token" \
    --threads 2 >"$WORK/serve.log" 2>&1 &
SERVER=$!
tries=0
until URL=$(grep -o 'http://[^ ]*' "$WORK/serve.log" 2>/dev/null); do
    tries=$((tries + 1))
    [ "$tries" -gt 100 ] && { cat "$WORK/serve.log" >&2; exit 1; }
    sleep 0.05
done
PORT=$(echo "$URL" | sed 's|.*:\([0-9]*\)/$|\1|')

python3 - "$SERVER" "$PORT" "$DURATION" <<'PY'
import collections, resource, socket, sys, threading, time

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))

pid, port, duration = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
stop = time.monotonic() + duration
answers = collections.Counter()
lock = threading.Lock()

def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

def connect(source):
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    return s

def status_of(s):
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data.split(b" ")[1].decode() if data.startswith(b"HTTP/1.") else "closed"

def note(kind, status):
    with lock:
        answers[(kind, status)] += 1

def slow(i):  # a header line every second, never finished
    try:
        s = connect("127.0.0.2")
        s.sendall(b"GET /api/runs HTTP/1.1\r\nHost: x\r\n")
        while time.monotonic() < stop:
            s.sendall(b"X-Slow: %d\r\n" % i)
            s.settimeout(1)
            try:
                if s.recv(1, socket.MSG_PEEK):
                    break
            except socket.timeout:
                continue
        s.settimeout(10)
        note("slow client", status_of(s))
        s.close()
    except OSError as e:
        note("slow client", type(e).__name__)

def upload(i):  # 60 MB, without a token (chunked bodies are refused: 411)
    try:
        s = connect("127.0.0.3")
        s.sendall(b"POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (60 << 20))
        chunk = b"x" * 65536
        s.settimeout(0.2)
        for _ in range(60 * 16):
            try:
                s.sendall(chunk)
            except socket.timeout:
                break
            except OSError:
                break
        s.settimeout(10)
        note("60 MB upload, no token", status_of(s))
        s.close()
    except OSError as e:
        note("60 MB upload, no token", type(e).__name__)

def junk():
    for i in range(700):
        if time.monotonic() > stop:
            break
        try:
            s = connect("127.0.0.4")
            s.sendall(b"GET /api/runs?junk%d=%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                      % (i, b"y" * 2000))
            note("junk query arguments", status_of(s))
            s.close()
        except OSError as e:
            note("junk query arguments", type(e).__name__)

def burst():
    held = []
    for i in range(1000):
        try:
            s = connect("127.0.0.%d" % (5 + i % 5))
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
            held.append(s)
        except OSError as e:
            note("1,000 concurrent connections", type(e).__name__)
    for s in held:
        note("1,000 concurrent connections", status_of(s))
        s.close()

ordinary = {"ok": 0, "failed": 0, "worst_ms": 0.0}
def ordinary_client():
    while time.monotonic() < stop:
        t0 = time.monotonic()
        try:
            s = connect("127.0.0.1")
            s.sendall(b"GET /api/runs?limit=20 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            ok = status_of(s) == "200"
            s.close()
        except OSError:
            ok = False
        ms = (time.monotonic() - t0) * 1000
        ordinary["ok" if ok else "failed"] += 1
        ordinary["worst_ms"] = max(ordinary["worst_ms"], ms)
        time.sleep(0.5)

before = rss_kib()
threads = [threading.Thread(target=slow, args=(i,)) for i in range(70)]
threads += [threading.Thread(target=upload, args=(i,)) for i in range(32)]
threads += [threading.Thread(target=junk), threading.Thread(target=burst),
            threading.Thread(target=ordinary_client)]
for t in threads:
    t.start()
peak = before
while any(t.is_alive() for t in threads):
    peak = max(peak, rss_kib())
    time.sleep(0.25)
time.sleep(1)
after = rss_kib()
print(f"# retrace serve soak: {duration:.0f} s, 70 slow clients, 32 x 60 MB unauthenticated "
      f"uploads, 700 junk-argument requests, 1,000 concurrent connections")
print(f"RSS before {before / 1024:.1f} MiB, highest during {peak / 1024:.1f} MiB, "
      f"after {after / 1024:.1f} MiB")
print(f"ordinary client (127.0.0.1): {ordinary['ok']} answered 200, {ordinary['failed']} not, "
      f"slowest {ordinary['worst_ms']:.0f} ms")
print("| hostile client | answer | count |")
print("| --- | --- | ---: |")
for (kind, status), n in sorted(answers.items()):
    print(f"| {kind} | {status} | {n} |")
PY
