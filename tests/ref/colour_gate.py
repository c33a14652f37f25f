#!/usr/bin/python3
"""Measures `retrace compare`'s default verdict on real frames and changed copies.

  colour_gate.py RETRACE PNG...          changes each PNG (below) and compares
  colour_gate.py RETRACE --pairs DIR_A DIR_B
                                         compares same-named PNGs of two
                                         folders (e.g. goldens from lavapipe
                                         and the same frames replayed on
                                         another GPU): real rasteriser noise

Changes (deterministic): the regressions that must fail, red/blue swap
(BGRA read as RGBA), grey (0.299 R + 0.587 G + 0.114 B), red +6; and
rendering-noise models that luma SSIM or the colour gate must not be the one
to fail: every channel +-1 and +-2, edge flips (on a strong horizontal edge
every third pixel takes its right neighbour's colour, as other coverage rules
would), a quarter-pixel shift (bilinear), JPEG quality 95.

Prints one row per change: the range over the images of ssim, min_tile_ssim
and delta_e, and how many results were pass. compare/README.md quotes it.
Needs python3-numpy, python3-pil, python3-scipy (Debian).
"""
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image
from scipy.ndimage import shift as nd_shift


def luma(g):
    return 0.299 * g[..., 0] + 0.587 * g[..., 1] + 0.114 * g[..., 2]


def noise(g, k):
    rng = np.random.RandomState(1)
    return np.clip(g.astype(int) + rng.randint(-k, k + 1, g.shape), 0, 255).astype(np.uint8)


def edge_flips(g):
    out = g.copy()
    n = 0
    d = np.abs(g[:, :-1].astype(int) - g[:, 1:].astype(int)).max(axis=2) > 32
    for y, x in zip(*np.nonzero(d)):
        if n % 3 == 0:
            out[y, x] = g[y, x + 1]
        n += 1
    return out


def quarter_shift(g):
    planes = [nd_shift(g[..., c].astype(float), (0.25, 0.25), order=1, mode="nearest")
              for c in range(3)]
    return np.clip(np.rint(np.stack(planes, 2)), 0, 255).astype(np.uint8)


def jpeg(g):
    buf = io.BytesIO()
    Image.fromarray(g).save(buf, "JPEG", quality=95)
    return np.asarray(Image.open(buf).convert("RGB"))


def red_plus_6(g):
    out = g.astype(int)
    out[..., 0] += 6
    return np.clip(out, 0, 255).astype(np.uint8)


def grey(g):
    y = np.clip(np.rint(luma(g)), 0, 255).astype(np.uint8)
    return np.stack([y] * 3, 2)


CHANGES = [
    ("red/blue swap", lambda g: g[..., ::-1].copy()),
    ("grey", grey),
    ("red +6", red_plus_6),
    ("noise +-1", lambda g: noise(g, 1)),
    ("noise +-2", lambda g: noise(g, 2)),
    ("edge flips", edge_flips),
    ("1/4 pixel shift", quarter_shift),
    ("JPEG q95", jpeg),
]


def compare(retrace, a, b):
    p = subprocess.run([retrace, "compare", "--json", a, b], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"retrace compare {a} {b}: exit {p.returncode}: {p.stdout}{p.stderr}")
    return json.loads(p.stdout)


def row(label, results):
    def rng(key, fmt):
        v = [r[key] for r in results]
        return f"{fmt % min(v)} .. {fmt % max(v)}"
    passed = sum(r["result"] == "pass" for r in results)
    print(f"| {label} | {rng('ssim', '%.4f')} | {rng('min_tile_ssim', '%.4f')} | "
          f"{rng('delta_e', '%.2f')} | {passed} of {len(results)} |")


def header():
    print("| change | ssim (luma) | min_tile_ssim | delta_e | pass |")
    print("| --- | --- | --- | --- | --- |")


def changes(retrace, paths):
    header()
    with tempfile.TemporaryDirectory() as tmp:
        for label, fn in CHANGES:
            results = []
            for path in paths:
                g = np.asarray(Image.open(path).convert("RGB"))
                out = os.path.join(tmp, "changed.png")
                Image.fromarray(fn(g)).save(out)
                results.append(compare(retrace, path, out))
            row(label, results)


def pairs(retrace, dir_a, dir_b):
    header()
    results = []
    for name in sorted(os.listdir(dir_a)):
        b = os.path.join(dir_b, name)
        if name.endswith(".png") and os.path.exists(b):
            r = compare(retrace, os.path.join(dir_a, name), b)
            print(f"| {name} | {r.get('ssim')} | {r.get('min_tile_ssim')} | "
                  f"{r.get('delta_e')} | {r['result']} |")
            results.append(r)
    if results:
        row("all pairs", [r for r in results if "ssim" in r])


def main():
    if len(sys.argv) == 5 and sys.argv[2] == "--pairs":
        pairs(sys.argv[1], sys.argv[3], sys.argv[4])
    elif len(sys.argv) > 2:
        changes(sys.argv[1], sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
