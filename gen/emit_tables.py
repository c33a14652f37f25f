"""gen/emit_tables.py - struct, union, argument-block and enum descriptor tables.

Writes vk_tables_gen.h (struct and enum indices), vk_tables_gen.c (struct and
enum descriptors, the sType map) and vk_members_gen_N.c (member arrays with
their length functions and bitfield accessors, split so ninja can compile the
parts in parallel).
"""
import re

from classify import enum_index_name, struct_index_name
from emit_common import banner, c_str, guarded, split_parts, upper_snake, write

MEMBER_PARTS = 4
KIND_WIRE = {"HANDLE": "8", "SIZE": "8", "FUNCPTR": "8", "STRING": "4", "PNEXT": "1",
             "CHAR": "1", "VOID": "1", "STRUCT": "1", "UNION": "1"}


def members_symbol(c):
    return f"rt__m_{c.name}"


def emit_header(reg, structs, enums, out_dir):
    v = reg.header_version
    lines = [banner(v), "#ifndef RT_VK_TABLES_GEN_H\n#define RT_VK_TABLES_GEN_H\n\n",
             '#include "vkcodec_desc.h"\n\n',
             "/* Index of every struct and union of the vulkan API in rt_vk_structs. */\n",
             "enum rt_vk_struct_type {\n"]
    lines += [f"    {struct_index_name(s.name)},\n" for s in structs]
    lines.append("    RT_VK_STRUCT_COUNT\n};\n\n/* Index of every enum and flag-bits type in rt_vk_enums. */\nenum rt_vk_enum_index {\n")
    lines += [f"    {enum_index_name(e.name)},\n" for e in enums]
    lines.append("    RT_VK_ENUM_COUNT\n};\n\n")
    lines.append("extern const struct rt_vk_struct_desc rt_vk_structs[RT_VK_STRUCT_COUNT];\n")
    lines.append("extern const struct rt_vk_enum_desc rt_vk_enums[RT_VK_ENUM_COUNT];\n")
    lines.append("/* Sorted by sType for bsearch. */\n")
    lines.append("extern const struct rt_vk_stype_entry rt_vk_stype_map[];\n")
    lines.append("extern const uint32_t rt_vk_stype_map_count;\n")
    lines.append("/* VkObjectType -> handle type name, for printing. */\n")
    lines.append("extern const struct rt_vk_object_type_name rt_vk_object_type_names[];\n")
    lines.append("extern const uint32_t rt_vk_object_type_name_count;\n\n#endif\n")
    write(out_dir, "vk_tables_gen.h", "".join(lines))


def short_enum_names(reg, enum):
    base = re.sub(r"FlagBits(2)?$", r"\1", enum.name)
    for tag in sorted(reg.tags, key=len, reverse=True):
        if base.endswith(tag):
            base = base[: -len(tag)]
            break
    prefix = upper_snake(base) + "_"
    out = []
    for name, value in enum.values:
        short = name[len(prefix):] if name.startswith(prefix) and len(name) > len(prefix) else name
        short = re.sub(r"_BIT(?=_[A-Z]+$|$)", "", short) if enum.bitmask else short
        out.append((name, short, value))
    return out


def emit_enums(reg, enums):
    lines = []
    for e in enums:
        vals = short_enum_names(reg, e)
        body = "".join(f"    {{{v}LL, {c_str(s)}, {c_str(n)}}},\n" for n, s, v in vals)
        if vals:
            lines.append(f"static const struct rt_vk_enum_value rt__e_{e.name}[] = {{\n{body}}};\n")
    lines.append("const struct rt_vk_enum_desc rt_vk_enums[RT_VK_ENUM_COUNT] = {\n")
    for e in enums:
        vals = f"rt__e_{e.name}" if e.values else "NULL"
        lines.append(f"    {{{c_str(e.name)}, {vals}, {len(e.values)}, {'true' if e.bitmask else 'false'}}},\n")
    lines.append("};\n\n")
    return lines


def min_encoded_expr(c):
    terms = []
    for d in c.members:
        if d.depth or d.kind in KIND_WIRE:
            w = "1" if d.depth else KIND_WIRE[d.kind]
        else:
            w = f"sizeof({d.elem_ctype})"
        terms.append(f"({d.count})*{w}" if d.count != "1" and not d.depth else w)
    return " + ".join(terms) or "1"


def struct_desc(c, extenders):
    ext = f"rt__x_{c.name}" if extenders else "NULL"
    head = f"    [{struct_index_name(c.name)}] = {{{c_str(c.name)}, "
    tail = (f"{c_str(c.excluded)}, {c_str(c.guard)}, {ext}, ")
    stype = c.stype or "0"
    features = str(c.name == "VkPhysicalDeviceFeatures2" or "VkPhysicalDeviceFeatures2" in c.extends).lower()
    compiled = (f"{members_symbol(c)}, {tail}sizeof({c.ctype}), _Alignof({c.ctype}), "
                f"(uint32_t)({min_encoded_expr(c)}), (uint32_t){stype}, {len(c.members)}, "
                f"{len(extenders)}, {str(c.is_union).lower()}, {str(bool(c.stype)).lower()}, true, {features}}},\n")
    missing = (f"NULL, {tail}0, 1, 1, (uint32_t){stype if not c.guard else '0'}, 0, {len(extenders)}, "
               f"{str(c.is_union).lower()}, {str(bool(c.stype)).lower()}, false, {features}}},\n")
    return guarded(c.guard, head + compiled, head + missing)


