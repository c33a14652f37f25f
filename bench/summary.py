#!/usr/bin/python3
"""bench/summary.py — the one table of ./run bench, and its JSON.

  summary.py RATIOS JSON [--against OLD.json]

RATIOS is the file the bench scripts append to (bench/lib.sh bench_ratio):
one line per ratio, "NAME<TAB>GOAL<TAB>WHAT<TAB>v1 v2 ...", every ratio
lower-is-better, GOAL the most it may be. Prints NAME, WHAT, goal, min /
median / max over its runs and whether the median meets the goal, writes the
same as JSON (JSON, normally build/bench/summary.json) so that a later run
can be compared; with --against, prints each median's change from OLD.json.
Exit 0; 1 when a ratio has no value (a run failed); 3 when OLD.json is unreadable.
"""
import json
import os
import statistics
import sys
import time


def median_interval(values):
    """A distribution-free interval for the median (bench/lib.sh
    median_interval does the same): order statistics k and n+1-k, k the
    largest with P(Binomial(n, 1/2) < k) <= 2.5%; min..max below 6 values."""
    v = sorted(values)
    n = len(v)
    k, cdf, p = 1, 0.5 ** n, 0.5 ** n
    for j in range(1, n):
        p = p * (n - j + 1) / j
        if cdf + p > 0.025:
            break
        cdf += p
        k = j + 1
    return v[k - 1], v[n - k]


def verdict(row):
    """met: the median's whole interval is at or below the goal; not met: all
    above it; undecided: the runs cannot tell (more pairs, a quieter machine);
    too few: under 5 runs, min..max covers the median less than 94% of the time.
    A size (rows named size-*) is a count, not a timing: judged as it is."""
    if len(row["values"]) < 5 and not row["name"].startswith("size-"):
        return "too few"
    if row["hi"] <= row["goal"]:
        return "met"
    if row["lo"] > row["goal"]:
        return "not met"
    return "undecided"


def read_ratios(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            name, goal, what, values = parts
            nums = []
            for v in values.split():
                try:
                    nums.append(float(v))
                except ValueError:
                    pass
            row = {"name": name, "what": what, "goal": float(goal), "values": nums}
            if nums:
                lo, hi = median_interval(nums)
                row.update(min=min(nums), median=statistics.median(nums), max=max(nums), lo=lo, hi=hi)
                row["met"] = row["median"] <= row["goal"]
                row["verdict"] = verdict(row)
            rows.append(row)
    return rows


def fmt(row, key):
    return f"{row[key]:.3f}" if key in row else "fail"


def print_table(rows):
    print()
    print("==> bench summary (every ratio lower is better; met: median <= goal; verdict: the median's")
    print("    ~95% interval all at or below the goal (met), all above (not met), or neither (undecided))")
    print(f"{'ratio':<28} {'goal':>6} {'min':>7} {'median':>7} {'max':>7} {'interval':>13} {'runs':>4}  "
          f"met  {'verdict':<9} what")
    for r in rows:
        met = "yes" if r.get("met") else "NO"
        interval = f"{r['lo']:.3f}-{r['hi']:.3f}" if "lo" in r else "fail"
        print(f"{r['name']:<28} {r['goal']:>6.2f} {fmt(r, 'min'):>7} {fmt(r, 'median'):>7} "
              f"{fmt(r, 'max'):>7} {interval:>13} {len(r['values']):>4}  {met:<4} "
              f"{r.get('verdict', 'fail'):<9} {r['what']}")


def load_old(path):
    """Read before the new JSON is written: OLD may be the same file."""
    try:
        with open(path) as f:
            return {r["name"]: r for r in json.load(f).get("ratios", [])}
    except (OSError, ValueError, AttributeError, KeyError, TypeError) as e:
        print(f"bench/summary: {path} is not a summary.json this wrote: {e}", file=sys.stderr)
        sys.exit(3)


def print_changes(rows, old, old_path):
    print()
    print(f"==> changes against {old_path} (medians; negative is better)")
    print(f"{'ratio':<28} {'old':>7} {'new':>7} {'change':>8}")
    for r in rows:
        o = old.get(r["name"])
        if not o or "median" not in o or "median" not in r:
            print(f"{r['name']:<28} {'-':>7} {fmt(r, 'median'):>7} {'new':>8}")
            continue
        change = (r["median"] - o["median"]) / o["median"] * 100 if o["median"] else 0.0
        print(f"{r['name']:<28} {o['median']:>7.3f} {r['median']:>7.3f} {change:>+7.1f}%")
    for name in sorted(set(old) - {r["name"] for r in rows}):
        print(f"{name:<28} {old[name].get('median', 0):>7.3f} {'-':>7} {'gone':>8}")


def main():
    args = sys.argv[1:]
    against = None
    if "--against" in args:
        i = args.index("--against")
        if i + 1 >= len(args):
            sys.exit("usage: summary.py RATIOS JSON [--against OLD.json]")
        against = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit("usage: summary.py RATIOS JSON [--against OLD.json]")
    rows = read_ratios(args[0])
    old = load_old(against) if against else None
    print_table(rows)
    doc = {"generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "cpus": os.cpu_count(), "load_average": list(os.getloadavg()), "ratios": rows}
    os.makedirs(os.path.dirname(os.path.abspath(args[1])), exist_ok=True)
    with open(args[1], "w") as f:
        json.dump(doc, f, indent=1)
    print(f"written: {args[1]}")
    if against:
        print_changes(rows, old, against)
    return 0 if all(r.get("values") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
