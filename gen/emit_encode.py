"""gen/emit_encode.py - straight-line encoders, one per struct and argument block.

Writes vk_encode_gen_N.c: for every container the codec encodes, a function
that writes its members in order exactly as the table-driven interpreter
(gen/vkcodec.c) would, with the member table's decisions (kind, pointer
level, length, wire size) made here instead of at every call. Members it does
not spell out (unions, strings, void pointers, two pointer levels,
bitfields' neighbours are fine) go to the interpreter's rt_vkc_enc_member.
Part 0 also holds the two tables the interpreter dispatches through
(gen/vkcodec_enc.h). Before these, the encoder walked the tables for every
member of every call: ~1,130 instructions a call of glxgears through zink
(bench/README.md).
"""
from classify import struct_index_name
from emit_common import banner, guarded, split_parts, write

PARTS = 4
NUMBERS = {"UINT", "SINT", "FLOAT", "SIZE", "BOOL32", "ENUM", "FLAGS", "HANDLE"}
WIDE = {"SIZE", "HANDLE"}  # 8 bytes on the wire whatever their size here


def wire(d):
    return "8u" if d.kind in WIDE else f"(uint32_t)sizeof({d.elem_ctype})"


def fallback(i):
    return (f"    if (!rt_vkc_enc_member(rt__c, rt__sd, &rt__sd->members[{i}], rt__b, rt__in_chain))\n"
            f"        return false;\n")


def pointer_member(i, d):
    """One pointer level to structs or numbers, optionally with a length."""
    lines = [f"    {{ /* {d.name} */\n",
             f"        const uint8_t *rt__a = (const uint8_t *)rt__b->{d.name};\n",
             "        rt_vkc_enc_u8(rt__e, rt__a != NULL);\n",
             "        if (rt__a) {\n",
             "            uint64_t rt__n = 1;\n"]
    if d.len_expr:
        lines += [f"            rt__n = (uint64_t)({d.len_expr});\n",
                  "            if (rt__n > UINT32_MAX)\n",
                  f"                return rt_vkc_fail(rt__c, \"array longer than 2^32 elements\", \"{d.name}\");\n",
                  "            rt_vkc_enc_u32(rt__e, (uint32_t)rt__n);\n"]
    if d.kind == "STRUCT":
        lines += ["            for (uint64_t rt__i = 0; rt__i < rt__n; rt__i++)\n",
                  f"                if (!rt_vkc_enc_struct_at(rt__c, {d.aux}, rt__a + rt__i * sizeof({d.elem_ctype})))\n",
                  "                    return false;\n"]
    elif d.kind == "VOID":
        lines.append("            rt_vkc_enc_bytes(rt__e, rt__a, (size_t)rt__n);\n")
    else:
        lines.append(f"            rt_vkc_enc_numbers(rt__e, rt__a, rt__n, (uint32_t)sizeof({d.elem_ctype}), {wire(d)});\n")
    lines.append("        }\n    }\n")
    return "".join(lines)


def member_code(i, d):
    if d.bits:
        return f"    rt_vkc_enc_u32(rt__e, (uint32_t)rt__b->{d.name});\n"
    if d.depth == 0 and d.kind == "PNEXT":
        return (f"    if (!rt__in_chain && !rt_vkc_enc_chain(rt__c, rt__b->{d.name}))\n"
                "        return false;\n")
    if d.depth == 0 and d.kind in NUMBERS:
        if d.count == "1":
            return (f"    rt_vkc_enc_number(rt__e, &rt__b->{d.name}, (uint32_t)sizeof({d.elem_ctype}), "
                    f"{wire(d)});\n")
        return (f"    rt_vkc_enc_numbers(rt__e, &rt__b->{d.name}, (uint64_t)({d.count}), "
                f"(uint32_t)sizeof({d.elem_ctype}), {wire(d)});\n")
    if d.depth == 0 and d.kind == "CHAR":
        return f"    rt_vkc_enc_bytes(rt__e, &rt__b->{d.name}, (size_t)({d.count}));\n"
    if d.depth == 0 and d.kind == "STRUCT":
        return (f"    for (size_t rt__i = 0; rt__i < (size_t)({d.count}); rt__i++)\n"
                f"        if (!rt_vkc_enc_struct_at(rt__c, {d.aux}, (const uint8_t *)&rt__b->{d.name} + "
                f"rt__i * sizeof({d.elem_ctype})))\n"
                "            return false;\n")
    if d.depth == 1 and d.count == "1" and (d.kind in NUMBERS or d.kind == "STRUCT" or
                                            (d.kind == "VOID" and d.len_expr)):
        return pointer_member(i, d)
    return fallback(i)


