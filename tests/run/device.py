#!/usr/bin/env python3
"""tests/run/device.py RETRACE TRACES — the device a run records is the
device it replays on (issue 17 §3: the device, key and name, is found before
the first job, as `retrace devices` finds it). On a machine with two Vulkan
devices (lavapipe listed twice: VK_DRIVER_FILES names its ICD file twice, so
the loader has two real devices, indexes 0 and 1), every replay of the run
is told the device the runner found: without --device the first, with
--device INDEX or NAME that one, given to the replay by its index. A
--device that names no device is one error before anything runs (exit 4)."""
import glob
import json
import os
import shutil
import sys

from runlib import Env, expect, finish

retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
icds = glob.glob(f"/usr/share/vulkan/icd.d/lvp_icd.{os.uname().machine}.json")
if not icds:
    print("skip: no lavapipe ICD file to list twice")
    sys.exit(77)
icd = icds[0]
for name in ("a.json", "b.json"):
    shutil.copyfile(icd, os.path.join(env.dir, name))
env.env["VK_DRIVER_FILES"] = os.path.join(env.dir, "a.json") + ":" + os.path.join(env.dir, "b.json")
env.env.pop("VK_ICD_FILENAMES", None)
listed = env.run(["devices", "--json"])
devices = json.loads(listed.stdout[listed.stdout.index("["):]) if "[" in listed.stdout else []
expect(len(devices) == 2, f"two devices to choose from: {[d.get('name') for d in devices]}")

# Each replay's command line, as the wrapper sees it; the replay then runs as usual.
argv_log = os.path.join(env.dir, "argv")
wrapper = env.write("log-argv.sh", f'#!/bin/sh\necho "$*" >> {argv_log}\nexec "$@"\n')
os.chmod(wrapper, 0o755)
env.copy_trace("vkcube", "vkcube")
env.copy_trace("textured", "textured")
manifest = env.write("manifest.yml", "traces:\n  - {path: vkcube.rtrace, frames: [1]}\n"
                                     "  - {path: textured.rtrace, frames: [1]}\n")


def run(*extra):
    if os.path.exists(argv_log):
        os.remove(argv_log)
    r = env.run(["run", manifest, "--db", env.db, "--json", "--wrapper", wrapper] + list(extra))
    lines = open(argv_log).read().splitlines() if os.path.exists(argv_log) else []
    body = json.loads(r.stdout) if r.stdout.strip().startswith("{") else None
    return r, body, lines


def device_args(lines):
    out = []
    for line in lines:
        words = line.split()
        out.append(words[words.index("--device") + 1] if "--device" in words else None)
    return out


for extra, index, what in (((), 0, "without --device: the first device"),
                           (("--device", "1"), 1, "--device 1"),
                           (("--device", "llvmpipe"), 0, "--device NAME: the first device whose name has it")):
    r, body, lines = run(*extra)
    expect(body is not None and len(lines) == 2, f"{what}: the run replays both traces (exit {r.returncode}, {r.stderr.strip()})")
    expect(device_args(lines) == [str(index)] * 2,
           f"{what}: every replay is told device {index}: {device_args(lines)}")
    if body and len(devices) == 2:
        want = devices[index]
        expect(body["run"]["device"] == want["name"] and body["run"]["device_key"] == want["device_key"],
               f"{what}: the run records that device: {body['run']['device']} {body['run']['device_key']}")

runs = len(env.query("SELECT id FROM runs"))
r, body, lines = run("--device", "no-such-gpu")
expect(r.returncode == 4 and lines == [], f"a --device that names none: exit 4 before any replay (exit {r.returncode}, {len(lines)} replays)")
error = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
expect("no-such-gpu" in error.get("error", {}).get("message", "") and r.stderr == "",
       f"one error naming it (one JSON object with --json): {r.stdout!r} {r.stderr!r}")
r = env.run(["run", manifest, "--db", env.db, "--device", "no-such-gpu"])
expect(r.returncode == 4 and r.stderr.count("\n") == 1 and "no-such-gpu" in r.stderr and r.stdout == "",
       f"without --json, one line on stderr: {r.stderr!r} {r.stdout!r}")
expect(len(env.query("SELECT id FROM runs")) == runs, "and no run is recorded")
finish()