def emit_tables_c(reg, structs, enums, by_name, out_dir):
    lines = [banner(reg.header_version), "#include <stddef.h>\n#include <vulkan/vulkan.h>\n\n",
             '#include "vk_commands_gen.h"\n#include "vk_tables_gen.h"\n\n']
    for c in structs:
        if c.members:
            lines.append(guarded(c.guard, f"extern const struct rt_vk_member {members_symbol(c)}[];\n"))
    lines.append("\n")
    extenders = {c.name: [] for c in structs}
    for c in structs:
        for parent in c.extends:
            if parent in extenders:
                extenders[parent].append(c.name)
    for name, ext in extenders.items():
        if ext:
            items = ", ".join(struct_index_name(e) for e in ext)
            lines.append(f"static const uint16_t rt__x_{name}[] = {{{items}}};\n")
    lines.append("\nconst struct rt_vk_struct_desc rt_vk_structs[RT_VK_STRUCT_COUNT] = {\n")
    lines += [struct_desc(c, extenders[c.name]) for c in structs]
    lines.append("};\n\n")
    lines += emit_enums(reg, enums)
    stypes = sorted((reg_stype_value(reg, c.stype), c.name) for c in structs if c.stype)
    lines.append("const struct rt_vk_stype_entry rt_vk_stype_map[] = {\n")
    lines += [f"    {{{v}u, {struct_index_name(n)}}},\n" for v, n in stypes]
    lines.append(f"}};\nconst uint32_t rt_vk_stype_map_count = {len(stypes)};\n\n")
    lines.append("const struct rt_vk_object_type_name rt_vk_object_type_names[] = {\n")
    handles = [(objtype, name) for name, (_, _, objtype) in reg.handles.items() if objtype]
    lines += [f"    {{{objtype}, {c_str(name)}}},\n" for objtype, name in handles]
    lines.append(f"}};\nconst uint32_t rt_vk_object_type_name_count = {len(handles)};\n")
    write(out_dir, "vk_tables_gen.c", "".join(lines))


def reg_stype_value(reg, name):
    for n, v in reg.enums["VkStructureType"].values:
        if n == name:
            return v
    alias = reg.enums["VkStructureType"].aliases.get(name)
    return reg_stype_value(reg, alias)


def member_init(c, i, d):
    """One struct rt_vk_member initializer plus its helper functions."""
    helpers = []
    sym = f"{c.name}_{d.name}"
    fields = [c_str(d.name)]
    if d.bits:
        fields.append("0")
        helpers.append(
            f"static uint64_t rt__get_{sym}(const void *rt__p)\n{{\n"
            f"    return (uint64_t)((const {c.ctype} *)rt__p)->{d.name};\n}}\n"
            f"static void rt__set_{sym}(void *rt__p, uint64_t rt__v)\n{{\n"
            f"    (({c.ctype} *)rt__p)->{d.name} = (uint32_t)(rt__v & 0x{(1 << d.bits) - 1:x}u);\n}}\n")
    else:
        fields.append(f"offsetof({c.ctype}, {d.name})")
    fields += [f"sizeof({d.elem_ctype})", f"(uint32_t)({d.count})", f"(int32_t){d.aux}",
               f"RT_VK_KIND_{d.kind}", str(d.depth), str(d.out_mask), str(d.opt_mask),
               str(d.bits), str(min(d.len_scale, 255)), str(d.selector)]
    if d.len_expr:
        helpers.append(f"static uint64_t rt__len_{sym}(const void *rt__p)\n{{\n"
                       f"    const {c.ctype} *rt__b = rt__p;\n    (void)rt__b;\n    return (uint64_t)({d.len_expr});\n}}\n")
        fields.append(f"rt__len_{sym}")
    else:
        fields.append("NULL")
    fields += [f"rt__get_{sym}", f"rt__set_{sym}"] if d.bits else ["NULL", "NULL"]
    if d.selection:
        helpers.append(f"static const int64_t rt__sel_{sym}[] = {{{', '.join(d.selection)}}};\n")
        fields += [f"rt__sel_{sym}", str(len(d.selection))]
    else:
        fields += ["NULL", "0"]
    return helpers, "    {" + ", ".join(fields) + "},\n"


def emit_members(reg, containers, out_dir, prefix):
    """Writes the member arrays of containers into MEMBER_PARTS files."""
    names = []
    for part, chunk in enumerate(split_parts(containers, MEMBER_PARTS)):
        lines = [banner(reg.header_version), "#include <stddef.h>\n#include <vulkan/vulkan.h>\n\n",
                 '#include "vk_commands_gen.h"\n#include "vk_tables_gen.h"\n\n']
        for c in chunk:
            if not c.members:
                continue
            helpers, inits = [], []
            for i, d in enumerate(c.members):
                h, init = member_init(c, i, d)
                helpers += h
                inits.append(init)
            body = "".join(helpers) + (f"extern const struct rt_vk_member {members_symbol(c)}[];\n"
                                       f"const struct rt_vk_member {members_symbol(c)}[] = {{\n"
                                       + "".join(inits) + "};\n")
            lines.append(guarded(c.guard, body) + "\n")
        name = f"{prefix}_gen_{part}.c"
        write(out_dir, name, "".join(lines))
        names.append(name)
    return names
