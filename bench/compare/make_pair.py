#!/usr/bin/python3
"""Writes a deterministic golden/actual PNG pair of WIDTHxHEIGHT for bench/compare.sh.

The golden looks like a rendered frame (gradients, shapes, a little texture);
the actual adds rendering noise and moves one object, as a real regression
might. Usage: make_pair.py WIDTH HEIGHT GOLDEN.png ACTUAL.png
"""
import sys

import numpy as np
from PIL import Image


def frame(w, h, rng):
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.stack([20 + 200 * x / w, 30 + 180 * y / h,
                    120 + 60 * np.sin(x / 37.0) * np.cos(y / 23.0)], axis=2)
    for _ in range(40):
        x0, y0 = rng.randint(0, w - w // 8), rng.randint(0, h - h // 8)
        img[y0:y0 + rng.randint(h // 40, h // 8), x0:x0 + rng.randint(w // 40, w // 8)] = \
            rng.randint(0, 256, 3)
    img += rng.normal(0, 3, img.shape).astype(np.float32)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def main():
    w, h, golden_path, actual_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    rng = np.random.RandomState(w * 10007 + h)
    golden = frame(w, h, rng)
    actual = np.clip(golden.astype(np.int16) + rng.randint(-2, 3, golden.shape), 0, 255)
    actual = actual.astype(np.uint8)
    ow, oh = w // 20, h // 20
    actual[h // 2:h // 2 + oh, w // 3 + ow // 2:w // 3 + ow // 2 + ow] = \
        golden[h // 2:h // 2 + oh, w // 3:w // 3 + ow]
    Image.fromarray(golden, "RGB").save(golden_path)
    Image.fromarray(actual, "RGB").save(actual_path)


if __name__ == "__main__":
    main()
