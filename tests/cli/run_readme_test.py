#!/usr/bin/env python3
"""tests/cli/run_readme_test.py SOURCE_ROOT — README.md, ./run and .ci/run agree.

Prints TAP. Checks that every verb ./run dispatches is in its usage line and
in README.md, that every `./run VERB` README.md names is a verb, that .ci/run
runs `./run test`, that every Debian package ./run installs is named in
README.md's "Dependencies" section with a reason, and that the verbs README
gives arguments to pass them on (`./run fuzz SECONDS [HARNESS...]`).
"""
import re
import sys

root = sys.argv[1]
run = open(f"{root}/run").read()
readme = open(f"{root}/README.md").read()
ci = open(f"{root}/.ci/run").read()
results = []


def check(name, ok, why=""):
    results.append((name, ok, why))


dispatch = run[run.rindex('case "${1:-}" in'):]
verbs = re.findall(r"^([a-z][a-z-]*)\)", dispatch, re.M)
usage = re.search(r'echo "usage: \./run ([^"]*)"', dispatch).group(1)
usage_verbs = [v.split()[0] for v in usage.split("|")]
check("./run dispatches verbs", len(verbs) >= 5, f"found {verbs}")
check("./run's usage line lists exactly its verbs", sorted(usage_verbs) == sorted(verbs),
      f"usage {usage_verbs}, dispatched {verbs}")
named = set(re.findall(r"\./run ([a-z][a-z-]*)", readme))
check("README names every verb", not set(verbs) - named, f"not in README: {sorted(set(verbs) - named)}")
check("every ./run VERB in README is a verb", not named - set(verbs), f"unknown: {sorted(named - set(verbs))}")
check(".ci/run runs ./run test", re.search(r"^exec \./run test\b", ci, re.M) is not None)

deps = readme[readme.index("## Dependencies"):]
deps = deps[:deps.find("\n## ", 3)] if "\n## " in deps[3:] else deps
packages = []
for var in ("PACKAGES", "BENCH_PACKAGES", "PACKAGE_PACKAGES"):
    packages += re.search(rf'^{var}="([^"]*)"', run, re.M | re.S).group(1).split()
packages += re.findall(r"install_packages (nodejs npm)", run)[0].split() if "install_packages nodejs npm" in run else []
rows = {}
for line in deps.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 2 and cells[0] not in ("package", "---"):
        for p in cells[0].split(","):
            rows[p.strip()] = cells[1]
for p in packages:
    reason = rows.get(p)
    in_prose = re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", deps) is not None
    check(f"README says why {p} is installed", bool(reason) or in_prose,
          "not in the Dependencies section")

# A verb README gives arguments must pass them on to the script doing the work.
fuzz = re.search(r"^fuzz\(\) \{(.*?)^\}", run, re.M | re.S).group(1)
check("./run fuzz passes HARNESS names to tests/fuzz/run.sh",
      re.search(r'tests/fuzz/run\.sh build-fuzz "\$seconds" "\$@"', fuzz) is not None,
      "README: ./run fuzz SECONDS [HARNESS...]")

print(f"1..{len(results)}")
for i, (name, ok, why) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}" + ("" if ok else f" # {why}"))
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
