"""gen/emit_walk.py - straight-line handle walkers, one per struct and argument block.

Writes vk_walk_gen_N.c: for every container the codec encodes, a function
that calls the handle callback for each handle it holds, in the order, with
the slots and the output flags of the table-driven walker (gen/vkcodec_walk.c,
rt_vk_walk_handles), which replay runs on every call to map captured handles
to its own. Members that cannot hold a handle (numbers, strings, structs
made of such members all the way down) are left out here rather than looked
at on every call; pNext chains go to the interpreter's chain walker, unions
with a selector and pointers to pointers to its member walker. Part 0 also
holds the table rt_vk_walk_handles dispatches through (gen/vkcodec_walk.h).
"""
from emit_common import PerContainer, containers
from emit_encode import PARTS, Gen


class WalkGen(Gen):
    """Which structs can hold a handle, and their walkers."""

    def __init__(self, structs):
        super().__init__(structs)
        self.reach = {}

    def can_hold(self, s):
        """Whether a value of struct s can hold a handle (a cycle or an unknown struct: assume so)."""
        if s is None:
            return True
        if s.name not in self.reach:
            self.reach[s.name] = True  # in progress: assume so
            self.reach[s.name] = any(self.member_can_hold(d) for d in s.members if not d.bits)
        return self.reach[s.name]

    def member_can_hold(self, d):
        if d.kind in ("HANDLE", "PNEXT", "UNION"):
            return True
        return d.kind == "STRUCT" and self.can_hold(self.sub(d))

    def struct_call(self, d, ptr, out):
        s = self.direct(d)
        if s:
            return f"rt__walk_{s.name}(rt__w, {ptr}, {out}, false);"
        return f"rt_vkc_walk_struct_at(rt__w, {d.aux}, {ptr}, {out});"

    @staticmethod
    def handle_call(d, ptr, out):
        return f"rt__w->fn(rt__w->user, (VkObjectType){d.aux}, (void *)(uintptr_t)({ptr}), {out});"

    def elements(self, d, base, count, out, indent):
        """The calls for count elements of d's element type from base (a const uint8_t *)."""
        ptr = f"{base} + rt__i * sizeof({d.elem_ctype})"
        call = self.handle_call(d, ptr, out) if d.kind == "HANDLE" else self.struct_call(d, ptr, out)
        return (f"{indent}for (uint64_t rt__i = 0; rt__i < (uint64_t)({count}); rt__i++)\n"
                f"{indent}    {call}\n")

    def member_code(self, i, d):
        if d.bits or not self.member_can_hold(d):
            return ""
        if d.depth == 0 and d.kind == "PNEXT":
            return (f"    if (!rt__in_chain && rt__b->{d.name})\n"
                    f"        rt_vkc_walk_chain(rt__w, rt__b->{d.name}, rt__out);\n")
        if d.depth == 0 and d.kind in ("HANDLE", "STRUCT"):
            return self.elements(d, f"(const uint8_t *)&rt__b->{d.name}", d.count, "rt__out", "    ")
        if d.depth == 1 and d.count == "1" and d.kind in ("HANDLE", "STRUCT"):
            out = "true" if d.out_mask & 1 else "rt__out"
            return (f"    {{ /* {d.name} */\n"
                    f"        const uint8_t *rt__a = (const uint8_t *)rt__b->{d.name};\n"
                    "        if (rt__a) {\n"
                    f"{self.elements(d, 'rt__a', d.len_expr or '1', out, '            ')}"
                    "        }\n    }\n")
        return f"    rt_vkc_walk_member(rt__w, rt__sd(), {i}, rt__b, rt__out, rt__in_chain);\n"

    def walker(self, fn, ctype, desc, c):
        body = "".join(self.member_code(i, d) for i, d in enumerate(c.members))
        uses_sd = "rt__sd()" in body
        return ((f"#define rt__sd() ({desc})\n" if uses_sd else "") +
                f"void {fn}(struct rt_vkc_walk *rt__w, const void *rt__v, bool rt__out, bool rt__in_chain)\n{{\n"
                f"    const {ctype} *rt__b = rt__v;\n"
                "    (void)rt__b;\n    (void)rt__out;\n    (void)rt__in_chain;\n"
                "    if (rt__w->depth >= RT_VKC_MAX_DEPTH)\n        return;\n"
                "    rt__w->depth++;\n"
                f"{body}    rt__w->depth--;\n}}\n" + ("#undef rt__sd\n" if uses_sd else "") + "\n")


# A struct that cannot hold a handle: its walker does nothing (the
# interpreter would find none), so its callers leave it out.
NOTHING = ("static void rt__walk_nothing(struct rt_vkc_walk *rt__w, const void *rt__v, bool rt__out, bool rt__in_chain)\n"
           "{\n    (void)rt__w;\n    (void)rt__v;\n    (void)rt__out;\n    (void)rt__in_chain;\n}\n\n")


def emit(reg, structs, cmd_names, commands, out_dir):
    gen = WalkGen(structs)
    out = PerContainer(reg, "vkcodec_walk.h",
                       "void {fn}(struct rt_vkc_walk *rt__w, const void *rt__v, bool rt__out, bool rt__in_chain)", PARTS)
    for suffix, index, ctype, desc, c in containers(reg, structs, cmd_names, commands):
        fn = f"rt__walk_{suffix}"
        if index.startswith("RT_VK_CMD_") or gen.can_hold(c):
            out.add(fn, index, c.guard, gen.walker(fn, ctype, desc, c))
        else:
            out.entry(index, "rt__walk_nothing", c.guard)
    out.write(out_dir, "vk_walk_gen", "rt_vkc_walk_fn", "rt_vk_struct_walkers", "rt_vk_command_walkers", NOTHING)
