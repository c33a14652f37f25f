#!/usr/bin/env python3
"""tests/run/diagnose.py RETRACE TRACES READBACK_APP — a failing result carries
its diagnosis (issue 19 part 4, docs/FORMATS.md 7.4).

rt_app_readback (258 draws in frame 2) is captured; its default replay is the
golden. A configuration with a seeded break (`skip-draws: "2:136"`) and
`diagnose: lavapipe` fails, and the run:
  - records the diagnosis with that result in the store: draw 136 of 258,
    its command, pipeline, shaders, the five images (before/after both sides
    and the diff) in `images`; the passing configuration has none;
  - says "diverges at draw 136 of 258" in the summary and the JUnit failure;
  - uploads it: `retrace serve` answers /api/runs/ID/diagnoses,
    /api/results/ID/diagnosis (the same draw) and each image (ETag, 304);
  - `--diagnose config:skip-draws=2:1` (every configuration, over the
    manifest's) finds draw 1: the reference skips it, the test side does not;
  - `-j 2` diagnoses two failing configurations at once, each at its own
    skipped draw;
  - a frame failing against a wrong golden whose draws agree with the
    reference (vkcube frame 3) is recorded as "none"; a bad REF is a usage error (2) or a manifest error (3); a
    server refuses an upload whose diagnosis is wrong (400 naming the field)
    and records none of it.
Captures run windowed (DISPLAY; exit 77 without one)."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from runlib import Env, expect, fail, finish

retrace, traces, app = sys.argv[1], sys.argv[2], sys.argv[3]
if not os.environ.get("DISPLAY"):
    print("SKIP: no DISPLAY for the capture")
    sys.exit(77)
env = Env(retrace, traces)
trace = os.path.join(env.dir, "readback.rtrace")
for _ in range(4):  # a busy Xvfb refuses a connection now and then: not what is tested here
    r = subprocess.run([retrace, "capture", "-o", trace, "--", app, "--frames", "3"], env=env.env,
                       capture_output=True, text=True, timeout=280)
    if r.returncode == 0 or "XCB" not in r.stderr + r.stdout:
        break
    time.sleep(1)
if r.returncode != 0:
    fail(f"capture of {app} exited {r.returncode}: {r.stderr}")

manifest = env.write("manifest.yml", """label: diag
configurations:
  - name: default
  - name: broken
    skip-draws: "2:136"
    diagnose: lavapipe
traces:
  - path: readback.rtrace
    frames: [2]
