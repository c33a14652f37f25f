#!/usr/bin/python3
"""Times one golden/actual pair three ways, in the same run, and prints one table row.

  ours     `retrace compare GOLDEN ACTUAL` (whole command: decode, SSIM, metrics)
  ffmpeg   `ffmpeg -i GOLDEN -i ACTUAL -lavfi ssim -f null -` (whole command)
  skimage  structural_similarity on luma, timed inside Python after import:
           once for PNG load + luma + SSIM, once for SSIM alone

Commands are run alternately, REPS times each; the medians of wall time and of
CPU time (user + system of the command and its threads, from the kernel's
rusage of waited-for children) are kept: on a loaded machine CPU time is the
steadier of the two. Usage: timing.py RETRACE GOLDEN ACTUAL LABEL REPS
"""
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image
from skimage.metrics import structural_similarity


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd):
    """Wall and CPU seconds of one whole command, and its output."""
    c0, t0 = cpu_children(), time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed, cpu = time.perf_counter() - t0, cpu_children() - c0
    if p.returncode not in (0, 1):  # 1: our comparison failed, which is fine here
        sys.exit(f"{cmd[0]} failed ({p.returncode}): {p.stderr.strip()}")
    return elapsed, cpu, p.stdout + p.stderr


def luma(path):
    f = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    return 0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2]


def skimage_ssim(a, b):
    return structural_similarity(a, b, gaussian_weights=True, sigma=1.5,
                                 use_sample_covariance=False, data_range=255)


def time_skimage(golden, actual, reps):
    full, only, value = [], [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        a, b = luma(golden), luma(actual)
        t1 = time.perf_counter()
        value = skimage_ssim(a, b)
        t2 = time.perf_counter()
        full.append(t2 - t0)
        only.append(t2 - t1)
    return statistics.median(full), statistics.median(only), value


def main():
    retrace, golden, actual, label, reps = sys.argv[1:6]
    reps = int(reps)
    ours_cmd = [retrace, "compare", golden, actual]
    rgb_cmd = [retrace, "compare", "--channels", "rgb", golden, actual]
    ff_cmd = ["ffmpeg", "-nostdin", "-hide_banner", "-i", golden, "-i", actual,
              "-lavfi", "ssim", "-f", "null", "-"]
    run(ours_cmd), run(ff_cmd)  # warm the page cache for both
    times = {"ours": ([], []), "rgb": ([], []), "ffmpeg": ([], [])}
    cmds = [("ours", ours_cmd), ("rgb", rgb_cmd), ("ffmpeg", ff_cmd)]
    out = {}
    for i in range(reps):
        for name, cmd in cmds if i % 2 == 0 else reversed(cmds):
            t, cpu, out[name] = run(cmd)
            times[name][0].append(t)
            times[name][1].append(cpu)
    sk_full, sk_only, sk_value = time_skimage(golden, actual, max(1, reps // 2))
    o, r, f = (statistics.median(times[n][0]) for n in ("ours", "rgb", "ffmpeg"))
    oc, rc, fc = (statistics.median(times[n][1]) for n in ("ours", "rgb", "ffmpeg"))
    ours_ssim = out["ours"].split()[0]
    ff_out = out["ffmpeg"]
    ff_ssim = ff_out.split("All:")[-1].split()[0] if "All:" in ff_out else "?"
    print(f"{label:>10} {o * 1e3:8.1f} {oc * 1e3:8.1f} {r * 1e3:8.1f} {rc * 1e3:8.1f}"
          f" {f * 1e3:8.1f} {fc * 1e3:8.1f} {sk_full * 1e3:9.1f} {sk_only * 1e3:8.1f}"
          f" {f / o:7.2f}x {fc / oc:7.2f}x {sk_full / o:7.2f}x")
    print(f"{'':>10} {ours_ssim} skimage={sk_value:.6f} ffmpeg(All)={ff_ssim}")
    write_ratios(label, times)


def write_ratios(label, times):
    """Per-run ratios ours/ffmpeg, CPU and wall, for ./run bench's summary (bench/lib.sh's format)."""
    path = os.environ.get("BENCH_RATIOS")
    if not path:
        return
    with open(path, "a") as out:
        for column, name in ((1, "cpu"), (0, "wall")):
            values = " ".join(f"{o / f:.3f}" for o, f in zip(times["ours"][column], times["ffmpeg"][column])
                              if f > 0)
            what = f"retrace compare/ffmpeg ssim {name if name == 'wall' else 'CPU'}"
            out.write(f"compare-{label}-{name}\t0.25\t{what}\t{values}\n")


if __name__ == "__main__":
    main()
