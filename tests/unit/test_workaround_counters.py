#!/usr/bin/env python3
"""tests/unit/test_workaround_counters.py - a wrong counter is a compile error.

Each workaround's counters are the fields of a struct of its own
(replay/workarounds/workaround.h), so counting one it does not have cannot
compile. This compiles serialize-submits' file as the build does
(compile_commands.json), once as committed (it must compile, or the test
proves nothing) and once counting readback-barrier's barriers_inserted
instead of its own queue_waits (it must not).
Usage: test_workaround_counters.py SOURCE_ROOT BUILD_ROOT
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

SOURCE, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
FILE = os.path.join("replay", "workarounds", "serialize_submits.c")


def compile_text(entry, text, tmp):
    # the copy sits beside the original so that its "workaround.h" resolves the same
    path = os.path.join(tmp, "serialize_submits.c")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    args = shlex.split(entry["command"])
    out = args.index("-o")
    args[out + 1] = os.devnull
    args[args.index(entry["file"])] = path
    args = [a for a in args if a not in ("-MD",)]
    if "-MF" in args:
        i = args.index("-MF")
        del args[i:i + 2]
    if "-MQ" in args:
        i = args.index("-MQ")
        del args[i:i + 2]
    args += ["-I", os.path.join(SOURCE, "replay", "workarounds")]
    return subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True, check=False)


def main():
    with open(os.path.join(BUILD, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    entry = next(e for e in entries if os.path.normpath(e["file"]).endswith(FILE))
    entry["file"] = next(a for a in shlex.split(entry["command"]) if os.path.normpath(a).endswith(FILE))
    with open(os.path.join(SOURCE, FILE), encoding="utf-8") as f:
        text = f.read()
    wrong = text.replace("counters(r)->queue_waits++", "counters(r)->barriers_inserted++")
    failures = []
    if wrong == text:
        failures.append("serialize_submits.c no longer counts queue_waits: update this test")
    with tempfile.TemporaryDirectory() as tmp:
        ok = compile_text(entry, text, tmp)
        if ok.returncode != 0:
            failures.append("the file as committed does not compile here: " + ok.stderr[-500:])
        bad = compile_text(entry, wrong, tmp)
        if bad.returncode == 0 or "barriers_inserted" not in bad.stderr:
            failures.append("counting another workaround's counter compiled: " + bad.stderr[-500:])
    for f in failures:
        print("FAILED: " + f)
    print("ok: a counter the workaround does not have is a compile error" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
