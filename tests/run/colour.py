#!/usr/bin/env python3
"""tests/run/colour.py RETRACE TRACES — the colour gate in `retrace run`: a
golden whose red and blue are swapped (the BGRA/RGBA swizzle bug) fails the
frame on colour, and the store, --json and the message say so, with delta_e
and its threshold recorded next to SSIM numbers that look fine."""
import json
import os
import struct
import sys
import zlib

from runlib import Env, expect, finish


def unfilter(raw, width, height, channels):
    """The pixel rows of a non-interlaced 8-bit PNG's inflated IDAT."""
    stride, rows, prev = width * channels, [], bytearray(width * channels)
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c]
            line[i] = (line[i] + pred[ftype]) & 0xff
        rows.append(line)
        prev = line
    return rows


def swap_red_blue(src, dst):
    """Writes SRC (8-bit RGB or RGBA, as retrace writes) with R and B swapped to DST."""
    data = open(src, "rb").read()
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            ihdr = data[pos + 8:pos + 8 + n]
        elif kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    width, height, depth, colour = struct.unpack(">IIBB", ihdr[:10])
    expect(depth == 8 and colour in (2, 6), f"{src}: 8-bit RGB(A)")
    ch = 4 if colour == 6 else 3
    out = bytearray()
    for line in unfilter(zlib.decompress(idat), width, height, ch):
        line[0::ch], line[2::ch] = line[2::ch], line[0::ch]
        out += b"\0" + line

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(dst, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(out))) +
                chunk(b"IEND", b""))


retrace, traces = sys.argv[1], sys.argv[2]
env = Env(retrace, traces)
env.copy_trace("vkcube", "vkcube")
swapped = os.path.join(env.dir, "swapped.png")
swap_red_blue(env.golden("vkcube", 1), swapped)
env.add_golden("vkcube", 1, swapped)
env.add_golden("vkcube", 10, env.golden("vkcube", 10))
env.write("manifest.yml", "traces:\n  - {path: vkcube.rtrace, frames: [1, 10]}\n")
r = env.run(["run", os.path.join(env.dir, "manifest.yml"), "--db", env.db, "--json"])
expect(r.returncode == 1, f"the colour-swapped golden is a regression (exit {r.returncode}): {r.stderr}")

rows = env.query("SELECT frame, status, ssim, threshold, delta_e, colour_threshold, message FROM results ORDER BY frame")
expect(len(rows) == 2, f"two results: {rows}")
f1, f10 = rows
expect(f1[1] == "fail" and f1[5] == 3.0 and f1[4] is not None and f1[4] > 3.0,
       f"frame 1 fails with delta_e above its threshold recorded: {f1}")
# Luma SSIM hides the swap (0.997 on this frame): the message names the colour gate.
expect(f1[2] >= f1[3] and f1[6].startswith("colour: delta E"),
       f"SSIM passes ({f1[2]}), the message names the colour gate: {f1[6]}")
expect(f10[1] == "pass" and f10[4] is not None and f10[4] <= 3.0 and f10[5] == 3.0,
       f"frame 10 passes with its delta_e recorded: {f10}")

body = json.loads(r.stdout)
got = {x["frame"]: (x["delta_e"], x["colour_threshold"]) for x in body["results"]}
expect(abs(got[1][0] - f1[4]) < 1e-9 and got[1][1] == 3.0, f"--json (the upload body) carries them: {got}")
env.close()
finish()
