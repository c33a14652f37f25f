"""gen/classify.py - turns the vk.xml model into codec descriptors.

For every struct, union and command-argument block it decides, member by
member, the wire kind, pointer depth, fixed array count, length expression and
flags that the table-driven C interpreter (gen/vkcodec*.c) walks. Anything it
cannot express must be listed in overrides.py; otherwise Unexpressible is
raised and generation fails.
"""
import re
from dataclasses import dataclass, field

import overrides

SCALARS = {
    "uint8_t": "UINT", "uint16_t": "UINT", "uint32_t": "UINT", "uint64_t": "UINT",
    "int8_t": "SINT", "int16_t": "SINT", "int32_t": "SINT", "int64_t": "SINT", "int": "SINT",
    "float": "FLOAT", "double": "FLOAT", "size_t": "SIZE", "VkBool32": "BOOL32",
}


class Unexpressible(Exception):
    pass


@dataclass
class Desc:
    """One member descriptor, as emitted into a struct rt_vk_member."""
    name: str
    kind: str
    elem_ctype: str          # C type whose sizeof is one innermost element
    depth: int = 0
    count: str = "1"         # fixed array element count (C expression)
    bits: int = 0
    aux: str = "0"           # struct index, enum index, or VkObjectType
    len_expr: str = None     # C expression over rt__b, or None for one element
    selector: int = -1
    out_mask: int = 0
    opt_mask: int = 0
    len_scale: int = 0       # non-zero: a length; random fill keeps it small
    selection: list = field(default_factory=list)


@dataclass
class Container:
    """A struct, union or command-argument block."""
    name: str
    ctype: str
    members: list
    guard: str = None
    is_union: bool = False
    stype: str = None
    extends: list = field(default_factory=list)
    excluded: str = None
    video: bool = False


def struct_index_name(name):
    return f"RT_VK_STRUCT_{name}"


def enum_index_name(name):
    return f"RT_VK_ENUM_{name}"


