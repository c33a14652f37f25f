#!/usr/bin/env python3
"""gen/vkgen.py - vk.xml -> the C tables of retrace's Vulkan codec.

Usage: vkgen.py --xml vk.xml [--video-xml video.xml] --out-dir DIR

Writes every *_gen.[ch] into DIR in one run, prints
"vkgen: covers X of Y commands, S of T structs" and writes the same figures,
with the exclusion list, to DIR/vk_coverage.txt. Fails when vk.xml holds
something the codec cannot express and gen/overrides.py does not list.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import classify  # noqa: E402
import command_flags  # noqa: E402
import emit_capture  # noqa: E402
import emit_commands  # noqa: E402
import emit_decode  # noqa: E402
import emit_dispatch  # noqa: E402
import emit_encode  # noqa: E402
import emit_extensions  # noqa: E402
import emit_replay  # noqa: E402
import emit_tables  # noqa: E402
import emit_walk  # noqa: E402
import handwritten  # noqa: E402
import overrides  # noqa: E402
import vkxml  # noqa: E402
from emit_common import write  # noqa: E402


def reached_exclusion(c, containers, seen=None):
    """Name of an excluded struct c reaches by value or pointer (not pNext)."""
    if c.excluded:
        return c.name
    seen = seen if seen is not None else set()
    for d in c.members:
        if d.kind in ("STRUCT", "UNION"):
            name = d.aux[len("RT_VK_STRUCT_"):]
            if name in seen:
                continue
            seen.add(name)
            hit = reached_exclusion(containers[name], containers, seen)
            if hit:
                return hit
    return None


def mark_cross_lengths(by_name, containers):
    """`pAllocateInfo->descriptorSetCount` makes that member a length too."""
    for c in containers:
        members = {d.name: d for d in c.members}
        for d in c.members:
            for ptr, fld in re.findall(r"rt__b->(\w+)->(\w+)", d.len_expr or ""):
                target = by_name.get(members[ptr].elem_ctype)
                for t in target.members if target else []:
                    if t.name == fld:
                        t.len_scale = max(t.len_scale, 1)


def used_enums(reg, containers):
    names = ["VkResult", "VkStructureType", "VkObjectType"]
    for c in containers:
        for d in c.members:
            if d.aux.startswith("RT_VK_ENUM_") and d.aux[len("RT_VK_ENUM_"):] not in names:
                names.append(d.aux[len("RT_VK_ENUM_"):])
    return [reg.enums[n] for n in names]


def uncovered_line(kind, name, item, hit):
    """None when ITEM reaches no exclusion (HIT is None), else why it is not covered."""
    if hit is None:
        return None
    if hit == item.name:
        return f"{kind} {name}: excluded: {item.excluded}"
    return f"{kind} {name}: reaches excluded {hit}"


def coverage(reg, structs, commands, by_name, cmd_names):
    lines, covered_s, covered_c = [], 0, 0
    for s in structs:
        line = uncovered_line("struct", s.name, s, reached_exclusion(s, by_name))
        covered_s += line is None
        lines += [line] if line else []
    for n in cmd_names:
        c = commands[reg.commands[n].alias or n]
        line = uncovered_line("command", n, c, reached_exclusion(c, {**by_name, c.name: c}))
        covered_c += line is None
        lines += [line] if line else []
    summary = (f"vkgen: covers {covered_c} of {len(cmd_names)} commands, "
               f"{covered_s} of {len(structs)} structs")
    return summary, lines


def check_overrides(cls):
    stale = [k for k in list(overrides.EXCLUDED) + list(overrides.LEN_FROM_PROSE)
             if k not in cls.used_overrides]
    for k in stale:
        print(f"vkgen: warning: gen/overrides.py entry {k} is not needed", file=sys.stderr)
    unlisted = [o for o in cls.opaque_seen
                if o not in overrides.OPAQUE_POINTERS and o.split(".")[0] not in overrides.EXCLUDED
                and "*." + o.split(".")[1] not in overrides.OPAQUE_POINTERS]
    if unlisted:
        sys.exit("vkgen: void * without a length, not in gen/overrides.py OPAQUE_POINTERS:\n  "
                 + "\n  ".join(unlisted))


def check_command_lists(cmd_names):
    """A stale entry in a hand-kept command list fails the build."""
    errors = handwritten.check(cmd_names) + command_flags.check(cmd_names)
    if errors:
        sys.exit("vkgen: stale or malformed entries in gen/handwritten.py or gen/command_flags.py:\n  "
                 + "\n  ".join(errors))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xml", required=True)
    ap.add_argument("--video-xml")
    ap.add_argument("--out-dir", required=True)
    args = ap.parse_args()
    video = args.video_xml
    if video is None:
        guess = os.path.join(os.path.dirname(args.xml), "video.xml")
        video = guess if os.path.exists(guess) else None
    reg = vkxml.Registry(args.xml, video)
    cls = classify.Classifier(reg)
    try:
        structs = [cls.struct(s) for s in reg.api_structs()]
        cmd_names = reg.api_commands()
        commands = {n: cls.command(reg.commands[n]) for n in cmd_names if not reg.commands[n].alias}
    except classify.Unexpressible as e:
        sys.exit(f"vkgen: cannot express {e}")
    check_overrides(cls)
    check_command_lists(cmd_names)
    by_name = {s.name: s for s in structs}
    mark_cross_lengths(by_name, structs + list(commands.values()))
    os.makedirs(args.out_dir, exist_ok=True)
    enums = used_enums(reg, structs + list(commands.values()))
    emit_tables.emit_header(reg, structs, enums, args.out_dir)
    emit_tables.emit_tables_c(reg, structs, enums, by_name, args.out_dir)
    emit_tables.emit_members(reg, structs, args.out_dir, "vk_members")
    emit_tables.emit_members(reg, list(commands.values()), args.out_dir, "vk_args")
    emit_commands.emit_header(reg, cmd_names, args.out_dir)
    emit_commands.emit_source(reg, cmd_names, commands, args.out_dir)
    emit_encode.emit(reg, structs, cmd_names, commands, args.out_dir)
    emit_decode.emit(reg, structs, cmd_names, commands, args.out_dir)
    emit_walk.emit(reg, structs, cmd_names, commands, args.out_dir)
    emit_dispatch.emit(reg, cmd_names, args.out_dir)
    emit_capture.emit(reg, cmd_names, args.out_dir)
    emit_replay.emit(reg, cmd_names, args.out_dir)
    emit_extensions.emit(reg, cmd_names, args.out_dir)
    summary, lines = coverage(reg, structs, commands, by_name, cmd_names)
    print(summary)
    write(args.out_dir, "vk_coverage.txt", summary + "\n" + "".join(x + "\n" for x in lines))


if __name__ == "__main__":
    main()
