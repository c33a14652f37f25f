#!/usr/bin/python3
"""Generates retrace's compare test data and its scikit-image reference values.

Writes (deterministically; run from anywhere, commit the results):
  tests/data/images/ssim/*.png   image pairs for SSIM/PSNR tests
  tests/data/images/png/*.png    one picture in every PNG flavour, plus
                                 *.rgba: the 8-bit RGBA bytes each must decode to
  tests/data/images/bad/*.png    broken files that must be rejected
  tests/ref/ssim_ref.txt         one line per pair: key=value reference values

References come from scikit-image (python3-skimage 0.19.3 on Debian 12):
structural_similarity(..., gaussian_weights=True, sigma=1.5,
use_sample_covariance=False, data_range=255) on luma 0.299 R + 0.587 G + 0.114 B
(float64, unrounded) and, for rgb, with channel_axis=2 on the float64 channels.
The PNG writer is our own (zlib + struct) so that every colour type, bit
depth, tRNS and Adam7 interlacing can be produced without extra packages.
"""
import math
import os
import struct
import sys
import zlib

import numpy as np
from skimage.metrics import structural_similarity

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGES = os.path.join(ROOT, "tests", "data", "images")
REF = os.path.join(ROOT, "tests", "ref", "ssim_ref.txt")
TILE = 32
MAX_PAD = 5  # skimage's crop for sigma 1.5, truncate 3.5: win_size 11

# ---------------------------------------------------------------- PNG writer


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def _pack_row(row, depth):
    """row: 1-D sequence of samples (channels already interleaved)."""
    if depth == 16:
        return b"".join(struct.pack(">H", int(v)) for v in row)
    if depth == 8:
        return bytes(int(v) for v in row)
    out, acc, nbits = bytearray(), 0, 0
    for v in row:
        acc = (acc << depth) | int(v)
        nbits += depth
        if nbits == 8:
            out.append(acc)
            acc, nbits = 0, 0
    if nbits:
        out.append(acc << (8 - nbits))
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_bytes(samples, color_type, depth, palette=None, trns=None, interlace=False):
    """samples: h x w x c integer array of raw sample values."""
    h, w = samples.shape[:2]
    flat = lambda sub: [sub[y].reshape(-1) for y in range(sub.shape[0])]
    if interlace:
        rows = []
        for sx, sy, dx, dy in ADAM7:
            sub = samples[sy::dy, sx::dx]
            if sub.shape[0] and sub.shape[1]:
                rows += flat(sub)
    else:
        rows = flat(samples)
    raw = b"".join(b"\0" + _pack_row(r, depth) for r in rows)
    out = b"\x89PNG\r\n\x1a\n"
    out += _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, int(interlace)))
    if palette is not None:
        out += _chunk(b"PLTE", bytes(int(v) for rgb in palette for v in rgb))
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    out += _chunk(b"IDAT", zlib.compress(raw, 9))
    return out + _chunk(b"IEND", b"")


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def write_rgb(path, rgb):
    channels = rgb.shape[2]
    write(path, png_bytes(rgb.astype(np.int64), 2 if channels == 3 else 6, 8))


# ---------------------------------------------------------------- images


def scene(w, h, seed):
    """A deterministic 'rendered frame': gradients, shapes, a little texture."""
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    img = np.stack([20 + 200 * x / max(w - 1, 1),
                    30 + 180 * y / max(h - 1, 1),
                    120 + 60 * np.sin(x / 7.0) * np.cos(y / 5.0)], axis=2)
    for _ in range(4):
        x0, y0 = rng.randint(0, max(w - 8, 1)), rng.randint(0, max(h - 8, 1))
        img[y0:y0 + rng.randint(3, 20), x0:x0 + rng.randint(3, 24)] = rng.randint(0, 256, 3)
    cx, cy, r = w * 0.6, h * 0.4, min(w, h) / 4
    img[(x - cx) ** 2 + (y - cy) ** 2 < r * r] = (230, 200, 40)
    img += rng.normal(0, 4, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def add(img, delta):
    return np.clip(img.astype(np.int64) + delta, 0, 255).astype(np.uint8)


def box_blur(img):
    p = np.pad(img.astype(np.float64), ((1, 1), (1, 1), (0, 0)), mode="edge")
    acc = sum(p[dy:dy + img.shape[0], dx:dx + img.shape[1]] for dy in range(3) for dx in range(3))
    return np.rint(acc / 9).astype(np.uint8)


def flat(w, h, value):
    return np.full((h, w, 3), value, dtype=np.uint8)


def pairs():
    rng = np.random.RandomState(1234)
    base = scene(96, 64, 1)
    missing = scene(256, 160, 2)  # the golden has a small white object the actual lacks
    big = missing.copy()
    big[70:82, 40:52] = (250, 250, 240)
    gamma = np.rint(255 * (base / 255.0) ** (1 / 1.4)).astype(np.uint8)
    alpha_a = np.concatenate([base, np.full(base.shape[:2] + (1,), 255, np.uint8)], axis=2)
    alpha_b = alpha_a.copy()
    alpha_b[..., 3] = rng.randint(0, 256, base.shape[:2])
    small = lambda w, h, s: scene(w, h, s)
    s7, s11, s12, s3 = small(7, 7, 3), small(11, 11, 4), small(12, 13, 5), small(40, 3, 6)
    return [
        ("identical", base, base.copy()),
        ("noise", base, add(base, np.rint(rng.normal(0, 12, base.shape)).astype(np.int64))),
        ("shift", base, np.concatenate([base[:, :1], base[:, :-1]], axis=1)),
        ("missing_object", big, missing),
        ("blur", base, box_blur(base)),
        ("colour_shift", base, add(base, np.array([12, -8, 5]))),
        ("gamma", base, gamma),
        ("flat_same", flat(40, 30, 128), flat(40, 30, 128)),
        ("flat_diff", flat(40, 30, 100), flat(40, 30, 110)),
        ("flat_vs_scene", flat(40, 30, 128), scene(40, 30, 7)),
        ("one_pixel", np.array([[[10, 20, 30]]], np.uint8), np.array([[[12, 20, 31]]], np.uint8)),
        ("one_pixel_same", np.array([[[10, 20, 30]]], np.uint8), np.array([[[10, 20, 30]]], np.uint8)),
        ("odd_7x7", s7, add(s7, np.rint(rng.normal(0, 10, s7.shape)).astype(np.int64))),
        ("odd_11x11", s11, add(s11, np.rint(rng.normal(0, 10, s11.shape)).astype(np.int64))),
        ("odd_12x13", s12, add(s12, np.rint(rng.normal(0, 10, s12.shape)).astype(np.int64))),
        ("thin_40x3", s3, add(s3, np.rint(rng.normal(0, 10, s3.shape)).astype(np.int64))),
        ("alpha_only", alpha_a, alpha_b),
    ]


# ---------------------------------------------------------------- references


def luma(img):
    f = img[..., :3].astype(np.float64)
    return 0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2]


