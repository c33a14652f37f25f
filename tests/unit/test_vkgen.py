#!/usr/bin/env python3
"""tests/unit/test_vkgen.py - a stale hand-written entry fails the build.

Runs gen/vkgen.py from a copy of gen/ with one entry added to a hand-kept
command list, and checks that generation fails (a name vk.xml lacks, a
malformed entry) or that the generated object leaves the named function
undefined, so linking fails until capture/ or replay/ defines it.
Usage: test_vkgen.py SOURCE_ROOT VK_XML
"""
import os
import shutil
import subprocess
import sys
import tempfile

SOURCE, VK_XML = sys.argv[1], sys.argv[2]
failures = []


def gen_copy(tmp, file_name, extra):
    """A copy of gen/ with `extra` appended to gen/<file_name>."""
    gen = os.path.join(tmp, "gen")
    shutil.copytree(os.path.join(SOURCE, "gen"), gen, ignore=shutil.ignore_patterns("__pycache__"))
    with open(os.path.join(gen, file_name), "a", encoding="utf-8") as f:
        f.write("\n" + extra + "\n")
    return gen


def run_vkgen(gen, out):
    return subprocess.run([sys.executable, os.path.join(gen, "vkgen.py"), "--xml", VK_XML, "--out-dir", out],
                          capture_output=True, text=True, check=False)


def expect(cond, what):
    print(("ok: " if cond else "FAILED: ") + what)
    if not cond:
        failures.append(what)


def expect_refused(file_name, extra, needle):
    with tempfile.TemporaryDirectory() as tmp:
        r = run_vkgen(gen_copy(tmp, file_name, extra), os.path.join(tmp, "out"))
        expect(r.returncode != 0 and needle in r.stderr,
               f"vkgen refuses {extra!r} (exit {r.returncode}: {r.stderr.strip()[-200:]})")


def undefined_symbols(out, source, includes):
    obj = os.path.join(out, source + ".o")
    args = ["cc", "-std=c17", "-D_GNU_SOURCE", "-c", os.path.join(out, source), "-o", obj, "-I", out]
    for inc in includes:
        args += ["-I", os.path.join(SOURCE, inc)]
    r = subprocess.run(args, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        return None, r.stderr
    nm = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}, ""


def expect_unresolved(file_name, extra, source, includes, symbol):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        r = run_vkgen(gen_copy(tmp, file_name, extra), out)
        expect(r.returncode == 0, f"vkgen accepts {extra!r}: {r.stderr.strip()[-200:]}")
        if r.returncode == 0:
            syms, err = undefined_symbols(out, source, includes)
            expect(syms is not None and symbol in syms,
                   f"{source} leaves {symbol} to the linker {err.strip()[-300:]}")


with tempfile.TemporaryDirectory() as tmp0:
    r = run_vkgen(os.path.join(SOURCE, "gen"), tmp0)
    expect(r.returncode == 0, f"the lists as committed generate: {r.stderr.strip()[-300:]}")

expect_refused("handwritten.py", 'HAND_WRITTEN["vkNoSuchCommand"] = {"replay": "replay_skip: x"}',
               "vkNoSuchCommand: not a command")
expect_refused("handwritten.py", 'HAND_WRITTEN["vkCmdDraw"] = {"replay": "just a reason"}',
               "vkCmdDraw: replay entry")
expect_refused("handwritten.py", 'HAND_WRITTEN["vkCmdDraw"] = {"dump": "x.c: y"}', "unknown side")
expect_refused("command_flags.py", 'WAITS.append("vkWaitForEverything")', "vkWaitForEverything")
expect_refused("command_flags.py", 'BLOCKING_WAITS.append("vkCmdDraw")', "vkCmdDraw is not in WAITS")
expect_refused("command_flags.py", 'NOT_TRANSFER_READS["vkCmdResolveEverything"] = "x"', "vkCmdResolveEverything")
expect_unresolved("handwritten.py", 'HAND_WRITTEN["vkCmdDraw"] = {"replay": "replay_cmd_draw_nobody_wrote: x"}',
                  "replay_calls_gen.c", ["replay", "replay/include", "common/include", "gen/include"], "replay_cmd_draw_nobody_wrote")
expect_unresolved("handwritten.py", 'HAND_WRITTEN["vkCmdDraw"] = {"capture": "cmd_draw.c: x"}',
                  "capture_intercepts_gen.c", ["capture", "capture/include", "common/include", "gen/include", "trace/include"], "capture_vkCmdDraw")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
