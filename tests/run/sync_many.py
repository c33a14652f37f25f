#!/usr/bin/env python3
"""tests/run/sync_many.py RETRACE TRACES — the golden sync of a manifest of
many traces (issue 17 §1): the trace list of a farm's manifest does not fit
in a request target (`retrace serve` takes 4096 bytes), so the runner asks
for every trace of its device key and keeps only the manifest's: the
golden of the 300th trace reaches the runner, the sync is no warning, and
a golden of a trace the manifest does not name stays on the server."""
import os
import socket
import subprocess
import sys
import time
import urllib.request

from runlib import Env, expect, fail, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
TOKEN = "farm-token-0123456789"
tokens = env.write("tokens", f"farm {TOKEN}\n")
token = env.write("token", TOKEN + "\n")
env.copy_trace("vkcube", "vkcube")
names = [f"a-trace-with-a-long-descriptive-name-{i:03}" for i in range(300)]
last = names[-1]
manifest = env.write("manifest.yml", "traces:\n" + "".join(
    f"  - {{name: {n}, path: vkcube.rtrace, tags: [{'smoke' if n == last else 'all'}]}}\n" for n in names))
server_db = env.db = os.path.join(env.dir, "server.db")
env.add_golden(last, 1, env.golden("vkcube", 1))
env.add_golden("not-in-the-manifest", 1, env.golden("vkcube", 1))
runner_db = os.path.join(env.dir, "runner.db")
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
url = f"http://127.0.0.1:{port}"
server = subprocess.Popen([retrace, "serve", "--db", server_db, "--listen", f"127.0.0.1:{port}", "--tokens", tokens],
                          env=env.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(400):
        try:
            urllib.request.urlopen(url + "/api/health", timeout=1).read()
            break
        except OSError:
            time.sleep(0.05)
    else:
        fail("retrace serve did not start")
    args = ["run", manifest, "--db", runner_db, "--server", url, "--token-file", token, "--tag", "smoke"]
    for attempt in ("first", "second"):
        r = env.run(args)
        expect("warning" not in r.stderr, f"{attempt} run: the sync is no warning: {r.stderr.strip()}")
        row = [line for line in r.stdout.splitlines() if line.startswith(last)]
        expect(r.returncode == 0 and row and " pass " in row[0],
               f"{attempt} run: the 300th trace passes against the server's golden (exit {r.returncode}): {row}")
    expect("unchanged" in r.stderr, f"the second sync is a 304: {r.stderr.strip()}")
    env.db = runner_db
    cached = [t for (t,) in env.query("SELECT t.name FROM goldens g JOIN traces t ON t.id = g.trace_id"
                                      " WHERE g.reverted_at IS NULL")]
    expect(cached == [last], f"only the manifest's traces are cached: {cached}")
finally:
    server.terminate()
    server.wait()
finish()
