"""gen/emit_encode.py - straight-line encoders, one per struct and argument block.

Writes vk_encode_gen_N.c: for every container the codec encodes, a function
that writes its members in order exactly as the table-driven interpreter
(gen/vkcodec.c) would, with the member table's decisions (kind, pointer
level, length, wire size) made here instead of at every call. Members it does
not spell out (unions, strings, void pointers, two pointer levels) go to the
interpreter's rt_vkc_enc_member. Part 0 also holds the two tables the
interpreter dispatches through (gen/vkcodec_enc.h). Before these, the encoder
walked the tables for every member of every call: ~1,130 instructions a call
of glxgears through zink (bench/README.md).

Members whose wire size is known here (numbers, bitfields, fixed arrays of
them, chars, and structs made only of such members: "flat" structs, such as
a barrier's VkImageSubresourceRange or a VkViewport) are written as runs: one
rt_vkc_room for the whole run, then stores at offsets the compiler folds,
instead of a bounds check and a size update per member; an array of flat
structs behind a pointer is one run too. A nested struct written inline is
still one nesting level (RT_VKC_MAX_DEPTH): an encoder whose run would cross
the limit hands the whole container to the interpreter, which fails exactly
as before. Nested structs that are not flat are encoded by a direct call of
their encoder. A generated encoder exists only for a container that is not
excluded and whose platform is compiled, so it checks neither.
"""
import re

from classify import struct_index_name
from emit_common import PerContainer, containers, encodable

PARTS = 4
NUMBERS = {"UINT", "SINT", "FLOAT", "SIZE", "BOOL32", "ENUM", "FLAGS", "HANDLE"}
WIDE = {"SIZE", "HANDLE"}  # 8 bytes on the wire whatever their size here
STRUCT_PREFIX = struct_index_name("")


def wire(d):
    return "8u" if d.kind in WIDE else f"(uint32_t)sizeof({d.elem_ctype})"


def fixed_count(d):
    """The fixed array count as an int, or None when it is not a literal."""
    m = re.fullmatch(r"\(*\s*(\d+)\s*\)*", d.count)
    return int(m.group(1)) if m else None


