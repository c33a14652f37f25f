#!/usr/bin/env python3
"""The capture layer answers vkGetInstanceProcAddr and vkGetDeviceProcAddr
exactly as the chain below it does, for every command of every extension in
vk.xml, none of them enabled; the safe ones, called, give the same results;
the trace of those calls checks and replays.
Usage: proc_addr.py RETRACE LAYER_DIR PROC_ADDR VK_XML"""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def fail(msg, log=""):
    print(f"FAIL: {msg}\n{log[-4000:]}")
    sys.exit(1)


def extension_commands(vk_xml):
    root = ET.parse(vk_xml).getroot()
    names = set()
    for ext in root.find("extensions"):
        if "vulkan" not in ext.get("supported", "").split(","):
            continue
        for req in ext.findall("require"):
            names.update(c.get("name") for c in req.findall("command"))
    return sorted(names)


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}", p.stdout + p.stderr)
    return p.stdout


def main():
    retrace, layer_dir, proc_addr, vk_xml = sys.argv[1:5]
    work = tempfile.mkdtemp(prefix="retrace-procaddr-")
    names_file = os.path.join(work, "names.txt")
    names = extension_commands(vk_xml)
    with open(names_file, "w") as f:
        f.write("\n".join(names) + "\n")
    plain = run([proc_addr, names_file], dict(os.environ))
    trace = os.path.join(work, "t.rtrace")
    env = dict(os.environ, VK_ADD_LAYER_PATH=layer_dir, VK_INSTANCE_LAYERS="VK_LAYER_RETRACE_capture",
               RETRACE_OUTPUT=trace)
    layered = run([proc_addr, names_file], env)
    if plain != layered:
        diff = [f"without: {a}\nwith:    {b}" for a, b in zip(plain.splitlines(), layered.splitlines()) if a != b]
        fail(f"{len(diff)} answers differ with the layer", "\n".join(diff[:40]))
    calls = sum(line.startswith("call ") for line in plain.splitlines())
    if calls < 3:
        fail(f"only {calls} commands could be called: the test proves little", plain)
    run([retrace, "info", "--check", trace], dict(os.environ))
    run([retrace, "replay", trace], dict(os.environ))
    shutil.rmtree(work, ignore_errors=True)
    given = sum("=yes" in line for line in plain.splitlines())
    print(f"ok: {len(names)} extension commands answered alike with the layer "
          f"({given} answers give a function), {calls} called alike; the trace replays")


if __name__ == "__main__":
    main()
