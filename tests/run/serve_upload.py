#!/usr/bin/env python3
"""tests/run/serve_upload.py RETRACE TRACES — `retrace run --server` against
the real dashboard server (`retrace serve`): the run arrives once with all
its results and failure images; sent again from the spool it is a duplicate
that changes nothing; a run made while the server was down arrives when
`retrace upload` runs after it comes back."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

from runlib import Env, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
token = env.write("token", "farm-token\n")
spool = os.path.join(env.dir, "spool")
server_db = os.path.join(env.dir, "server.db")
for name in ("vkcube", "particles"):
    env.copy_trace(name, name)
env.add_golden("vkcube", 1, env.golden("vkcube", 1))
env.add_golden("particles", 1, env.golden("modern", 1))  # a failure, so images travel
manifest = env.write("manifest.yml", "label: nightly\ntraces:\n  - {path: vkcube.rtrace}\n  - {path: particles.rtrace}\n")
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
url = f"http://127.0.0.1:{port}"
run_args = ["run", manifest, "--db", env.db, "--server", url, "--token-file", token, "--spool", spool, "--json"]

# Down: the run waits in the spool.
r = env.run(run_args)
run1 = json.loads(r.stdout)["run"]["id"]
expect(os.listdir(spool) == [run1 + ".json"], "with the server down the run waits in the spool")
saved = open(os.path.join(spool, run1 + ".json")).read()

serve = subprocess.Popen([retrace, "serve", "--db", server_db, "--listen", f"127.0.0.1:{port}", "--token-file", token],
                         env=env.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
try:
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/api/runs", timeout=1).read()
            break
        except OSError:
            time.sleep(0.05)
    r = env.run(["upload", "--server", url, "--token-file", token, "--spool", spool])
    expect(r.returncode == 0 and os.listdir(spool) == [], f"retrace upload delivers it: {r.stdout.strip()} {r.stderr.strip()}")
    with open(os.path.join(spool, run1 + ".json"), "w") as f:
        f.write(saved)
    r = env.run(["upload", "--server", url, "--token-file", token, "--spool", spool])
    expect(r.returncode == 0 and "1 already on the server" in r.stdout, f"sent again it is a duplicate: {r.stdout.strip()}")

    r = env.run(run_args)
    run2 = json.loads(r.stdout)["run"]["id"]
    expect(os.listdir(spool) == [] and "uploaded 1 run(s)" in r.stderr, f"with the server up a run is delivered at once: {r.stderr.strip()}")
finally:
    serve.terminate()
    serve.wait()

env.db = server_db
for run_id in (run1, run2):
    rows = env.query("SELECT count(*) FROM runs WHERE uuid = ?", run_id)
    expect(rows == [(1,)], f"run {run_id} is on the server once")
results = env.query("SELECT t.name, r.frame, r.status, r.actual_image IS NOT NULL, r.diff_image IS NOT NULL FROM results r "
                    "JOIN traces t ON t.id = r.trace_id JOIN runs u ON u.id = r.run_id WHERE u.uuid = ? "
                    "ORDER BY t.name", run1)
expect(results == [("particles", 1, "fail", 1, 1), ("vkcube", 1, "pass", 0, 0)],
       f"the server has every result, and the failure's actual and diff images: {results}")
env.close()
finish()
