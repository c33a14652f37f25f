#!/usr/bin/env python3
"""tests/new_user/packages_test.py SOURCE_ROOT — every Debian package ./run
installs is one dpkg can ever call installed.

Prints TAP. ./run decides what to install by asking dpkg-query whether each
name of its lists is installed. A purely virtual name (Debian 12's `glmark2`,
provided by glmark2-x11) is never "installed", so ./run called apt-get for it
on every build (network needed every time) and, as non-root, refused to build
on a machine that had everything. A name has real versions when
`apt-cache showpkg` lists some under "Versions:". Skipped without apt-cache or
without package lists (apt-get update never ran).
"""
import re
import shutil
import subprocess
import sys

root = sys.argv[1]
run = open(f"{root}/run").read()
packages = []
for var in ("PACKAGES", "BENCH_PACKAGES", "PACKAGE_PACKAGES"):
    packages += re.search(rf'^{var}="([^"]*)"', run, re.M | re.S).group(1).split()
packages += re.findall(r"install_packages (nodejs npm)", run)[0].split() if "install_packages nodejs npm" in run else []


def versions(names):
    """{name: the versions apt knows of it} (none for a purely virtual name),
    from one apt-cache call (one per name takes a minute on a loaded machine)."""
    out = subprocess.run(["apt-cache", "showpkg", *names], capture_output=True, text=True).stdout
    known = {}
    for block in out.split("Package: ")[1:]:
        name = block.split("\n", 1)[0].strip()
        vers = block.split("Versions:", 1)[1] if "Versions:" in block else ""
        vers = vers.split("\nReverse Depends:", 1)[0]
        known[name] = [line for line in vers.splitlines() if line.strip()]
    return known


if shutil.which("apt-cache") is None:
    print("1..0 # SKIP no apt-cache")
    sys.exit(0)
# apt-cache knows no package at all when the lists were never fetched.
known = versions(sorted(set(packages)) + ["libc6"])
if not known.get("libc6"):
    print("1..0 # SKIP no apt package lists (apt-get update never ran)")
    sys.exit(0)

print(f"1..{len(set(packages))}")
for i, p in enumerate(sorted(set(packages)), 1):
    ok = bool(known.get(p))
    why = "" if ok else " # a virtual name: dpkg never reports it installed, so ./run installs it every time"
    print(f"{'ok' if ok else 'not ok'} {i} - {p} is a real package{why}")
