#!/usr/bin/env python3
"""retrace diagnose finds the seeded divergent draw (docs/FORMATS.md 7.3).

  diagnose.py seeded RETRACE READBACK_APP TRACES_DIR
        rt_app_readback (about 260 draws in frame 2) against a configuration
        that skips draw N (the first, one in the middle, the last that draws): exit 1 at
        draw N exactly, its images and diff on disk, its shaders named (and
        disassembled where spirv-dis is installed), replays within
        1 + 2 * ceil(log16(draws)) + 2; against an identical configuration:
        exit 0, first_divergent null; usage errors exit 2; vkcube's frame 5,
        whose command buffer was recorded before frame 1, against skip-draws
        5:1: found at draw 1 (its draws are the earlier recording's)
  diagnose.py apps RETRACE OOB UNINIT RACE
        the sample apps built to show a driver bug, replayed on a model of a
        driver with that bug (the test-only workarounds, RETRACE_TEST_DRIVER=1)
        against the same model with the bug's workaround: rt_app_oob on
        test-unchecked-reads + test-dirty-memory against robust-buffer-access
        found at draw 1, its dispatch, in the cells buffer, 256 bytes (the 64
        reads past the 64-value buffer); rt_app_uninit on test-dirty-memory
        against zero-init at draw 1, the grid's; rt_app_race on
        test-late-submits against readback-barrier at draw 2, the copy into
        the host buffer (not the grid's draw before it, nor the frame's after
        it). The draw numbers come from the apps' sources, not from a dump.
        The model against itself diverges nowhere; plain lavapipe against the
        workaround diverges nowhere either (it has none of the three bugs)

  diagnose.py flip RETRACE APP...
        each app against the test-only workaround test-flip-blend
        (RETRACE_TEST_FLIP_BLEND=1: its first graphics pipeline blends
        wrongly): exit 1 at exactly the first draw that uses that pipeline
        (rt_app_particles: after its dispatch), the answer naming that
        pipeline, judged pixel for pixel; without the variable the
        workaround refuses to run (the reference's replay fails: exit 4)

  diagnose.py passes RETRACE PASSES
        rt_app_passes (two subpasses of a vkCreateRenderPass2 pass, 4x MSAA)
        against skip-draws of its second draw (subpass 0) and its third
        (subpass 1): found at each exactly
  diagnose.py secondary RETRACE THREADS
        rt_app_threads (draws in secondary command buffers) against
        skip-draws of a draw in each secondary: found at each exactly
  diagnose.py zink RETRACE GLMARK2
        glmark2 through zink (blending as dynamic state) against
        test-flip-blend: found at pipeline 1's first draw
  diagnose.py dispatch RETRACE PARTICLES
        rt_app_particles against skip-draws that leave out its dispatch: found
        at the dispatch itself (its storage buffers compared byte for byte),
        not at the draw after it; the answer's images are the buffers' .bin

Captures run windowed (DISPLAY; exit 77 without one).
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
WORK = tempfile.mkdtemp(prefix="rt_diagnose_")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=280)
    return p.returncode, p.stdout, p.stderr


def fail(msg, log=""):
    print(log)
    print(f"FAIL: {msg}")
    sys.exit(1)


def capture(retrace, exe, frames=3):
    trace = os.path.join(WORK, os.path.basename(exe) + ".rtrace")
    cmd = [retrace, "capture", "-o", trace, "--", exe, "--frames", str(frames)]
    for _ in range(4):  # a busy Xvfb refused the connection now and then: not what is tested here
        rc, out, err = run(cmd)
        if "Cannot connect to XCB" not in err + out and "cannot open an X display" not in err + out:
            break
        time.sleep(1)
    if rc != 0:
        fail(f"capture of {exe} exited {rc}", out + err)
    return trace


def diagnose(retrace, trace, tag, *args, want, env=None, frame=2):
    out_dir = os.path.join(WORK, tag)
    p = subprocess.run([retrace, "diagnose", trace, "--frame", str(frame), "--out", out_dir, "--json"] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=280,
                       env=dict(os.environ, **(env or {})))
    rc, out, err = p.returncode, p.stdout, p.stderr
    if rc != want:
        fail(f"diagnose {tag} exited {rc}, expected {want}", out + err)
    answer = json.loads(out)
    if f"{answer['replays']} replays of frame {frame}" not in err:
        fail(f"diagnose {tag}: the replay count is not logged", err)
    return answer


def check_found(answer, n, tag, before=None):
    d = answer["first_divergent"]
    if not d or d["draw"] != n:
        fail(f"{tag}: first divergent draw {d and d['draw']}, expected {n}", json.dumps(answer, indent=1))
    for key in ("call", "command", "pipeline", "shaders", "ssim", "delta_e", "images"):
        if key not in d:
            fail(f"{tag}: the answer has no '{key}'", json.dumps(d))
    images = d["images"]
    bytes_only = str(images.get("after_test") or "").endswith(".bin")  # a buffer: no diff image
    for key in ("after_test", "after_reference") + (() if bytes_only else ("diff",)) + (
            ("before_test", "before_reference") if (n > 1 if before is None else before) else ()):
        if not images[key] or not os.path.exists(images[key]):
            fail(f"{tag}: image {key} missing ({images[key]})", json.dumps(d))
    if not d["command"].startswith(("vkCmdDraw", "vkCmdDispatch")):
        return  # a copy, clear or blit runs no shader
    if not d["shaders"] or not all(s["xxh128"] for s in d["shaders"]):
        fail(f"{tag}: the draw's shaders are not named", json.dumps(d))
    if shutil.which("spirv-dis") and not all(s["disassembly"] and os.path.exists(s["disassembly"])
                                             for s in d["shaders"]):
        fail(f"{tag}: spirv-dis is installed but no disassembly", json.dumps(d))


def seeded(retrace, exe, traces):
    trace = capture(retrace, exe)
    first = diagnose(retrace, trace, "skip-first", "--against-config", "skip-draws=2:1", want=1)
    n = first["draws"]
    bound = 1 + 2 * math.ceil(math.log(n) / math.log(16)) + 2
    drawn = drawn_draws(retrace, trace)  # the last draw of the frame copies to a buffer: no image
    for target in (1, n // 2 + 7, drawn[-1]):
        answer = first if target == 1 else diagnose(retrace, trace, f"skip-{target}", "--against-config",
                                                    f"skip-draws=2:{target}", want=1)
        check_found(answer, target, f"skip draw {target}")
        if answer["replays"] > bound or answer["dumps"] > 16 * answer["replays"]:
            fail(f"skip draw {target}: {answer['replays']} replays, {answer['dumps']} dumps for {n} draws "
                 f"(at most {bound} replays)")
        print(f"skip draw {target} of {n}: found in {answer['replays']} replays, {answer['dumps']} dumps")
    # No reference named: lavapipe, the device the replay under test lands on
    # here too, so only the configuration differs: judged pixel for pixel
    # (review R4: it was judged by the cross-device SSIM gate).
    alone = diagnose(retrace, trace, "config-alone", "--config", "skip-draws=2:1", want=1)
    if not alone["thresholds"]["exact"] or alone["reference"] != {"kind": "device", "value": "llvmpipe"}:
        fail("--config with no reference on lavapipe is not judged pixel for pixel", json.dumps(alone))
    check_found(alone, 1, "--config skip-draws=2:1, no reference")
    same = diagnose(retrace, trace, "same", "--against-config", "seed=7", want=0)
    if same["first_divergent"] is not None or same["draws"] != n:
        fail("an identical configuration must diverge nowhere", json.dumps(same))
    vkcube = os.path.join(traces, "vkcube.rtrace")
    rc, out, err = run([retrace, "diagnose", vkcube, "--frame", "5", "--against-config", "skip-draws=5:1", "--out",
                        os.path.join(WORK, "vkcube"), "--json"])
    answer = json.loads(out) if rc == 1 else None
    if not answer or not answer["first_divergent"] or answer["first_divergent"]["draw"] != 1:
        fail(f"vkcube frame 5 (re-submitted) against skip-draws=5:1 exited {rc}, expected 1 at draw 1", out + err)
    print(f"vkcube frame 5, recorded before frame 1: draw 1 of {answer['draws']} found in {answer['replays']} replays")
    for args, words in ((["--against-config", "seed=1"], "expected TRACE and --frame"),
                        (["--frame", "2", "--against-config", "seed=1", "--against-device", "0"], "name one"),
                        (["--frame", "2", "--against-config", "colour=red"], "configuration key"),
                        (["--frame", "99", "--against-config", "seed=1"], "no draws of its own")):
        cmd = [retrace, "diagnose", trace] + args
        rc, out, err = run(cmd)
        if rc != 2 or words not in err:
            fail(f"diagnose {' '.join(cmd[2:])} exited {rc}, expected 2 saying '{words}'", out + err)
    print("identical configuration: nothing diverges; usage errors: exit 2")


def full_dump(retrace, trace):
    """Frame 2's draws.json entries (a full dump)."""
    d = os.path.join(WORK, "index-" + os.path.basename(trace))
    rc, out, err = run([retrace, "replay", trace, "--dump-draws", "2", "--dump-dir", d])
    if rc != 0:
        fail(f"dump of {trace} exited {rc}", out + err)
    with open(os.path.join(d, "draws.json")) as f:
        return json.load(f)["draws"]


