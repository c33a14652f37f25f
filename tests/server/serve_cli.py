#!/usr/bin/env python3
"""tests/server/serve_cli.py — `retrace serve` as a user runs it (TAP): exit
codes of bad arguments, databases and token files, the URL it prints, the
default pages, an address already taken, and SIGTERM / SIGINT stopping it
cleanly (exit 0) even with a client holding a connection open, leaving the
database readable. Usage: serve_cli.py RETRACE MAKE_STORE"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request

retrace, make_store = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="rt-serve-cli-")
db = os.path.join(work, "store.db")
token = os.path.join(work, "token")
with open(token, "w") as f:
    f.write("cli-token\n")
subprocess.run([make_store, db, "4"], check=True, stdout=subprocess.DEVNULL)
count = 0
failed = False


def check(ok, name, detail=""):
    global count, failed
    count += 1
    print(f"{'ok' if ok else 'not ok'} {count} - {name}")
    if not ok:
        failed = True
        print(f"# {detail}")


def run(*args, env=None):
    e = dict(os.environ)
    e.pop("RETRACE_DB", None)
    e.update(env or {})
    p = subprocess.run([retrace, "serve", *args], capture_output=True, text=True, timeout=30, env=e)
    return p.returncode, p.stdout + p.stderr


def start(*args):
    p = subprocess.Popen([retrace, "serve", "--db", db, "--listen", "127.0.0.1:0", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    url = line.split(" at ")[1].split(" ")[0] if " at " in line else None
    return p, url, line


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers, r.read()


code, out = run()
check(code == 2 and "--db" in out, "no database: exit 2 naming --db", out)
code, out = run("--db", db, "--listen", "nowhere")
check(code == 2 and "--listen" in out, "a bad --listen: exit 2", out)
code, out = run("--db", db, "--threads", "0")
check(code == 2, "--threads 0: exit 2", out)
code, out = run("--db", db, "--frobnicate")
check(code == 2, "an unknown option: exit 2", out)
junk = os.path.join(work, "junk.db")
with open(junk, "wb") as f:
    f.write(b"this is not a database, just bytes " * 100)
code, out = run("--db", junk, "--listen", "127.0.0.1:0")
check(code == 3 and "database" in out, "not a database: exit 3", out)
code, out = run("--db", db, "--listen", "127.0.0.1:0", "--token-file", os.path.join(work, "none"))
check(code == 3 and "token" in out, "a missing token file: exit 3", out)
empty = os.path.join(work, "empty-token")
open(empty, "w").close()
code, out = run("--db", db, "--listen", "127.0.0.1:0", "--token-file", empty)
check(code == 3 and "is empty" in out, "an empty token file: exit 3, as documented", out)
named = os.path.join(work, "tokens")
with open(named, "w") as f:
    f.write("# no tokens here\n\n")
code, out = run("--db", db, "--listen", "127.0.0.1:0", "--tokens", named)
check(code == 3 and "holds no token" in out, "a --tokens file without a token: exit 3", out)
with open(named, "w") as f:
    f.write("alice alice-token-0123456789\nbob alice-token-0123456789\n")
code, out = run("--db", db, "--listen", "127.0.0.1:0", "--tokens", named)
check(code == 3 and ":2: that token is given twice" in out, "a token given twice: exit 3 naming the line", out)

server, url, line = start("--token-file", token)
check(url is not None and url.startswith("http://127.0.0.1:"), "prints its URL", line)
status, headers, body = get(url + "api/health")
health = json.loads(body)
check(status == 200 and health["ok"] and health["writable"], "GET /api/health", body)
status, headers, body = get(url)
check(status == 200 and b"<title>Runs" in body and "text/html" in headers["Content-Type"],
      "GET / serves the runs page from the source tree's web/", body[:200])
port = url.rsplit(":", 1)[1].strip("/")
code, out = run("--db", db, "--listen", f"127.0.0.1:{port}")
check(code == 5 and "cannot listen" in out, "an address already taken: exit 5", out)

# a client holds a connection half-sent; SIGTERM still stops the server at once
held = socket.create_connection(("127.0.0.1", int(port)))
held.sendall(b"GET /api/runs HTTP/1.1\r\nHost: x\r\n")
server.send_signal(signal.SIGTERM)
try:
    rc = server.wait(timeout=10)
    err = server.stderr.read()
except subprocess.TimeoutExpired:
    server.kill()
    rc, err = None, "still running 10 s after SIGTERM"
held.close()
check(rc == 0 and "stopping" in err, "SIGTERM stops it cleanly (exit 0), a held connection notwithstanding", err)

server, url, line = start()
status, _, _ = get(url + "api/runs")
server.send_signal(signal.SIGINT)
rc = server.wait(timeout=10)
check(status == 200 and rc == 0, "SIGINT stops it cleanly (exit 0)", server.stderr.read())
p = subprocess.run([retrace, "golden", "list", "--db", db], capture_output=True, text=True)
check(p.returncode == 0 and "vkcube" in p.stdout, "the database is intact afterwards", p.stderr)

# --keep-runs / golden gc (issue 18 §3): runs older than DAYS go, goldens stay
import sqlite3
import time


def age_runs(ids, days):
    c = sqlite3.connect(db)
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - days * 86400))
    c.executemany("UPDATE runs SET started_at = ? WHERE id = ?", [(old, i) for i in ids])
    c.commit()
    c.close()


def counts():
    c = sqlite3.connect(db)
    n = [c.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("runs", "results", "goldens")]
    c.close()
    return n


p = subprocess.run([retrace, "golden", "gc", "--db", db], capture_output=True, text=True)
check(p.returncode == 2 and "--keep-runs" in p.stderr, "golden gc without --keep-runs: exit 2", p.stderr)
age_runs([1], 400)
runs, results, goldens = counts()
p = subprocess.run([retrace, "golden", "gc", "--db", db, "--keep-runs", "365"], capture_output=True, text=True)
after = counts()
check(p.returncode == 0 and "removed 1 runs older than 365 days" in p.stdout and after[0] == runs - 1
      and after[1] < results and after[2] == goldens,
      "golden gc --keep-runs 365 removes the one older run and its results, not a golden", p.stdout + p.stderr)
age_runs([2], 40)
age_runs([3, 4], 1)
server, url, line = start("--keep-runs", "30")
deadline, total = time.time() + 20, None
while time.time() < deadline:
    status, _, body = get(url + "api/runs")
    total = json.loads(body)["total"]
    if total == after[0] - 1:
        break
    time.sleep(0.1)
server.send_signal(signal.SIGTERM)
rc = server.wait(timeout=10)
err = server.stderr.read()
check(total == after[0] - 1 and "removed 1 runs older than 30 days" in err and counts()[2] == goldens,
      "serve --keep-runs 30 removes the run older than 30 days when it starts, and says so", f"{total} {err}")

# An output that cannot be written is the user's (exit 2), as capture's -o,
# not an internal error (exit 5): review finding R4.
p = subprocess.run([retrace, "golden", "show", "1", "--db", db, "-o", os.path.join(work, "no", "such", "x.png")],
                   capture_output=True, text=True)
check(p.returncode == 2 and "-o: cannot write" in p.stderr,
      "golden show -o into a folder that does not exist: exit 2 naming -o", f"{p.returncode} {p.stderr}")

print(f"1..{count}")
subprocess.run(["rm", "-rf", work])
sys.exit(1 if failed else 0)
