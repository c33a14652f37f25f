#!/usr/bin/env python3
"""retrace capture --trim-frames: the trimmed trace made at the program's end.
Usage: capture_trim.py RETRACE PROGRAM (rt_app_persist: every frame shows all
earlier frames' GPU work, the same on every run).

- finished: `--trim-frames 4-6` of a 10-frame run writes a 3-frame trimmed
  trace whose frames are pixel-identical to frames 4-6 of a whole capture,
  and leaves no untrimmed trace behind;
- killed: the program killed (SIGKILL) mid-run, and retrace sent SIGTERM
  (passed on to the program): each writes the trimmed trace, ends as the
  program did, and leaves no untrimmed trace (nor its .part);
- a run that ends before frame A is exit 3 and leaves nothing; a bad range
  and --screenshots with it are exit 2.
Exit 0 on success, 1 on failure, 77 to skip (no display)."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def fail(msg, log=""):
    print(f"FAIL: {msg}\n{log[-4000:]}")
    sys.exit(1)


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if expect is not None and p.returncode != expect:
        fail(f"{' '.join(args)} exited {p.returncode}, expected {expect}", p.stdout + p.stderr)
    return p


def leftovers(work):
    return [n for n in os.listdir(work) if "untrimmed" in n]


def frames_of(retrace, trace):
    info = run([retrace, "info", trace]).stdout
    m = re.search(r"^frames\s+(\d+)", info, re.M)
    t = re.search(r"^trimmed\s+frames (\d+)-(\d+)", info, re.M)
    if not m or not t:
        fail(f"{trace} is not a trimmed trace", info)
    return int(m.group(1)), (int(t.group(1)), int(t.group(2)))


def identical(retrace, work, trimmed, whole, first, count):
    """OUT's frames 1..count against WHOLE's frames first..first+count-1."""
    a, b = os.path.join(work, "a"), os.path.join(work, "b")
    run([retrace, "replay", trimmed, "--screenshots", a, "--frames", f"1-{count}"])
    run([retrace, "replay", whole, "--screenshots", b, "--frames", f"{first}-{first + count - 1}"])
    for i in range(count):
        p = run([retrace, "compare", os.path.join(b, f"frame_{first + i:06d}.png"),
                 os.path.join(a, f"frame_{i + 1:06d}.png")])
        if "diff_pixels=0 " not in p.stdout:
            fail(f"trimmed frame {i + 1} differs from the whole capture's frame {first + i}", p.stdout)


def finished(retrace, work, program):
    out, whole = os.path.join(work, "t.rtrace"), os.path.join(work, "whole.rtrace")
    p = run([retrace, "capture", "--trim-frames", "4-6", "-o", out, "--", program, "--frames", "10"])
    if "trimmed frames 4-6 of the run's 10" not in p.stderr or "frames: 3 " not in p.stdout:
        fail("the capture does not say what it trimmed", p.stdout + p.stderr)
    if leftovers(work):
        fail(f"the untrimmed trace was left: {leftovers(work)}")
    if frames_of(retrace, out) != (3, (4, 6)):
        fail(f"{out} does not hold frames 4-6", run([retrace, "info", out]).stdout)
    run([retrace, "capture", "-o", whole, "--", program, "--frames", "10"])
    identical(retrace, work, out, whole, 4, 3)


def child_of(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        kids = f.read().split()
    return int(kids[0]) if kids else None


def killed(retrace, work, program, whom):
    out = os.path.join(work, f"k-{whom}.rtrace")
    part = os.path.join(work, f"k-{whom}.untrimmed.rtrace.part")
    proc = subprocess.Popen([retrace, "capture", "--trim-frames", "2-4", "-o", out, "--", program,
                             "--frames", "1000000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300  # a loaded machine runs the program slowly
    while not (os.path.exists(part) and os.path.getsize(part) > 64 * 1024):
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            fail("the capture ended or never wrote 64 KiB", proc.communicate()[1])
        time.sleep(0.1)
    if whom == "program":
        os.kill(child_of(proc.pid), signal.SIGKILL)
    else:
        proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=600)
    want = 6 if whom == "program" else -signal.SIGTERM
    if proc.returncode != want:
        fail(f"killed ({whom}): exit {proc.returncode}, expected {want}", stdout + stderr)
    if leftovers(work):
        fail(f"killed ({whom}): the untrimmed trace was left: {leftovers(work)}", stderr)
    if frames_of(retrace, out) != (3, (2, 4)):
        fail(f"killed ({whom}): {out} does not hold frames 2-4", stderr)
    run([retrace, "replay", out])


def refused(retrace, work, program):
    out = os.path.join(work, "r.rtrace")
    p = run([retrace, "capture", "--trim-frames", "50-60", "-o", out, "--", program, "--frames", "5"], expect=3)
    if "ended after 5 frames, before frame 50" not in p.stderr:
        fail("a run that ended before frame A does not say so", p.stderr)
    if os.path.exists(out) or leftovers(work):
        fail("a run that ended before frame A left a trace", str(os.listdir(work)))
    run([retrace, "capture", "--trim-frames", "0-3", "-o", out, "--", program], expect=2)
    run([retrace, "capture", "--trim-frames", "2", "--screenshots", work, "-o", out, "--", program], expect=2)


def main():
    retrace, program = sys.argv[1:3]
    if not os.environ.get("DISPLAY"):
        print("SKIP: needs a display")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="retrace-capture-trim-")
    finished(retrace, work, program)
    killed(retrace, work, program, "program")
    killed(retrace, work, program, "retrace")
    refused(retrace, work, program)
    shutil.rmtree(work, ignore_errors=True)
    print("ok: --trim-frames finished, killed (program, retrace), refused")


if __name__ == "__main__":
    main()
