#!/usr/bin/python3
"""bench/replay_share.py PROG RETRACE_NAME — splits a replay's perf samples.

Reads `perf report --sort pid,dso --stdio -q --no-children` on stdin (lines
"PCT%  TID:COMM  DSO") and prints two lines: a summary of where the time went,
and our share (a fraction) for bench_ratio. The replay thread is the lowest
thread id (the process's own). Ours: the retrace binary and the trace's
decompression and hashing (libzstd, libxxhash) on any thread, and libc and
the kernel on the replay thread (our decoding and memory updates, but also
the driver's allocations and page faults there: an upper bound). The
driver: lavapipe, the code it compiled (JIT), LLVM and all of its threads.
Start: the dynamic loader, the Vulkan loader and the manifests it parses
(libexpat), which is mostly the driver's libraries being loaded.
"""
import re
import sys

OURS_ANYWHERE = ("libzstd", "libxxhash")
START = ("ld-linux", "libvulkan.so", "libexpat")


def main():
    prog, own = sys.argv[1], sys.argv[2]
    rows = []
    for line in sys.stdin:
        m = re.match(r"\s*([0-9.]+)%\s+(\d+):(\S+)\s+(.+?)\s*$", line)
        if m:
            rows.append((float(m.group(1)), int(m.group(2)), m.group(4)))
    if not rows:
        sys.exit(1)
    main_tid = min(tid for _, tid, _ in rows)
    parts = {"ours": 0.0, "driver": 0.0, "start": 0.0}
    own_code = 0.0
    for pct, tid, dso in rows:
        if dso == own or dso.startswith(OURS_ANYWHERE):
            parts["ours"] += pct
            own_code += pct
        elif dso.startswith(START):
            parts["start"] += pct
        elif tid == main_tid and (dso.startswith("libc.") or dso == "[kernel.kallsyms]"):
            parts["ours"] += pct
        else:
            parts["driver"] += pct
    total = sum(parts.values())
    share = {k: v / total for k, v in parts.items()}
    print(f"  {prog}: driver {share['driver']:.1%}, ours {share['ours']:.1%} (our own code alone "
          f"{own_code / total:.1%}), process start and driver loading {share['start']:.1%}")
    print(f"{share['ours']:.3f}")


if __name__ == "__main__":
    main()
