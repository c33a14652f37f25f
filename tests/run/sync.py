#!/usr/bin/env python3
"""tests/run/sync.py RETRACE TRACES — the dashboard as the farm's source of
goldens and expectations (issue 17, docs/FORMATS.md section 5): two runners
with their own stores and one `retrace serve`. A failure approved on the
dashboard passes on the next run of both runners with no manual step; an
unchanged set is a 304; undo takes the approval back on the runners too; an
expectation set on the dashboard applies on the runners; a runner with the
server down runs from its cache and says so; --update-goldens images reach
the server with the upload."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

from runlib import Env, expect, fail, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
ALICE = "alice-token-0123456789"
FARM = "farm-token-0123456789"
tokens = env.write("tokens", f"# who may write\nalice {ALICE}\nfarm {FARM}\n")
farm_token = env.write("farm-token", FARM + "\n")
server_db = os.path.join(env.dir, "server.db")
for name in ("vkcube", "particles", "modern"):
    env.copy_trace(name, name)
# The server's goldens: vkcube's is right, particles' is another app's frame (a failure).
env.db = server_db
env.add_golden("vkcube", 1, env.golden("vkcube", 1))
env.add_golden("particles", 1, env.golden("modern", 1))
manifest = env.write("manifest.yml", "label: nightly\ntraces:\n  - {path: vkcube.rtrace}\n"
                                     "  - {path: particles.rtrace}\n")
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
url = f"http://127.0.0.1:{port}"


def runner(store, *extra, man=manifest):
    args = ["run", man, "--db", os.path.join(env.dir, store), "--server", url, "--token-file", farm_token,
            "--spool", os.path.join(env.dir, "spool-" + store), "--json", *extra]
    r = env.run(args)
    try:
        body = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        fail(f"retrace run printed no JSON (exit {r.returncode}): {r.stdout} {r.stderr}")
    return r, body


def api(path, token=None, body=None, method=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method or ("POST" if data is not None else "GET"))
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def query(store, sql, *args):
    env.db = os.path.join(env.dir, store)
    return env.query(sql, *args)


def start_server():
    p = subprocess.Popen([retrace, "serve", "--db", server_db, "--listen", f"127.0.0.1:{port}", "--tokens", tokens],
                         env=env.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(400):
        try:
            urllib.request.urlopen(url + "/api/health", timeout=1).read()
            return p
        except OSError:
            time.sleep(0.05)
    fail("retrace serve did not start")


serve = start_server()
try:
    # 1. Runner A: the server's goldens arrive; particles fails against the server's golden.
    r, a1 = runner("a.db")
    expect(r.returncode == 1, f"runner A's first run fails on particles (exit {r.returncode}): {r.stderr}")
    expect("goldens from " + url in r.stderr, f"runner A pulled the goldens: {r.stderr.strip()}")
    key = a1["run"]["device_key"]
    expect(key != "", f"the device key was found before the first job: {key!r}")
    expect(a1["run"]["golden_set"] == f"{url} seq " + a1["run"]["golden_set"].split(" seq ")[-1],
           f"the run records the golden set it used: {a1['run']['golden_set']}")
    status, runs = api("/api/runs")
    run_a1 = runs["runs"][0]["id"]
    status, run = api(f"/api/runs/{run_a1}")
    failing = [x for x in run["results"] if x["trace"] == "particles"][0]
    expect(failing["status"] == "fail" and failing["golden_id"], f"the server links the failure to the golden it was compared with: {failing}")
    tiles = failing.get("worst_tiles") or {}
    expect(len(tiles.get("ssim", [])) == 4 and len(tiles.get("colour", [])) == 4,
           f"the upload carries where the worst SSIM and colour tiles are: {tiles}")
    status, result = api(f"/api/results/{failing['id']}")
    compared = result.get("golden") or {}
    expect(compared.get("hash") == failing["golden_hash"] and compared.get("id") == failing["golden_id"]
           and "approved_by" in compared and compared.get("approved_at"),
           f"the result page's golden is the one compared, with hash and approver: {compared}")

    # 2. Approve on the dashboard: without a token refused, with alice's recorded as alice, for this device.
    status, _ = api(f"/api/results/{failing['id']}/approve", body={})
    expect(status == 401, f"approving without a token is refused ({status})")
    status, approved = api(f"/api/results/{failing['id']}/approve", ALICE, {})
    expect(status == 200 and approved["by"] == "alice" and approved["device_key"] == key,
           f"approved by alice, scoped to this device key: {status} {approved}")

    # 3. Both runners pass next time, with no manual step.
    r, b1 = runner("b.db")
    expect(r.returncode == 0, f"runner B (a fresh store) passes with the approved golden: {r.returncode} {r.stderr}")
    r, a2 = runner("a.db")
    expect(r.returncode == 0, f"runner A passes with the approved golden: {r.returncode} {r.stderr}")
    rows = query("b.db", "SELECT approved_by, device_key FROM goldens WHERE reverted_at IS NULL AND device_key != ''")
    expect(rows == [("alice", key)], f"runner B's cache holds the golden as alice approved it: {rows}")
    r, b2 = runner("b.db")
    expect(r.returncode == 0 and "unchanged" in r.stderr, f"nothing changed: the sync is a 304 ({r.stderr.strip()})")

    # 4. Undo the approval: the golden is reverted on the runners as well.
    status, undone = api(f"/api/golden-events/{approved['event_id']}/undo", ALICE, {})
    expect(status == 200 and undone["event_id"], f"the approval is undone: {status} {undone}")
    status, again = api(f"/api/golden-events/{approved['event_id']}/undo", ALICE, {})
    expect(status == 409, f"undoing it twice is a conflict ({status})")
    r, _ = runner("b.db")
    expect(r.returncode == 1, f"after the undo runner B fails again: {r.returncode}")
    status, history = api(f"/api/goldens/{approved['golden_id']}/history")
    actions = [(e["action"], e["by"]) for e in history["events"]]
    expect(actions[-2:] == [("approved", "alice"), ("undo", "alice")], f"the golden's history: {actions}")

    # 5. An expectation set on the dashboard applies on the runners.
    status, _ = api("/api/expectations", ALICE, {"trace": "particles", "device_key": key, "kind": "flaky",
                                                 "note": "bug 42"})
    expect(status == 200, f"alice marks particles flaky on this device ({status})")
    r, b3 = runner("b.db")
    particles = [x for x in b3["results"] if x["trace"] == "particles"][0]
    expect(r.returncode == 0 and particles["expected"] == "flaky" and not particles["regression"],
           f"runner B applies it: exit {r.returncode}, {particles['expected']}, regression {particles['regression']}")

    # 6. --update-goldens: a new trace's image reaches the server with the upload.
    new_manifest = env.write("new.yml", "label: nightly\ntraces:\n  - {path: modern.rtrace}\n")
    r, _ = runner("a.db", "--update-goldens", man=new_manifest)
    status, goldens = api("/api/goldens?trace=modern")
    expect(status == 200 and len(goldens["goldens"]) == 1,
           f"the golden --update-goldens made on runner A is on the server: {goldens}")

    # 7. --device-key: the run is uploaded under the key given, and an approval of it
    # (scoped to that key by default) reaches a runner that gives the same key.
    r, c1 = runner("c.db", "--device-key", "farm-key-7")
    expect(c1["run"]["device_key"] == "farm-key-7", f"the upload carries the --device-key given: {c1['run']['device_key']}")
    status, runs = api("/api/runs?device=farm-key-7")
    run_c1 = runs["runs"][0]
    expect(run_c1["device_key"] == "farm-key-7", f"the server records that key: {run_c1['device_key']}")
    status, run = api(f"/api/runs/{run_c1['id']}")
    failing_c = [x for x in run["results"] if x["trace"] == "particles"][0]
    status, approved_c = api(f"/api/results/{failing_c['id']}/approve", ALICE, {})
    expect(approved_c["device_key"] == "farm-key-7", f"the approval is scoped to it: {approved_c}")
    r, _ = runner("d.db", "--device-key", "farm-key-7")
    expect(r.returncode == 0, f"another runner with that key passes: {r.returncode}")
finally:
    serve.terminate()
    serve.wait()

# 8. The server is down: runner B runs from its cache (synced after the expectation) and says so.
r, a3 = runner("b.db")
expect(r.returncode == 0, f"runner B still runs, and passes, with the server down (exit {r.returncode})")
expect("warning: sync with " + url + " failed" in r.stderr, f"one warning names the server: {r.stderr.strip()}")
expect(len(a3["results"]) == 2, "every job ran from the cache")
sets = query("b.db", "SELECT golden_set FROM runs ORDER BY id DESC LIMIT 1")
expect("cache" in sets[0][0], f"the run records that it used the cache: {sets}")
particles = [x for x in a3["results"] if x["trace"] == "particles"][0]
expect(particles["expected"] == "flaky", "the cached expectation still applies offline")
env.close()
finish()
