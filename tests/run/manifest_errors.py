#!/usr/bin/env python3
"""tests/run/manifest_errors.py RETRACE — every kind of mistake in a manifest
is exit 3 with one line "retrace: error: FILE:LINE: what is wrong", before
anything is replayed or recorded."""
import os
import sys

from runlib import Env, expect, finish

env = Env(sys.argv[1], None)
ok_trace = "traces:\n  - path: a.rtrace\n"
cases = [
    # (manifest text, line, words the message must have)
    ("traces:\n  - path: a.rtrace\n    frame: 1\n", 3, "unknown key 'frame' in a trace"),
    ("lable: x\n" + ok_trace, 1, "unknown key 'lable' in the manifest"),
    ("traces:\n  - path: a.rtrace\n    threshold: 1.5\n", 3, "threshold must be a number from 0 to 1"),
    ("traces:\n  - path: a.rtrace\n    tile-threshold: nan\n", 3, "tile-threshold must be a number"),
    ("traces:\n  - path: a.rtrace\n    timeout: -5\n", 3, "timeout must be seconds"),
    ("traces:\n  - path: a.rtrace\n    frames: all\n", 3, "frames must name 1 to"),
    ("traces:\n  - path: a.rtrace\n    frames: 1,x\n", 3, "frames:"),
    ("traces:\n  - url: http://h/a.rtrace\n", 2, "a url needs its sha256"),
    ("traces:\n  - url: http://h/a.rtrace\n    sha256: abc\n", 3, "sha256 must be 64"),
    ("traces:\n  - path: a.rtrace\n    url: http://h/a.rtrace\n", 2, "either path or url"),
    ("traces:\n  - name: a\n", 2, "either path or url"),
    (ok_trace + "  - path: b/a.rtrace\n", 3, "trace 'a' is already listed on line 2"),
    ("traces:\n  - path: a.rtrace\n    expect: [{status: maybe}]\n", 3, "status must be skip, flaky, crash or hang"),
    ("traces:\n  - path: a.rtrace\n    configurations: [nope]\n", 3, "no configuration named 'nope'"),
    ("configurations:\n  - name: a\n  - name: a\n" + ok_trace, 3, "configuration 'a' is already defined on line 2"),
    ("configurations:\n  - name: a\n    delays: [fast]\n" + ok_trace, 3, "delay 'fast' must be EVENT=DURATION"),
    ("configurations:\n  - workarounds: [x]\n" + ok_trace, 2, "a configuration needs a name"),
    ("configurations:\n  - name: a b\n" + ok_trace, 2, "configuration name 'a b'"),
    ("defaults:\n  frames: [1]\n  frames: [2]\n" + ok_trace, 3, "duplicate key 'frames' in defaults"),
    ("configurations:\n  - name: a\n    delays: [" + ", ".join(["submit=1ms"] * 33) + "]\n" + ok_trace, 2,
     "at most 32 workaround sets and 32 delays"),
    ("label: x\n", 1, "the manifest needs a list of traces"),
    ("traces: []\n", 1, "the list of traces is empty"),
    # what only the replay knows is checked at load too, before anything runs (issue 17 §3)
    ("configurations:\n  - name: a\n    workarounds: [no-such-thing]\n" + ok_trace, 2,
     "configuration a: unknown workaround or set 'no-such-thing'"),
    ("configurations:\n  - name: a\n    delays: [warp=1ms]\n" + ok_trace, 2, "configuration a: --delay:"),
    ("traces: [\n", 2, "did not find expected node content"),
    ("- a\n- b\n", 1, "the manifest must be a mapping"),
    ("", 1, "the manifest is empty"),
]
for i, (text, line, words) in enumerate(cases):
    path = env.write(f"m{i}.yml", text)
    r = env.run(["run", path, "--db", env.db])
    err = r.stderr.strip()
    expect(r.returncode == 3 and err.startswith(f"retrace: error: {path}:{line}: ") and words in err
           and len(err.splitlines()) == 1, f"case {i}: exit {r.returncode}: {err!r}")
expect(not os.path.exists(env.db), "nothing was recorded for a bad manifest")
# half of GitLab's shard variables is an error, not a silent whole run
good = env.write("good.yml", ok_trace)
env.env["CI_NODE_INDEX"] = "2"
r = env.run(["run", good, "--db", env.db, "--list"])
del env.env["CI_NODE_INDEX"]
expect(r.returncode == 2 and "CI_NODE_INDEX is set without CI_NODE_TOTAL" in r.stderr,
       f"CI_NODE_INDEX without CI_NODE_TOTAL: exit {r.returncode}: {r.stderr.strip()}")
# a store that cannot be opened: one error (one JSON object with --json), no summary, no run id
for extra in ([], ["--json"]):
    r = env.run(["run", good, "--db", os.path.join(env.dir, "no", "such", "dir.db")] + extra)
    out = (r.stdout + r.stderr).strip()
    expect(r.returncode == 3 and len(out.splitlines()) == 1 and "passed" not in out and "recorded as run" not in out
           and (not extra or out.startswith('{"error"')), f"an unopenable store {extra}: exit {r.returncode}: {out!r}")
r = env.run(["run", os.path.join(env.dir, "missing.yml"), "--db", env.db])
expect(r.returncode == 3 and "cannot open manifest" in r.stderr, f"a missing manifest is exit 3: {r.stderr.strip()}")
env.close()
finish()
