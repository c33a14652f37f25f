#!/usr/bin/env python3
"""Per-draw dumps and skipped draws (docs/FORMATS.md section 7) on the sample apps.

  draws.py dump RETRACE NAME=APP...   every app: --dump-draws 2 writes a valid
                                      draws.json whose files exist, and the
                                      frames replayed with it are the plain
                                      replay's, byte for byte
  draws.py manifest RETRACE APP       a manifest configuration with skip-draws:
                                      the run fails that configuration's frame
                                      2 only; a bad skip-draws is exit 3
  draws.py resubmit RETRACE VKCUBE    VKCUBE (traces/vkcube.rtrace records its
                                      command buffers before frame 1): frame
                                      5's draw is the earlier recording's, its
                                      image is frame 5's final image (not
                                      frame 4's), the frames are unchanged,
                                      and --skip-draws 5:1 changes frame 5
  draws.py storage RETRACE PERSIST PARTICLES
                                      a dispatch's storage image (rt_app_persist
                                      frame 1: the stamp its shader draws, pixel
                                      for pixel) and, with --dump-buffers, its
                                      storage buffers (rt_app_particles frame 2:
                                      the particle state and the indirect
                                      arguments it wrote, raw + JSON sidecar) and
                                      a fill's buffer; without --dump-buffers
                                      the dispatch says why; frames unchanged
  draws.py passes RETRACE PASSES       rt_app_passes (vkCreateRenderPass2, two
                                      subpasses, 4x MSAA resolved in the
                                      second): every draw saves its colour,
                                      resolved from 4 samples; each draw adds
                                      its triangle; the last is the frame's
                                      final image; frames unchanged
  draws.py msaa RETRACE MSAA           rt_app_msaa (4x colour and depth): draw 1
                                      of frame 2 saves its depth resolved from 4
                                      samples (sample 0), every value the clear's
                                      or a wedge's; frames unchanged
  draws.py secondary RETRACE THREADS  rt_app_threads' draws in secondary
                                      command buffers: each saved, after it
                                      alone; the last the final image
  draws.py skip RETRACE APP           APP (rt_app_readback: 300 draws a frame):
                                      one skipped draw changes frame 2 and only
                                      frame 2; a range past the frame's draws
                                      changes nothing; bad specs exit 2

Captures run windowed (DISPLAY; exit 77 without one), frames end at presents.
"""
import json
import os
import struct
import zlib
import subprocess
import sys
import tempfile
import time

SKIP = 77


def run(cmd, stderr=subprocess.STDOUT):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=280)
    return p.returncode, p.stdout


def fail(msg, log=""):
    print(log)
    print(f"FAIL: {msg}")
    sys.exit(1)


WORK = tempfile.mkdtemp(prefix="rt_draws_")


def capture(retrace, name, exe, frames=3):
    trace = os.path.join(WORK, name + ".rtrace")
    cmd = [retrace, "capture", "-o", trace, "--", exe, "--frames", str(frames)]
    for _ in range(4):  # a busy Xvfb refused the connection now and then: not what is tested here
        rc, out = run(cmd)
        if "Cannot connect to XCB" not in out and "cannot open an X display" not in out:
            break
        time.sleep(1)
    if rc != 0:
        fail(f"capture of {exe} exited {rc}", out)
    return trace


def replay(retrace, trace, tag, *args, want=0):
    shots = os.path.join(WORK, tag)
    frames = [] if "--frames" in args else ["--frames", "1-3"]
    rc, out = run([retrace, "replay", trace, "--screenshots", shots] + frames + list(args))
    if rc != want:
        fail(f"replay {tag} {' '.join(args)} exited {rc}, expected {want}", out)
    return shots, out


def identical(a, b, frame):
    with open(os.path.join(a, f"frame_{frame:06d}.png"), "rb") as fa, \
            open(os.path.join(b, f"frame_{frame:06d}.png"), "rb") as fb:
        return fa.read() == fb.read()


