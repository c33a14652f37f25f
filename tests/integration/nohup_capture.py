#!/usr/bin/env python3
"""`nohup retrace capture -- PROGRAM`: a stop signal ignored when retrace
starts is ignored by the program, as it is for the program run bare (retrace
passes it on and does not end); the others still end the capture with a
finished trace.
Usage: nohup_capture.py RETRACE PROGRAM (a sample app: --frames N)

retrace used to install its forwarder over an inherited SIG_IGN and start
the program with default handling, so a hangup under nohup killed the
program (the flakes helper, session 7)."""
import os
import signal
import subprocess
import sys
import tempfile
import time


def fail(msg, log=""):
    print(f"FAIL: {msg}\n{log[-3000:]}")
    sys.exit(1)


def main():
    retrace, program = sys.argv[1:3]
    if not os.environ.get("DISPLAY"):
        print("skip: no DISPLAY (the program presents to a window)")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="retrace-nohup-")
    trace = os.path.join(work, "t.rtrace")

    def as_nohup():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    p = subprocess.Popen([retrace, "capture", "-o", trace, "--", program, "--frames", "1000000"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=as_nohup,
                         start_new_session=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(trace + ".part") and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    if p.poll() is not None:
        fail("the capture ended before its trace was begun", p.communicate()[0])
    os.killpg(p.pid, signal.SIGHUP)  # retrace and the program's own group: both ignore it
    group = None
    for line in open(f"/proc/{p.pid}/task/{p.pid}/children").read().split():
        group = int(line)
    time.sleep(1.0)
    if p.poll() is not None:
        fail(f"retrace ended on a SIGHUP it started with ignored (exit {p.returncode})", p.communicate()[0])
    if group:
        try:
            os.killpg(group, signal.SIGHUP)
        except ProcessLookupError:
            fail("the program ended on a SIGHUP retrace started with ignored")
        time.sleep(1.0)
        if p.poll() is not None:
            fail("the program ended on a SIGHUP it started with ignored", p.communicate()[0])
    p.send_signal(signal.SIGTERM)
    try:
        out = p.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        p.kill()
        fail("SIGTERM did not end the capture")
    if p.returncode != -signal.SIGTERM or not os.path.exists(trace):
        fail(f"after SIGTERM: exit {p.returncode}, trace {'kept' if os.path.exists(trace) else 'missing'}", out)
    info = subprocess.run([retrace, "info", "--check", trace], capture_output=True, text=True)
    if info.returncode != 0:
        fail("the trace is not whole", info.stdout + info.stderr)
    print("ok: SIGHUP ignored at start ended neither retrace nor the program; SIGTERM ended the capture")


if __name__ == "__main__":
    main()
