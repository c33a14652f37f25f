#!/usr/bin/env python3
"""Every memory-tracking path records a program the same way.

Captures PROGRAM once per path the capture can take, forcing each one:
page-guard through userfaultfd's asynchronous write-protect and PAGEMAP_SCAN
(the default where the kernel has it: Linux 6.8), page-guard through
userfaultfd write-protect faults (RETRACE_USERFAULTFD=sync; both skipped
where the kernel refuses them to us), page-guard through SIGSEGV and
mprotect (RETRACE_USERFAULTFD=0) and full copies (--memory-tracking full);
the trace's note must name the path taken, and so must the summary
`retrace capture` prints (text and --json). Then:
  - the calls are identical in every trace (`retrace dump`, which numbers
    handles by first use; sequence numbers dropped, since the paths record
    different numbers of memory updates between the calls, and pointers and
    handle numbers, which depend on the process and the driver's reuse);
  - the memory updates are identical between the page-guard paths;
  - every trace replays with --verify clean, and each replayed frame asked
    for equals the capture-time screenshot of every path.
Exit 0 on success, 1 on a failure (with the reason), 77 to skip (no display).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PATHS = {  # name: (extra capture options, environment, the trace's note)
    "async": ([], {}, "page-guard through userfaultfd asynchronous write-protect"),
    "userfaultfd": ([], {"RETRACE_USERFAULTFD": "sync"}, "page-guard through userfaultfd write-protect faults"),
    "signals": ([], {"RETRACE_USERFAULTFD": "0"}, "page-guard through SIGSEGV"),
    "full": (["--memory-tracking", "full"], {}, "full"),
}


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout


def fail(msg, log=""):
    print(f"FAIL: {msg}")
    if log:
        print(log[-3000:])
    sys.exit(1)


def dump(retrace, trace):
    rc, out = run([retrace, "dump", trace])
    if rc != 0:
        fail(f"retrace dump {trace} exited {rc}", out)
    # Pointers (ppData, the X connection) and X window ids are the process's
    # own, not the path's, and so is handle numbering where the driver reuses
    # a freed handle's value (dump numbers values).
    def same_run(line):
        line = re.sub(r"^\d+ ", "", line)
        line = re.sub(r"0x[0-9a-f]{9,}", "PTR", line)
        line = re.sub(r"window=0x[0-9a-f]+", "window=ID", line)
        return re.sub(r"<(Vk\w+) \d+>", r"<\1>", line)
    lines = [same_run(line) for line in out.splitlines()]
    calls = [line for line in lines if not line.startswith("--")]
    memory = [line for line in lines if line.startswith("-- memory")]
    notes = [line for line in lines if line.startswith("-- annotation") and "memory tracking:" in line]
    return calls, memory, notes


def check_summary(a, name, out, env, extra, note):
    """The capture's printed summary names the path its trace's note names."""
    said = note[note.index("memory tracking:"):]
    if said not in out.splitlines():
        fail(f"{name}: the capture's summary does not say '{said}'", out)
    trace = os.path.join(tempfile.mkdtemp(prefix="rt_paths_json_"), "j.rtrace")
    rc, text = run([a.retrace, "capture", "--json", "-o", trace] + extra + ["--"] + a.program, env)
    shutil.rmtree(os.path.dirname(trace), ignore_errors=True)
    last = json.loads(text.strip().splitlines()[-1]) if rc == 0 and text.strip() else {}
    if last.get("memory_tracking") != said[len("memory tracking: "):]:
        fail(f"{name}: capture --json does not give memory_tracking '{said}'", text)


def capture(a, work, name):
    extra, env, note = PATHS[name]
    trace = os.path.join(work, name + ".rtrace")
    shots = os.path.join(work, name + "-capture")
    rc, out = run([a.retrace, "capture", "-o", trace, "--screenshots", shots, "--screenshot-frames",
                   a.frames] + extra + ["--"] + a.program, env)
    if rc != 0:
        fail(f"{name}: capture exited {rc}", out)
    calls, memory, notes = dump(a.retrace, trace)
    if len(notes) != 1:
        fail(f"{name}: the trace does not name its memory-tracking path once", "\n".join(notes))
    check_summary(a, name, out, env, extra, notes[0])
    if note not in notes[0]:
        if name == "async" and "userfaultfd write-protect faults" in notes[0] or \
                name in ("async", "userfaultfd") and "SIGSEGV" in notes[0]:
            print(f"{name}: not offered here ({notes[0]})")
            return None  # the kernel refused it: that path cannot be forced here
        fail(f"{name}: the trace took another path: {notes[0]}")
    return {"trace": trace, "shots": shots, "calls": calls, "memory": memory}


def replay(a, work, name, t):
    out_dir = os.path.join(work, name + "-replay")
    rc, out = run([a.retrace, "replay", t["trace"], "--verify", "--screenshots", out_dir,
                   "--frames", a.frames])
    if rc != 0 or " 0 divergences" not in out:
        fail(f"{name}: replay --verify exited {rc} or found divergences", out)
    return out_dir


def same_pixels(retrace, x, y):
    rc, out = run([retrace, "compare", x, y])
    m = re.search(r"diff_pixels=(\d+)", out)
    return rc == 0 and m and m.group(1) == "0"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--retrace", required=True)
    ap.add_argument("--frames", default="1,3,5")
    ap.add_argument("program", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    a.program = a.program[1:] if a.program[:1] == ["--"] else a.program
    if not os.environ.get("DISPLAY"):
        print("skip: no DISPLAY")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="rt_paths_")
    try:
        traces = {n: capture(a, work, n) for n in PATHS}
        traces = {n: t for n, t in traces.items() if t}
        first = next(iter(traces))
        for n, t in traces.items():
            if t["calls"] != traces[first]["calls"]:
                diff = [f"{x}\n  vs {y}" for x, y in zip(traces[first]["calls"], t["calls"]) if x != y]
                fail(f"the calls of {n} differ from those of {first} "
                     f"({len(t['calls'])} vs {len(traces[first]['calls'])})", "\n".join(diff[:3]))
        for n in ("async", "userfaultfd"):
            if n in traces and traces[n]["memory"] != traces["signals"]["memory"]:
                diff = [f"{x}\n  vs {y}" for x, y in zip(traces[n]["memory"], traces["signals"]["memory"]) if x != y]
                fail(f"the page-guard paths {n} and signals recorded different memory updates "
                     f"({len(traces[n]['memory'])} vs {len(traces['signals']['memory'])})", "\n".join(diff[:3]))
        for n, t in traces.items():
            replayed = replay(a, work, n, t)
            for f in a.frames.split(","):
                png = f"frame_{int(f):06d}.png"
                for other in traces.values():
                    if not same_pixels(a.retrace, os.path.join(other["shots"], png), os.path.join(replayed, png)):
                        fail(f"{n}: replayed frame {f} differs from a capture-time screenshot")
        print("ok: " + ", ".join(traces))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
