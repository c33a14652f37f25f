#!/usr/bin/env python3
"""tests/unit/test_layer_load.py - what loading the capture layer costs.

Every captured program loads libVkLayer_RETRACE_capture.so; the generated
tables' pointers make ~21,000 relative relocations, which the loader reads
and applies at every start (issue 21). Checks, on the built layer (readelf):
they are packed (DT_RELR: a few KB instead of ~500 KB of .rela.dyn), and
what glibc that needs (GLIBC_ABI_DT_RELR, 2.36) is the only version it adds;
the layer needs none of the libraries only screenshots use (libpng,
libdeflate, ISA-L: capture/screenshots.h), which its screenshot module beside
it brings.
Usage: test_layer_load.py LAYER.so
"""
import os
import re
import subprocess
import sys

LAYER = sys.argv[1]
failures = []


def expect(cond, what):
    print(("ok: " if cond else "FAILED: ") + what)
    if not cond:
        failures.append(what)


dyn = subprocess.run(["readelf", "-d", LAYER], capture_output=True, text=True, check=True).stdout
tags = dict(re.findall(r"\((\w+)\)\s+(\S+)", dyn))
relacount = int(tags.get("RELACOUNT", "0"))
relasz = int(tags.get("RELASZ", "0"))
expect(relacount < 1000, f"relative relocations are packed (RELACOUNT {relacount})")
expect(relasz < 16384, f".rela.dyn is small ({relasz} bytes)")
expect("RELR" in tags, "the layer has DT_RELR")
versions = subprocess.run(["readelf", "-V", LAYER], capture_output=True, text=True, check=True).stdout
glibc = sorted(set(re.findall(r"Name: (GLIBC_[0-9.]+)", versions)), key=lambda v: [int(x) for x in v[6:].split(".")])
expect(glibc and [int(x) for x in glibc[-1][6:].split(".")] <= [2, 36],
       f"no glibc symbol version newer than 2.36 ({glibc[-1] if glibc else 'none'})")
needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn)
for lib in ("libpng", "libdeflate", "libisal", "libz.", "libm."):
    expect(not any(n.startswith(lib) for n in needed), f"the layer does not load {lib}* ({' '.join(needed)})")
module = os.path.join(os.path.dirname(LAYER), "libVkLayer_RETRACE_capture_screenshots.so")
expect(os.path.exists(module), f"the screenshot module is beside the layer ({module})")
if os.path.exists(module):
    mdyn = subprocess.run(["readelf", "-W", "--dyn-syms", module], capture_output=True, text=True, check=True).stdout
    expect("rt_capture_screenshots" in mdyn, "the module exports rt_capture_screenshots")
if failures:
    sys.exit(f"{len(failures)} failed")