def check_index(name, d, out):
    with open(os.path.join(d, "draws.json")) as f:
        index = json.load(f)
    if index.get("frame") != 2 or not isinstance(index.get("draws"), list):
        fail(f"{name}: draws.json has no frame 2 or no draws list", json.dumps(index)[:2000])
    if index["frame_draws"] != len(index["draws"]) or index["frame_draws"] < 1:
        fail(f"{name}: {len(index['draws'])} entries for {index['frame_draws']} draws", out)
    saved = 0
    for n, e in enumerate(index["draws"], 1):
        for key in ("draw", "call", "command", "command_buffer", "rendering", "pipeline", "shaders", "bindings",
                    "files", "not_saved"):
            if key not in e:
                fail(f"{name}: draw {n} has no '{key}'", json.dumps(e))
        if e["draw"] != n or not e["command"].startswith("vkCmd"):
            fail(f"{name}: entry {n} is draw {e['draw']} ({e['command']})", json.dumps(e))
        if not e["files"] and not e["not_saved"]:
            fail(f"{name}: draw {n} saved nothing and says not why", json.dumps(e))
        for f in e["files"]:
            path = os.path.join(d, f["path"])
            with open(path, "rb") as fh:
                head = fh.read(8)
            if f["path"].endswith(".png") and head != b"\x89PNG\r\n\x1a\n":
                fail(f"{name}: {path} is not a PNG")
            saved += 1
    if not saved:  # draws in secondary command buffers too (session 6)
        fail(f"{name}: no draw image saved at all", out)
    return index, saved


def dump(retrace, apps):
    for spec in apps:
        name, exe = spec.split("=", 1)
        trace = capture(retrace, name, exe)
        plain, _ = replay(retrace, trace, name + "-plain")
        d = os.path.join(WORK, name + "-draws")
        shots, out = replay(retrace, trace, name + "-dumped", "--dump-draws", "2", "--dump-dir", d)
        index, saved = check_index(name, d, out)
        for frame in (1, 2, 3):
            if not identical(plain, shots, frame):
                fail(f"{name}: frame {frame} with --dump-draws differs from the plain replay's", out)
        print(f"{name}: frame 2: {index['frame_draws']} draws, {saved} images; frames 1-3 identical")


def secondary(retrace, exe):
    """rt_app_threads: two workers record the frame's draws into secondary command buffers that continue
    the primary's render pass. Every draw saves its colour (replayed inline into the primary, split there),
    each one's image differs from the one before (every draw adds a shape), the last is the frame's final
    image, the frames are the plain replay's and validation stays quiet."""
    trace = os.path.join(WORK, "threads.rtrace")
    rc, out = run([retrace, "capture", "-o", trace, "--", exe, "--frames", "3", "--threads", "2"])
    if rc != 0:
        fail(f"capture of {exe} exited {rc}", out)
    plain, _ = replay(retrace, trace, "threads-plain")
    d = os.path.join(WORK, "threads-draws")
    shots, out = replay(retrace, trace, "threads-dumped", "--dump-draws", "2", "--dump-dir", d, "--validate")
    index, saved = check_index("threads", d, out)
    if "validation: 0 errors, 0 warnings" not in out:
        fail("rt_app_threads: validation messages with --dump-draws", out)
    cbs = {e["command_buffer"] for e in index["draws"]}
    if len(cbs) < 2:
        fail(f"rt_app_threads: the draws are in {len(cbs)} command buffer(s), expected the 2 workers'", out)
    # in the order the frame runs them: the primary executes the workers' secondaries in thread order,
    # whatever order the threads recorded them in
    if sorted(index["executed"]) != [e["draw"] for e in index["draws"]]:
        fail(f"rt_app_threads: executed {index['executed']} is not the frame's draws once each", out)
    colours = []
    for n in index["executed"]:
        e = index["draws"][n - 1]
        files = {f["role"]: f["path"] for f in e["files"]}
        if "color0" not in files or e["rendering"]["kind"] != "render_pass" or not e.get("pipeline_name"):
            fail(f"rt_app_threads: draw {e['draw']} in secondary {e['command_buffer']}: {json.dumps(e)}", out)
        colours.append(os.path.join(d, files["color0"]))
    for a, b in zip(colours, colours[1:]):
        if same_pixels(retrace, a, b):
            fail(f"rt_app_threads: {os.path.basename(b)} is the image before it: a split lost a draw", out)
    if not same_pixels(retrace, colours[-1], os.path.join(shots, "frame_000002.png")):
        fail("rt_app_threads: the last draw's colour is not frame 2's final image", out)
    for frame in (1, 2, 3):
        if not identical(plain, shots, frame):
            fail(f"rt_app_threads: frame {frame} with --dump-draws differs from the plain replay's", out)
    print(f"rt_app_threads frame 2: {len(colours)} draws in {len(cbs)} secondary command buffers, each saved; "
          "the last is the final image; frames unchanged; validation quiet")


