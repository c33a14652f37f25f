#!/usr/bin/env python3
"""retrace trim on the sample apps and vkcube. Usage:
trim.py RETRACE CHECK_FAILS NAME=PROGRAM...

Captures each program for 10 frames (windowed: skips, 77, without DISPLAY)
and trims it at its first frame, in the middle and at its last frame, each
with --check (OUT replayed against the original's frames, pixel by pixel).
On the first program (persist: every frame shows all earlier frames' GPU
work) also: a trim of a trim, frame numbers, info and dump of a trimmed
trace, a range past the end (exit 2 naming the last frame), -o naming the
input (exit 2), a check that must fail (CHECK_FAILS), and progress shown on a terminal only.
On persist: a trim of a long range sealed by size, and a damaged input (its
good part is trimmed, or exit 3)."""
import os
import pty
import shutil
import subprocess
import sys
import tempfile

FRAMES = 10
LONG = 600  # frames of the capture trimmed whole (persist: ~3.5 KB raw each, 3 blocks)


def fail(msg, log=""):
    print(f"FAIL: {msg}\n{log[-4000:]}")
    sys.exit(1)


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if expect is not None and p.returncode != expect:
        fail(f"{' '.join(args)} exited {p.returncode}, expected {expect}", p.stdout + p.stderr)
    return p


def trim(retrace, src, frames, out, check=True):
    args = [retrace, "trim", src, "--frames", frames, "-o", out] + (["--check"] if check else [])
    p = run(args)
    if check and "check        ok:" not in p.stdout:
        fail(f"trim {frames} of {src}: no check line", p.stdout)
    return p.stdout


def capture(retrace, work, name, program):
    trace = os.path.join(work, name + ".rtrace")
    count = ["--c", str(FRAMES)] if name == "vkcube" else ["--frames", str(FRAMES)]
    run([retrace, "capture", "-o", trace, "--", program] + count)
    return trace


def hostile(retrace, work, trace):
    out = os.path.join(work, "x.rtrace")
    p = run([retrace, "trim", trace, "--frames", f"9-{FRAMES + 3}", "-o", out], expect=2)
    if f"the last is frame {FRAMES}" not in p.stderr:
        fail("a range past the end does not name the last frame", p.stderr)
    p = run([retrace, "trim", trace, "--frames", "2", "-o", trace], expect=2)
    if "names the trace being trimmed" not in p.stderr:
        fail("-o naming the input is not refused by name", p.stderr)
    run([retrace, "trim", trace, "--frames", "3-2", "-o", out], expect=2)
    # -o into a folder that does not exist: exit 2 before the replay to A (review R3: was exit 5 after it)
    p = run([retrace, "trim", trace, "--frames", "5", "-o", os.path.join(work, "missing", "t.rtrace")], expect=2)
    if "-o: cannot write" not in p.stderr:
        fail("-o into a missing folder is not refused by name", p.stderr)