def crop_pad(h, w):
    """Our crop: skimage's 5 when both sides are >= 11, else the largest that fits."""
    return min(MAX_PAD, (min(h, w) - 1) // 2)


def tile_bounds(n):
    """Tiles of TILE along an axis of n; the last absorbs the remainder."""
    count = max(1, n // TILE)
    return [(i * TILE, n if i == count - 1 else (i + 1) * TILE) for i in range(count)]


def min_tile(smap, pad):
    h, w = smap.shape
    inner = smap[pad:h - pad, pad:w - pad]
    return min(inner[y0:y1, x0:x1].mean(dtype=np.float64)
               for y0, y1 in tile_bounds(inner.shape[0]) for x0, x1 in tile_bounds(inner.shape[1]))


def ssim(a, b, rgb, pad):
    kw = dict(gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255,
              full=True, win_size=2 * pad + 1)
    if rgb:
        mean, smap = structural_similarity(a[..., :3].astype(np.float64), b[..., :3].astype(np.float64),
                                           channel_axis=2, **kw)
        return mean, smap.mean(axis=2)
    return structural_similarity(luma(a), luma(b), **kw)


def skimage_default(a, b):
    """What plain skimage (no win_size) does with this pair: 'ok' or 'raises'."""
    try:
        structural_similarity(luma(a), luma(b), gaussian_weights=True, sigma=1.5,
                              use_sample_covariance=False, data_range=255)
        return "ok"
    except ValueError:
        return "raises"


def pixel_metrics(a, b):
    d = np.abs(a[..., :3].astype(np.int64) - b[..., :3].astype(np.int64))
    mse = (d.astype(np.float64) ** 2).mean()
    psnr = math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)
    return psnr, int((d.max(axis=2) > 0).sum()), int(d.max())


def reference_line(name, a, b):
    h, w = a.shape[:2]
    pad = crop_pad(h, w)
    luma_mean, luma_map = ssim(a, b, False, pad)
    rgb_mean, rgb_map = ssim(a, b, True, pad)
    psnr, diff_pixels, max_delta = pixel_metrics(a, b)
    return (f"pair={name} a=ssim/{name}_a.png b=ssim/{name}_b.png width={w} height={h} "
            f"ssim_luma={luma_mean:.12f} min_tile_luma={min_tile(luma_map, pad):.12f} "
            f"ssim_rgb={rgb_mean:.12f} min_tile_rgb={min_tile(rgb_map, pad):.12f} "
            f"psnr={psnr:.9f} diff_pixels={diff_pixels} max_delta={max_delta} "
            f"crop={pad} skimage_default={skimage_default(a, b)}")


# ---------------------------------------------------------------- PNG flavours

from png_flavours import write_flavours, write_bad_files  # noqa: E402  (same folder)


def main():
    lines = ["# Generated by tests/ref/make_refs.py with scikit-image "
             + __import__("skimage").__version__ + ", numpy " + np.__version__ + "; do not edit.",
             "# crop: border pixels left out of every mean (skimage: (win_size-1)//2; 5 for"
             " sigma 1.5 truncate 3.5). skimage_default=raises: skimage without win_size"
             " refuses the pair; the values given use win_size=2*crop+1 (our documented fallback)."]
    for name, a, b in pairs():
        write_rgb(os.path.join(IMAGES, "ssim", name + "_a.png"), a)
        write_rgb(os.path.join(IMAGES, "ssim", name + "_b.png"), b)
        lines.append(reference_line(name, a, b))
    with open(REF, "w") as f:
        f.write("\n".join(lines) + "\n")
    write_flavours(os.path.join(IMAGES, "png"), png_bytes, write)
    write_bad_files(os.path.join(IMAGES, "bad"), png_bytes, write, _chunk)
    print(f"wrote {len(lines) - 2} reference lines to {REF}", file=sys.stderr)


if __name__ == "__main__":
    main()
