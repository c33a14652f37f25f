#!/usr/bin/env python3
"""A Wayland program captured and replayed: vkcube-wayland on a headless
weston. Usage: wayland.py WESTON ROUNDTRIP RETRACE VKCUBE_WAYLAND

The program's vkCreateWaylandSurfaceKHR must be in the trace (replay makes a
headless stand-in for it): a build that did not know Wayland's structs let
the call through unrecorded, and the trace failed at the first use of the
surface (review R1, session 7). Runs roundtrip.py (capture, info --check,
validated replay, pixels against the capture-time screenshots) as captured
and with --memory rebind, with WAYLAND_DISPLAY naming a weston of its own."""
import os
import shutil
import subprocess
import sys
import tempfile
import time


def fail(msg, log=""):
    print(f"FAIL: {msg}\n{log[-4000:]}")
    sys.exit(1)


def start_weston(weston, runtime):
    socket = "retrace-test-wayland"
    log = open(os.path.join(runtime, "weston.log"), "w")
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime)
    p = subprocess.Popen([weston, "--backend=headless-backend.so", f"--socket={socket}", "--idle-time=0"],
                         env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while not os.path.exists(os.path.join(runtime, socket)):
        if p.poll() is not None or time.monotonic() > deadline:
            p.kill()
            fail("weston did not start", open(log.name).read())
        time.sleep(0.1)
    return p, socket


def main():
    weston, roundtrip, retrace, program = sys.argv[1:5]
    runtime = tempfile.mkdtemp(prefix="retrace-wayland-")
    os.chmod(runtime, 0o700)
    p, socket = start_weston(weston, runtime)
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime, WAYLAND_DISPLAY=socket)
    env.pop("DISPLAY", None)  # nothing of X: the program and retrace see Wayland only
    try:
        for memory in ["auto", "rebind"]:
            r = subprocess.run([sys.executable, roundtrip, "--retrace", retrace, "--frames", "1,5,10",
                                "--replay-memory", memory, "--", program, "--c", "10", "--validate"],
                               env=env, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                fail(f"vkcube-wayland, --memory {memory}: roundtrip exited {r.returncode}", r.stdout + r.stderr)
    finally:
        p.terminate()
        p.wait(timeout=30)
        shutil.rmtree(runtime, ignore_errors=True)
    print("ok: vkcube-wayland on weston: captured, replayed as captured and rebound, frames 1, 5, 10 identical")


if __name__ == "__main__":
    main()