class Classifier:
    def __init__(self, reg):
        self.reg = reg
        self.used_overrides = set()
        self.opaque_seen = []

    def canon(self, t):
        r = self.reg
        for _ in range(4):
            t = r.struct_alias.get(t, r.type_alias.get(t, r.handle_alias.get(t, t)))
        return t

    # ---- containers ----------------------------------------------------
    def struct(self, s):
        c = Container(s.name, s.name, [], guard=s.guard, is_union=s.is_union,
                      stype=s.stype, extends=[self.canon(e) for e in s.extends], video=s.video)
        c.excluded = overrides.EXCLUDED.get(s.name)
        if c.excluded:
            self.used_overrides.add(s.name)
        try:
            c.members = self._members(s.name, s.members, is_command=False, video=s.video)
        except Unexpressible as e:
            if not c.excluded:
                raise Unexpressible(f"{s.name}: {e} (add it to gen/overrides.py EXCLUDED)")
            c.members = []
        return c

    def command(self, cmd):
        c = Container(cmd.name, f"struct rt_vk_args_{cmd.name}", [], guard=cmd.guard)
        c.excluded = overrides.EXCLUDED.get(cmd.name)
        if c.excluded:
            self.used_overrides.add(cmd.name)
        params = list(cmd.params)
        if cmd.ret != "void":
            from vkxml import Member
            params.append(Member("result", cmd.ret))
        try:
            c.members = self._members(cmd.name, params, is_command=True, video=False)
        except Unexpressible as e:
            if not c.excluded:
                raise Unexpressible(f"{cmd.name}: {e} (add it to gen/overrides.py EXCLUDED)")
            c.members = []
        return c

    def _members(self, owner, members, is_command, video):
        names = [m.name for m in members]
        descs = [self._member(owner, m, members, is_command, video) for m in members]
        for m, d in zip(members, descs):
            if m.selector:
                d.selector = names.index(m.selector)
                if d.selector > names.index(m.name):
                    raise Unexpressible(f"union {m.name} precedes its selector")
        for d in descs:
            if d.len_expr:
                self._mark_len(d.len_expr, names, descs, members)
        return descs

    def _mark_len(self, expr, names, descs, members):
        for ident in re.findall(r"rt__b->(\w+)\b(?!\s*->)", expr):
            i = names.index(ident)
            scale = re.search(rf"rt__b->{ident}\)?\s*/\s*(\d+)", expr)
            descs[i].len_scale = max(descs[i].len_scale, int(scale.group(1)) if scale else 1)

    # ---- one member ----------------------------------------------------
    def _member(self, owner, m, siblings, is_command, video):
        t = self.canon(m.type)
        depth = m.depth
        d = Desc(m.name, "", t)
        if m.dims:
            d.count = "*".join(f"({x})" for x in m.dims)
        d.bits = m.bits
        lens = list(m.len)
        if m.altlen and (not lens or lens[0] is None):
            lens = [m.altlen] + lens[1:]
        d.kind, depth, d.elem_ctype = self._kind(owner, m, t, depth, lens)
        if d.kind == "STRING" and lens and lens[-1] == "null-terminated":
            lens = lens[:-1]
        d.depth = depth
        for level in range(depth):
            if not m.pointee_const(level):
                d.out_mask |= 1 << level
            if level < len(m.optional) and m.optional[level]:
                d.opt_mask |= 1 << level
        if is_command and m.name == "result":
            d.out_mask = 1
        self._set_aux(d, t)
        self._set_len(owner, m, d, lens, siblings, video)
        if m.selection:
            d.selection = m.selection
        return d

    def _kind(self, owner, m, t, depth, lens):
        r = self.reg
        if m.name == "pNext" and t in ("void", "VkBaseOutStructure", "VkBaseInStructure"):
            return "PNEXT", 0, "void *"
        if t == "char":
            if depth:
                return "STRING", depth - 1, "char *"
            return "CHAR", 0, "char"
        if t == "void":
            has_len = bool(lens) and lens[0] not in (None, "1")
            if depth == 1 and has_len:
                return "VOID", 1, "uint8_t"
            self.opaque_seen.append(f"{owner}.{m.name}")
            return "OPAQUE", depth - 1, "void *"
        if t in r.structs:
            return ("UNION" if r.structs[t].is_union else "STRUCT"), depth, t
        if t in r.handles:
            return "HANDLE", depth, t
        if t in r.enums and r.enums[t] is not None:
            return "ENUM", depth, t
        if t in r.bitmasks:
            return "FLAGS", depth, t
        if t in r.funcpointers:
            return "FUNCPTR", depth, t
        if t in SCALARS:
            return SCALARS[t], depth, t
        if t in r.basetypes:
            under = r.basetypes[t]
            if under == "*":
                if depth and t in ("ANativeWindow", "AHardwareBuffer", "CAMetalLayer"):
                    return "OPAQUE", depth - 1, "void *"
                return "OPAQUE", depth, t
            return SCALARS.get(under, "UINT"), depth, t
        if t in r.externals:
            if depth:
                return "OPAQUE", depth - 1, "void *"
            return "OPAQUE", 0, t
        raise Unexpressible(f"{m.name}: unknown type {t}")

    def _set_aux(self, d, t):
        r = self.reg
        if d.kind in ("STRUCT", "UNION"):
            d.aux = struct_index_name(t)
        elif d.kind == "HANDLE":
            d.aux = r.handles[t][2] or "VK_OBJECT_TYPE_UNKNOWN"
        elif d.kind == "ENUM":
            d.aux = enum_index_name(t)
        elif d.kind == "FLAGS":
            bm = r.enum_of_bitmask(t)
            bits = bm[0] if bm else None
            d.aux = enum_index_name(self.canon(bits)) if bits and bits in r.enums else "-1"

    def _set_len(self, owner, m, d, lens, siblings, video):
        if d.depth == 0:
            return
        if d.depth > 2:
            raise Unexpressible(f"{m.name}: {d.depth} pointer levels")
        level0 = lens[0] if lens else None
        prose = overrides.LEN_FROM_PROSE.get((owner, m.name))
        if prose:
            self.used_overrides.add((owner, m.name))
            level0 = prose[0]
        if d.depth == 2 and (len(lens) < 2 or lens[1] != "1"):
            raise Unexpressible(f"{m.name}: inner pointer level has no length")
        if level0 in (None, "1", "null-terminated"):
            return
        d.len_expr = compile_len(level0, siblings)


def compile_len(expr, siblings):
    """vk.xml len/altlen text -> C expression over `rt__b` (the parent)."""
    by_name = {s.name: s for s in siblings}

    def ident(mo):
        name, field_ = mo.group(1), mo.group(3)
        s = by_name.get(name)
        if s is None:
            return mo.group(0)  # a constant such as VK_UUID_SIZE
        if field_:
            return f"(rt__b->{name} ? (uint64_t)rt__b->{name}->{field_} : 0u)"
        if s.depth:
            return f"(rt__b->{name} ? (uint64_t)*rt__b->{name} : 0u)"
        return f"(uint64_t)rt__b->{name}"
    out = re.sub(r"\b([A-Za-z_]\w*)(->([A-Za-z_]\w*))?", ident, expr)
    if re.search(r"[^\w\s()+\-*/>?:.]", out.replace("rt__b->", "")):
        raise Unexpressible(f"length expression {expr!r}")
    return out