def drawn_draws(retrace, trace):
    """The draws of frame 2 that saved an image (a full dump)."""
    return [e["draw"] for e in full_dump(retrace, trace) if e["files"]]


# Each bug app's frame 2, from its source (tests/apps): the draw that goes wrong, its command, what it
# writes that is wrong, and how many bytes of it (None: an image, any count).
#   oob.c: vkCmdDispatch (draw 1) copies SRC[i] into the 128 cells; SRC holds GRID_CELLS / 2 = 64
#          values, so cells 64..127 (256 bytes) are read past its end; the grid's vkCmdDraw (2) follows.
#   uninit.c: one vkCmdDraw (draw 1) shows the cells nothing wrote.
#   race.c: the grid's vkCmdDraw into the image (1), vkCmdCopyImageToBuffer into the host buffer (2)
#          with nothing ordering it after the draw, the frame's own grid (3).
BUG_APPS = (
    ("oob", "test-unchecked-reads,test-dirty-memory", "robust-buffer-access", 1, "vkCmdDispatch", "buffer", 64 * 4),
    ("uninit", "test-dirty-memory", "zero-init", 1, "vkCmdDraw", "color0", None),
    ("race", "test-late-submits", "readback-barrier", 2, "vkCmdCopyImageToBuffer", "dst", None),
)