def damaged(retrace, work, program):
    """A damaged trace: its good part is trimmed, or exit 3. A trim seals
    its blocks by size (a capture by time), so the trim of a long capture of
    persist (frames, no large snapshot) has several blocks of frames
    whatever the machine's speed, and is what is cut."""
    out = os.path.join(work, "x.rtrace")
    long_trace = os.path.join(work, "long.rtrace")
    run([retrace, "capture", "-o", long_trace, "--", program, "--frames", str(LONG)])
    data = open(compact(retrace, work, long_trace), "rb").read()
    cut = os.path.join(work, "cut.rtrace")
    for part in range(31, 0, -1):  # the cut must fall past the first block of frames
        open(cut, "wb").write(data[: len(data) * part // 32])
        lines = run([retrace, "info", cut], expect=3).stdout.splitlines()
        good = int(next((l.split()[1] for l in lines if l.startswith("frames")), 0))  # 0: the header was cut
        if 2 <= good < LONG - 1:
            break
    else:
        fail(f"no cut of a trim of {LONG - 1} frames keeps 2..{LONG - 2} frames")
    p = run([retrace, "trim", cut, "--frames", f"2-{LONG - 1}", "-o", out, "--check"])
    if "is damaged" not in p.stderr or f"frames 2-{good} of" not in p.stdout:
        fail("a damaged trace's good part is not what was trimmed", p.stdout + p.stderr)
    p = run([retrace, "trim", cut, "--frames", f"{good + 1}", "-o", out], expect=3)
    if "damaged" not in p.stderr:
        fail("trimming past a damaged trace's good part does not say so", p.stderr)


def info_numbers(retrace, trace):
    """(blocks, stored bytes, raw bytes) from `info`."""
    lines = run([retrace, "info", trace]).stdout.splitlines()
    blocks = int(next(l.split()[1] for l in lines if l.startswith("blocks")))
    stored, raw = (int(w) for w in next(l for l in lines if l.startswith("bytes")).split()[1:4:2])
    return blocks, stored, raw


def compact(retrace, work, trace):
    """A trim of a long range is sealed by size, as blocks fill, not one
    block per frame (which compressed worse than the capture: glmark2's
    frames 213-20631 were 108 MB, the whole capture 69.6 MB)."""
    out = os.path.join(work, "compact.rtrace")
    trim(retrace, trace, f"2-{LONG}", out, check=False)
    blocks, stored, raw = info_numbers(retrace, out)
    full = raw // (1 << 20) + 1
    if blocks > full + 1:
        fail(f"trim 2-{LONG}: {blocks} blocks for {raw} raw bytes; sealed by size it is at most {full + 1}")
    if full < 3:
        fail(f"trim 2-{LONG}: {raw} raw bytes, too few for the cut that follows; raise LONG")
    return out


def errors(retrace, args):
    p = run([retrace, "replay"] + args + ["--validate"], expect=None)
    m = [l for l in p.stderr.splitlines() if l.startswith("validation: ") and " errors" in l]
    if not m:
        fail(f"replay --validate {' '.join(args)} printed no count", p.stderr)
    return int(m[0].split()[1])


def valid(retrace, trace, trimmed):
    """The snapshot is valid Vulkan: the trimmed replay makes no validation
    error the untrimmed one does not (a fence created signaled and restored
    as signaled by a submit was one)."""
    own, cut = errors(retrace, [trace, "--end-frame", "6"]), errors(retrace, [trimmed])
    if cut > own:
        fail(f"{trimmed}: {cut} validation errors, the untrimmed replay {own}")


def trim_of_trim(retrace, work, trace):
    first = os.path.join(work, "t_4_9.rtrace")
    second = os.path.join(work, "t_4_9_2_3.rtrace")
    trim(retrace, trace, "4-9", first)
    trim(retrace, first, "2-3", second)
    info = run([retrace, "info", second]).stdout
    if "trimmed      frames 2-3 of t_4_9.rtrace (6 frames" not in info or "frames       2\n" not in info:
        fail("info of a trim of a trim", info)
    dump = run([retrace, "dump", second]).stdout.splitlines()
    if "snapshot begin: state at frame 2 of t_4_9.rtrace" not in dump[0] or "snapshot guard" not in dump[1]:
        fail("dump does not show the snapshot as a block", "\n".join(dump[:3]))
    if not any("-- end of frame 2" in l for l in dump):
        fail("frames of a trimmed trace do not count from 1", "\n".join(dump[-5:]))


def progress(retrace, work, trace):
    """`frame N of M` while replaying to A, on a terminal (stderr a pty), and
    not when stderr is a file or pipe."""
    out = os.path.join(work, "progress.rtrace")
    args = [retrace, "trim", trace, "--frames", "5", "-o", out]
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    if p.wait(timeout=600) != 0 or b"\rframe 4 of 4" not in seen:
        fail("no progress on a terminal", seen.decode(errors="replace"))
    quiet = run(args).stderr
    if "frame 1 of" in quiet:
        fail("progress written to a pipe", quiet)


def manifest_trim(retrace, work, trace):
    """retrace run: `trim: 5-6` replays the cached trim (made once, keyed by sha256 and range),
    in a cache folder whose parents do not exist yet (a fresh $HOME has no ~/.cache/retrace)."""
    m = os.path.join(work, "m.yml")
    open(m, "w").write(f"cache: fresh/home/cache\ntraces:\n  - {{name: t56, path: {trace}, trim: 5-6, frames: [1, 2]}}\n")
    db = os.path.join(work, "run.sqlite")
    p = run([retrace, "run", m, "--db", db], expect=None)
    cache = os.path.join(work, "fresh", "home", "cache", "trim")
    made = os.listdir(cache) if os.path.isdir(cache) else []
    if p.returncode not in (0, 1) or len(made) != 1 or not made[0].endswith("-5-6.rtrace") or " error " in p.stdout:
        fail("retrace run with trim: 5-6 made no cached trim", p.stdout + p.stderr)
    first = os.stat(os.path.join(cache, made[0])).st_mtime_ns
    run([retrace, "run", m, "--db", db], expect=None)
    if os.stat(os.path.join(cache, made[0])).st_mtime_ns != first:
        fail("the second run trimmed again instead of using the cache")


def main():
    retrace, check_fails = sys.argv[1], sys.argv[2]
    if not os.environ.get("DISPLAY"):
        print("skip: no DISPLAY (the programs present to a window)")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="retrace-trim-")
    done = []
    for spec in sys.argv[3:]:
        name, program = spec.split("=", 1)
        trace = capture(retrace, work, name, program)
        for frames in ["1", "5-6", str(FRAMES)]:
            trim(retrace, trace, frames, os.path.join(work, f"{name}_{frames}.rtrace"))
        valid(retrace, trace, os.path.join(work, f"{name}_5-6.rtrace"))
        if not done:
            trim_of_trim(retrace, work, trace)
            hostile(retrace, work, trace)
            manifest_trim(retrace, work, trace)
            progress(retrace, work, trace)
            p = run([check_fails, trace, work])
            print(p.stdout.strip())
        if name == "persist":
            damaged(retrace, work, program)
        done.append(name)
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok: trimmed {', '.join(done)} at frames 1, 5-6 and {FRAMES}: identical under --check")


if __name__ == "__main__":
    main()