def skip(retrace, exe):
    trace = capture(retrace, "readback", exe)
    plain, _ = replay(retrace, trace, "plain")
    skipped, out = replay(retrace, trace, "skip-one", "--skip-draws", "2:150")
    if "1 draws of frame 2 skipped" not in out:
        fail("--skip-draws 2:150 did not say it skipped one draw", out)
    if identical(plain, skipped, 2) or not identical(plain, skipped, 1) or not identical(plain, skipped, 3):
        fail("skipping draw 150 of frame 2 must change frame 2 only", out)
    many, out = replay(retrace, trace, "skip-range", "--skip-draws", "2:10-20")
    if "11 draws of frame 2 skipped" not in out or identical(plain, many, 2):
        fail("--skip-draws 2:10-20 must skip 11 draws and change frame 2", out)
    past, out = replay(retrace, trace, "skip-past", "--skip-draws", "2:100000-100001")
    if "0 draws of frame 2 skipped" not in out or not all(identical(plain, past, f) for f in (1, 2, 3)):
        fail("a range past the frame's draws must change nothing", out)
    for bad in ("2", "0:1", "2:0", "2:5-3", "x:1", "2:1-", "2:1-2x"):
        rc, out = run([retrace, "replay", trace, "--skip-draws", bad])
        if rc != 2 or "--skip-draws" not in out:
            fail(f"--skip-draws '{bad}' exited {rc}, expected 2 naming the option", out)
    for args in (["--dump-draws", "2"], ["--dump-dir", WORK], ["--dump-draws", "2", "--dump-dir", WORK,
                                                               "--dump-only", "0"]):
        rc, out = run([retrace, "replay", trace] + args)
        if rc != 2:
            fail(f"replay {' '.join(args)} exited {rc}, expected 2", out)
    print("skip: one draw, a range, past the end, bad specs: as expected")


def read_png(path):
    """(width, height, rows of RGBA tuples) of an 8-bit RGBA or RGB PNG; of a 16-bit grey one (a depth
    image), rows of (value,) tuples."""
    with open(path, "rb") as f:
        data = f.read()
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if (depth, colour) not in ((8, 2), (8, 6), (16, 0)):
                fail(f"{path}: not 8-bit RGB(A) or 16-bit grey")
            channels = {2: 3, 6: 4, 0: 2}[colour]  # bytes a pixel
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            pred = [0, a, b, (a + b) // 2, a + b - c][kind]
            if kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + pred) & 0xff
        if colour == 0:
            rows.append([(line[2 * x] << 8 | line[2 * x + 1],) for x in range(width)])
        else:
            rows.append([tuple(line[x * channels:(x + 1) * channels]) + ((255,) if channels == 3 else ())
                         for x in range(width)])
        prev = line
    return width, height, rows


def msaa(retrace, exe):
    """rt_app_msaa: 4x multisampled colour and depth, kept from frame to frame; frame N's wedge lies at depth
    (N * 53 % 97) / 97 * 0.9 + 0.05 (tests/apps/msaa.c). Frame 2's draw saves its depth resolved from 4
    samples (sample 0: a depth some draw wrote, never an average): every pixel is the clear's 1.0, frame 1's
    wedge or frame 2's, and frame 2's is there; validation quiet, frames unchanged."""
    trace = capture(retrace, "msaa", exe)
    plain, _ = replay(retrace, trace, "msaa-plain")
    d = os.path.join(WORK, "msaa-draws")
    shots, out = replay(retrace, trace, "msaa-dumped", "--dump-draws", "2", "--dump-dir", d, "--validate")
    if "validation: 0 errors, 0 warnings" not in out:
        fail("rt_app_msaa: --dump-draws under --validate is not quiet", out)
    index, _ = check_index("msaa", d, out)
    for frame in (1, 2, 3):
        if not identical(plain, shots, frame):
            fail(f"rt_app_msaa: frame {frame} with --dump-draws differs from the plain replay's", out)
    e = index["draws"][0]
    files = {f["role"]: f for f in e["files"]}
    if e["not_saved"] or set(files) != {"color0", "depth"} or any(
            f.get("resolved_from_samples") != 4 for f in files.values()):
        fail("rt_app_msaa: draw 1 should save colour and depth, each resolved from 4 samples", json.dumps(e))
    width, height, rows = read_png(os.path.join(d, files["depth"]["path"]))
    wedge = {n: round(((n * 53 % 97) / 97 * 0.9 + 0.05) * 65535) for n in (1, 2)}
    counts = {}
    for row in rows:
        for (v,) in row:
            counts[v] = counts.get(v, 0) + 1
    def near(v, w):
        return abs(v - w) <= 1
    stray = {v: c for v, c in counts.items() if not any(near(v, w) for w in (65535, wedge[1], wedge[2]))}
    at = {n: sum(c for v, c in counts.items() if near(v, w)) for n, w in wedge.items()}
    if stray or not at[2] or counts.get(65535, 0) == 0:
        fail(f"rt_app_msaa: depth values {sorted(counts)[:12]} (stray {sorted(stray)[:8]}); expected 1.0, "
             f"{wedge[1]} (frame 1) and {wedge[2]} (frame 2)")
    print(f"rt_app_msaa: draw 1's depth resolved from 4 samples, {width}x{height}: {at[2]} px of frame 2's "
          f"wedge, {at[1]} of frame 1's, {counts[65535]} at 1.0; validation quiet, frames unchanged")


