"""gen/emit_decode.py - straight-line decoders, one per struct and argument block.

Writes vk_decode_gen_N.c: for every container the codec encodes (see
emit_encode.py, whose choices of "flat" structs and runs it shares), a
function that reads its members in order exactly as the table-driven
interpreter (gen/vkcodec_decode.c) would, with the member table's decisions
made here instead of at every replayed call. Before these the decoder walked
the tables member by member: ~2,460 instructions a call of glxgears through
zink (bench/README.md).

A run of members whose wire size is known here is read after one check that
its bytes are there, by loads at offsets the compiler folds; when they are
not all there, the run's members go to the interpreter one by one, which
fails at the member and with the error it always did. Pointers to numbers,
structs or bytes are read here with the interpreter's checks in its order
(presence byte, count against the length member, the arena's count check);
members it does not spell out (unions, strings, two pointer levels, fixed
arrays behind pointers) go to the interpreter's rt_vkc_dec_members. Part 0
also holds the two tables the decoder dispatches through
(gen/vkcodec_dec.h).
"""
from emit_common import PerContainer, containers
from emit_encode import NUMBERS, PARTS, Gen, wire


class DecGen(Gen):
    """The decoders of one build: which structs have one, which are flat."""

    def leaf(self, d, access):
        """(wire size expression, load template with {o}) of a run member that is no struct."""
        if d.bits:
            mask = (1 << d.bits) - 1
            return ("4u", f"{access} = (uint32_t)(rt_vkc_get_u32({{o}}) & 0x{mask:x}u);")
        if d.kind in NUMBERS:
            size = f"(uint32_t)sizeof({d.elem_ctype})"
            if d.count == "1":
                return (wire(d), f"rt_vkc_get_number(&{access}, {{o}}, {size}, {wire(d)});")
            return (f"({wire(d)} * (uint32_t)({d.count}))",
                    f"rt_vkc_get_numbers(&{access}, {{o}}, (uint64_t)({d.count}), {size}, {wire(d)});")
        return (f"(uint32_t)({d.count})", f"memcpy(&{access}, {{o}}, (size_t)({d.count}));")  # CHAR

    def run_code(self, pieces, first, end):
        """One check for the run's bytes, then its loads; short: the interpreter's members [first, end)."""
        total = " + ".join(w for w, _ in pieces)
        return ("    {\n"
                f"        const uint8_t *rt__p = rt_vkc_take(rt__c->dec, {total});\n"
                "        if (rt__p) {\n"
                f"{self.stores(pieces, '            ')}"
                f"        }} else if (!rt_vkc_dec_members(rt__c, rt__sd(), rt__b, rt__in_chain, {first}, {end})) {{\n"
                "            return false;\n        }\n    }\n")

    def struct_call(self, d, ptr):
        """Decodes the struct d's element at ptr (rt_vkc_dec_struct_at's choice, made here)."""
        s = self.direct(d)
        if s:
            return f"rt__dec_{s.name}(rt__c, {ptr}, false)"
        return f"rt_vkc_dec_struct_at(rt__c, {d.aux}, {ptr})"

    def pointer_member(self, d):
        """One pointer level to structs, numbers or bytes, optionally with a length."""
        name = f'"{d.name}"'
        lines = [f"    {{ /* {d.name} */\n",
                 f"        int rt__present = rt_vkc_dec_presence(rt__c, {name});\n",
                 "        if (rt__present < 0)\n            return false;\n",
                 "        if (rt__present) {\n"]
        if d.len_expr:
            lines += ["            const uint8_t *rt__h = rt_vkc_take(rt__c->dec, 4);\n",
                      "            if (!rt__h)\n",
                      f"                return rt_vkc_fail(rt__c, \"truncated\", {name});\n",
                      "            uint64_t rt__n = rt_vkc_get_u32(rt__h);\n",
                      f"            if (rt__n != (uint64_t)({d.len_expr}))\n",
                      f"                return rt_vkc_fail(rt__c, \"array count differs from its length member\", {name});\n"]
        else:
            lines.append("            uint64_t rt__n = 1;\n")
        if d.kind == "STRUCT":
            min_encoded = f"rt_vk_structs[{d.aux}].min_encoded"
        elif d.kind == "VOID":
            min_encoded = "1"
        else:
            min_encoded = wire(d)
        lines += [f"            uint8_t *rt__a = rt_vkc_dec_alloc(rt__c, rt__n, sizeof({d.elem_ctype}), {min_encoded}, {name});\n",
                  "            if (!rt__a)\n                return false;\n",
                  f"            memcpy(&rt__b->{d.name}, &rt__a, sizeof rt__a);\n"]
        if d.kind == "STRUCT":
            lines += ["            for (uint64_t rt__i = 0; rt__i < rt__n; rt__i++)\n",
                      f"                if (!{self.struct_call(d, f'rt__a + rt__i * sizeof({d.elem_ctype})')})\n",
                      "                    return false;\n"]
        else:
            w = "1u" if d.kind == "VOID" else wire(d)
            size = "1u" if d.kind == "VOID" else f"(uint32_t)sizeof({d.elem_ctype})"
            lines += [f"            const uint8_t *rt__in = rt_vkc_take(rt__c->dec, (size_t)rt__n * {w});\n",
                      "            if (!rt__in)\n",
                      f"                return rt_vkc_fail(rt__c, \"truncated\", {name});\n",
                      f"            rt_vkc_get_numbers(rt__a, rt__in, rt__n, {size}, {w});\n"]
        lines.append("        }\n    }\n")
        return "".join(lines)

    def member_code(self, i, d):
        if d.depth == 0 and d.kind == "PNEXT":
            return ("    if (!rt__in_chain) { /* an empty chain is its end byte */\n"
                    "        const uint8_t *rt__end = rt_vkc_take(rt__c->dec, 1);\n"
                    "        if (!rt__end || *rt__end != 0) {\n"
                    "            if (rt__end)\n                rt__c->dec->pos--;\n"
                    f"            if (!rt_vkc_dec_chain(rt__c, (void **)&rt__b->{d.name}))\n"
                    "                return false;\n        }\n    }\n")
        if d.depth == 0 and d.kind == "STRUCT":
            return (f"    for (size_t rt__i = 0; rt__i < (size_t)({d.count}); rt__i++)\n"
                    f"        if (!{self.struct_call(d, f'(uint8_t *)&rt__b->{d.name} + rt__i * sizeof({d.elem_ctype})')})\n"
                    "            return false;\n")
        if d.depth == 1 and d.count == "1" and (d.kind in NUMBERS or d.kind == "STRUCT" or
                                                (d.kind == "VOID" and d.len_expr)):
            return self.pointer_member(d)
        return (f"    if (!rt_vkc_dec_members(rt__c, rt__sd(), rt__b, rt__in_chain, {i}, {i + 1}))\n"
                "        return false;\n")

    def decoder(self, fn, ctype, desc, c):
        body = []
        run, run_first = [], 0
        height = 0  # the deepest struct a run reads inline
        for i, d in enumerate(c.members):
            h = self.member_height(d)
            if h is not None:
                if not run:
                    run_first = i
                run += self.pieces(d, f"rt__b->{d.name}")
                height = max(height, h)
                continue
            if run:
                body.append(self.run_code(run, run_first, i))
                run = []
            body.append(self.member_code(i, d))
        if run:
            body.append(self.run_code(run, run_first, len(c.members)))
        return (f"#define rt__sd() ({desc})\n"
                f"bool {fn}(struct rt_vkc_pass *rt__c, void *rt__v, bool rt__in_chain)\n{{\n"
                f"    {ctype} *rt__b = rt__v;\n"
                "    (void)rt__b;\n    (void)rt__in_chain;\n"
                f"    /* past the nesting limit (with the {height} levels read inline): the interpreter's error */\n"
                f"    if (rt__c->depth >= RT_VKC_MAX_DEPTH - {height})\n"
                f"        return rt_vkc_dec_struct(rt__c, rt__sd(), rt__v, rt__in_chain);\n"
                "    rt__c->depth++;\n"
                f"{''.join(body)}    rt__c->depth--;\n    return true;\n}}\n#undef rt__sd\n\n")


def emit(reg, structs, cmd_names, commands, out_dir):
    gen = DecGen(structs)
    out = PerContainer(reg, "vkcodec_dec.h", "bool {fn}(struct rt_vkc_pass *rt__c, void *rt__v, bool rt__in_chain)",
                       PARTS)
    for suffix, index, ctype, desc, c in containers(reg, structs, cmd_names, commands):
        fn = f"rt__dec_{suffix}"
        out.add(fn, index, c.guard, gen.decoder(fn, ctype, desc, c))
    out.write(out_dir, "vk_decode_gen", "rt_vkc_dec_fn", "rt_vk_struct_decoders", "rt_vk_command_decoders")
