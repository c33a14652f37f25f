#!/usr/bin/env python3
"""tests/run/killed.py RETRACE TRACES — the runner killed with SIGKILL in the
middle of a run: the traces that had finished are in the store, complete;
the replay in flight does not outlive it; a second run starts cleanly, marks
the killed run aborted (it recorded its host and pid) and removes the work
folder the killed runner left in TMPDIR."""
import os
import signal
import subprocess
import sys
import time

from runlib import WRAPPER, Env, alive, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
for name in ("vkcube", "textured", "particles"):
    env.copy_trace(name, name)
env.check([retrace, "golden", "import", "--db", env.db, os.path.join(traces, "golden")])
env.copy_trace("textured", "stuck")
manifest = """
traces:
  - {path: vkcube.rtrace, frames: [1, 10]}
  - {path: textured.rtrace, frames: [1, 5]}
  - {path: stuck.rtrace, frames: [1, 5], timeout: 600}
  - {path: particles.rtrace, frames: [1, 5]}
"""
env.write("manifest.yml", manifest)
# The runners' TMPDIR is in the test's folder: the SIGKILLed one leaves its work folder there.
tmp = os.path.join(env.dir, "tmp")
os.makedirs(tmp)
env.env["TMPDIR"] = tmp
# Folders the next runner must leave alone: a live process's (ours), and one not named by a pid.
keep = [os.path.join(tmp, f"retrace-run-{os.getpid()}-abcdef"), os.path.join(tmp, "retrace-run-XyZ123")]
for k in keep:
    os.makedirs(k)
runner = subprocess.Popen([retrace, "run", os.path.join(env.dir, "manifest.yml"), "--db", env.db,
                           "--wrapper", "sh " + WRAPPER], env=env.env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
# Wait (by state, not by time) until the stuck replay runs: the two traces before it are done.
pid_file = os.path.join(env.state, "stuck.rtrace.pid")
for _ in range(1200):
    if os.path.exists(pid_file) and os.path.getsize(pid_file) > 0 or runner.poll() is not None:
        break
    time.sleep(0.1)
expect(runner.poll() is None and os.path.exists(pid_file), "the runner reached the stuck trace")
stuck_pid = int(open(pid_file).read())
runner.send_signal(signal.SIGKILL)
runner.wait()

rows = env.query("SELECT t.name, count(*) FROM results r JOIN traces t ON t.id = r.trace_id GROUP BY t.name")
expect(dict(rows) == {"vkcube": 2, "textured": 2}, f"the finished traces are stored, complete: {rows}")
runs = env.query("SELECT id, finished_at, host, pid FROM runs")
expect(len(runs) == 1 and runs[0][1] is None, f"one run, never finished: {runs}")
expect(runs[0][2] == os.uname().nodename and runs[0][3] == runner.pid, f"the run names its host and pid: {runs}")
left = [d for d in os.listdir(tmp) if d.startswith(f"retrace-run-{runner.pid}-")]
expect(len(left) == 1, f"the killed runner left its work folder: {os.listdir(tmp)}")
for _ in range(100):  # the kernel delivers the parent-death signal asynchronously
    if not alive(stuck_pid):
        break
    time.sleep(0.05)
expect(not alive(stuck_pid), "the replay in flight died with the runner")

# SIGTERM (a CI job cancelled): the replay in flight is killed, the run is marked aborted, exit 5.
os.remove(pid_file)
runner = subprocess.Popen([retrace, "run", os.path.join(env.dir, "manifest.yml"), "--db", env.db,
                           "--wrapper", "sh " + WRAPPER], env=env.env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
for _ in range(1200):
    if os.path.exists(pid_file) and os.path.getsize(pid_file) > 0 or runner.poll() is not None:
        break
    time.sleep(0.1)
stuck_pid = int(open(pid_file).read())
runner.send_signal(signal.SIGTERM)
out, err = runner.communicate()
expect(runner.returncode == 5 and "interrupted" in err, f"SIGTERM stops the run: exit {runner.returncode}: {err.strip()}")
expect(not alive(stuck_pid), "the replay in flight is killed")
last = env.query("SELECT outcome, finished_at IS NOT NULL FROM runs ORDER BY id DESC LIMIT 1")
expect(last == [("aborted", 1)], f"the run is recorded as aborted: {last}")
first = env.query("SELECT outcome, finished_at IS NOT NULL FROM runs ORDER BY id LIMIT 1")
expect(first == [("aborted", 1)], f"the SIGKILLed run is marked aborted by the next runner: {first}")
expect("marked 1 earlier run(s) of this host aborted" in err and "removed 1 work folder(s)" in err,
       f"the next runner says what it cleaned: {err.strip()}")
expect(sorted(os.listdir(tmp)) == sorted(os.path.basename(k) for k in keep),
       f"the dead runner's work folder is gone, the others stay: {os.listdir(tmp)}")

env.write("manifest.yml", manifest.replace("  - {path: stuck.rtrace, frames: [1, 5], timeout: 600}\n", ""))
r = env.run(["run", os.path.join(env.dir, "manifest.yml"), "--db", env.db])
expect(r.returncode == 0, f"a second run starts cleanly and passes (exit {r.returncode}) {r.stderr}")
rows = env.query("SELECT run_id, count(*) FROM results GROUP BY run_id ORDER BY run_id")
expect([n for _, n in rows] == [4, 4, 6], f"the killed runs keep their 4 results, the next has 6: {rows}")
env.close()
finish()