def storage(retrace, persist, particles):
    stamp_of(retrace, persist, "persist")
    # the stamp's storage image through a push descriptor (VK_KHR_push_descriptor)
    stamp_of(retrace, persist, "persist-push", "--push", "1")
    buffers_of(retrace, particles)


def stamp_of(retrace, persist, name, *app_args):
    trace = os.path.join(WORK, name + ".rtrace")
    rc, out = run([retrace, "capture", "-o", trace, "--", persist, "--frames", "3"] + list(app_args))
    if rc != 0:
        fail(f"capture of {persist} {app_args} exited {rc}", out)
    d = os.path.join(WORK, name + "-draws")
    plain, _ = replay(retrace, trace, name + "-plain")
    shots, out = replay(retrace, trace, name + "-dumped", "--dump-draws", "1", "--dump-dir", d, "--validate")
    if "validation: 0 errors, 0 warnings" not in out:
        fail(f"{name}: validation messages with --dump-draws", out)
    index, _ = check_index_frame(d, 1, out)
    dispatch = next(e for e in index["draws"] if e["command"] == "vkCmdDispatch")
    stamp = [f for f in dispatch["files"] if f["role"] == "storage0.0"]
    if not stamp or not stamp[0]["path"].endswith(".png"):
        fail(f"{name}: the dispatch's storage image was not saved", json.dumps(dispatch))
    w, h, rows = read_png(os.path.join(d, stamp[0]["path"]))
    for x, y in ((0, 0), (63, 0), (0, 63), (40, 17), (63, 63)):  # persist.comp: (x/63, y/63, ring, 1)
        r, g, b, a = rows[y][x]
        if abs(r - round(x * 255 / 63)) > 1 or abs(g - round(y * 255 / 63)) > 1 or b not in (0, 255) or a != 255:
            fail(f"rt_app_persist: stamp pixel {x},{y} is {rows[y][x]}, not the shader's")
    if (w, h) != (64, 64) or not all(identical(plain, shots, f) for f in (1, 2, 3)):
        fail(f"{name}: stamp {w}x{h} or frames changed by the dump", out)
    print(f"{name}: the dispatch's storage image saved, the shader's pixels; frames unchanged")


def buffers_of(retrace, particles):
    trace = capture(retrace, "particles", particles)
    plain, _ = replay(retrace, trace, "particles-plain")
    d = os.path.join(WORK, "particles-buffers")
    shots, out = replay(retrace, trace, "particles-buffers", "--dump-draws", "2", "--dump-dir", d, "--dump-buffers")
    index, _ = check_index_frame(d, 2, out)
    dispatch = next(e for e in index["draws"] if e["command"] == "vkCmdDispatch")
    files = {f["role"]: f for f in dispatch["files"]}
    if set(files) != {"buffer0.0", "buffer0.1"} or files["buffer0.0"]["size"] != 4096 * 48:
        fail("rt_app_particles: the dispatch's storage buffers (state, indirect arguments) not saved",
             json.dumps(dispatch))
    with open(os.path.join(d, files["buffer0.1"]["path"]), "rb") as f:
        indirect = struct.unpack("<IIIiI", f.read())
    with open(os.path.join(d, files["buffer0.1"]["path"][:-4] + ".json")) as f:
        side = json.load(f)
    if indirect[0] != 6 or not 0 < indirect[1] <= 4096 or side["size"] != 20 or side["binding"] != 1:
        fail(f"rt_app_particles: indirect arguments {indirect}, sidecar {side}")
    fills = [e for e in index["draws"] if e["command"] == "vkCmdFillBuffer"]
    if fills and not any(f["path"].endswith(".bin") for f in fills[0]["files"]):
        fail("rt_app_particles: the fill's buffer was not saved", json.dumps(fills[0]))
    if not all(identical(plain, shots, f) for f in (1, 2, 3)):
        fail("rt_app_particles: --dump-buffers changed the frames", out)
    d = os.path.join(WORK, "particles-nobuffers")
    replay(retrace, trace, "particles-nobuffers", "--dump-draws", "2", "--dump-dir", d)
    index, _ = check_index_frame(d, 2, out)
    dispatch = next(e for e in index["draws"] if e["command"] == "vkCmdDispatch")
    if dispatch["files"] or not any("--dump-buffers" in n for n in dispatch["not_saved"]):
        fail("rt_app_particles without --dump-buffers: the dispatch must save nothing and say why",
             json.dumps(dispatch))
    print(f"storage: persist's stamp (storage image of a dispatch) pixel-exact; particles' state and indirect "
          f"arguments {indirect[:2]} saved raw; frames unchanged")


