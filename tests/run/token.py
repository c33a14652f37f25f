#!/usr/bin/env python3
"""tests/run/token.py RETRACE TRACES — `retrace run --server URL --token-file
FILE` with a token file that cannot be used (empty, missing, more than one
line) is exit 3 with one error naming the file, before anything runs (issue
17 §3, "an empty token file is exit 3"): no replay, no run recorded, nothing
left in the spool to be sent with that token later."""
import json
import os
import sys

from runlib import Env, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
env.copy_trace("vkcube", "vkcube")
manifest = env.write("manifest.yml", "traces:\n  - {path: vkcube.rtrace}\n")
argv_log = os.path.join(env.dir, "argv")
wrapper = env.write("log-argv.sh", f'#!/bin/sh\necho "$*" >> {argv_log}\nexec "$@"\n')
os.chmod(wrapper, 0o755)
spool = os.path.join(env.dir, "spool")
files = {"empty": env.write("empty.token", ""), "blank": env.write("blank.token", " \n\n"),
         "two lines": env.write("two.token", "one\ntwo\n"), "missing": os.path.join(env.dir, "no-such.token")}
for what, token in files.items():
    for json_mode in (False, True):
        r = env.run(["run", manifest, "--db", env.db, "--server", "http://127.0.0.1:9", "--token-file", token,
                     "--spool", spool, "--wrapper", wrapper] + (["--json"] if json_mode else []))
        if json_mode:
            doc = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
            said = doc.get("error", {}).get("message", "")
            expect(r.returncode == 3 and os.path.basename(token) in said and r.stderr == "",
                   f"{what} token file, --json: exit 3, one JSON error naming it (exit {r.returncode}: {r.stdout!r} {r.stderr!r})")
        else:
            expect(r.returncode == 3 and r.stderr.count("\n") == 1 and os.path.basename(token) in r.stderr and r.stdout == "",
                   f"{what} token file: exit 3, one line naming it (exit {r.returncode}: {r.stdout!r} {r.stderr!r})")
expect(not os.path.exists(argv_log), "nothing was replayed")
expect(not os.path.exists(env.db) or env.query("SELECT count(*) FROM runs") == [(0,)], "no run was recorded")
expect(not os.path.exists(spool) or os.listdir(spool) == [], "nothing waits in the spool")
finish()
