#!/usr/bin/env python3
"""A program killed mid-capture leaves a trace that reads, and replays, up to
its last complete frame. Usage: killed.py RETRACE LAYER_DIR SIGNAL PROGRAM...
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
    print(f"FAIL: {msg}\n{log[-3000:]}")
    sys.exit(1)


def wait_for_frames(trace_part, proc, seconds=240):
    """Waits until the capture has written a few blocks (frames end blocks;
    a loaded machine runs the program slowly, hence the long deadline);
    False when the program could not reach the display."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read()
            if "X display" in err or "Cannot connect" in err:
                return False
            fail("the program ended before it could be killed", err)
        if os.path.exists(trace_part) and os.path.getsize(trace_part) > 64 * 1024:
            return True
        time.sleep(0.1)
    fail("the capture never wrote 64 KiB")
    return True


def main():
    retrace, layer_dir, signame = sys.argv[1:4]
    # An ignored signal survives exec (nohup: SIGHUP; a background job of a
    # shell without job control: SIGINT), and the layer keeps it ignored: the
    # program would never end. The signal sent must be one that kills.
    if signal.getsignal(getattr(signal, signame)) == signal.SIG_IGN:
        signal.signal(getattr(signal, signame), signal.SIG_DFL)
    program = sys.argv[4:]
    if not os.environ.get("DISPLAY"):
        print("SKIP: needs a display")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="retrace-killed-")
    trace = os.path.join(work, "killed.rtrace")
    env = dict(os.environ, VK_ADD_LAYER_PATH=layer_dir, VK_INSTANCE_LAYERS="VK_LAYER_RETRACE_capture",
               RETRACE_OUTPUT=trace)
    for attempt in range(2):  # a busy Xvfb may refuse one connection: not what is tested
        for leftover in (trace, trace + ".part"):  # else the retry writes killed-PID.rtrace
            if os.path.exists(leftover):
                os.unlink(leftover)
        proc = subprocess.Popen(program, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if wait_for_frames(trace + ".part", proc):
            break
    else:
        fail("the program could not reach the display twice")
    proc.send_signal(getattr(signal, signame))
    proc.wait(timeout=60)
    if not os.path.exists(trace):
        fail(f"after {signame} the trace was not renamed to {trace}", proc.stderr.read())
    info = subprocess.run([retrace, "info", "--check", trace], capture_output=True, text=True)
    frames = re.search(r"frames\s+(\d+)", info.stdout)
    if info.returncode != 0 or not frames or int(frames.group(1)) < 1:
        fail(f"info --check after {signame} (exit {info.returncode})", info.stdout + info.stderr)
    rep = subprocess.run([retrace, "replay", trace, "--validate"], capture_output=True, text=True)
    replayed = re.search(r"replayed (\d+) frames", rep.stderr)
    if rep.returncode != 0 or not replayed or int(replayed.group(1)) != int(frames.group(1)):
        fail(f"replaying the killed capture (exit {rep.returncode}, {frames.group(1)} frames in the trace)",
             rep.stderr)
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok: {frames.group(1)} complete frames survived {signame}")


if __name__ == "__main__":
    main()