def passes(retrace, exe):
    passes_one(retrace, exe, "passes")
    # the multisampled attachment transient: the dump makes it copyable (no lazily allocated memory here)
    passes_one(retrace, exe, "passes-transient", "--transient", "1")
    # imageless framebuffers (the views come with each begin; the split resumes with them), transient too
    passes_one(retrace, exe, "passes-imageless", "--imageless", "1", "--transient", "1")


def passes_one(retrace, exe, name, *app_args):
    trace = os.path.join(WORK, name + ".rtrace")
    rc, out = run([retrace, "capture", "-o", trace, "--", exe, "--frames", "3"] + list(app_args))
    if rc != 0:
        fail(f"capture of {exe} {app_args} exited {rc}", out)
    plain, _ = replay(retrace, trace, name + "-plain")
    d = os.path.join(WORK, name + "-draws")
    shots, out = replay(retrace, trace, name + "-dumped", "--dump-draws", "2", "--dump-dir", d, "--validate")
    if "validation: 0 errors, 0 warnings" not in out:
        fail(f"{name}: validation messages with --dump-draws", out)
    index, n = check_index_frame(d, 2, out)
    colours = []
    for e in index["draws"]:
        files = [f for f in e["files"] if f["role"] == "color0"]
        if not files or files[0].get("resolved_from_samples") != 4 or e["not_saved"]:
            fail(f"rt_app_passes draw {e['draw']}: no resolved colour", json.dumps(e))
        colours.append(os.path.join(d, files[0]["path"]))
    if n != 3:
        fail(f"rt_app_passes: {n} draws in frame 2, expected 3 (two in subpass 0, one in subpass 1)", out)
    if any(same_pixels(retrace, a, b) for a, b in zip(colours, colours[1:])):
        fail("rt_app_passes: a draw's colour is the one before it: the split lost a triangle", out)
    if not same_pixels(retrace, colours[-1], os.path.join(shots, "frame_000002.png")):
        fail("rt_app_passes: the last draw's resolved colour is not the frame's final image", out)
    if not all(identical(plain, shots, f) for f in (1, 2, 3)):
        fail("rt_app_passes: --dump-draws changed the frames", out)
    print(f"{name}: 3 draws over two subpasses of a vkCreateRenderPass2 pass, each resolved from 4 samples; "
          "frames unchanged")


def check_index_frame(d, frame, out):
    with open(os.path.join(d, "draws.json")) as f:
        index = json.load(f)
    if index.get("frame") != frame:
        fail(f"{d}: draws.json is not frame {frame}'s", out)
    return index, len(index["draws"])


def same_pixels(retrace, a, b):
    rc, out = run([retrace, "compare", "--threshold", "1", a, b])
    return rc == 0 and "diff_pixels=0 " in out


