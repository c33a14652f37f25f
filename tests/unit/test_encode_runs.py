#!/usr/bin/env python3
"""tests/unit/test_encode_runs.py - the generated encoders' common path.

Every captured call runs a generated encoder (gen/emit_encode.py), so what it
does per member is capture's cost (bench/README.md, issue 21). Generates the
encoders from vk.xml and checks: no encoder reads its own descriptor table
entry to enter itself (a generated encoder exists only for a container that
is neither excluded nor of a platform left out); members whose wire size is
known are written after one reservation (a barrier's masks, layouts, queue
families, image and its VkImageSubresourceRange: one rt_vkc_room, no call of
another encoder); an array of flat structs behind a pointer is one
reservation too (vkCmdSetViewport's viewports).
Usage: test_encode_runs.py SOURCE_ROOT VK_XML
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

SOURCE, VK_XML = sys.argv[1], sys.argv[2]
failures = []


def expect(cond, what):
    print(("ok: " if cond else "FAILED: ") + what)
    if not cond:
        failures.append(what)


def body(code, fn):
    m = re.search(rf"^bool {fn}\(struct rt_vkc_pass \*rt__c, const void \*rt__v, bool rt__in_chain\)\n\{{\n(.*?)^\}}\n",
                  code, re.S | re.M)
    return m.group(1) if m else ""


with tempfile.TemporaryDirectory() as out:
    subprocess.run([sys.executable, os.path.join(SOURCE, "gen", "vkgen.py"), "--xml", VK_XML, "--out-dir", out],
                   check=True, capture_output=True)
    code = "".join(open(p, encoding="utf-8").read() for p in sorted(glob.glob(os.path.join(out, "vk_encode_gen_*.c"))))
expect("rt_vkc_enter_struct(" not in code, "no generated encoder enters itself through its table entry")
barrier = body(code, "rt__enc_VkImageMemoryBarrier2")
expect(barrier != "", "rt__enc_VkImageMemoryBarrier2 is generated")
expect(barrier.count("rt_vkc_room(") == 2, "VkImageMemoryBarrier2: sType with the empty chain's end, then the rest: "
       f"2 reservations ({barrier.count('rt_vkc_room(')})")
expect("rt__enc_VkImageSubresourceRange" not in barrier and "rt_vkc_enc_struct_at" not in barrier,
       "VkImageMemoryBarrier2 writes its subresourceRange inline")
viewport = body(code, "rt__enc_cmd_vkCmdSetViewport")
expect("rt__s->maxDepth" in viewport, "vkCmdSetViewport writes its viewports' members itself")
if failures:
    sys.exit(f"{len(failures)} failed")