def apps(retrace, oob, uninit, race):
    """Each app on a model of a driver with its bug, against the same model with the bug's workaround: found
    at the draw its source says goes wrong; the model against itself, and lavapipe as it is against the
    workaround, diverge nowhere."""
    exes = {"oob": oob, "uninit": uninit, "race": race}
    model_env = {"RETRACE_TEST_DRIVER": "1"}
    for name, model, fix, want, command, target, nbytes in BUG_APPS:
        trace = capture(retrace, exes[name])
        entry = next((e for e in full_dump(retrace, trace) if e["draw"] == want), None)
        if not entry or entry["command"] != command:
            fail(f"rt_app_{name}: frame 2's draw {want} is {entry and entry['command']}, its source says {command}")
        answer = diagnose(retrace, trace, f"bug-{name}", "--config", f"workarounds={model}", "--against-config",
                          f"workarounds={model},{fix}", want=1, env=model_env)
        # a buffer no draw before wrote has no image before it
        check_found(answer, want, f"rt_app_{name} on {model} against {fix}", before=want > 1 and target == "color0")
        d = answer["first_divergent"]
        if not d["target"].startswith(target) or (nbytes is not None and d["diff_pixels"] != nbytes):
            fail(f"rt_app_{name}: diverges in {d['target']} ({d['diff_pixels']} differ), expected {target}"
                 + (f" ({nbytes} bytes)" if nbytes else ""), json.dumps(answer, indent=1))
        print(f"rt_app_{name} on {model} against {fix}: draw {want} ({d['command']}), {d['target']}, "
              f"{d['diff_pixels']} {'bytes' if d['target'].startswith(('buffer', 'dst')) else 'pixels'} differ, "
              f"{answer['replays']} replays")
        same = diagnose(retrace, trace, f"bug-{name}-same", "--config", f"workarounds={model}", "--against-config",
                        f"workarounds={model}", want=0, env=model_env)
        plain = diagnose(retrace, trace, f"bug-{name}-plain", "--against-config", f"workarounds={fix}", want=0)
        if same["first_divergent"] is not None or plain["first_divergent"] is not None:
            fail(f"rt_app_{name}: the model against itself or lavapipe against {fix} diverges",
                 json.dumps([same, plain], indent=1))
    env = {k: v for k, v in os.environ.items() if k != "RETRACE_TEST_DRIVER"}
    p = subprocess.run([retrace, "replay", trace, "--workarounds", "test-late-submits"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=280, env=env)
    if p.returncode != 2 or "RETRACE_TEST_DRIVER=1" not in p.stderr:
        fail(f"test-late-submits without RETRACE_TEST_DRIVER exited {p.returncode}, expected 2 naming it", p.stderr)


def flip(retrace, exes):
    """The test-only break of one pipeline's blending is found at the first draw that uses it."""
    for exe in exes:
        name = os.path.basename(exe)
        trace = capture(retrace, exe)
        draws = [e for e in full_dump(retrace, trace) if e["files"]]
        first = next(e for e in draws if e["command"].startswith("vkCmdDraw"))
        answer = diagnose(retrace, trace, "flip-" + name, "--against-config", "workarounds=test-flip-blend",
                          want=1, env={"RETRACE_TEST_FLIP_BLEND": "1"})
        check_found(answer, first["draw"], f"{name} flip-blend", before=first is not draws[0])
        d = answer["first_divergent"]
        if d["pipeline"] != first["pipeline"] or not answer["thresholds"]["exact"]:
            fail(f"{name}: the answer names pipeline {d['pipeline']} (expected {first['pipeline']}), exact "
                 f"{answer['thresholds']['exact']}", json.dumps(answer))
        # named as `retrace dump` names it: the pipeline the draw's command buffer bound last before it
        rc, out, err = run([retrace, "dump", trace, "--calls", f"0-{d['call']}"])
        binds = re.findall(r"^\d+ vkCmdBindPipeline\(commandBuffer=(<VkCommandBuffer \d+>), pipelineBindPoint=GRAPHICS, "
                           r"pipeline=(<VkPipeline \d+>)\)", out, re.M)
        named = [p for cb, p in binds]
        if rc != 0 or not named or d.get("pipeline_name") not in named:
            fail(f"{name}: the answer names pipeline {d.get('pipeline_name')}, dump binds {sorted(set(named))}", err)
        p = subprocess.run([retrace, "diagnose", trace, "--frame", "2", "--out", os.path.join(WORK, "text-" + name),
                            "--against-config", "workarounds=test-flip-blend"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=280,
                           env=dict(os.environ, RETRACE_TEST_FLIP_BLEND="1"))
        if f"pipeline {d['pipeline_name']} ({d['pipeline']})" not in p.stdout:
            fail(f"{name}: the text answer does not name {d['pipeline_name']} ({d['pipeline']})", p.stdout + p.stderr)
        print(f"{name} against test-flip-blend: draw {d['draw']} ({d['command']}, pipeline {d['pipeline_name']}), "
              f"{d['diff_pixels']} pixels differ, {answer['replays']} replays")
        env = {k: v for k, v in os.environ.items() if k != "RETRACE_TEST_FLIP_BLEND"}
        p = subprocess.run([retrace, "diagnose", trace, "--frame", "2", "--out", os.path.join(WORK, "noenv-" + name),
                            "--against-config", "workarounds=test-flip-blend"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=280, env=env)
        if p.returncode != 4:
            fail(f"{name}: test-flip-blend without RETRACE_TEST_FLIP_BLEND exited {p.returncode}, expected 4",
                 p.stdout + p.stderr)


def passes(retrace, exe):
    trace = capture(retrace, exe)
    for n in (2, 3):
        answer = diagnose(retrace, trace, f"passes-{n}", "--against-config", f"skip-draws=2:{n}", want=1)
        check_found(answer, n, f"rt_app_passes skip {n}")
        print(f"rt_app_passes: skipped draw {n} (subpass {n // 3}) found in {answer['replays']} replays")


def dispatch(retrace, exe):
    trace = capture(retrace, exe)
    n = next(e["draw"] for e in full_dump(retrace, trace) if e["command"] == "vkCmdDispatch")
    answer = diagnose(retrace, trace, "dispatch", "--against-config", f"skip-draws=2:{n}", want=1)
    d = answer["first_divergent"]
    if not d or d["draw"] != n or not d["target"].startswith("buffer") or not d["diff_pixels"]:
        fail(f"skipped dispatch {n}: found {d and d['draw']} ({d and d['target']}), expected the dispatch's buffers",
             json.dumps(answer))
    if not all(d["images"][k] and d["images"][k].endswith(".bin") for k in ("after_test", "after_reference")):
        fail("the dispatch's answer does not name its buffers", json.dumps(d))
    print(f"{os.path.basename(exe)}: skipped dispatch found at draw {n} ({d['target']}, {d['diff_pixels']} bytes "
          f"differ) in {answer['replays']} replays")


def secondary(retrace, exe):
    """rt_app_threads (draws in two workers' secondary command buffers) against skip-draws of a draw in the
    first secondary and one in the second: found at each exactly; against itself, nothing."""
    trace = os.path.join(WORK, "threads.rtrace")
    rc, out, err = run([retrace, "capture", "-o", trace, "--", exe, "--frames", "3", "--threads", "2"])
    if rc != 0:
        fail(f"capture of {exe} exited {rc}", out + err)
    draws = full_dump(retrace, trace)
    with open(os.path.join(WORK, "index-threads.rtrace", "draws.json")) as f:
        first_run = json.load(f)["executed"][0]  # the first draw the frame runs has no image before it
    second = [e for e in draws if e["command_buffer"] != draws[0]["command_buffer"]]
    if not second:
        fail("rt_app_threads: its draws are in one command buffer", json.dumps(draws)[:2000])
    for n in (draws[len(draws) // 4]["draw"], second[len(second) // 2]["draw"], draws[0]["draw"], second[0]["draw"]):
        answer = diagnose(retrace, trace, f"threads-{n}", "--against-config", f"skip-draws=2:{n}", want=1)
        check_found(answer, n, f"rt_app_threads skip {n}", before=n != first_run)
        print(f"rt_app_threads against skip-draws 2:{n} (in {draws[n - 1]['command_buffer']}): draw "
              f"{answer['first_divergent']['draw']}, {answer['replays']} replays")
    answer = diagnose(retrace, trace, "threads-same", "--against-config", "seed=1", want=0)
    if answer["first_divergent"] is not None:
        fail("rt_app_threads against an identical configuration diverged", json.dumps(answer))


def zink(retrace, glmark2):
    """glmark2 through zink: its pipelines take blending from dynamic state (vkCmdSetColorBlendEnableEXT /
    EquationEXT), which the pipeline's own blend state does not reach, and zink sets it only when it
    changes, not at every bind. test-flip-blend breaks it while pipeline K is bound; diagnose finds K's
    first draw, judged pixel for pixel: the 'build' scene's one pipeline, and in the 'ideas' scene (100
    draws, 9 pipelines) the first pipeline first bound after the frame's tenth draw whose break changes the
    frame."""
    def capture_zink(name, *bench):
        trace = os.path.join(WORK, name + ".rtrace")
        for _ in range(4):  # a busy Xvfb refused the connection now and then: not what is tested here
            rc, out, err = run([retrace, "capture", "-o", trace, "--", "env", "MESA_LOADER_DRIVER_OVERRIDE=zink",
                                "LIBGL_ALWAYS_SOFTWARE=1", glmark2] + list(bench))
            if rc == 0 or ("XCB" not in err + out and "display" not in err + out):
                break
            time.sleep(1)
        if rc != 0:
            fail(f"capture of glmark2 {bench} through zink exited {rc}", out + err)
        return trace
    trace = capture_zink("glmark2-build", "-b", "build:duration=0.3", "--size", "160x120")
    rc, dump, err = run([retrace, "dump", trace])
    if "vkCmdSetColorBlendEquationEXT" not in dump:
        print("SKIP: this zink sets no dynamic blend state")
        sys.exit(SKIP)
    answer = diagnose(retrace, trace, "zink-flip", "--against-config", "workarounds=test-flip-blend", want=1,
                      env={"RETRACE_TEST_FLIP_BLEND": "1"})
    d = answer["first_divergent"]
    if d["pipeline_name"] != "<VkPipeline 1>" or not d["diff_pixels"]:
        fail(f"glmark2 build through zink: the break is found at {d['pipeline_name']}, {d['diff_pixels']} pixels",
             json.dumps(answer))
    print(f"glmark2 build through zink against test-flip-blend: draw {d['draw']} of {answer['draws']} "
          f"({d['command']}, {d['pipeline_name']}), {d['diff_pixels']} pixels differ, {answer['replays']} replays")
    trace = capture_zink("glmark2-ideas", "-b", "ideas:duration=1", "--size", "400x300")
    d = os.path.join(WORK, "ideas-draws")
    rc, out, err = run([retrace, "replay", trace, "--end-frame", "20", "--dump-draws", "20", "--dump-dir", d])
    if rc != 0:
        fail(f"dump of glmark2 ideas exited {rc}", out + err)
    with open(os.path.join(d, "draws.json")) as f:
        entries = json.load(f)["draws"]
    first = {}
    for e in entries:
        first.setdefault(e["pipeline_name"], e["draw"])
    late = sorted((n, p) for p, n in first.items() if p and n > 10)
    # a break that changes nothing (an additive draw onto black) has no draw to find: the first whose break
    # changes the frame
    def breaks_frame(k):
        shots = []
        for tag, args, env in (("plain", [], {}), ("flip", ["--workarounds", "test-flip-blend"],
                                                   {"RETRACE_TEST_FLIP_BLEND": k})):
            out_dir = os.path.join(WORK, f"ideas-{tag}-{k}")
            p = subprocess.run([retrace, "replay", trace, "--end-frame", "20", "--frames", "20", "--screenshots",
                                out_dir] + args, capture_output=True, text=True, timeout=280,
                               env=dict(os.environ, **env))
            with open(os.path.join(out_dir, "frame_000020.png"), "rb") as f:
                shots.append(f.read())
        return shots[0] != shots[1]
    chosen = next(((n, p) for n, p in late if breaks_frame(p.split()[1].rstrip(">"))), None)
    if not chosen:
        fail("glmark2 ideas: no pipeline first bound after the frame's tenth draw changes it when broken",
             json.dumps(first))
    want, name = chosen
    k = name.split()[1].rstrip(">")
    answer = diagnose(retrace, trace, "zink-ideas-flip", "--against-config", "workarounds=test-flip-blend", want=1,
                      env={"RETRACE_TEST_FLIP_BLEND": k}, frame=20)
    check_found(answer, want, f"glmark2 ideas test-flip-blend K={k}")
    print(f"glmark2 ideas through zink against test-flip-blend K={k}: draw {want} of {answer['draws']} "
          f"({answer['first_divergent']['diff_pixels']} pixels), {answer['replays']} replays")


def main():
    if not os.environ.get("DISPLAY"):
        print("SKIP: no DISPLAY for the windowed captures")
        return SKIP
    if sys.argv[1] == "seeded":
        seeded(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "passes":
        passes(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "dispatch":
        dispatch(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "zink":
        zink(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "secondary":
        secondary(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "flip":
        flip(sys.argv[2], sys.argv[3:])
    else:
        apps(*sys.argv[2:6])
    return 0


if __name__ == "__main__":
    sys.exit(main())
