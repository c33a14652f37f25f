#!/usr/bin/env python3
"""tests/run/acceptance.py RETRACE TRACES — the acceptance run of issue 11:
one manifest where one trace is corrupt, one hangs, one crashes, one
regresses (its golden is another trace's), one has no golden, one is
expected flaky and passes on a retry, and the rest pass. Every one must be
recorded with the right status and reason, JUnit must list all of them, and
retrace run must exit 1. A second hang comes from an injected delay
(retrace replay --delay) past the trace's timeout."""
import json
import os
import sys
import xml.etree.ElementTree as ET

from runlib import WRAPPER, Env, alive, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)

for name in ("vkcube", "textured", "particles", "modern"):
    env.copy_trace(name, name)
for name in ("crash", "hang", "flaky"):
    env.copy_trace("textured", name)
# Corrupt: the first two thirds of a trace, the rest gone.
with open(os.path.join(traces, "textured.rtrace"), "rb") as f:
    data = f.read()
with open(os.path.join(env.dir, "corrupt.rtrace"), "wb") as f:
    f.write(data[: len(data) * 2 // 3])

for name, frames in (("vkcube", (1, 10)), ("textured", (1, 5))):
    for fr in frames:
        env.add_golden(name, fr, env.golden(name, fr))
for name in ("crash", "hang", "flaky", "corrupt"):
    for fr in (1, 5):
        env.add_golden(name, fr, env.golden("textured", fr))
env.add_golden("particles", 1, env.golden("modern", 1))  # another trace's golden: a regression
env.add_golden("particles", 5, env.golden("particles", 5))
# modern: no golden at all

env.copy_trace("vkcube", "slow")
env.copy_trace("textured", "seen-bad")  # renders what somebody marked known-bad
env.add_golden("seen-bad", 1, env.golden("vkcube", 1))
for fr in (1, 5):
    bad_id = env.check([retrace, "golden", "add", "--db", env.db, "--trace", "seen-bad", "--frame", str(fr),
                        env.golden("textured", fr)]).stdout.strip()
    env.check([retrace, "golden", "mark", "--db", env.db, bad_id, "known-bad"])
env.copy_trace("vkcube", "robust")  # replayed under a real workaround set: passes
# (an unknown workaround set no longer reaches a replay: the manifest is refused
# at load, exit 3 naming its line: tests/run/manifest_errors.py, issue 17 §3)
env.add_golden("robust", 1, env.golden("vkcube", 1))
env.write("manifest.yml", f"""
label: acceptance
defaults: {{frames: [1, 5], timeout: 60}}
configurations:
  - name: default
  - name: very-slow
    delays: [present=30s]
  - {{name: robust, workarounds: [robust], delays: [create-pipeline=5ms~2ms], seed: 3}}
traces:
  - {{path: vkcube.rtrace, frames: [1, 10], configurations: [default]}}
  - {{path: textured.rtrace, configurations: [default]}}
  - {{path: particles.rtrace, configurations: [default]}}
  - {{path: modern.rtrace, configurations: [default]}}
  - {{path: corrupt.rtrace, configurations: [default]}}
  - {{path: crash.rtrace, configurations: [default]}}
  - {{path: hang.rtrace, timeout: 3, configurations: [default]}}
  - path: flaky.rtrace
    configurations: [default]
    expect: [{{device: "*", status: flaky, note: races with the compositor}}]
  - {{path: slow.rtrace, frames: [1], timeout: 3, configurations: [very-slow]}}
  - {{path: robust.rtrace, frames: [1], configurations: [robust]}}
  - {{path: seen-bad.rtrace, configurations: [default]}}
""")

junit = os.path.join(env.dir, "junit.xml")
r = env.run(["run", os.path.join(env.dir, "manifest.yml"), "--db", env.db, "--wrapper", "sh " + WRAPPER,
             "--retries", "1", "-j", "2", "--junit", junit, "--json"])
print(r.stderr)
expect(r.returncode == 1, f"retrace run exits 1 on a regression (got {r.returncode})")
doc = json.loads(r.stdout)
by = {}
for res in doc["results"]:
    by.setdefault(res["trace"], []).append(res)


def statuses(trace):
    return sorted({x["status"] for x in by.get(trace, [])})


def messages(trace):
    return " | ".join(x["message"] for x in by.get(trace, []))


expect(statuses("vkcube") == ["pass"] and len(by["vkcube"]) == 2, "vkcube: both frames pass")
expect(statuses("textured") == ["pass"], "textured passes")
expect(statuses("particles") == ["fail", "pass"] and "ssim" in messages("particles"),
       f"particles regresses on frame 1 against another trace's golden: {messages('particles')}")
frame1 = [x for x in by["particles"] if x["frame"] == 1][0]
expect(frame1["ssim"] < 0.99 and frame1["regression"] and frame1["golden_hash"],
       "the regression carries its SSIM and the golden it was compared with")
expect(statuses("modern") == ["new"] and not any(x["regression"] for x in by["modern"]),
       "modern has no golden: new, not a regression")
expect(statuses("corrupt") == ["error"] and "exited 3" in messages("corrupt"),
       f"the corrupt trace is an error with the replay's reason: {messages('corrupt')}")
expect(statuses("crash") == ["crash"] and "signal 11" in messages("crash") and by["crash"][0]["attempts"] == 2,
       f"the crash is a crash (signal 11), retried once: {messages('crash')}")
expect(statuses("hang") == ["timeout"] and "3 s" in messages("hang") and "waiting forever" in messages("hang"),
       f"the hang is a timeout with its last output: {messages('hang')}")
pid_file = os.path.join(env.state, "hang.rtrace.pid")
expect(os.path.exists(pid_file) and not alive(int(open(pid_file).read())),
       "the hung replay's own child was killed with its process group")
expect(statuses("flaky") == ["flaky"] and all(x["attempts"] == 2 and not x["regression"] for x in by["flaky"])
       and "crash" in messages("flaky"), f"the expected flaky trace passed on its retry: flaky: {messages('flaky')}")
expect(statuses("slow") == ["timeout"] and "present=30s" in messages("slow"),
       f"a delay past the timeout is a timeout: {messages('slow')}")

seen = {x["frame"]: x for x in by["seen-bad"]}
expect(all(seen[f]["status"] == "fail" and "matches known-bad golden" in seen[f]["message"] for f in (1, 5))
       and seen[5]["ssim"] == 1, f"a known-bad rendering is recognised, also where no accepted golden exists: "
       f"{messages('seen-bad')}")
rob = by["robust"][0]
expect(rob["status"] == "pass" and rob["report"]["configuration"]["workaround_sets"] == ["robust"]
       and rob["report"]["configuration"]["seed"] == 3, "a workaround set and a delay reach the replay (its report says so)")

# The store holds what the JSON says.
rows = env.query("SELECT t.name, r.frame, r.status, r.attempts, r.configuration FROM results r "
                 "JOIN traces t ON t.id = r.trace_id JOIN runs u ON u.id = r.run_id WHERE u.uuid = ?",
                 doc["run"]["id"])
stored = sorted((n, f, s) for n, f, s, _, _ in rows)
from_json = sorted((x["trace"], x["frame"], x["status"]) for x in doc["results"])
expect(stored == from_json and len(rows) > 0, f"the store has every result ({len(rows)} rows)")
outcome = env.query("SELECT outcome, finished_at IS NOT NULL FROM runs WHERE uuid = ?", doc["run"]["id"])
expect(outcome == [("failed", 1)], f"the run is recorded finished and failed: {outcome}")

# JUnit lists every trace, with failures and errors for the regressions only.
suite = ET.parse(junit).getroot().find("testsuite")
cases = suite.findall("testcase")
classes = {c.get("classname").split(".")[0] for c in cases}
expect(classes == set(by), f"JUnit lists every trace: {sorted(classes)}")
expect(len(cases) == len(doc["results"]), f"one testcase per trace x configuration x frame ({len(cases)})")
failed = {c.get("classname").split(".")[0] for c in cases if c.find("failure") is not None}
errored = {c.get("classname").split(".")[0] for c in cases if c.find("error") is not None}
want_err = {"corrupt", "crash", "hang", "slow"}
expect(failed == {"particles", "seen-bad"} and errored == want_err, f"JUnit failures {sorted(failed)}, errors {sorted(errored)}")
msg = [c.find("failure").get("message") for c in cases if c.find("failure") is not None][0]
expect("ssim" in msg and "below 0.99" in msg, f"the failure message has the numbers: {msg}")

env.close()
finish()
