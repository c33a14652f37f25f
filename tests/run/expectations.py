#!/usr/bin/env python3
"""tests/run/expectations.py RETRACE TRACES — expectations and a new device:
a trace the manifest says to skip is not replayed (JUnit: skipped); an
expected crash (from the store) and an expected hang (from the manifest) are
recorded as crash and timeout but are no regression and are not retried; a
device-specific expectation for another device does not apply. A new device
set up with --update-goldens gets its goldens, and the next run passes."""
import json
import os
import sys
import xml.etree.ElementTree as ET

from runlib import WRAPPER, Env, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
for name in ("vkcube", "modern"):
    env.copy_trace(name, name)
for name in ("crash", "hang", "skipped", "other"):
    env.copy_trace("textured", name)
for name in ("crash", "hang", "skipped", "other"):
    env.add_golden(name, 1, env.golden("textured", 1))
env.add_golden("vkcube", 1, env.golden("vkcube", 1))
env.check([retrace, "golden", "expect", "--db", env.db, "--trace", "crash", "crash", "--note", "driver bug 42"])
manifest = env.write("manifest.yml", """
traces:
  - {path: vkcube.rtrace}
  - {path: modern.rtrace, frames: [1, 5]}
  - {path: crash.rtrace}
  - {path: hang.rtrace, timeout: 2, expect: {status: hang, note: waits for a fence forever}}
  - {path: skipped.rtrace, expect: [{device: "*", status: skip, note: too slow here}]}
  - {path: other.rtrace, expect: [{device: "10de:*", status: skip, note: only on NVIDIA}]}
""")
# The replay report names the device: a skip for this device's name applies.
env.copy_trace("textured", "lavapipe-only")
with open(manifest, "a") as f:
    f.write('  - {path: lavapipe-only.rtrace, expect: [{device: "llvmpipe*", status: skip}]}\n')
junit = os.path.join(env.dir, "junit.xml")
r = env.run(["run", manifest, "--db", env.db, "--wrapper", "sh " + WRAPPER, "--retries", "2", "--json",
             "--junit", junit, "--update-goldens", "--device-key", "test:0001/1", "-j", "3"])
expect(r.returncode == 0, f"expected failures and new frames are no regression: exit {r.returncode} {r.stderr}")
res = {}
for x in json.loads(r.stdout)["results"]:
    res.setdefault(x["trace"], []).append(x)
expect("skipped" not in res, "the skipped trace has no result")
expect([x["status"] for x in res["other"]] == ["pass"], "an expectation for another device does not apply")
c = res["crash"][0]
expect(c["status"] == "crash" and c["expected"] == "crash" and not c["regression"] and c["attempts"] == 1,
       f"the expected crash (from the store) is recorded, not a regression, not retried: {c['attempts']} attempt(s)")
h = res["hang"][0]
expect(h["status"] == "timeout" and h["expected"] == "hang" and not h["regression"] and h["attempts"] == 1,
       "the expected hang is recorded as a timeout, not a regression, not retried")
m = res["modern"]
expect([x["status"] for x in m] == ["new", "new"] and all("now golden" in x["message"] for x in m),
       f"--update-goldens makes the new frames goldens: {[x['message'] for x in m]}")
cases = ET.parse(junit).getroot().find("testsuite").findall("testcase")
skipped = [c.get("classname") for c in cases if c.find("skipped") is not None]
expect(skipped == ["skipped.default", "lavapipe-only.default"], f"JUnit marks the skipped traces: {skipped}")
listed = env.run(["golden", "list", "--db", env.db, "--trace", "modern", "--device", "test:0001/1"]).stdout
expect(len(listed.splitlines()) == 2, f"the new goldens are this device's: {listed!r}")

# The new device's next run: modern passes against its own goldens.
env.write("manifest.yml", "traces:\n  - {path: modern.rtrace, frames: [1, 5]}\n")
r = env.run(["run", manifest, "--db", env.db, "--json", "--device-key", "test:0001/1"])
expect(r.returncode == 0 and [x["status"] for x in json.loads(r.stdout)["results"]] == ["pass", "pass"],
       "the next run on the new device passes")
r = env.run(["run", manifest, "--db", env.db, "--json", "--device-key", "other:0002/1"])
expect([x["status"] for x in json.loads(r.stdout)["results"]] == ["new", "new"],
       "another device does not see them")
# The device is found before the first job (issue 17 §3): a name glob skips the
# very first trace, also when --device-key names the key, and a crash
# expected of the first trace applies to its first replay.
first = env.write("first.yml", """
traces:
  - {path: skipped.rtrace, expect: [{device: "llvmpipe*", status: skip, note: not here}]}
  - {path: crash.rtrace}
""")
r = env.run(["run", first, "--db", env.db, "--device-key", "my-farm-key", "--json",
             "--wrapper", "sh " + WRAPPER])
body = json.loads(r.stdout.strip().splitlines()[-1])
traces_seen = [x["trace"] for x in body["results"]]
expect("skipped" not in traces_seen, f"the glob on the device name skips the first trace with --device-key: {traces_seen}")
crash = [x for x in body["results"] if x["trace"] == "crash"]
expect(crash and crash[0]["status"] == "crash" and crash[0]["expected"] == "crash" and not crash[0]["regression"],
       f"the store's crash expectation applies from the first replay: {crash}")
env.close()
finish()
