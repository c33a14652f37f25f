#!/usr/bin/env python3
"""tests/run/spool_counts.py RETRACE — what `retrace upload` says it did
(issue 17 §3, "N still waiting counts only what waits"), against the local
receiver (tests/run/receiver.py): after every send, "N still waiting" is
exactly the number of runs left in the spool to be sent again (a wrong
token or a 503 keeps a run waiting; a run the server refused as malformed
is moved to SPOOL/rejected and no longer waits; a delivered run and a
duplicate are gone), and a refused run is counted as refused, once."""
import json
import os
import re
import subprocess
import sys
import time

from runlib import HERE, Env, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
recv = os.path.join(env.dir, "receiver")
os.makedirs(os.path.join(recv, "runs"))
spool = os.path.join(env.dir, "spool")
os.makedirs(spool)
token = env.write("token", "s3cret\n")
bad_token = env.write("bad-token", "wrong\n")


def run_doc(run_id):
    return json.dumps({"format": "retrace-run", "version": 1, "run": {"id": run_id}, "results": []})


new_id, dup_id = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
for name, body in ((new_id, run_doc(new_id)), (dup_id, run_doc(dup_id)), ("33333333-3333-4333-8333-333333333333", "{not json")):
    env.write(f"spool/{name}.json", body)
env.write(f"receiver/runs/{dup_id}.json", run_doc(dup_id))  # the server has this one already

receiver = subprocess.Popen([sys.executable, os.path.join(HERE, "receiver.py"), recv, "s3cret"], env=env.env)
for _ in range(400):
    if os.path.exists(os.path.join(recv, "port")):
        break
    time.sleep(0.05)
server = "http://127.0.0.1:" + open(os.path.join(recv, "port")).read().strip()


def upload(token_file):
    r = env.run(["upload", "--server", server, "--token-file", token_file, "--spool", spool])
    m = re.match(r"sent (\d+) run\(s\), (\d+) already on the server, (\d+) still waiting in (\S+?)(, (\d+) refused by the server [^\n]*)?\n",
                 r.stdout)
    expect(m is not None, f"retrace upload says what it did: {r.stdout!r} {r.stderr.strip()}")
    waiting = sorted(n for n in os.listdir(spool) if n.endswith(".json"))
    counts = tuple(int(g) if g else 0 for g in (m.group(1), m.group(2), m.group(3), m.group(6))) if m else None
    return r.returncode, counts, waiting


try:
    # A wrong token: every run is refused for now, and all three still wait.
    rc, counts, waiting = upload(bad_token)
    expect(rc == 3 and counts == (0, 0, 3, 0) and len(waiting) == 3,
           f"a wrong token: 3 still waiting, 3 in the spool (exit {rc}, {counts}, {waiting})")
    # A server that answers 503: the same.
    env.write("receiver/mode", "503")
    rc, counts, waiting = upload(token)
    expect(rc == 5 and counts == (0, 0, 3, 0) and len(waiting) == 3,
           f"a 503: 3 still waiting, 3 in the spool (exit {rc}, {counts}, {waiting})")
    os.remove(os.path.join(recv, "mode"))
    # The server takes one, has one, refuses one for good: nothing waits any more.
    rc, counts, waiting = upload(token)
    expect(counts == (1, 1, 0, 1) and waiting == [],
           f"1 sent, 1 already there, 1 refused, 0 still waiting: {counts}, spool {waiting}")
    expect(rc == 3, f"the refusal is the exit code (3, got {rc})")
    rejected = os.listdir(os.path.join(spool, "rejected"))
    expect(rejected == ["33333333-3333-4333-8333-333333333333.json"], f"the refused run is kept aside: {rejected}")
    # Again: the refused run is not sent or counted again.
    rc, counts, waiting = upload(token)
    expect(rc == 0 and counts == (0, 0, 0, 0) and waiting == [], f"an empty spool: all zero (exit {rc}, {counts})")
    posts = [l for l in open(os.path.join(recv, "log")) if l.startswith("POST")]
    expect(len(posts) == 9, f"each send posts each waiting run once (9 POSTs, got {len(posts)})")
    # retrace run: a run the server refuses for good is not said to wait (no "send it later");
    # one kept by a 503 is.
    env.copy_trace("vkcube", "vkcube")
    manifest = env.write("manifest.yml", "traces:\n  - {path: vkcube.rtrace}\n")
    run = ["run", manifest, "--db", env.db, "--server", server, "--token-file", token, "--spool", spool]
    for mode, waits in (("400", False), ("503", True)):
        env.write("receiver/mode", mode)
        r = env.run(run)
        warning = [l for l in r.stderr.splitlines() if "warning: upload" in l]
        expect(len(warning) == 1 and ("send it later" in warning[0]) == waits and (mode in warning[0]),
               f"a {mode}: the warning says the run {'waits' if waits else 'does not wait'}: {warning}")
        left = [n for n in os.listdir(spool) if n.endswith(".json")]
        expect(len(left) == (1 if waits else 0), f"a {mode}: {len(left)} run(s) in the spool")
finally:
    receiver.terminate()
    receiver.wait()
finish()