def encoder(fn, ctype, desc, c):
    body = "".join(member_code(i, d) for i, d in enumerate(c.members))
    return (f"bool {fn}(struct rt_vkc_pass *rt__c, const void *rt__v, bool rt__in_chain)\n{{\n"
            f"    const {ctype} *rt__b = rt__v;\n"
            f"    const struct rt_vk_struct_desc *rt__sd = {desc};\n"
            "    struct rt_enc *rt__e = rt__c->enc;\n"
            "    (void)rt__b;\n    (void)rt__sd;\n    (void)rt__e;\n    (void)rt__in_chain;\n"
            "    if (!rt_vkc_enter_struct(rt__c, rt__sd))\n        return false;\n"
            f"{body}    rt__c->depth--;\n    return true;\n}}\n\n")


def encodable(c):
    return not c.excluded and not c.is_union and c.members


def emit(reg, structs, cmd_names, commands, out_dir):
    items = []  # (function, guard, code)
    for s in structs:
        if encodable(s):
            fn = f"rt__enc_{s.name}"
            items.append((fn, s.guard, encoder(fn, s.ctype, f"&rt_vk_structs[{struct_index_name(s.name)}]", s)))
    cmd_fns = {}
    for n in cmd_names:
        cmd = reg.commands[n]
        c = commands[cmd.alias or n]
        if encodable(c):
            fn = f"rt__enc_cmd_{n}"
            cmd_fns[n] = (fn, c.guard)
            items.append((fn, c.guard, encoder(fn, f"struct rt_vk_args_{n}", f"rt_vk_commands[RT_VK_CMD_{n}].args", c)))
    head = (banner(reg.header_version) + "#include <stddef.h>\n#include <stdint.h>\n#include <vulkan/vulkan.h>\n\n"
            '#include "vkcodec_enc.h"\n\n')
    decls = "".join(guarded(g, f"bool {fn}(struct rt_vkc_pass *rt__c, const void *rt__v, bool rt__in_chain);\n")
                    for fn, g, _ in items)
    for part, chunk in enumerate(split_parts(items, PARTS)):
        lines = [head, decls, "\n"] + [guarded(g, code) for _, g, code in chunk]
        if part == 0:
            lines.append(tables(structs, cmd_names, cmd_fns))
        write(out_dir, f"vk_encode_gen_{part}.c", "".join(lines))


def tables(structs, cmd_names, cmd_fns):
    lines = ["const rt_vkc_enc_fn rt_vk_struct_encoders[RT_VK_STRUCT_COUNT] = {\n"]
    for s in structs:
        if encodable(s):
            lines.append(guarded(s.guard, f"    [{struct_index_name(s.name)}] = rt__enc_{s.name},\n"))
    lines.append("};\n\nconst rt_vkc_enc_fn rt_vk_command_encoders[RT_VK_CMD_COUNT] = {\n")
    for n in cmd_names:
        if n in cmd_fns:
            fn, g = cmd_fns[n]
            lines.append(guarded(g, f"    [RT_VK_CMD_{n}] = {fn},\n"))
    lines.append("};\n")
    return "".join(lines)