def resubmit(retrace, trace):
    plain, _ = replay(retrace, trace, "cube-plain", "--frames", "4-6")
    d = os.path.join(WORK, "cube-draws")
    shots, out = replay(retrace, trace, "cube-dumped", "--frames", "4-6", "--dump-draws", "5", "--dump-dir", d)
    with open(os.path.join(d, "draws.json")) as f:
        index = json.load(f)
    if index["frame_draws"] < 1 or not index["draws"][-1]["files"]:
        fail("vkcube frame 5: no draws dumped (its command buffer was recorded before frame 1)", out)
    colour = next(f["path"] for f in index["draws"][-1]["files"] if f["role"] == "color0")
    final = os.path.join(shots, "frame_000005.png")
    if not same_pixels(retrace, final, os.path.join(d, colour)):
        fail("vkcube frame 5: the last draw's colour is not frame 5's final image", out)
    if same_pixels(retrace, os.path.join(shots, "frame_000004.png"), os.path.join(d, colour)):
        fail("vkcube: frames 4 and 5 are the same picture, so the test proves nothing")
    for frame in (4, 5, 6):
        if not identical(plain, shots, frame):
            fail(f"vkcube: frame {frame} with --dump-draws 5 differs from the plain replay's", out)
    skipped, out = replay(retrace, trace, "cube-skip", "--frames", "4-6", "--skip-draws", "5:1")
    if "1 draws of frame 5 skipped" not in out or identical(plain, skipped, 5):
        fail("--skip-draws 5:1 must leave out vkcube's draw (recorded before frame 1) and change frame 5", out)
    # only frame 5's submission loses it: the other frames run a second recording with the draw (draws_mirror.c)
    for frame in (4, 6):
        if not identical(plain, skipped, frame):
            fail(f"--skip-draws 5:1 changed vkcube's frame {frame}, which submits the same recording", out)
    if "every frame that submits" in out:
        fail("--skip-draws 5:1 still warns that every frame loses the draw", out)
    # and together with a dump of the same frame (diagnose's reference side): the dump sees the skip
    d2 = os.path.join(WORK, "cube-skip-draws")
    both, out = replay(retrace, trace, "cube-skip-dump", "--frames", "4-6", "--skip-draws", "5:1",
                       "--dump-draws", "5", "--dump-dir", d2)
    for frame in (4, 6):
        if not identical(plain, both, frame):
            fail(f"--skip-draws 5:1 --dump-draws 5 changed vkcube's frame {frame}", out)
    if not identical(skipped, both, 5):
        fail("--dump-draws 5 changed frame 5 under --skip-draws 5:1", out)
    print(f"vkcube frame 5: {index['frame_draws']} draws of an earlier recording dumped, its final image; "
          "frames unchanged; skipped: frame 5 changes, frames 4 and 6 do not")


def manifest(retrace, exe):
    trace = capture(retrace, "readback", exe)
    db, m = os.path.join(WORK, "store.db"), os.path.join(WORK, "m.yml")
    with open(m, "w") as f:
        f.write(f"configurations:\n  - name: plain\n  - name: broken\n    skip-draws: \"2:150\"\n"
                f"traces:\n  - path: {trace}\n    frames: [1, 2]\n")
    rc, out = run([retrace, "run", m, "--db", db, "--configuration", "plain", "--update-goldens"])
    if rc != 0:
        fail(f"the goldens' run exited {rc}", out)
    rc, out = run([retrace, "run", m, "--db", db, "--json"], stderr=subprocess.DEVNULL)
    if rc != 1:
        fail(f"a run with skip-draws exited {rc}, expected 1 (a regression)", out)
    results = {(r["configuration"], r["frame"]): r["status"] for r in json.loads(out[out.index("{"):])["results"]}
    want = {("plain", 1): "pass", ("plain", 2): "pass", ("broken", 1): "pass", ("broken", 2): "fail"}
    if results != want:
        fail(f"results {results}, expected {want}", out)
    with open(m, "w") as f:
        f.write(f"configurations:\n  - name: bad\n    skip-draws: \"2:0\"\ntraces:\n  - path: {trace}\n")
    rc, out = run([retrace, "run", m, "--db", db])
    if rc != 3 or "skip-draws '2:0'" not in out:
        fail(f"a bad skip-draws exited {rc}, expected 3 naming it", out)
    print("manifest: skip-draws fails frame 2 of its configuration only; a bad one is exit 3")


def main():
    if not os.environ.get("DISPLAY"):
        print("SKIP: no DISPLAY for the windowed captures")
        return SKIP
    mode, retrace = sys.argv[1], sys.argv[2]
    if mode == "dump":
        dump(retrace, sys.argv[3:])
    elif mode == "manifest":
        manifest(retrace, sys.argv[3])
    elif mode == "passes":
        passes(retrace, sys.argv[3])
    elif mode == "msaa":
        msaa(retrace, sys.argv[3])
    elif mode == "storage":
        storage(retrace, sys.argv[3], sys.argv[4])
    elif mode == "resubmit":
        resubmit(retrace, sys.argv[3])
    elif mode == "secondary":
        secondary(retrace, sys.argv[3])
    elif mode == "skip":
        skip(retrace, sys.argv[3])
    else:
        fail(f"unknown mode {mode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
