#!/usr/bin/env python3
"""Kills multi-threaded programs mid-capture, RUNS times, with the signal on a
thread that is not main: SIGINT, SIGTERM, SIGHUP, SIGQUIT sent to the program
(its main thread blocks them, so a worker takes them), a worker's own SIGSEGV
or abort(), SIGKILL, and SIGTERM or SIGINT sent to `retrace capture` itself.
Also "exit": a worker calls exit(0) while the others go on calling Vulkan (the
capture's exit-time close must not pull the writer or the guarded pages from
under them: the program exits 0). Every run must leave a finished trace under
its name (no .part anywhere) that passes `info --check`; one trace of each
kind must replay.
Usage: kill_threads.py RETRACE LAYER_DIR BUSY_THREADS [RUNS [KIND,...]]
Exit 0 on success, 1 on failure."""
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

THREADS = "4"
KINDS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "segv", "abort", "exit", "SIGKILL",
         "retrace-SIGTERM", "retrace-SIGINT"]


def fail(msg, log=""):
    print(f"FAIL: {msg}\n{log[-3000:]}")
    sys.exit(1)


def wait_for_part(part, proc, seconds=60):
    """Until the capture has written some blocks, or the process ended."""
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        try:
            size = os.path.getsize(part)
        except FileNotFoundError:
            size = 0  # not yet made, or renamed: a worker's abort finished the trace
        if size > 32 * 1024:
            return
        time.sleep(0.05)
    if proc.poll() is None:
        fail(f"the capture never wrote 32 KiB into {part}")


def program_pid(retrace_pid):
    """The program retrace capture started (its only child)."""
    for _ in range(200):
        try:
            with open(f"/proc/{retrace_pid}/task/{retrace_pid}/children") as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
        except OSError:
            pass
        time.sleep(0.05)
    fail("retrace capture started no program")
    return 0


def run_by_hand(kind, busy, trace, layer_dir, rng):
    """The layer alone (no retrace capture to finish what it leaves)."""
    env = dict(os.environ, VK_ADD_LAYER_PATH=layer_dir, VK_INSTANCE_LAYERS="VK_LAYER_RETRACE_capture",
               RETRACE_OUTPUT=trace, RETRACE_FRAME_DELIMITER="submit")
    args = [busy, THREADS] + ([kind, str(rng.randint(5, 60))] if kind in ("segv", "abort", "exit") else [])
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for_part(trace + ".part", proc)
    if kind.startswith("SIG"):
        time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(getattr(signal, kind))
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail(f"{kind}: the program did not end")
    if kind == "exit" and proc.returncode != 0:
        fail(f"exit: the program ended with {proc.returncode} instead of exiting 0", err)
    if kind != "exit" and proc.returncode >= 0:
        fail(f"{kind}: the program exited {proc.returncode} instead of dying", err)
    return err


def run_under_retrace(kind, retrace, busy, trace, rng):
    cmd = [retrace, "capture", "-o", trace, "--frame-delimiter", "submit", "--", busy, THREADS]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid = program_pid(proc.pid)
    wait_for_part(trace + ".part", proc)
    time.sleep(rng.uniform(0, 0.3))
    if kind == "SIGKILL":
        os.kill(pid, signal.SIGKILL)
        want = 6
    else:
        sig = getattr(signal, kind.split("-")[1])
        proc.send_signal(sig)
        want = -sig
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail(f"{kind}: retrace capture did not end")
    if proc.returncode != want:
        fail(f"{kind}: retrace capture exited {proc.returncode}, expected {want}", out + err)
    if os.path.exists(f"/proc/{pid}") and "zombie" not in open(f"/proc/{pid}/status").read():
        fail(f"{kind}: the program outlived retrace capture")
    if kind == "SIGKILL" and "retrace finished it" not in err:
        fail("SIGKILL: retrace capture did not say it finished the trace", err)
    return out + err


def default_stop_signals():
    """The signals this test sends must reach the programs as signals that
    kill. An ignored disposition survives exec: started under nohup (SIGHUP
    ignored) or as a background job of a shell without job control (SIGINT,
    SIGQUIT), this script would hand it on, the layer rightly keeps an ignored
    signal ignored, and the program would never end."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)


def main():
    default_stop_signals()
    retrace, layer_dir, busy = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    kinds = sys.argv[5].split(",") if len(sys.argv) > 5 else KINDS
    seed = int(os.environ.get("RT_TEST_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    print(f"# seed {seed} (RT_TEST_SEED repeats this run)")
    work = tempfile.mkdtemp(prefix="retrace-kill-")
    kept = {}
    for i in range(runs):
        kind = kinds[i % len(kinds)]
        trace = os.path.join(work, f"run{i:02d}-{kind}.rtrace")
        if kind in ("SIGKILL",) or kind.startswith("retrace-"):
            log = run_under_retrace(kind, retrace, busy, trace, rng)
        else:
            log = run_by_hand(kind, busy, trace, layer_dir, rng)
        left = [f for f in os.listdir(work) if f.endswith(".part")]
        if left or not os.path.exists(trace):
            fail(f"run {i} ({kind}): no trace under its name; left: {left}", log)
        info = subprocess.run([retrace, "info", "--check", trace], capture_output=True, text=True)
        if info.returncode != 0:
            fail(f"run {i} ({kind}): info --check exited {info.returncode}", info.stdout + info.stderr)
        kept.setdefault(kind, trace)
    for kind, trace in kept.items():
        rep = subprocess.run([retrace, "replay", trace], capture_output=True, text=True)
        if rep.returncode != 0:
            fail(f"replaying the {kind} trace exited {rep.returncode}", rep.stderr)
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok: {runs} killed or exiting captures of {THREADS}-thread programs, every one finished and checked; "
          f"{len(kept)} kinds replayed")


if __name__ == "__main__":
    main()