""")

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
url = f"http://127.0.0.1:{port}"
token = env.write("token", "farm-token\n")
server_db = os.path.join(env.dir, "server.db")
serve = subprocess.Popen([retrace, "serve", "--db", server_db, "--listen", f"127.0.0.1:{port}", "--token-file", token],
                         env=env.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def get(path, headers=None):
    req = urllib.request.Request(url + path, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as a:
            return a.status, a.read(), a.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


def post(path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": "Bearer farm-token", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as a:
            return a.status, json.loads(a.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


try:
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/api/runs", timeout=1).read()
            break
        except OSError:
            time.sleep(0.05)
    # the golden reaches the dashboard with its run, so the next sync keeps it
    r = env.run(["run", manifest, "--db", env.db, "--configuration", "default", "--update-goldens",
                 "--server", url, "--token-file", token])
    expect(r.returncode == 0, f"the default replay makes the golden: {r.stderr.strip()}")
    junit = os.path.join(env.dir, "junit.xml")
    r = env.run(["run", manifest, "--db", env.db, "--junit", junit, "--server", url, "--token-file", token])
    expect(r.returncode == 1, f"the broken configuration is a regression (exit {r.returncode}): {r.stderr.strip()}")
    expect("broken frame 2: diverges at draw 136 of 258" in r.stdout, f"the summary names the draw: {r.stdout}")
    expect("diverges at draw 136 of 258" in open(junit).read(), "the JUnit failure names the draw")

    rows = env.query("SELECT c.configuration, c.status, d.outcome, d.draw, d.draws, d.command, d.pipeline,"
                     " d.reference, d.shaders, d.replays FROM results c JOIN diagnoses d ON d.result_id = c.id"
                     " JOIN runs u ON u.id = c.run_id WHERE u.label = 'diag' ORDER BY u.id DESC")
    expect(len(rows) == 1, f"one diagnosis, of the failing result only: {[x[:5] for x in rows]}")
    config, status, outcome, draw, draws, command, pipeline, reference, shaders, replays = rows[0]
    expect((config, status, outcome, draw, draws) == ("broken", "fail", "diverged", 136, 258),
           f"the broken result diverges at draw 136 of 258: {rows[0][:5]}")
    expect(command == "vkCmdDraw" and pipeline and pipeline.startswith("<VkPipeline "), f"its command and pipeline (named as retrace dump names it): {command} {pipeline}")
    expect(reference == "device:llvmpipe" and 1 <= replays <= 12, f"against lavapipe in {replays} replays")
    stages = [sh["stage"] for sh in json.loads(shaders)]
    expect("VK_SHADER_STAGE_FRAGMENT_BIT" in stages and all(len(sh["xxh128"]) == 32 for sh in json.loads(shaders)),
           f"its shaders: {stages}")
    configs = json.loads(env.query("SELECT configurations FROM runs WHERE label = 'diag' ORDER BY id DESC LIMIT 1")[0][0])
    expect({"name": "broken", "workarounds": [], "delays": [], "skip_draws": "2:136", "diagnose": "lavapipe"} in configs,
           f"the run names what breaks the configuration and what it is diagnosed against: {configs}")
    roles = env.query("SELECT i.role, length(m.png) FROM diagnosis_images i JOIN images m ON m.id = i.image_id"
                      " JOIN results c ON c.id = i.result_id WHERE c.configuration = 'broken' ORDER BY i.role")
    expect(sorted(r for r, _ in roles) == ["after_reference", "after_test", "before_reference", "before_test", "diff"]
           and all(n > 100 for _, n in roles), f"the five images are stored: {roles}")

    status, body, _ = get("/api/runs?label=diag")
    runs = json.loads(body)
    runs = runs.get("runs", runs) if isinstance(runs, dict) else runs
    run_id = max(x["id"] for x in runs)
    status, body, _ = get(f"/api/runs/{run_id}/diagnoses")
    listed = json.loads(body)["diagnoses"] if status == 200 else []
    expect(status == 200 and len(listed) == 1 and listed[0]["draw"] == 136 and listed[0]["draws"] == 258,
           f"the server lists the run's diagnosis: {status} {body[:200]}")
    result_id = listed[0]["result"] if listed else 0
    status, body, _ = get(f"/api/results/{result_id}/diagnosis")
    d = json.loads(body)
    expect(status == 200 and d["draw"] == 136 and d["command"] == "vkCmdDraw" and d["outcome"] == "diverged",
           f"GET /api/results/ID/diagnosis: {status} {body[:200]}")
    expect(all(d["images"][k] for k in ("before_test", "after_test", "before_reference", "after_reference", "diff")),
           f"the upload carried the five images: {d.get('images')}")
    status, png, headers = get(d["images"]["diff"])
    expect(status == 200 and png[:8] == b"\x89PNG\r\n\x1a\n" and headers["Content-Type"] == "image/png",
           "the diff image is served")
    status, _, _ = get(d["images"]["diff"], {"If-None-Match": headers["ETag"]})
    expect(status == 304, f"and revalidates by its hash (304): {status}")
    status, body, _ = get(f"/api/results/{result_id}/diagnosis/nothing")
    expect(status == 404, f"an unknown role is 404: {status}")
    status, body, _ = get("/api/results/999999/diagnosis")
    expect(status == 404 and b"no such result" in body, f"an unknown result is 404: {status} {body}")
    status, body, _ = get(f"/api/results/{result_id - 1}/diagnosis")
    expect(status == 204 and body == b"", f"a result without a diagnosis is 204: {status} {body[:100]}")

    # A bad diagnosis: 400 naming the field, and nothing of the run is stored.
    bad_run = "0f0f0f0f-0000-4000-8000-000000000001"
    upload = {"format": "retrace-run", "version": 1,
              "run": {"id": bad_run, "label": "bad", "host": "h", "device": "d", "driver": "v", "device_key": "",
                      "retrace_version": "0.1.0", "started_at": "2026-12-01T00:00:00Z",
                      "finished_at": "2026-12-01T00:01:00Z", "outcome": "failed", "configurations": []},
              "results": [{"trace": "t", "configuration": "default", "frame": 2, "status": "fail", "ssim": 0.5,
                           "diagnosis": {"reference": "device:llvmpipe", "outcome": "diverged", "draws": 3,
                                         "replays": 3, "draw": 7}}]}
    status, answer = post("/api/runs", upload)
    expect(status == 400 and "results[0].diagnosis.draw" in answer.get("error", ""), f"draw past draws is 400: {status} {answer}")
    upload["results"][0]["diagnosis"] = {"reference": "x", "outcome": "sideways"}
    status, answer = post("/api/runs", upload)
    expect(status == 400 and "results[0].diagnosis.outcome" in answer.get("error", ""), f"an unknown outcome is 400: {answer}")
    status, body, _ = get("/api/runs?label=bad")
    expect(bad_run.encode() not in body, "a refused upload stores no run")
    upload["results"][0]["diagnosis"] = {"reference": "device:llvmpipe", "outcome": "none", "draws": 3, "replays": 3}
    status, answer = post("/api/runs", upload)
    expect(status == 201, f"a good one is taken: {status} {answer}")
    upload["results"][0]["diagnosis"]["outcome"] = "error"
    status, answer = post("/api/runs", upload)
    expect(status == 200 and answer.get("duplicate"), f"sent again it is a duplicate: {answer}")
    status, body, _ = get(f"/api/runs/{answer['run']}/diagnoses")
    expect(json.loads(body)["diagnoses"][0]["outcome"] == "none", f"and changes no diagnosis: {body}")
finally:
    serve.terminate()
    serve.wait(timeout=30)

# --diagnose over the manifest's key: the reference skips draw 1, the test side does not.
r = env.run(["run", manifest, "--db", env.db, "--configuration", "broken", "--diagnose", "config:skip-draws=2:1"])
expect(r.returncode == 1 and "diverges at draw 1 of 258" in r.stdout and "against config:skip-draws=2:1" in r.stdout,
       f"--diagnose config:... finds draw 1: {r.stdout}")
# A diagnosis that fails (its reference cannot replay) is recorded as an error saying why; the result stays.
r = env.run(["run", manifest, "--db", env.db, "--configuration", "broken", "--diagnose", "icd:/nonexistent/icd.json"])
rows = env.query("SELECT d.outcome, d.message, c.status FROM diagnoses d JOIN results c ON c.id = d.result_id"
                 " ORDER BY d.diagnosed_at DESC, d.result_id DESC LIMIT 1")
expect(r.returncode == 1 and rows and rows[0][0] == "error" and rows[0][2] == "fail" and "--against-icd /nonexistent/icd.json: cannot open" in rows[0][1],
       f"a failed diagnosis is an error naming why (the ICD file is not there): {rows} {r.stdout[-300:]}")
r = env.run(["run", manifest, "--db", env.db, "--diagnose=sideways"])
expect(r.returncode == 2 and "--diagnose" in r.stderr, f"a bad --diagnose is a usage error: {r.returncode} {r.stderr.strip()}")
# "--diagnose" alone is --diagnose lavapipe; what follows it is a manifest when it is not a REF.
r = env.run(["run", "--diagnose", manifest, "--db", env.db, "--configuration", "broken"])
expect(r.returncode == 1 and "broken frame 2: diverges at draw 136 of 258" in r.stdout and "against device:llvmpipe" in r.stdout,
       f"--diagnose without a value diagnoses against lavapipe: {r.returncode} {r.stdout[-400:]} {r.stderr[-300:]}")
bad = env.write("bad.yml", "configurations:\n  - name: x\n    diagnose: sideways\ntraces:\n  - path: readback.rtrace\n")
r = env.run(["run", bad, "--db", env.db])
expect(r.returncode == 3 and "bad.yml:3" in r.stderr and "diagnose 'sideways'" in r.stderr,
       f"a bad diagnose: is a manifest error: {r.returncode} {r.stderr.strip()}")

# -j 2: the diagnoses run as the replays do, up to two at once, each in its own folder; each answer lands on
# its own result (that they overlap is not what a test can say without timing them).
many = env.write("many.yml", """label: many
configurations:
  - name: default
