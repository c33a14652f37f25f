"""PNG flavours and broken PNGs for tests/unit/test_png.c (used by make_refs.py).

Every flavour encodes one 13x7 picture (odd sizes, so each Adam7 pass is
partial) in one colour type and bit depth, plain and interlaced, next to a
NAME.rgba file holding the 8-bit RGBA bytes libpng must give us (png_io.h:
16-bit scaled with rounding, low depths replicated, gray copied to RGB, tRNS
as alpha, no alpha = 255).
"""
import os
import struct
import zlib

import numpy as np

W, H = 13, 7


def _pattern(maxval, channels, seed):
    rng = np.random.RandomState(seed)
    return rng.randint(0, maxval + 1, (H, W, channels)).astype(np.int64)


def _to8(v, depth):
    """libpng's 8-bit value for a DEPTH-bit sample."""
    if depth == 16:
        return (v * 255 + 32767) // 65535
    return v * 255 // ((1 << depth) - 1)


def _rgba(rgb8, alpha8=None):
    h, w = rgb8.shape[:2]
    if rgb8.shape[2] == 1:
        rgb8 = np.repeat(rgb8, 3, axis=2)
    a = np.full((h, w, 1), 255, np.int64) if alpha8 is None else alpha8
    return np.concatenate([rgb8, a], axis=2).astype(np.uint8).tobytes()


def _gray(depth, seed, trns=False):
    s = _pattern((1 << depth) - 1, 1, seed)
    if not trns:
        return s, 0, None, None, _rgba(_to8(s, depth))
    key = int(s[3, 5, 0])  # a value that occurs: those pixels become transparent
    alpha = np.where(s == key, 0, 255)
    return s, 0, None, struct.pack(">H", key), _rgba(_to8(s, depth), alpha)


def _color(depth, channels, seed, trns=False):
    s = _pattern((1 << depth) - 1, channels, seed)
    ctype = {2: 4, 3: 2, 4: 6}[channels]
    if channels in (2, 4):
        return s, ctype, None, None, _rgba(_to8(s[..., :-1], depth), _to8(s[..., -1:], depth))
    if not trns:
        return s, ctype, None, None, _rgba(_to8(s, depth))
    key = s[2, 4]
    alpha = np.all(s == key, axis=2, keepdims=True) * -255 + 255
    return s, ctype, None, struct.pack(">HHH", *(int(v) for v in key)), _rgba(_to8(s, depth), alpha)


def _palette(depth, seed, trns=False):
    n = 1 << depth
    rng = np.random.RandomState(seed)
    palette = rng.randint(0, 256, (n, 3))
    idx = _pattern(n - 1, 1, seed + 1)
    alphas = np.full(n, 255)
    chunk = None
    if trns:  # a short tRNS: the entries after it stay opaque
        k = max(1, n // 2)
        alphas[:k] = rng.randint(0, 256, k)
        chunk = bytes(int(a) for a in alphas[:k])
    rgb = palette[idx[..., 0]]
    return idx, 3, palette, chunk, _rgba(rgb, alphas[idx[..., 0]][..., None])


def flavours():
    """name -> (depth, samples, colour type, palette, tRNS chunk, expected RGBA)."""
    out = {}
    for d in (1, 2, 4, 8, 16):
        out[f"gray{d}"] = (d,) + _gray(d, 10 + d)
    out["gray8_trns"] = (8,) + _gray(8, 30, trns=True)
    out["gray16_trns"] = (16,) + _gray(16, 31, trns=True)
    out["gray2_trns"] = (2,) + _gray(2, 32, trns=True)
    for d in (8, 16):
        out[f"graya{d}"] = (d,) + _color(d, 2, 40 + d)
        out[f"rgb{d}"] = (d,) + _color(d, 3, 50 + d)
        out[f"rgb{d}_trns"] = (d,) + _color(d, 3, 60 + d, trns=True)
        out[f"rgba{d}"] = (d,) + _color(d, 4, 70 + d)
    for d in (1, 2, 4, 8):
        out[f"pal{d}"] = (d,) + _palette(d, 80 + d)
    out["pal8_trns"] = (8,) + _palette(8, 90, trns=True)
    out["pal2_trns"] = (2,) + _palette(2, 91, trns=True)
    return out


def write_flavours(folder, png_bytes, write):
    for name, (depth, samples, ctype, palette, trns, rgba) in sorted(flavours().items()):
        for interlace in (False, True):
            stem = name + ("_interlaced" if interlace else "")
            write(os.path.join(folder, stem + ".png"),
                  png_bytes(samples, ctype, depth, palette, trns, interlace))
            write(os.path.join(folder, stem + ".rgba"), rgba)
    # 3x2 interlaced: passes 2, 3 and 5 are empty and must be skipped.
    tiny = np.arange(18, dtype=np.int64).reshape(2, 3, 3) * 13
    write(os.path.join(folder, "tiny3x2_interlaced.png"), png_bytes(tiny, 2, 8, interlace=True))
    write(os.path.join(folder, "tiny3x2_interlaced.rgba"), _rgba(tiny))


def _ihdr_only(chunk, w, h, depth, ctype, idat=b""):
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def write_bad_files(folder, png_bytes, write, chunk):
    """Each must be refused with RT_ERR_BAD_INPUT (test_png.c lists why)."""
    good = png_bytes(_pattern(255, 3, 5), 2, 8)
    bad = {
        "empty": b"",
        "text": b"hello, I am not a PNG at all\n",
        "truncated": good[: len(good) // 2],
        "no_iend": good[:-12],
        "bad_crc": good[:20] + bytes([good[20] ^ 0x40]) + good[21:],
        "bad_zlib": _ihdr_only(chunk, 4, 4, 8, 2, b"\x78\x9c" + b"\xff" * 30),
        "short_idat": _ihdr_only(chunk, 4, 4, 8, 2, zlib.compress(b"\0" + b"\1" * 12)),
        "huge": _ihdr_only(chunk, 100000, 100000, 8, 2),
        "too_many_pixels": _ihdr_only(chunk, 20000, 20000, 8, 2),
        "zero_width": _ihdr_only(chunk, 0, 4, 8, 2),
        "bad_depth": _ihdr_only(chunk, 4, 4, 3, 2),
        "bad_colour_type": _ihdr_only(chunk, 4, 4, 8, 5),
    }
    for name, data in bad.items():
        write(os.path.join(folder, name + ".png"), data)
