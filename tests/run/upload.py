#!/usr/bin/env python3
"""tests/run/upload.py RETRACE TRACES — uploads and trace URLs against a
local receiver (tests/run/receiver.py, section 2 of docs/FORMATS.md): a run
made while the server is down waits in the spool; a 5xx and a wrong token
keep it there; `retrace upload` then delivers it once, and sending it again
is a duplicate the server ignores; the next `retrace run` delivers at once.
A trace URL is downloaded once, checked and reused; a wrong sha256 is an
error result, not a replay."""
import base64
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time

from runlib import HERE, Env, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
recv_dir = os.path.join(env.dir, "receiver")
os.makedirs(os.path.join(recv_dir, "files"))
token = env.write("token", "s3cret\n")
bad_token = env.write("bad-token", "wrong\n")
spool = os.path.join(env.dir, "spool")
with socket.socket() as s:  # a port where nothing listens (yet)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = f"http://127.0.0.1:{port}"

env.copy_trace("vkcube", "vkcube")
env.copy_trace("textured", "textured")
for name, frame in (("vkcube", 1), ("textured", 1), ("textured", 5), ("particles", 5)):
    env.add_golden(name, frame, env.golden(name, frame))
env.add_golden("particles", 1, env.golden("modern", 1))  # a regression, to see images sent
shutil.copyfile(os.path.join(traces, "particles.rtrace"), os.path.join(recv_dir, "files", "particles.rtrace"))
sha = hashlib.sha256(open(os.path.join(traces, "particles.rtrace"), "rb").read()).hexdigest()
manifest = env.write("manifest.yml", f"""
label: nightly
cache: cache
traces:
  - {{path: vkcube.rtrace, frames: [1]}}
  - {{path: textured.rtrace, frames: [1, 5]}}
  - {{name: particles, url: "{server}/files/particles.rtrace", sha256: {sha}, frames: [1, 5]}}
  - {{name: tampered, url: "{server}/files/particles.rtrace", sha256: {'0' * 64}, frames: [1]}}
""")
run_args = ["run", manifest, "--db", env.db, "--server", server, "--token-file", token, "--spool", spool, "--json"]

# 1. The server is down: the run waits in the spool.
r = env.run(run_args)
expect(r.returncode == 1, f"the run itself is judged as usual (exit {r.returncode})")
expect("warning: upload" in r.stderr and "retrace upload" in r.stderr, f"a warning says how to send it later: {r.stderr.strip()}")
run1 = json.loads(r.stdout)["run"]["id"]
expect(os.listdir(spool) == [run1 + ".json"], f"the run waits in the spool as RUNID.json: {os.listdir(spool)}")
res = {(x["trace"], x["frame"]): x for x in json.loads(r.stdout)["results"]}
expect(res[("particles", 0)]["status"] == "error" and "cannot download" in res[("particles", 0)]["message"],
       "a URL that cannot be fetched is an error result naming it")

# 2. The server comes up, but answers 503: the run stays.
receiver = subprocess.Popen([sys.executable, os.path.join(HERE, "receiver.py"), recv_dir, "s3cret"],
                            env=dict(env.env, PORT=str(port)))
for _ in range(200):
    if os.path.exists(os.path.join(recv_dir, "port")):
        break
    time.sleep(0.05)
try:
    env.write("receiver/mode", "503")
    up = ["upload", "--server", server, "--token-file", token, "--spool", spool]
    r = env.run(up)
    expect(r.returncode == 5 and "503" in r.stderr and os.listdir(spool) == [run1 + ".json"],
           f"a 503 keeps the run in the spool (exit {r.returncode}: {r.stderr.strip()})")
    os.remove(os.path.join(recv_dir, "mode"))
    r = env.run(["upload", "--server", server, "--token-file", bad_token, "--spool", spool])
    expect(r.returncode == 3 and "401" in r.stderr and os.listdir(spool) == [run1 + ".json"],
           f"a wrong token is refused and the run kept (exit {r.returncode})")

    # 3. retrace upload delivers it, once.
    saved = open(os.path.join(spool, run1 + ".json")).read()
    r = env.run(up)
    expect(r.returncode == 0 and os.listdir(spool) == [] and r.stdout.startswith("sent 1 run(s)"),
           f"retrace upload sends the spool and empties it: {r.stdout.strip()} {r.stderr.strip()}")
    runs = os.listdir(os.path.join(recv_dir, "runs"))
    expect(runs == [run1 + ".json"], f"the run arrived once: {runs}")
    doc = json.load(open(os.path.join(recv_dir, "runs", run1 + ".json")))
    expect(doc["run"]["label"] == "nightly" and {"id", "host", "device_key", "started_at", "finished_at",
           "outcome", "configurations"} <= set(doc["run"]), "the upload's run object has section 2's keys")
    png = [x for x in doc["results"] if x["trace"] == "textured"][0]
    expect(png["actual_png"] is None and png["diff_png"] is None, "a pass sends no images")

    # 4. The same run again (a retry after a lost answer): a duplicate, nothing changes.
    with open(os.path.join(spool, run1 + ".json"), "w") as f:
        f.write(saved)
    r = env.run(up)
    expect(r.returncode == 0 and "1 already on the server" in r.stdout and os.listdir(spool) == [],
           f"a second send of the same run is a duplicate: {r.stdout.strip()}")
    expect(len(os.listdir(os.path.join(recv_dir, "runs"))) == 1, "still one run on the server")

    # 5. With the server up, the next run is delivered at once; the URL trace is fetched and checked.
    r = env.run(run_args)
    run2 = json.loads(r.stdout)["run"]["id"]
    expect(os.listdir(spool) == [] and os.path.exists(os.path.join(recv_dir, "runs", run2 + ".json")),
           f"the next run is delivered at once: {r.stderr.strip()}")
    doc = json.load(open(os.path.join(recv_dir, "runs", run2 + ".json")))
    res = {(x["trace"], x["frame"]): x for x in doc["results"]}
    fail = res[("particles", 1)]
    expect(fail["status"] == "fail" and res[("particles", 5)]["status"] == "pass",
           "the downloaded trace replayed and was compared")
    expect(base64.b64decode(fail["actual_png"])[:8] == b"\x89PNG\r\n\x1a\n" and
           base64.b64decode(fail["diff_png"])[:8] == b"\x89PNG\r\n\x1a\n", "a failure sends its actual and diff PNGs")
    expect(res[("tampered", 0)]["status"] == "error" and "sha256 mismatch" in res[("tampered", 0)]["message"],
           f"a URL with a wrong sha256 is an error result, not a replay: {res[('tampered', 0)]['message']}")
    cached = os.path.join(env.dir, "cache", sha + ".rtrace")
    expect(os.path.exists(cached) and not any(n.startswith(sha + ".rtrace.part") for n in os.listdir(os.path.dirname(cached))),
           "the verified trace is cached by its sha256; the tampered download is not kept")
    r = env.run(run_args)
    gets = [l for l in open(os.path.join(recv_dir, "log")) if l.startswith("GET /files/particles")]
    # run 1 could not reach the server; run 2 fetched both URLs once; run 3 reuses the good one.
    expect(len(gets) == 3, f"the cached trace is reused, not fetched again ({len(gets)} GETs)")
finally:
    receiver.terminate()
    receiver.wait()
env.close()
finish()
