#!/usr/bin/python3
"""Times one golden/actual pair three ways, in the same run, and prints one table row.

  ours     `retrace compare GOLDEN ACTUAL` (whole command: decode, SSIM, metrics)
  ffmpeg   `ffmpeg -i GOLDEN -i ACTUAL -lavfi ssim -f null -` (whole command)
  skimage  structural_similarity on luma, timed inside Python after import:
           once for PNG load + luma + SSIM, once for SSIM alone

Commands are run alternately, REPS times each, and the median wall time is
kept. Usage: timing.py RETRACE GOLDEN ACTUAL LABEL REPS
"""
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image
from skimage.metrics import structural_similarity


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t0
    if p.returncode not in (0, 1):  # 1: our comparison failed, which is fine here
        sys.exit(f"{cmd[0]} failed ({p.returncode}): {p.stderr.strip()}")
    return elapsed, p.stdout + p.stderr


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
    ours, rgb, ff = [], [], []
    for _ in range(reps):
        t, ours_out = run(ours_cmd)
        ours.append(t)
        t, _ = run(rgb_cmd)
        rgb.append(t)
        t, ff_out = run(ff_cmd)
        ff.append(t)
    sk_full, sk_only, sk_value = time_skimage(golden, actual, max(1, reps // 2))
    o, r, f = statistics.median(ours), statistics.median(rgb), statistics.median(ff)
    ours_ssim = ours_out.split()[0]
    ff_ssim = ff_out.split("All:")[-1].split()[0] if "All:" in ff_out else "?"
    print(f"{label:>10} {o * 1e3:9.1f} {r * 1e3:9.1f} {f * 1e3:9.1f} {sk_full * 1e3:10.1f}"
          f" {sk_only * 1e3:9.1f} {f / o:8.2f}x {sk_full / o:8.2f}x   {ours_ssim} skimage={sk_value:.6f}"
          f" ffmpeg(All)={ff_ssim}")


if __name__ == "__main__":
    main()
