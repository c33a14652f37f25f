#!/usr/bin/env python3
"""tests/headers/check_structure.py — the module graph of README.md, enforced.

Reads the graph from README.md's "Modules and what they may use" table, then
checks what the build really does, from BUILD/compile_commands.json and the
object files it lists:

  includes   every compiled file of module M sees only M's own folder and the
             include/ folders of the modules M may use (directly or through
             them), never another module's private headers;
  headers    every public header (M/include/*.h) compiles alone, with only
             the include/ folders M may use;
  links      every symbol an object of M needs that another module defines
             comes from a module M may use (nm on the objects).

Usage: check_structure.py SOURCE_ROOT BUILD_ROOT [includes|headers|links]...
Exit 0 when every named check passes; otherwise one line per violation.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

TABLE_TITLE = "Modules and what they may use"
# Vulkan entry points belong to the API: the capture layer exports some, and
# volk (in replay/) defines them all as pointers.
VULKAN_API = re.compile(r"^vk[A-Z]")


def read_graph(readme):
    """{module: set of modules it uses directly} from README's table."""
    text = open(readme, encoding="utf-8").read()
    at = text.find(TABLE_TITLE)
    if at < 0:
        sys.exit(f"{readme}: no '{TABLE_TITLE}' table")
    graph = {}
    for line in text[at:].splitlines()[1:]:
        m = re.match(r"^\|\s*`(\w+)/`\s*\|\s*([^|]*)\|", line)
        if m:
            uses = re.findall(r"`(\w+)/`", m.group(2))
            graph[m.group(1)] = set(uses)
        elif graph and not line.startswith("|"):
            break
    for mod, uses in graph.items():
        for u in uses - graph.keys():
            sys.exit(f"README: {mod}/ uses {u}/, which is not in the table")
    return graph


def closure(graph, mod):
    seen, todo = set(), list(graph[mod])
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph[m])
    return seen


def module_of_output(output, graph):
    first = output.split("/", 1)[0]
    return first if first in graph else None


def include_dirs(entry, build):
    args = entry.get("arguments") or shlex.split(entry["command"])
    dirs = []
    for i, a in enumerate(args):
        d = a[2:] if a.startswith("-I") and len(a) > 2 else (args[i + 1] if a == "-I" else None)
        if d is not None:
            dirs.append(os.path.normpath(os.path.join(entry["directory"], d)))
    return dirs


def allowed_dirs(graph, mod, src, build):
    """Folders module MOD may have on its include path."""
    ok = {os.path.join(src, mod), os.path.join(src, mod, "include")}
    for m in closure(graph, mod) | {mod}:
        ok.add(os.path.join(src, m, "include"))
        ok.add(os.path.join(build, m))          # generated headers (gen/'s are public)
        ok.add(os.path.join(build, m, "include"))
    return ok


def check_includes(graph, src, build, commands):
    bad = []
    for e in commands:
        mod = module_of_output(e["output"], graph)
        if mod is None:
            continue
        ok = allowed_dirs(graph, mod, src, build)
        own = os.path.join(src, mod)
        for d in include_dirs(e, build):
            inside_build = d.startswith(build + os.sep)
            inside_src = d.startswith(src + os.sep) and not inside_build
            if inside_src and (d == own or d.startswith(own + os.sep)):
                continue  # the module's own folders, private ones included
            if (inside_src or inside_build) and d not in ok and not d.endswith(".p"):
                bad.append(f"includes: {e['output']} ({mod}/) sees {os.path.relpath(d, src)}")
    return sorted(set(bad))


def check_headers(graph, src, build, commands):
    cc = (commands[0].get("arguments") or shlex.split(commands[0]["command"]))
    cc = [a for a in cc[:2] if a != "ccache"][:1] or ["cc"]
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for mod in sorted(graph):
            inc = os.path.join(src, mod, "include")
            if not os.path.isdir(inc):
                continue
            flags = [f"-I{inc}", f"-I{os.path.join(build, mod)}"]
            for m in sorted(closure(graph, mod)):
                flags += [f"-I{os.path.join(src, m, 'include')}", f"-I{os.path.join(build, m)}"]
            for h in sorted(os.listdir(inc)):
                if not h.endswith(".h"):
                    continue
                tu = os.path.join(tmp, "one.c")
                with open(tu, "w") as f:
                    f.write(f'#include "{h}"\n')
                r = subprocess.run(cc + ["-std=c17", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
                                         "-fsyntax-only", *flags, tu],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    lines = r.stderr.strip().splitlines() or ["?"]
                    first = next((l for l in lines if "error" in l), lines[0])
                    bad.append(f"headers: {mod}/include/{h} does not compile alone: {first}")
    return bad


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True, text=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) >= 3}
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True).stdout
    undefined = {l.split()[-1] for l in out.splitlines() if l.strip()}
    return defined, undefined


def check_links(graph, src, build, commands):
    objs = {}
    for e in commands:
        mod = module_of_output(e["output"], graph)
        path = os.path.join(build, e["output"])
        if mod and os.path.exists(path):
            objs.setdefault(mod, []).append(path)
    owner, needs = {}, {}
    for mod, paths in objs.items():
        for p in paths:
            d, u = symbols(p)
            for s in d:
                if not VULKAN_API.match(s):  # the loader's names, whoever defines them
                    owner.setdefault(s, mod)
            needs.setdefault(mod, set()).update((s, p) for s in u)
    bad = []
    for mod, pairs in needs.items():
        ok = closure(graph, mod) | {mod}
        for s, p in sorted(pairs):
            o = owner.get(s)
            if o is not None and o not in ok:
                bad.append(f"links: {os.path.relpath(p, build)} ({mod}/) uses {s} of {o}/")
    missing = sorted(set(graph) - set(objs))
    if missing:
        bad.append(f"links: no objects found for {', '.join(m + '/' for m in missing)}")
    return bad


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, build = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    checks = sys.argv[3:] or ["includes", "headers", "links"]
    graph = read_graph(os.path.join(src, "README.md"))
    commands = json.load(open(os.path.join(build, "compile_commands.json")))
    bad = []
    for c in checks:
        bad += {"includes": check_includes, "headers": check_headers, "links": check_links}[c](
            graph, src, build, commands)
    for line in bad:
        print(line)
    print(f"{len(graph)} modules, checks {' '.join(checks)}: {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
