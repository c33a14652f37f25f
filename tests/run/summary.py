#!/usr/bin/env python3
"""tests/run/summary.py RETRACE TRACES — the summary table `retrace run`
prints (issue 17 §3): a reason too long for the table keeps its end, where
the hash that says what went wrong is (a trace URL whose download does not
have the manifest's sha256: the table must show the download's whole
sha256), and its start (what happened); a short reason is shown whole; a
trace-level result is not called "frame 0" in the JUnit XML."""
import hashlib
import os
import sys
import xml.etree.ElementTree as ET

from runlib import Env, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
source = env.copy_trace("particles", "source")
env.copy_trace("vkcube", "fresh")  # no golden: a short reason
sha = hashlib.sha256(open(source, "rb").read()).hexdigest()
wrong = "0123456789abcdef" * 4
# A long file:// URL: the reason is far longer than the table's column.
deep = os.path.join(env.dir, "a-folder-with-a-rather-long-name", "and-another-one-below-it")
os.makedirs(deep)
os.rename(source, os.path.join(deep, "particles.rtrace"))
url = "file://" + os.path.join(deep, "particles.rtrace")
junit = os.path.join(env.dir, "junit.xml")
manifest = env.write("manifest.yml", f"""
cache: cache
traces:
  - {{name: tampered, url: "{url}", sha256: {wrong}, frames: [1]}}
  - {{name: fresh, path: fresh.rtrace, frames: [1]}}
""")
r = env.run(["run", manifest, "--db", env.db, "--junit", junit])
expect(r.returncode == 1, f"the run fails (exit {r.returncode}): {r.stderr.strip()}")
rows = {line.split()[0]: line for line in r.stdout.splitlines() if line.split()[:1] in (["tampered"], ["fresh"])}
expect(set(rows) == {"tampered", "fresh"}, f"one table row per job: {r.stdout}")
row = rows.get("tampered", "")
print(row)
expect(row.rstrip().endswith(sha), f"the long reason keeps its end, the download's whole sha256 {sha}: {row!r}")
expect("sha256 mismatch" in row, f"and its start, what happened: {row!r}")
expect(" ... " in row and len(row) < 200, f"it is shortened, not printed whole ({len(row)} characters)")
fresh = rows.get("fresh", "")
expect(fresh.rstrip().endswith("no golden for frame 1"), f"a reason that fits is shown whole: {fresh!r}")

# The XML names the result as the trace, not as frame 0 of it.
cases = {c.get("classname") + " " + c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
names = " ".join(cases)
expect("frame 0" not in names, f"a trace-level result is not called frame 0: {names}")
bad = [c.find("error") for c in cases.values() if c.get("classname", "").startswith("tampered.")]
expect(len(bad) == 1 and bad[0] is not None and bad[0].get("message", "").endswith(sha),
       f"the JUnit error carries the whole reason: {[ET.tostring(c) for c in cases.values()]}")
finish()
