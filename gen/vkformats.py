#!/usr/bin/env python3
"""gen/vkformats.py - vk.xml's <formats> -> a C table of every VkFormat.

Usage: vkformats.py --xml vk.xml --out FILE.c

For each format: its name, texel block (bytes, width, height), compression
family, chroma subsampling, planes (each plane's compatible format), and its
components with their channel, bits, numeric format and bit offset inside
the block (little-endian; packed formats list components from the most
significant bit, and padding such as the X6 of R10X6 is read from the name).
readback/formats.h declares the table; readback/ decodes texels with it.
"""
import argparse
import re
import xml.etree.ElementTree as ET

NUMERIC = ["NONE", "UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "UFLOAT", "SFLOAT", "SRGB"]
COMPRESSION = {None: "NONE", "BC": "BC", "ETC2": "ETC2", "EAC": "EAC", "ASTC LDR": "ASTC_LDR",
               "ASTC HDR": "ASTC_HDR", "PVRTC": "PVRTC"}


def name_tokens(short):
    """[(letter, bits)] from the leading segment(s) of a format name: R10X6G10X6, X8_D24, E5B9G9R9."""
    segs = short.split("_")
    toks = []
    for seg in segs[:2] if segs[0] == "X8" else segs[:1]:
        if not re.fullmatch(r"(?:[RGBADSXE]\d+)+", seg):
            break
        toks += [(c, int(b)) for c, b in re.findall(r"([RGBADSXE])(\d+)", seg)]
    return toks


def packed_offsets(short, packed, block_bits, ncomp):
    """Bit offsets of the components of a packed format, and the shared exponent's (or -1)."""
    toks = name_tokens(short)
    if sum(b for _, b in toks) != block_bits:
        raise SystemExit(f"vkformats: cannot lay out {short}: name bits {toks} != {block_bits}")
    offsets, exponent, word, used = [], -1, 0, 0
    for letter, bits in toks:
        at = word * packed + packed - used - bits
        if letter == "E":
            exponent = at
        elif letter != "X":
            offsets.append(at)
        used += bits
        if used == packed:
            word, used = word + 1, 0
    if len(offsets) != ncomp:
        raise SystemExit(f"vkformats: {short}: {len(offsets)} offsets for {ncomp} components")
    return offsets, exponent


def numeric(short, component, compressed):
    """A component's numeric format. For compressed formats the name decides:
    some vk.xml versions mark BC4_SNORM and BC5_SNORM components SRGB."""
    if compressed:
        for n in ("SNORM", "UNORM", "SRGB", "UFLOAT", "SFLOAT"):
            if f"_{n}_" in short + "_":
                return n
    return component.get("numericFormat")


def format_entry(f):
    name = f.get("name")
    short = name[len("VK_FORMAT_"):]
    comps = f.findall("component")
    block = int(f.get("blockSize"))
    extent = [int(v) for v in (f.get("blockExtent") or "1,1,1").split(",")]
    packed = int(f.get("packed") or 0)
    compressed = f.get("compressed")
    planes = f.findall("plane")
    bits = [0 if c.get("bits") == "compressed" else int(c.get("bits")) for c in comps]
    exponent = -1
    if compressed or planes:
        offsets = [0] * len(comps)
    elif packed:
        offsets, exponent = packed_offsets(short, packed, block * 8, len(comps))
    else:
        offsets, at = [], 0
        for b in bits:
            offsets.append(at)
            at += b
    cs = ", ".join(f"{{'{c.get('name')}', {b}, RT_NUMERIC_{numeric(short, c, compressed)}, {o}}}"
                   for c, b, o in zip(comps, bits, offsets))
    ps = ", ".join(p.get("compatible") for p in sorted(planes, key=lambda p: int(p.get("index"))))
    return (f"    {{{name}, \"{short}\", {block}, {extent[0]}, {extent[1]}, RT_COMPRESSION_{COMPRESSION[compressed]}, "
            f"{int(f.get('chroma') or 0)}, {exponent}, {len(comps)}, {{{cs}}}, {len(planes)}, {{{ps or '0'}}}}},")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xml", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    root = ET.parse(a.xml).getroot()
    # Enum values, to sort the table for a binary search.
    values = {}
    for enums in root.findall("enums"):
        if enums.get("name") == "VkFormat":
            for e in enums.findall("enum"):
                if e.get("value") is not None:
                    values[e.get("name")] = int(e.get("value"), 0)
    for ext in root.iter("require"):
        for e in ext.findall("enum"):
            if e.get("extends") == "VkFormat" and e.get("offset") is not None:
                number = int(e.get("extnumber") or ext.get("extnumber") or 0)
                if not number:
                    parent = next((x for x in root.iter("extension") if e in x.iter("enum")), None)
                    number = int(parent.get("number")) if parent is not None else 0
                value = 1000000000 + (number - 1) * 1000 + int(e.get("offset"))
                values[e.get("name")] = -value if e.get("dir") == "-" else value
    formats = root.find("formats").findall("format")
    formats.sort(key=lambda f: values.get(f.get("name"), 1 << 31))
    lines = ["/* This file generated from vk.xml by gen/vkformats.py, don't edit directly. */",
             '#include "formats.h"', "", "const struct rt_format_info rt_formats[] = {"]
    lines += [format_entry(f) for f in formats]
    lines += ["};", f"const size_t rt_format_count = {len(formats)};", ""]
    with open(a.out, "w") as out:
        out.write("\n".join(lines))


if __name__ == "__main__":
    main()
