#!/usr/bin/python3
"""tests/unit/test_bench_interval.py SOURCE_ROOT — the bench's verdict on a
ratio (bench/summary.py and bench/lib.sh median_interval) from fixed values:
the interval's order statistics, the verdicts, and that the shell and the
Python agree. No timing: the inputs are made-up ratios."""
import importlib.util
import subprocess
import sys

root = sys.argv[1]
spec = importlib.util.spec_from_file_location("summary", f"{root}/bench/summary.py")
summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(summary)

failures = 0


def check(what, got, want):
    global failures
    if got != want:
        failures += 1
        print(f"FAIL {what}: got {got!r}, want {want!r}")


def shell(values, goal, name):
    count = "1" if name.startswith("size-") else ""
    script = (f'. "{root}/bench/lib.sh"; echo "{" ".join(f"{v:.3f}" for v in sorted(values))}" | '
              f'median_interval {goal} {count}')
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True).stdout.strip()


# n = 10: P(X <= 1) = 1.1%, P(X <= 2) = 5.5%: the 2nd and 9th values.
ten = [1.00 + i / 100 for i in range(10)]
check("interval of 10", summary.median_interval(ten), (1.01, 1.08))
# n = 20: P(X <= 5) = 2.1%, P(X <= 6) = 5.8%: the 6th and 15th.
twenty = [0.90 + i / 100 for i in range(20)]
check("interval of 20", tuple(round(x, 2) for x in summary.median_interval(twenty)), (0.95, 1.04))
# n = 5: P(X = 0) = 3.1% > 2.5%: min..max.
five = [1.2, 1.1, 1.4, 1.3, 1.5]
check("interval of 5", summary.median_interval(five), (1.1, 1.5))

cases = [(ten, 1.10, "met", "capture-x"), (ten, 1.05, "undecided", "capture-x"),
         (ten, 1.00, "not met", "capture-x"), (five, 1.05, "not met", "capture-x"),
         (five, 1.30, "undecided", "capture-x"), ([1.2, 1.3], 1.05, "too few", "capture-x"),
         ([0.2], 0.5, "too few", "replay-x"),
         ([0.09], 0.10, "met", "size-x"), ([0.11], 0.10, "not met", "size-x")]
for values, goal, want, name in cases:
    lo, hi = summary.median_interval(values)
    row = {"name": name, "values": values, "goal": goal, "lo": lo, "hi": hi}
    check(f"verdict {name} {values} against {goal}", summary.verdict(row), want)
    out = shell(values, goal, name)
    check(f"lib.sh verdict {values} against {goal}", out.rsplit(": ", 1)[-1], want)
    if len(values) >= 5:
        check(f"lib.sh interval {values}", f"{lo:.3f}-{hi:.3f}" in out, True)

print("ok" if not failures else f"{failures} failed")
sys.exit(1 if failures else 0)