""" + "".join(f"""  - name: skip{n}
    skip-draws: "2:{n}"
    diagnose: lavapipe
""" for n in (136, 257)) + """traces:
  - path: readback.rtrace
    frames: [2]
""")
r = env.run(["run", many, "--db", env.db, "-j", "2"])
rows = env.query("SELECT c.configuration, d.outcome, d.draw FROM diagnoses d JOIN results c ON c.id = d.result_id"
                 " JOIN runs u ON u.id = c.run_id WHERE u.label = 'many' ORDER BY c.configuration")
expect(r.returncode == 1 and rows == [("skip136", "diverged", 136), ("skip257", "diverged", 257)]
       and all(f"skip{n} frame 2: diverges at draw {n} of 258" in r.stdout for n in (136, 257)),
       f"-j 2 diagnoses each failing configuration at its own skipped draw: {rows} {r.stdout[-600:]}")

# A frame that fails against its golden but draws the same as the reference: "none" is recorded.
env.copy_trace("vkcube", "vkcube")
env.add_golden("vkcube", 3, env.golden("modern", 1))
cube = env.write("cube.yml", "label: cube\ntraces:\n  - {path: vkcube.rtrace, frames: [3]}\n")
r = env.run(["run", cube, "--db", env.db, "--diagnose", "lavapipe"])
rows = env.query("SELECT d.outcome FROM diagnoses d JOIN results c ON c.id = d.result_id JOIN runs u ON u.id = c.run_id"
                 " WHERE u.label = 'cube'")
expect(r.returncode == 1 and rows == [("none",)] and "no draw of" in r.stdout and "diverges against device:llvmpipe" in r.stdout,
       f"vkcube frame 3 against another trace's golden: none recorded: {rows} {r.stdout}")
finish()
