#!/usr/bin/env python3
"""`retrace import` on captures made here with GFXReconstruct's capture layer.

  import_test.py roundtrip --retrace R [--compression NONE|LZ4|ZSTD]
                 [--memory-tracking MODE] [--own-screenshots] -- PROGRAM ARGS
      [--frames LIST] [--no-capture-time] [--env NAME=VALUE]
      Captures PROGRAM under VK_LAYER_LUNARG_gfxreconstruct, imports the
      capture, and checks: `retrace info --check` accepts the trace; its
      replay is clean under validation; every frame of the replay equals
      gfxrecon-replay --screenshots of the same capture, pixel for pixel, and
      the capture-time frame (the program's own screenshot with
      --own-screenshots, else the screenshot of a retrace capture of the same
      program, which must be deterministic).
  import_test.py trimmed --retrace R --trim A-B [--compression C] [--own-screenshots] -- PROGRAM ARGS
      Captures PROGRAM twice: whole, and trimmed by GFXReconstruct itself
      (GFXRECON_CAPTURE_FRAMES=A-B: a state snapshot, then frames A..B).
      Imports both; `info` must say the second is trimmed, frames A-B; its
      replay is validation-clean and every frame equals gfxrecon-replay's of
      the trimmed capture and our replay of frame A+i-1 of the whole one.
  import_test.py interleaved --retrace R --trim A-B -- PROGRAM ARGS
      A trimmed capture with one call of another thread inside its state
      snapshot, where GFXReconstruct writes a call the program makes while
      the state is being written (the first call after the snapshot, moved
      right after the snapshot's vkCreateInstance, its thread changed):
      the import checks, and equals the untouched capture's, that call back
      after the snapshot.
  import_test.py offscreen --retrace R -- PROGRAM ARGS
      PROGRAM never presents: the import ends a frame at each submit, so it
      has as many frames as `retrace capture --frame-delimiter submit` of the
      same program (and none with --frame-delimiter present); the replay is
      validation-clean.
  import_test.py resize --retrace R -- PROGRAM ARGS
      Resizes PROGRAM's window (xdotool) once the capture (flushed block by
      block) holds its first present, while GFXReconstruct captures it: the
      program recreates its swapchain, and
      the import must replay both sizes: the first and last frames equal
      gfxrecon-replay's, pixel for pixel and in size.
  import_test.py empty --retrace R
      A capture of a file header and no block (found by fuzz_import: it was
      an internal error) imports as an empty trace, exit 0. Needs no layer.
  import_test.py manifest --retrace R -- PROGRAM ARGS
      A `retrace run` manifest listing a capture of PROGRAM and a damaged one:
      the capture is imported once (cached by SHA-256) and replayed, the
      damaged one is an error job.
  import_test.py refuse --retrace R -- PROGRAM ARGS
      Damages a capture of PROGRAM (an unknown block, an unknown call id, a
      truncated file) and checks the exit codes, messages and what is written.

Exit 0 on success, 1 on a failure, 77 to skip (no display, no layer).
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

LAYER = "VK_LAYER_LUNARG_gfxreconstruct"


def run(cmd, env=None, timeout=300):
    e = dict(os.environ, **(env or {}))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e,
                       timeout=timeout)
    return p.returncode, p.stdout


def fail(msg, log=""):
    print(f"FAIL: {msg}")
    if log:
        print(log[-4000:])
    sys.exit(1)


def skip_unless_ready():
    if not os.environ.get("DISPLAY"):
        print("SKIP: needs a display (./run test starts Xvfb)")
        sys.exit(77)
    manifests = glob.glob("/usr/share/vulkan/explicit_layer.d/*gfxreconstruct*.json")
    if not manifests or not shutil.which("gfxrecon-replay"):
        print("SKIP: GFXReconstruct's capture layer is not installed (Debian package gfxreconstruct)")
        sys.exit(77)


def program_x_error_at_exit(out):
    """glmark2 through zink sometimes dies at exit, after its score, of
    BadDrawable in X_PutImage (lavapipe's last present reaching a window
    glmark2 already destroyed), bare or under any layer (bench/zink.sh)."""
    return "BadDrawable" in out and "X_PutImage" in out


def gfxr_capture(program, path, compression="LZ4", tracking=None, extra_env=None):
    env = {"VK_INSTANCE_LAYERS": LAYER, "GFXRECON_CAPTURE_FILE": path,
           "GFXRECON_CAPTURE_FILE_TIMESTAMP": "false", "GFXRECON_CAPTURE_COMPRESSION_TYPE": compression,
           "GFXRECON_LOG_LEVEL": "warning"}
    if tracking:
        env["GFXRECON_MEMORY_TRACKING_MODE"] = tracking
    env.update(extra_env or {})
    rc, out = run(program, env)
    for _ in range(2):
        if rc == 0 or not program_x_error_at_exit(out):
            break
        print(f"note: {program[0]} died at exit of its X error under GFXReconstruct (it does bare too); once more")
        rc, out = run(program, env)
    trimmed = glob.glob(path[:-len(".gfxr")] + "_frames_*.gfxr")  # the layer names a trimmed capture so
    if trimmed and not os.path.exists(path):
        os.rename(trimmed[0], path)
    if rc != 0 or not os.path.exists(path):
        fail(f"capture of {program[0]} with GFXReconstruct failed (exit {rc})", out)


def bmp_to_png(bmp, png):
    """gfxrecon-replay writes BMP (bottom-up BGR or BGRA); retrace compare reads PNG."""
    data = open(bmp, "rb").read()
    offset, width, height, bpp = (struct.unpack_from("<I", data, 10)[0], *struct.unpack_from("<iixxH", data, 18))
    step, stride = bpp // 8, (width * (bpp // 8) + 3) & ~3
    rows = []
    for y in range(abs(height)):
        src = offset + stride * ((abs(height) - 1 - y) if height > 0 else y)
        row = bytearray(b"\0")
        for x in range(width):
            b, g, r = data[src + x * step:src + x * step + 3]
            row += bytes((r, g, b, 255))
        rows.append(bytes(row))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(png, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, abs(height), 8, 6, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))
    return png


def differing_pixels(retrace, a, b):
    """Pixels that differ (retrace compare's count), -1 when it cannot compare them."""
    rc, out = run([retrace, "compare", a, b])
    m = re.search(r"diff_pixels=(\d+)", out)
    return int(m.group(1)) if m else -1


def gfxrecon_frames(capture, work, frames):
    out = os.path.join(work, "gfxrecon-shots")
    os.makedirs(out, exist_ok=True)
    # --wsi xlib: gfxrecon-replay 0.9.18's xcb window waits forever for an X
    # event under Xvfb for some window sizes (rt_app_triangle's 320x240).
    cmd = ["gfxrecon-replay", "--wsi", "xlib", "--screenshots", frames, "--screenshot-dir", out, capture]
    rc, log = run(cmd)
    if rc != 0 and "Failed to create a window" in log:
        rc, log = run(cmd)  # a busy Xvfb refused the connection (as roundtrip.py retries): not what is tested
    if rc != 0:
        fail("gfxrecon-replay failed", log)
    return {int(m.group(1)): bmp_to_png(p, p[:-4] + ".png") for p in glob.glob(os.path.join(out, "*.bmp"))
            if (m := re.search(r"_frame_(\d+)\.bmp$", p))}


def import_and_check(retrace, capture, trace, work, frames="all", ignore=()):
    rc, out = run([retrace, "import", capture, "-o", trace])
    if rc != 0:
        fail(f"retrace import exited {rc}", out)
    print(out.strip())
    rc, out = run([retrace, "info", "--check", trace])
    if rc != 0:
        fail("retrace info --check refused the imported trace", out)
    source = os.path.basename(capture)
    if not re.search(rf"^imported +source={re.escape(source)} gfxrecon=(0\.\d+|unknown)", out, re.M) or \
            not re.search(r"^import map +\d+ blocks: \d+ function calls -> calls", out, re.M):
        fail("retrace info does not say the trace was imported, from what and how", out)
    rc, out = run([retrace, "dump", trace])
    # a trimmed import starts with its snapshot (FORMATS §6), the note right after the guard
    note = re.compile(rf"(0 -- |2   \| -- )annotation 0: import: source={re.escape(source)} ")
    first = out.split("\n", 3)
    if rc != 0 or not (note.match(first[0]) or (first[0].startswith("0 -- snapshot begin") and note.match(first[2]))):
        fail("retrace dump does not start with the import note", out[:2000])
    os.makedirs(work, exist_ok=True)
    shots = os.path.join(work, "replay-shots")
    rc, out = run([retrace, "replay", trace, "--screenshots", shots, "--frames", frames, "--validate"]
                  + [x for i in ignore for x in ("--validate-ignore", i)])
    if rc != 0 or "0 errors, 0 warnings" not in out:
        fail(f"the imported trace's replay failed or was not validation-clean (exit {rc})", out)
    frames = sorted(glob.glob(os.path.join(shots, "frame_*.png")))
    if not frames:
        fail("the replay saved no frames", out)
    return frames


def capture_time_frames(a, program, work, count):
    """The program's frames as it rendered them: its own PNGs, or a retrace capture's screenshots."""
    if a.own_screenshots:
        return os.path.join(work, "own-shots")
    shots = os.path.join(work, "retrace-capture-shots")
    rc, out = run([a.retrace, "capture", "-o", os.path.join(work, "native.rtrace"), "--screenshots", shots,
                   "--screenshot-frames", f"1-{count}", "--"] + program)
    if rc != 0:
        fail("retrace capture of the same program failed", out)
    return shots


def roundtrip(a, program, work):
    capture, trace = os.path.join(work, "capture.gfxr"), os.path.join(work, "imported.rtrace")
    own = os.path.join(work, "own-shots")
    prog = program + (["--screenshot-dir", own, "--screenshot-frames", "1-1000"] if a.own_screenshots else [])
    gfxr_capture(prog, capture, a.compression, a.memory_tracking, dict(e.split("=", 1) for e in a.env))
    frames = import_and_check(a.retrace, capture, trace, work, a.frames or "all", a.validate_ignore)
    theirs = gfxrecon_frames(capture, work, a.frames or f"1-{len(frames)}")
    native = None if a.no_capture_time else capture_time_frames(a, program, work, len(frames))
    for path in frames:
        n = int(re.search(r"frame_(\d+)\.png$", path).group(1))
        if n not in theirs:
            fail(f"gfxrecon-replay saved no frame {n}")
        d = differing_pixels(a.retrace, path, theirs[n])
        if d != 0:
            fail(f"frame {n}: {d} pixels differ from gfxrecon-replay's (-1: another size)")
        if native is None:
            continue  # frames that depend on time: gfxrecon-replay's are the reference
        at_capture = os.path.join(native, f"frame_{n:06d}.png")
        if not os.path.exists(at_capture):
            fail(f"no capture-time frame {n} in {native}")
        d = differing_pixels(a.retrace, path, at_capture)
        if d != 0:
            fail(f"frame {n}: {d} pixels differ from the capture-time frame")
    print(f"ok: {len(frames)} frames identical to gfxrecon-replay's"
          + ("" if native is None else " and to the capture-time frames"))


def blocks(data):
    """(offset, size, type) of every block of a GFXReconstruct file."""
    n = struct.unpack_from("<I", data, 12)[0]
    off, out = 16 + 8 * n, []
    while off < len(data):
        size, typ = struct.unpack_from("<QI", data, off)
        out.append((off, size, typ))
        off += 12 + size
    return out


def expect(retrace, capture, out, rc_want, pattern, args=()):
    if os.path.exists(out):
        os.unlink(out)
    rc, log = run([retrace, "import", capture, "-o", out] + list(args))
    if rc != rc_want or not re.search(pattern, log):
        fail(f"import of {os.path.basename(capture)}: exit {rc} (wanted {rc_want}), output does not match "
             f"/{pattern}/", log)
    return log


def refuse(a, program, work):
    capture = os.path.join(work, "capture.gfxr")
    gfxr_capture(program, capture, "NONE")
    data = open(capture, "rb").read()
    bl = blocks(data)
    calls = [b for b in bl if b[2] == 4]
    mid = calls[len(calls) // 2]
    out = os.path.join(work, "out.rtrace")
    # An unknown block type in the middle: exit 3 naming it and its offset; nothing written.
    bad = data[:mid[0]] + struct.pack("<QI", 4, 0x77) + b"\0\0\0\0" + data[mid[0]:]
    open(os.path.join(work, "unknown-block.gfxr"), "wb").write(bad)
    expect(a.retrace, os.path.join(work, "unknown-block.gfxr"), out, 3,
           rf"block \d+ at offset {mid[0]}: block type 0x77 \(unknown\) is not imported")
    if os.path.exists(out):
        fail("a refused capture left a trace behind")
    # --keep-going: the part before it, and what was left.
    log = expect(a.retrace, os.path.join(work, "unknown-block.gfxr"), out, 3, r"stopped +at block \d+ \(offset "
                 rf"{mid[0]}\); \d+ blocks after it not imported", ["--keep-going"])
    rc, info = run([a.retrace, "info", "--check", out])
    if rc != 0:
        fail("the --keep-going prefix is not a valid trace", info + log)
    # An unknown function call id.
    cid = bytearray(data)
    struct.pack_into("<I", cid, mid[0] + 12, 0x1FFFF)
    open(os.path.join(work, "unknown-call.gfxr"), "wb").write(cid)
    expect(a.retrace, os.path.join(work, "unknown-call.gfxr"), out, 3,
           rf"block \d+ at offset {mid[0]}: function call id 0x1ffff is not imported")
    # Truncated in the middle of a block: its good part is kept, and where it stopped is said.
    cut = data[:mid[0] + 20]
    open(os.path.join(work, "truncated.gfxr"), "wb").write(cut)
    expect(a.retrace, os.path.join(work, "truncated.gfxr"), out, 3, rf"block \d+ at offset {mid[0]}: truncated")
    rc, info = run([a.retrace, "info", "--check", out])
    if rc != 0 or not os.path.exists(out):
        fail("a truncated capture's good part was not written as a valid trace", info)
    # A trimmed capture cut inside its state snapshot: nothing to replay, nothing written.
    trimmed = os.path.join(work, "trimmed.gfxr")
    gfxr_capture(program, trimmed, "NONE", extra_env={"GFXRECON_CAPTURE_FRAMES": "2-3"})
    tdata = open(trimmed, "rb").read()
    init = next(b for b in blocks(tdata) if b[2] == 3 and struct.unpack_from("<I", tdata, b[0] + 12)[0] & 0xffff == 5)
    open(trimmed, "wb").write(tdata[:init[0] + 4])
    expect(a.retrace, trimmed, out, 3, rf"block \d+ at offset {init[0]}: truncated")
    if os.path.exists(out):
        fail("a trimmed capture cut inside its snapshot left a trace behind")
    print("ok: unknown block, unknown call, truncation and a cut snapshot refused as documented")


def trimmed(a, program, work):
    first, last = (int(x) for x in a.trim.split("-"))
    own = os.path.join(work, "own-shots")
    prog = program + (["--screenshot-dir", own, "--screenshot-frames", "1-1000"] if a.own_screenshots else [])
    whole, cut = os.path.join(work, "whole.gfxr"), os.path.join(work, "trimmed.gfxr")
    env = dict(e.split("=", 1) for e in a.env)
    whole_frames = []
    if not a.no_capture_time:  # frames that depend on time: gfxrecon-replay's are the only reference
        gfxr_capture(prog, whole, a.compression, extra_env=env)
        whole_frames = import_and_check(a.retrace, whole, os.path.join(work, "whole.rtrace"),
                                        os.path.join(work, "w"), f"{first}-{last}", a.validate_ignore)
    gfxr_capture(program, cut, a.compression, extra_env=dict(env, GFXRECON_CAPTURE_FRAMES=a.trim))
    trace = os.path.join(work, "trimmed.rtrace")
    frames = import_and_check(a.retrace, cut, trace, work, ignore=a.validate_ignore)
    rc, out = run([a.retrace, "info", trace])
    if not re.search(rf"^trimmed +frames {first}-{last} of trimmed\.gfxr ", out, re.M):
        fail(f"retrace info does not say the import is trimmed, frames {first}-{last}", out)
    if len(frames) != last - first + 1:
        fail(f"the trimmed import replayed {len(frames)} frames, not {last - first + 1}")
    theirs = gfxrecon_frames(cut, work, f"1-{len(frames)}")
    ours = {int(re.search(r"frame_(\d+)\.png$", p).group(1)): p for p in whole_frames}
    for path in frames:
        n = int(re.search(r"frame_(\d+)\.png$", path).group(1))
        if n not in theirs:
            fail(f"gfxrecon-replay saved no frame {n} of the trimmed capture")
        d = differing_pixels(a.retrace, path, theirs[n])
        if d != 0:
            fail(f"trimmed frame {n}: {d} pixels differ from gfxrecon-replay's (-1: another size)")
        d = differing_pixels(a.retrace, path, ours[first + n - 1]) if ours else 0
        if d != 0:
            fail(f"trimmed frame {n}: {d} pixels differ from frame {first + n - 1} of the whole capture's replay")
    print(f"ok: frames {first}-{last} of a trimmed capture identical to gfxrecon-replay's"
          + ("" if a.no_capture_time else " and to the whole capture's replay"))


def interleave(data):
    """The file with the first call after its state snapshot moved right
    after the snapshot's first call (vkCreateInstance), on another thread."""
    bl = blocks(data)
    kind = [t & 0x7fffffff for _, _, t in bl]
    begin = kind.index(2)
    end = kind.index(2, begin + 1)
    first_in = kind.index(4, begin + 1)
    after = kind.index(4, end + 1)
    off, size, _ = bl[after]
    moved = bytearray(data[off:off + 12 + size])
    thread = struct.unpack_from("<Q", moved, 16)[0]  # block header, then the call id
    struct.pack_into("<Q", moved, 16, thread + 1000)
    at = bl[first_in][0] + 12 + bl[first_in][1]
    return data[:at] + bytes(moved) + data[at:off] + data[off + 12 + size:]


def interleaved(a, program, work):
    cut = os.path.join(work, "trimmed.gfxr")
    gfxr_capture(program, cut, "NONE", extra_env={"GFXRECON_CAPTURE_FRAMES": a.trim})
    moved = os.path.join(work, "moved.gfxr")
    open(moved, "wb").write(interleave(open(cut, "rb").read()))
    dumps = []
    for capture in (cut, moved):
        trace = capture[:-len(".gfxr")] + ".rtrace"
        rc, out = run([a.retrace, "import", capture, "-o", trace])
        if rc != 0:
            fail(f"retrace import {os.path.basename(capture)} exited {rc}", out)
        rc, out = run([a.retrace, "info", "--check", trace])
        if rc != 0:
            fail(f"retrace info --check refused the import of {os.path.basename(capture)}", out)
        rc, out = run([a.retrace, "dump", trace])
        name = re.escape(os.path.basename(capture))
        dumps.append([re.sub(name, "CAPTURE", line.split(" ", 1)[1]) for line in out.splitlines()
                      if "annotation 0: import" not in line and "snapshot end:" not in line])
    if dumps[0] != dumps[1]:
        diff = [f"{x!r} != {y!r}" for x, y in zip(*dumps) if x != y][:3]
        fail("the import with another thread's call inside the snapshot differs from the untouched one's",
             "\n".join(diff))
    rc, out = run([a.retrace, "dump", moved[:-len(".gfxr")] + ".rtrace"])
    if "1 call of other threads written inside GFXReconstruct's state snapshot" not in out:
        fail("the import does not say it moved a call out of the snapshot", out[:2000])
    print(f"ok: a call of another thread inside the state snapshot was imported after it; "
          f"{len(dumps[0])} lines equal to the untouched capture's import")


def frame_count(retrace, trace):
    rc, out = run([retrace, "info", trace])
    m = re.search(r"^frames +(\d+)$", out, re.M)
    if rc != 0 or not m:
        fail(f"retrace info cannot read {trace}", out)
    return int(m.group(1)), out


def offscreen(a, program, work):
    capture, trace = os.path.join(work, "offscreen.gfxr"), os.path.join(work, "offscreen.rtrace")
    gfxr_capture(program, capture)
    rc, out = run([a.retrace, "import", capture, "-o", trace])
    if rc != 0:
        fail(f"retrace import exited {rc}", out)
    rc, out = run([a.retrace, "replay", trace, "--validate"])
    if rc != 0 or "0 errors, 0 warnings" not in out:
        fail(f"the imported trace's replay failed or was not validation-clean (exit {rc})", out)
    frames, info = frame_count(a.retrace, trace)
    if "frame-delimiter=submit" not in info:
        fail("the import of a capture without presents does not say its frames end at submits", info)
    native = os.path.join(work, "native.rtrace")
    rc, out = run([a.retrace, "capture", "-o", native, "--frame-delimiter", "submit", "--"] + program)
    if rc != 0:
        fail("retrace capture --frame-delimiter submit of the same program failed", out)
    want, _ = frame_count(a.retrace, native)
    if frames != want or frames == 0:
        fail(f"the import has {frames} frames, retrace capture --frame-delimiter submit {want}")
    rc, out = run([a.retrace, "import", capture, "-o", trace, "--frame-delimiter", "present"])
    if rc != 0 or frame_count(a.retrace, trace)[0] != 0:
        fail("import --frame-delimiter present of a capture without presents does not have 0 frames", out)
    print(f"ok: {frames} frames ended by submits, as retrace capture --frame-delimiter submit has")


PRESENT_ID = 0x1000 | 0x10000  # replaced from gen/gfxr/call_ids.txt below


def presented(capture):
    """Whether the capture (flushed block by block) holds a vkQueuePresentKHR yet."""
    try:
        data = open(capture, "rb").read()
        n = struct.unpack_from("<I", data, 12)[0]
        off = 16 + 8 * n
        while off + 16 <= len(data):
            size, typ = struct.unpack_from("<QI", data, off)
            if typ & 0x7FFFFFFF == 4 and struct.unpack_from("<I", data, off + 12)[0] == PRESENT_ID:
                return True
            off += 12 + size
    except (OSError, struct.error):
        pass
    return False


def resize_after_first_present(capture, size, deadline_s=120):
    """Once the program presented (so its first swapchain exists), resizes the display's window."""
    import time
    root = run(["xdotool", "search", "--maxdepth", "0", "--name", ""])[1].split()
    end = time.monotonic() + deadline_s  # generous: only a hung program reaches it
    while time.monotonic() < end:
        windows = [w for w in run(["xdotool", "search", "--maxdepth", "1", "--onlyvisible", "--name", ""])[1].split()
                   if w not in root]
        if windows and presented(capture):
            return run(["xdotool", "windowsize", windows[0]] + [str(x) for x in size])[0] == 0
        time.sleep(0.05)
    return False


def resize(a, program, work):
    import threading
    if not shutil.which("xdotool"):
        print("SKIP: needs xdotool (./run deps installs it)")
        sys.exit(77)
    capture, trace = os.path.join(work, "resize.gfxr"), os.path.join(work, "resize.rtrace")
    global PRESENT_ID
    ids = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "gen", "gfxr", "call_ids.txt")
    PRESENT_ID = 0x10000 | next(int(line.split()[0], 0) for line in open(ids)
                                if line.split()[1:2] == ["vkQueuePresentKHR"])
    resized = []
    t = threading.Thread(target=lambda: resized.append(resize_after_first_present(capture, (320, 200))))
    t.start()
    gfxr_capture(program, capture, "NONE", extra_env={"GFXRECON_CAPTURE_FILE_FLUSH": "true"})
    t.join()
    rc, out = run([a.retrace, "import", capture, "-o", trace])
    if rc != 0 or not resized or not resized[0]:
        fail(f"the import failed (exit {rc}) or the window could not be resized", out)
    rc, out = run([a.retrace, "dump", trace])
    extents = set(re.findall(r"vkCreateSwapchainKHR\(.*?imageExtent=\{width=(\d+), height=(\d+)\}", out))
    if len(extents) < 2:
        fail(f"the capture has swapchains of {len(extents)} size(s), not 2: the resize did not reach it", out[-2000:])
    frames = frame_count(a.retrace, trace)[0]
    shots = os.path.join(work, "replay-shots")
    rc, out = run([a.retrace, "replay", trace, "--screenshots", shots, "--frames", f"1,{frames}", "--validate"])
    if rc != 0 or "0 errors, 0 warnings" not in out:
        fail(f"the resized capture's replay failed or was not validation-clean (exit {rc})", out)
    theirs = gfxrecon_frames(capture, work, f"1,{frames}")
    for n in (1, frames):
        d = differing_pixels(a.retrace, os.path.join(shots, f"frame_{n:06d}.png"), theirs[n])
        if d != 0:
            fail(f"frame {n}: {d} pixels differ from gfxrecon-replay's (-1: another size)")
    print(f"ok: swapchains of sizes {sorted(extents)} replayed; frames 1 and {frames} identical to gfxrecon-replay's")


def empty(a, program, work):
    capture, trace = os.path.join(work, "empty.gfxr"), os.path.join(work, "empty.rtrace")
    with open(capture, "wb") as f:
        f.write(b"GFXR" + bytes(12))  # format 0.0, no options, no blocks
    rc, out = run([a.retrace, "import", capture, "-o", trace])
    if rc != 0:
        fail(f"a capture without blocks: import exited {rc}", out)
    rc, out = run([a.retrace, "info", "--check", trace])
    if rc != 0 or not re.search(r"^frames +0$", out, re.M):
        fail("a capture without blocks did not import as a valid empty trace", out)
    print("ok: a capture without blocks imports as an empty trace")


def manifest(a, program, work):
    """A manifest listing .gfxr files: imported once, cached by SHA-256, replayed; a bad one is an error job."""
    import hashlib
    capture = os.path.join(work, "good.gfxr")
    gfxr_capture(program, capture)
    with open(os.path.join(work, "bad.gfxr"), "wb") as f:
        f.write(open(capture, "rb").read()[:200])
    with open(os.path.join(work, "m.yml"), "w") as f:
        f.write("label: import\ncache: cache\ndefaults:\n  frames: [1, 2]\ntraces:\n"
                "  - path: good.gfxr\n  - path: bad.gfxr\n")
    sha = hashlib.sha256(open(capture, "rb").read()).hexdigest()
    cached = os.path.join(work, "cache", "import", sha + ".rtrace")
    db = os.path.join(work, "db.sqlite")
    rc, out = run([a.retrace, "run", os.path.join(work, "m.yml"), "--db", db])
    if not re.search(r"^good\.gfxr +default +new +0/2", out, re.M) or not os.path.exists(cached):
        fail(f"the .gfxr trace was not imported into {cached} and replayed (exit {rc})", out)
    if not re.search(r"^bad\.gfxr +default +error!? .*import of .*bad\.gfxr failed", out, re.M):
        fail("a damaged .gfxr is not an error job naming its import", out)
    before = os.stat(cached).st_mtime_ns
    rc, out = run([a.retrace, "run", os.path.join(work, "m.yml"), "--db", db])
    if os.stat(cached).st_mtime_ns != before or not re.search(r"^good\.gfxr +default +new", out, re.M):
        fail("the second run imported the capture again instead of using the cache", out)
    print("ok: .gfxr traces in a manifest are imported once, cached by SHA-256, replayed; a bad one is an error")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["roundtrip", "refuse", "manifest", "trimmed", "interleaved", "offscreen", "resize",
                                         "empty"])
    ap.add_argument("--trim", default="3-5", help="trimmed: the frames GFXReconstruct keeps")
    ap.add_argument("--retrace", required=True)
    ap.add_argument("--compression", default="LZ4")
    ap.add_argument("--memory-tracking")
    ap.add_argument("--own-screenshots", action="store_true")
    ap.add_argument("--frames", help="frames to compare (default all), as replay --frames and gfxrecon-replay take")
    ap.add_argument("--no-capture-time", action="store_true",
                    help="the program's frames depend on time: compare with gfxrecon-replay's only")
    ap.add_argument("--validate-ignore", action="append", default=[],
                    help="a validation message id the program itself causes")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the captured program")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    program = argv[cut + 1:]
    if a.case != "empty":
        skip_unless_ready()
    work = tempfile.mkdtemp(prefix="retrace-import-")
    try:
        cases = {"roundtrip": roundtrip, "refuse": refuse, "manifest": manifest, "trimmed": trimmed,
                 "interleaved": interleaved, "offscreen": offscreen, "resize": resize, "empty": empty}
        cases[a.case](a, program, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
