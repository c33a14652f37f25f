#!/usr/bin/env python3
"""Damaged traces never crash the replayer. Usage: damaged.py RETRACE PROGRAM...

Captures PROGRAM (an offscreen run: no display needed), then replays copies of
the trace truncated at many points and with bytes flipped: every replay must
end with exit 0 (the damage was in bytes the replay did not need), 3 (bad
input, with where it stopped) or 4, and never die by a signal."""
import os
import random
import shutil
import subprocess
import sys
import tempfile


def fail(msg, log=""):
    print(f"FAIL: {msg}\n{log[-3000:]}")
    sys.exit(1)


def replay(retrace, path):
    p = subprocess.run([retrace, "replay", path], capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 3, 4):
        fail(f"replay of {os.path.basename(path)} exited {p.returncode}", p.stderr)
    if p.returncode == 3 and "error:" not in p.stderr:
        fail(f"exit 3 without an error message for {os.path.basename(path)}", p.stderr)
    return p.returncode


def main():
    retrace, program = sys.argv[1], sys.argv[2:]
    work = tempfile.mkdtemp(prefix="retrace-damaged-")
    trace = os.path.join(work, "good.rtrace")
    p = subprocess.run([retrace, "capture", "-o", trace, "--frame-delimiter", "submit", "--"] + program,
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("capture failed", p.stdout + p.stderr)
    data = open(trace, "rb").read()
    rng = random.Random(1234)
    codes = {}
    cuts = sorted({0, 1, 7, 64, len(data) // 2, len(data) - 1} | {rng.randrange(len(data)) for _ in range(14)})
    for cut in cuts:
        path = os.path.join(work, f"cut_{cut}.rtrace")
        open(path, "wb").write(data[:cut])
        rc = replay(retrace, path)
        codes[rc] = codes.get(rc, 0) + 1
        if cut < len(data) and rc != 3:
            fail(f"a trace cut at byte {cut} of {len(data)} replayed with exit {rc}, not 3")
    for i in range(20):
        damaged = bytearray(data)
        at = rng.randrange(len(damaged))
        damaged[at] ^= 1 << rng.randrange(8)
        path = os.path.join(work, f"flip_{at}.rtrace")
        open(path, "wb").write(damaged)
        rc = replay(retrace, path)
        codes[rc] = codes.get(rc, 0) + 1
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok: {sum(codes.values())} damaged replays, exit codes {codes}")


if __name__ == "__main__":
    main()