class Gen:
    """The encoders of one build: which structs are encodable, which are flat."""

    def __init__(self, structs):
        self.by_name = {s.name: s for s in structs}
        self.heights = {}

    def sub(self, d):
        return self.by_name.get(d.aux[len(STRUCT_PREFIX):]) if d.aux.startswith(STRUCT_PREFIX) else None

    def height(self, s):
        """Nesting levels of a flat struct written inline (1 + its flat members'), or None: not flat."""
        if s.name in self.heights:
            return self.heights[s.name]
        self.heights[s.name] = None  # a cycle is not flat
        h = None
        if encodable(s) and not s.guard:
            h = 1
            for d in s.members:
                mh = self.member_height(d)
                if mh is None:
                    h = None
                    break
                h = max(h, 1 + mh)
        self.heights[s.name] = h
        return h

    def member_height(self, d):
        """0 for a member a run can hold that is no struct, the struct's height, None: not in a run."""
        if d.bits:
            return 0
        if d.depth:
            return None
        if d.kind in NUMBERS or d.kind == "CHAR":
            return 0
        if d.kind == "STRUCT":
            s = self.sub(d)
            if s is None or fixed_count(d) is None:
                return None
            return self.height(s)
        return None

    # ---- runs ------------------------------------------------------------
    def leaf(self, d, access):
        """(wire size expression, store template with {o}) of a run member that is no struct."""
        if d.bits:
            return ("4u", f"rt_vkc_put_u32({{o}}, (uint32_t)({access}));")
        if d.kind in NUMBERS:
            size = f"(uint32_t)sizeof({d.elem_ctype})"
            if d.count == "1":
                return (wire(d), f"rt_vkc_put_number({{o}}, &{access}, {size}, {wire(d)});")
            return (f"({wire(d)} * (uint32_t)({d.count}))",
                    f"rt_vkc_put_numbers({{o}}, &{access}, (uint64_t)({d.count}), {size}, {wire(d)});")
        return (f"(uint32_t)({d.count})", f"memcpy({{o}}, &{access}, (size_t)({d.count}));")  # CHAR

    def pieces(self, d, access):
        """leaf()'s pair for each piece of a run member: a flat struct, or a
        fixed array of them, is its members' pieces."""
        if d.bits or d.kind in NUMBERS or d.kind == "CHAR":
            return [self.leaf(d, access)]
        s = self.sub(d)
        out = []
        for i in range(fixed_count(d)):
            elem = f"{access}[{i}]" if d.count != "1" else access
            for m in s.members:
                out += self.pieces(m, f"{elem}.{m.name}")
        return out

    def direct(self, d):
        """The generated function of the struct d holds, when others call it
        directly (one behind a platform guard is reached through its table)."""
        s = self.sub(d)
        return s if s is not None and encodable(s) and not s.guard else None

    @staticmethod
    def stores(pieces, indent):
        """The stores (or loads) of a run at rt__p, which each moves past its bytes."""
        lines = []
        for i, (w, store) in enumerate(pieces):
            lines.append(f"{indent}{store.format(o='rt__p')}\n")
            if i + 1 < len(pieces):
                lines.append(f"{indent}rt__p += {w};\n")
        return "".join(lines)

    def run_code(self, pieces, pnext=None):
        """One reservation for the pieces, then their stores; with pnext (the
        pNext member that follows), also the end byte of an empty chain."""
        total = " + ".join(w for w, _ in pieces)
        if not pnext:
            return ("    {\n"
                    f"        uint8_t *rt__p = rt_vkc_room(rt__e, {total});\n"
                    "        if (rt__p) {\n"
                    f"{self.stores(pieces, '            ')}"
                    "        }\n    }\n")
        return ("    {\n"
                f"        size_t rt__end = !rt__in_chain && !rt__b->{pnext};\n"
                f"        uint8_t *rt__p = rt_vkc_room(rt__e, {total} + rt__end);\n"
                "        if (rt__p) {\n"
                f"{self.stores(pieces, '            ')}"
                "            if (rt__end)\n"
                f"                rt__p[{pieces[-1][0]}] = 0; /* an empty chain: its end */\n"
                "        }\n    }\n"
                f"    if (!rt__in_chain && rt__b->{pnext} && !rt_vkc_enc_chain(rt__c, rt__b->{pnext}))\n"
                "        return false;\n")

    # ---- members that are not in a run -------------------------------------
    def struct_call(self, d, ptr):
        """Encodes the struct d's element at ptr (rt_vkc_enc_struct_at's choice, made here)."""
        s = self.direct(d)
        if s:
            return f"rt__enc_{s.name}(rt__c, {ptr}, false)"
        return f"rt_vkc_enc_struct_at(rt__c, {d.aux}, {ptr})"

    @staticmethod
    def fallback(i):
        return (f"    if (!rt_vkc_enc_member(rt__c, rt__sd(), &rt__sd()->members[{i}], rt__b, rt__in_chain))\n"
                f"        return false;\n")

    def pointer_member(self, d):
        """One pointer level to structs or numbers, optionally with a length."""
        lines = [f"    {{ /* {d.name} */\n",
                 f"        const uint8_t *rt__a = (const uint8_t *)rt__b->{d.name};\n"]
        if d.len_expr:  # the presence byte and the count at once
            lines += ["        if (!rt__a)\n",
                      "            rt_vkc_enc_u8(rt__e, 0);\n",
                      "        else {\n",
                      f"            uint64_t rt__n = (uint64_t)({d.len_expr});\n",
                      "            if (rt__n > UINT32_MAX)\n",
                      f"                return rt_vkc_fail(rt__c, \"array longer than 2^32 elements\", \"{d.name}\");\n",
                      "            uint8_t *rt__h = rt_vkc_room(rt__e, 5);\n",
                      "            if (rt__h) {\n",
                      "                rt__h[0] = 1;\n",
                      "                rt_vkc_put_u32(rt__h + 1, (uint32_t)rt__n);\n",
                      "            }\n"]
        else:
            lines += ["        rt_vkc_enc_u8(rt__e, rt__a != NULL);\n",
                      "        if (rt__a) {\n",
                      "            uint64_t rt__n = 1;\n"]
        if d.kind == "STRUCT":
            s = self.sub(d)
            h = self.height(s) if s is not None else None
            loop = ("for (uint64_t rt__i = 0; rt__i < rt__n; rt__i++)\n"
                    f"                if (!{self.struct_call(d, f'rt__a + rt__i * sizeof({d.elem_ctype})')})\n"
                    "                    return false;\n")
            if h is None:
                lines.append("            " + loop)
            else:
                pieces = []
                for m in s.members:
                    pieces += self.pieces(m, f"rt__s->{m.name}")
                size = " + ".join(w for w, _ in pieces)
                lines += [f"            if (rt__c->depth > RT_VKC_MAX_DEPTH - {h}) {{\n",
                          "                " + loop.replace("\n                ", "\n                    "),
                          "            } else {\n",
                          f"                uint8_t *rt__p = rt_vkc_room(rt__e, (size_t)rt__n * ({size}));\n",
                          "                for (uint64_t rt__i = 0; rt__p && rt__i < rt__n; rt__i++) {\n",
                          f"                    const {d.elem_ctype} *rt__s = (const {d.elem_ctype} *)rt__a + rt__i;\n",
                          self.stores(pieces, "                    "),
                          f"                    rt__p += {pieces[-1][0]};\n",
                          "                }\n", "            }\n"]
        elif d.kind == "VOID":
            lines.append("            rt_vkc_enc_bytes(rt__e, rt__a, (size_t)rt__n);\n")
        else:
            lines.append(f"            rt_vkc_enc_numbers(rt__e, rt__a, rt__n, (uint32_t)sizeof({d.elem_ctype}), {wire(d)});\n")
        lines.append("        }\n    }\n")
        return "".join(lines)

    def member_code(self, i, d):
        if d.depth == 0 and d.kind == "PNEXT":
            return (f"    if (!rt__in_chain) {{\n"
                    f"        if (!rt__b->{d.name})\n"
                    "            rt_vkc_enc_u8(rt__e, 0); /* an empty chain: its end */\n"
                    f"        else if (!rt_vkc_enc_chain(rt__c, rt__b->{d.name}))\n"
                    "            return false;\n    }\n")
        if d.depth == 0 and d.kind == "STRUCT":
            return (f"    for (size_t rt__i = 0; rt__i < (size_t)({d.count}); rt__i++)\n"
                    f"        if (!{self.struct_call(d, f'(const uint8_t *)&rt__b->{d.name} + rt__i * sizeof({d.elem_ctype})')})\n"
                    "            return false;\n")
        if d.depth == 1 and d.count == "1" and (d.kind in NUMBERS or d.kind == "STRUCT" or
                                                (d.kind == "VOID" and d.len_expr)):
            return self.pointer_member(d)
        return self.fallback(i)

    def encoder(self, fn, ctype, desc, c):
        body = []
        run = []
        height = 0  # the deepest struct a run writes inline
        uses_sd = False
        for i, d in enumerate(c.members):
            h = self.member_height(d)
            if h is not None:
                run += self.pieces(d, f"rt__b->{d.name}")
                height = max(height, h)
                continue
            if run:
                pnext = d.name if d.depth == 0 and d.kind == "PNEXT" else None
                body.append(self.run_code(run, pnext))
                run = []
                if pnext:
                    continue
            code = self.member_code(i, d)
            uses_sd = uses_sd or "rt__sd()" in code
            body.append(code)
        if run:
            body.append(self.run_code(run))
        sd = f"#define rt__sd() ({desc})\n" if uses_sd else ""
        undef = "#undef rt__sd\n" if uses_sd else ""
        return (f"{sd}bool {fn}(struct rt_vkc_pass *rt__c, const void *rt__v, bool rt__in_chain)\n{{\n"
                f"    const {ctype} *rt__b = rt__v;\n"
                "    struct rt_enc *rt__e = rt__c->enc;\n"
                "    (void)rt__b;\n    (void)rt__e;\n    (void)rt__in_chain;\n"
                f"    /* past the nesting limit (with the {height} levels written inline): the interpreter's error */\n"
                f"    if (rt__c->depth >= RT_VKC_MAX_DEPTH - {height})\n"
                f"        return rt_vkc_enc_struct(rt__c, {desc}, rt__v, rt__in_chain);\n"
                "    rt__c->depth++;\n"
                f"{''.join(body)}    rt__c->depth--;\n    return true;\n}}\n{undef}\n")



def emit(reg, structs, cmd_names, commands, out_dir):
    gen = Gen(structs)
    out = PerContainer(reg, "vkcodec_enc.h",
                       "bool {fn}(struct rt_vkc_pass *rt__c, const void *rt__v, bool rt__in_chain)", PARTS)
    for suffix, index, ctype, desc, c in containers(reg, structs, cmd_names, commands):
        fn = f"rt__enc_{suffix}"
        out.add(fn, index, c.guard, gen.encoder(fn, ctype, desc, c))
    out.write(out_dir, "vk_encode_gen", "rt_vkc_enc_fn", "rt_vk_struct_encoders", "rt_vk_command_encoders")
