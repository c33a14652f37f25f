#!/bin/sh
# tests/integration/opaque_alpha.sh RETRACE VKCUBE — a swapchain made with
# VK_COMPOSITE_ALPHA_OPAQUE_KHR is shown opaque whatever alpha the program
# leaves (vkcube clears to alpha 0.2), so its screenshots are saved with
# alpha 255, at capture and at replay. Skips (77) without a display.
set -u
retrace=$1 vkcube=$2
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${DISPLAY:-}" ] || { echo "skip: no DISPLAY"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$retrace" capture -o "$work/t.rtrace" --screenshots "$work/cap" --screenshot-frames 3 -- "$vkcube" --c 5 \
    >/dev/null 2>"$work/err" || { cat "$work/err"; fail "capture"; }
"$retrace" dump "$work/t.rtrace" | grep -q "compositeAlpha=VK_COMPOSITE_ALPHA_OPAQUE_KHR" ||
    { echo "skip: vkcube chose another composite alpha here"; exit 77; }
"$retrace" replay "$work/t.rtrace" --screenshots "$work/rep" --frames 3 >/dev/null 2>"$work/err" ||
    { cat "$work/err"; fail "replay"; }
python3 - "$work/cap/frame_000003.png" "$work/rep/frame_000003.png" <<'END' || fail "a screenshot keeps alpha"
import struct, sys, zlib
def alpha(path):  # (min, max) alpha of an 8-bit PNG, None without alpha
    data, pos, idat = open(path, "rb").read(), 8, b""
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4]); kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR": w, h, depth, colour = struct.unpack(">IIBB", body[:10])
        if kind == b"IDAT": idat += body
        pos += 12 + n
    if colour != 6: return None
    raw, bpp, stride, prev, i, lo, hi = zlib.decompress(idat), 4, w * 4, bytearray(w * 4), 0, 255, 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        lo, hi = min(lo, min(line[3::4])), max(hi, max(line[3::4])); prev = line
    return lo, hi
for path in sys.argv[1:]:
    r = alpha(path)
    assert r in (None, (255, 255)), "%s: alpha from %d to %d" % ((path,) + r)
    print("ok: %s: alpha %s" % (path.split("/")[-2], "255" if r else "none"))
END
