#!/usr/bin/env python3
"""Replay configurations proven on the bugs they exist for.

  config_samples.py CASE RETRACE OOB RACE UNINIT TRACES_DIR

CASE is one of:
  robust-buffer-access  rt_app_oob replayed with the workaround: the report
                        names the features enabled, the reads past the end
                        give black cells, the frames match the capture's and
                        are the same in two replays
  readback-race         rt_app_race: --validate sync reports the hazard (exit
                        1); with readback-barrier, hazards 0, the report counts
                        barriers and waits, screenshots unchanged
  zero-init             rt_app_uninit: with zero-init the never-written buffer
                        shows black, the same in two replays
  delays                counts and sums from the report: P pipeline creations
                        delayed P times by exactly 25 ms, one gpu stall per
                        submission, the same seed drawing the same jitter;
                        screenshots identical to an undelayed replay
  pipeline-cache        every bad cache file gives one notice and a working
                        replay; two replays saving at once leave a valid file

No wall-clock assertions: timings are bench/'s (bench/config.sh).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

SKIP = 77


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240, **kw)
    return p.returncode, p.stdout


def fail(msg, log=""):
    print(log)
    print(f"FAIL: {msg}")
    sys.exit(1)


class Case:
    def __init__(self, argv):
        self.name, self.retrace, self.oob, self.race, self.uninit, self.traces = argv
        self.work = tempfile.mkdtemp(prefix="rt_config_")

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def capture(self, exe, frames=3):
        """A windowed capture (frames end at presents) with capture-time screenshots of 1 and FRAMES."""
        trace = self.path(os.path.basename(exe) + ".rtrace")
        cmd = [self.retrace, "capture", "-o", trace, "--screenshots", self.path("cap"),
               "--screenshot-frames", f"1,{frames}", "--", exe, "--frames", str(frames)]
        rc, out = run(cmd)
        for _ in range(3):  # a busy Xvfb refused the connection: not what is tested here
            if "Cannot connect to XCB" not in out and "cannot open an X display" not in out:
                break
            time.sleep(1)
            rc, out = run(cmd)
        if rc != 0:
            fail(f"capture of {exe} exited {rc}", out)
        return trace

    def replay(self, trace, tag, *args, want=0):
        shots, report = self.path(tag), self.path(tag + ".json")
        rc, out = run([self.retrace, "replay", trace, "--screenshots", shots, "--frames", "1,3",
                       "--report", report] + list(args))
        if rc != want:
            fail(f"replay '{tag}' exited {rc}, expected {want}", out)
        with open(report) as f:
            return json.load(f), shots, out

    def same(self, a, b, frames=(1, 3)):
        for n in frames:
            pa, pb = (os.path.join(d, f"frame_{n:06d}.png") for d in (a, b))
            rc, out = run([self.retrace, "compare", pa, pb])
            if rc != 0 or "diff_pixels=0 " not in out:
                fail(f"frame {n} differs between {a} and {b}", out)


def pixels(png):
    """Rows of (r, g, b) of an 8-bit RGB or RGBA PNG (what retrace writes): stdlib only."""
    with open(png, "rb") as f:
        data = f.read()
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            if depth != 8 or color not in (2, 6):
                fail(f"{png}: not 8-bit RGB(A)")
            channels = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c]
            line[i] = (line[i] + pred[ftype]) & 0xff
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return rows


def grid_cell(img, i, cols=16, rows=8):
    h, w = len(img), len(img[0])
    x = (i % cols) * w // cols + w // cols // 2
    y = (i // cols) * h // rows + h // rows // 2
    return img[y][x]


def robust_buffer_access(c):
    trace = c.capture(c.oob)
    rep, shots, out = c.replay(trace, "robust", "--workarounds", "robust-buffer-access", "--validate")
    acted = rep["workarounds_acted"].get("robust-buffer-access")
    if not acted or "robustBufferAccess" not in acted["features"]:
        fail("the report does not name robustBufferAccess as enabled", json.dumps(rep, indent=1))
    if rep["configuration"]["workarounds"] != ["robust-buffer-access"]:
        fail("the report's configuration is wrong", json.dumps(rep["configuration"]))
    c.same(c.path("cap"), shots)
    _, again, _ = c.replay(trace, "robust2", "--workarounds", "robust-buffer-access")
    c.same(shots, again)
    img = pixels(os.path.join(shots, "frame_000003.png"))
    if "robustBufferAccess2" in acted["features"]:  # reads past the end are zero, not only in bounds
        for i in range(64, 128):
            if grid_cell(img, i) != (0, 0, 0):
                fail(f"cell {i} (read past the end) is {grid_cell(img, i)}, not black")
    if grid_cell(img, 5) == (0, 0, 0):
        fail("cell 5 (read in bounds) is black")


def readback_race(c):
    trace = c.capture(c.race)
    rep, plain, out = c.replay(trace, "race", "--validate", "sync", want=1)
    if rep["validation"]["sync_hazards"] < 1 or "SYNC-HAZARD" not in out:
        fail("synchronization validation did not report the race", out)
    rep, fixed, out = c.replay(trace, "fixed", "--validate", "sync", "--workarounds", "readback-barrier")
    if rep["validation"]["sync_hazards"] != 0 or rep["validation"]["errors"] != 0:
        fail("readback-barrier left hazards", out)
    acted = rep["workarounds_acted"].get("readback-barrier", {})
    frames = rep["frames"]["replayed"]
    # one readback copy per frame, in a submission of its own
    if acted.get("barriers_inserted") != frames or acted.get("readbacks_waited") != frames:
        fail(f"unexpected counts {acted} for {frames} frames", json.dumps(rep, indent=1))
    if acted.get("submissions_waited", 0) < frames:
        fail(f"each readback should have waited for the draws: {acted}")
    c.same(c.path("cap"), plain)
    c.same(c.path("cap"), fixed)


def zero_init(c):
    trace = c.capture(c.uninit)
    rep, one, _ = c.replay(trace, "zero1", "--workarounds", "zero-init", "--validate")
    if rep["workarounds_acted"].get("zero-init", {}).get("allocations_zeroed", 0) < 1:
        fail("zero-init zeroed nothing", json.dumps(rep, indent=1))
    _, two, _ = c.replay(trace, "zero2", "--workarounds", "zero-init")
    c.same(one, two)
    img = pixels(os.path.join(one, "frame_000001.png"))
    bad = [i for i in range(128) if grid_cell(img, i) != (0, 0, 0)]
    if bad:
        fail(f"cells {bad[:8]} of the never-written buffer are not black under zero-init")
    _, plain, _ = c.replay(trace, "plain")
    img = pixels(os.path.join(plain, "frame_000001.png"))
    print(f"without zero-init: {sum(grid_cell(img, i) != (0, 0, 0) for i in range(128))} of 128 cells not black")


def count_calls(c, trace, names):
    rc, out = run([c.retrace, "dump", trace])
    if rc != 0:
        fail("dump failed", out)
    return sum(1 for line in out.splitlines() if re.match(r"^\d+ (%s)\(" % "|".join(names), line))


def delays(c):
    trace = os.path.join(c.traces, "textured.rtrace")
    pipelines = count_calls(c, trace, ["vkCreateGraphicsPipelines", "vkCreateComputePipelines"])
    submits = count_calls(c, trace, ["vkQueueSubmit", "vkQueueSubmit2"])
    if pipelines < 1 or submits < 1:
        fail(f"the trace has {pipelines} pipeline creations and {submits} submissions")
    _, base, _ = c.replay(trace, "base")
    rep, slow, _ = c.replay(trace, "slow", "--delay", "create-pipeline=25ms", "--delay", "gpu=2ms")
    applied = rep["delays_applied"]
    if applied.get("create-pipeline") != {"count": pipelines, "total_ms": 25.0 * pipelines}:
        fail(f"{pipelines} pipeline creations, delays applied {applied}")
    if applied.get("gpu", {}).get("count") != submits or rep["gpu_stall"]["asked_us"] != 2000:
        fail(f"{submits} submissions, gpu delays {applied.get('gpu')}, stall {rep['gpu_stall']}")
    c.same(base, slow)
    totals = []
    for seed in ("5", "5", "6"):
        rep, _, out = c.replay(trace, "jitter" + seed, "--delay", "submit=1ms~1ms", "--seed", seed)
        if f"seed {seed}" not in out:
            fail("the configuration line does not give the seed", out)
        totals.append(rep["delays_applied"]["submit"]["total_ms"])
    if totals[0] != totals[1]:
        fail(f"the same seed drew different jitter: {totals}")
    if totals[0] == totals[2]:
        fail(f"seeds 5 and 6 drew the same {submits} delays: {totals}")


def cache_ok(c, trace, cache, tag, want_notice):
    rep, _, out = c.replay(trace, tag, "--pipeline-cache", cache)
    notices = [l for l in out.splitlines() if l.startswith("retrace: notice:")]
    if want_notice:
        if len(notices) != 1 or want_notice not in notices[0] or want_notice not in rep["pipeline_cache"]["notice"]:
            fail(f"{tag}: expected one notice saying '{want_notice}'", out)
    elif notices or rep["pipeline_cache"]["loaded_bytes"] == 0:
        fail(f"{tag}: the cache was not loaded", out)
    return rep


def patched(src, dst, offset, value=None, length=None):
    with open(src, "rb") as f:
        data = bytearray(f.read())
    if length is not None:
        data = data[:length]
    if offset is not None:
        data[offset] ^= 0x5a if value is None else value
    with open(dst, "wb") as f:
        f.write(data)


def pipeline_cache(c):
    trace = os.path.join(c.traces, "vkcube.rtrace")
    good = c.path("good.pcache")
    cache_ok(c, trace, good, "missing", "missing")
    cache_ok(c, trace, good, "valid", None)
    size = os.path.getsize(good)
    bad = {"zero-sized": (None, None, 0), "truncated inside its header": (None, None, 40),
           "truncated": (None, None, size - 1), "corrupted": (size - 1, None, None),
           "bad magic": (0, None, None), "for another device": (32, None, None),
           "another driver version": (40, None, None), "pointer size": (44, None, None)}
    for why, (offset, value, length) in bad.items():
        cache = c.path("bad.pcache")
        patched(good, cache, offset, value, length)
        cache_ok(c, trace, cache, "bad-" + why.replace(" ", "-"), why)
        cache_ok(c, trace, cache, "rewritten-" + why.replace(" ", "-"), None)  # the replay saved a good one
    shared = c.path("shared.pcache")
    for attempt in range(3):
        procs = [subprocess.Popen([c.retrace, "replay", trace, "--pipeline-cache", shared],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(2)]
        for p in procs:
            out, _ = p.communicate(timeout=240)
            if p.returncode != 0:
                fail(f"a concurrent writer exited {p.returncode}", out)
        cache_ok(c, trace, shared, f"after-concurrent-{attempt}", None)
    left = [n for n in os.listdir(c.work) if ".tmp" in n]
    if left:
        fail(f"temporary files left behind: {left}")


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    c = Case(sys.argv[1:])
    windowed = c.name in ("robust-buffer-access", "readback-race", "zero-init")
    if windowed and not os.environ.get("DISPLAY"):
        print("no DISPLAY: skipped")
        sys.exit(SKIP)
    cases = {"robust-buffer-access": robust_buffer_access, "readback-race": readback_race,
             "zero-init": zero_init, "delays": delays, "pipeline-cache": pipeline_cache}
    try:
        cases[c.name](c)
    finally:
        shutil.rmtree(c.work, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
