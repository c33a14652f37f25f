"""tests/run/runlib.py — shared set-up for the `retrace run` tests: a work
folder with copies of the bundled traces, a golden store, manifests, and
helpers to run retrace and read the store back (sqlite3 from Python's
standard library: the test reads what the runner wrote, not what it says)."""
import atexit
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WRAPPER = os.path.join(HERE, "wrapper.sh")


class Env:
    def __init__(self, retrace, traces):
        self.retrace = retrace
        self.traces = traces
        self.dir = tempfile.mkdtemp(prefix="rt-run-test-")
        atexit.register(self.close)  # also when a check ends the test early
        self.state = os.path.join(self.dir, "state")
        os.makedirs(self.state)
        self.db = os.path.join(self.dir, "golden.db")
        self.env = dict(os.environ, RT_TEST_STATE=self.state, RETRACE_CACHE=os.path.join(self.dir, "cache"),
                        RETRACE_SPOOL=os.path.join(self.dir, "spool"))
        for k in ("CI_NODE_INDEX", "CI_NODE_TOTAL", "RETRACE_DB"):
            self.env.pop(k, None)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def copy_trace(self, bundled, name):
        dst = os.path.join(self.dir, name + ".rtrace")
        shutil.copyfile(os.path.join(self.traces, bundled + ".rtrace"), dst)
        return dst

    def golden(self, bundled, frame):
        """The bundled golden PNG of (trace, frame)."""
        with open(os.path.join(self.traces, "golden", "index.json")) as f:
            index = json.load(f)
        entries = index["goldens"] if isinstance(index, dict) else index
        for e in entries:
            if e["trace"] == bundled and e["frame"] == frame:
                return os.path.join(self.traces, "golden", e["file"])
        raise KeyError((bundled, frame))

    def add_golden(self, trace, frame, png):
        self.check([self.retrace, "golden", "add", "--db", self.db, "--trace", trace, "--frame", str(frame), png])

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run(self, args, **kw):
        return subprocess.run([self.retrace] + args, env=self.env, capture_output=True, text=True, **kw)

    def check(self, cmd):
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr}")
        return r

    def query(self, sql, *args):
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            return con.execute(sql, args).fetchall()
        finally:
            con.close()


def alive(pid):
    """True while PID exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


failures = []


def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def fail(what):
    print("FAIL: " + what)
    sys.exit(1)


def finish():
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all checks passed")
