#!/usr/bin/python3
"""tests/integration/capture_summary.py RETRACE LAYER_DIR APP BUSY_THREADS —
`retrace capture`'s summary is the same whether the layer handed its counts
over (TRACE.summary, capture/include/settings.h) or retrace read the whole
trace: frames, calls, bytes, raw bytes and the memory-tracking path, against
`retrace info --json` and `retrace dump` of the same trace. Covers windowed and
offscreen, both tracking modes, a crash (emergency flush: nothing handed
over), a stale TRACE.summary from an earlier run, and the layer enabled by
hand under a parent that is not retrace's (it hands over only to its
RETRACE_OUTPUT_PARENT). Prints TAP."""
import json
import os
import subprocess
import sys
import tempfile

retrace, layer_dir, app, busy = sys.argv[1:5]
work = tempfile.mkdtemp()
n = 0
failed = False


def ok(cond, name, detail=""):
    global n, failed
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} - {name}")
    if not cond:
        failed = True
        for line in str(detail).splitlines():
            print(f"# {line}")


def from_trace(path):
    """What reading the whole trace says (retrace info and dump)."""
    info = json.loads(subprocess.run([retrace, "info", "--json", path], capture_output=True, text=True,
                                     check=True).stdout)
    dump = subprocess.run([retrace, "dump", path], capture_output=True, text=True).stdout
    tracking = next((line.split("memory tracking: ", 1)[1] for line in dump.splitlines()
                     if "annotation" in line and "memory tracking: " in line), None)
    return {"frames": info["frames"], "calls": info["calls"], "bytes": info["bytes_stored"],
            "raw_bytes": info["bytes_raw"], "memory_tracking": tracking}


def capture(name, args, want_exit=0):
    out = os.path.join(work, name + ".rtrace")
    r = subprocess.run([retrace, "capture", "--json", "-o", out] + args, capture_output=True, text=True)
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    ok(r.returncode == want_exit, f"{name}: exit {want_exit}", r.stderr)
    got = {k: summary.get(k) for k in ("frames", "calls", "bytes", "raw_bytes", "memory_tracking")}
    want = from_trace(out)
    ok(got == want, f"{name}: the summary is what the trace holds", f"summary {got}\ntrace   {want}")
    ok(not os.path.exists(out + ".summary"), f"{name}: no {name}.rtrace.summary is left")
    return out


capture("windowed", ["--", app, "--frames", "3"])
capture("offscreen", ["--frame-delimiter", "submit", "--", app, "--offscreen", "--frames", "3"])
capture("full", ["--memory-tracking", "full", "--", app, "--frames", "3"])
capture("crash", ["--frame-delimiter", "submit", "--", busy, "3", "segv", "5"], want_exit=6)

# A summary an earlier run left (its retrace killed before it read it) is not this run's.
stale = os.path.join(work, "stale.rtrace")
with open(stale + ".summary", "w") as f:
    f.write("retrace-capture-summary 1\nframes 99\ncalls 99\npackets 99\nblocks 9\nraw_bytes 9\n"
            "file_bytes 9\ntracking made up\nend\n")
capture("stale", ["--", app, "--frames", "2"])

# By hand: the layer writes TRACE.summary only for its RETRACE_OUTPUT_PARENT.
for parent, wanted in ((os.getpid(), True), (1, False)):
    out = os.path.join(work, f"hand-{wanted}.rtrace")
    env = dict(os.environ, VK_ADD_LAYER_PATH=layer_dir, VK_INSTANCE_LAYERS="VK_LAYER_RETRACE_capture",
               RETRACE_OUTPUT=out, RETRACE_OUTPUT_PARENT=str(parent))
    subprocess.run([app, "--frames", "2"], env=env, capture_output=True, check=True)
    if wanted:
        text = open(out + ".summary").read() if os.path.exists(out + ".summary") else ""
        fields = dict(line.split(" ", 1) for line in text.splitlines()[1:-1] if " " in line)
        want = from_trace(out)
        got = {"frames": int(fields.get("frames", -1)), "calls": int(fields.get("calls", -1)),
               "bytes": int(fields.get("file_bytes", -1)), "raw_bytes": int(fields.get("raw_bytes", -1)),
               "memory_tracking": fields.get("tracking")}
        ok(text.startswith("retrace-capture-summary 1\n") and got == want,
           "by hand, under its RETRACE_OUTPUT_PARENT: the layer hands over the trace's counts",
           f"{text}\ntrace {want}")
    else:
        ok(not os.path.exists(out + ".summary") and any(f.startswith("hand-False-") for f in os.listdir(work)),
           "under another parent: NAME-PID.rtrace and no summary")

print(f"1..{n}")
subprocess.run(["rm", "-rf", work])
sys.exit(1 if failed else 0)
