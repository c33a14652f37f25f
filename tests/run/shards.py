#!/usr/bin/env python3
"""tests/run/shards.py RETRACE — shards 1/3, 2/3 and 3/3 together take every
job of the list exactly once (also when GitLab CI's CI_NODE_INDEX and
CI_NODE_TOTAL choose them), and a shard that does not exist is a usage error."""
import os
import sys

from runlib import Env, expect, finish

env = Env(sys.argv[1], None)
traces = "\n".join(f"  - {{path: t{i}.rtrace, tags: [{'odd' if i % 2 else 'even'}]}}" for i in range(7))
env.write("manifest.yml", f"""
configurations: [{{name: plain}}, {{name: slow, delays: [submit=1ms]}}]
traces:
{traces}
""")
m = os.path.join(env.dir, "manifest.yml")


def jobs(args, extra_env=None):
    saved = dict(env.env)
    env.env.update(extra_env or {})
    r = env.run(["run", m, "--list"] + args)
    env.env = saved
    expect(r.returncode == 0, f"--list {' '.join(args)} {extra_env or ''} exits 0 ({r.stderr.strip()})")
    return [tuple(line.split("\t")) for line in r.stdout.splitlines()]


everything = jobs([])
expect(len(everything) == 14, f"7 traces x 2 configurations = 14 jobs ({len(everything)})")
shards = [jobs(["--shard", f"{i}/3"]) for i in (1, 2, 3)]
union = [j for s in shards for j in s]
expect(sorted(union) == sorted(everything) and len(set(union)) == len(union),
       f"shards 1/3..3/3 cover the list exactly once ({[len(s) for s in shards]})")
expect(all(len(s) in (4, 5) for s in shards), "the shares are even")
ci = [jobs([], {"CI_NODE_INDEX": str(i), "CI_NODE_TOTAL": "3"}) for i in (1, 2, 3)]
expect(ci == shards, "CI_NODE_INDEX/CI_NODE_TOTAL pick the same shards")
odd = jobs(["--tag", "odd"])
expect(len(odd) == 6 and all(int(t[1][1:]) % 2 for t in odd), "--tag keeps the tagged traces only")
for bad in ("4/3", "0/3", "1/0", "x", "1/3/4"):
    r = env.run(["run", m, "--list", "--shard", bad])
    expect(r.returncode == 2 and "--shard" in r.stderr, f"--shard {bad} is a usage error")
env.close()
finish()
