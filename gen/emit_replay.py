"""gen/emit_replay.py - the replayer's generated calls and handler table.

Writes replay_calls_gen.c: for every command of the API, a function that
calls the command through a dispatch table with the parameters of its
decoded argument block (struct rt_vk_args_<name>) and stores the result in
the block, and replay_calls[], indexed by enum rt_vk_cmd; then
replay_handlers[], the hand-written functions of the "replay" entries of
gen/handwritten.py, each declared here so one that replay/ does not define
fails to link. What replay does around the call (handle mapping, skipping
pure queries) is replay/'s business.
"""
import handwritten
from emit_common import banner, guarded, write

HANDLER_ARGS = "(struct replay *r, void *args, uint64_t captured_result)"


def _target(reg, name):
    cmd = reg.commands[name]
    return reg.commands[cmd.alias] if cmd.alias else cmd


def _call(reg, name, guard):
    target = _target(reg, name)
    level = reg.command_level(target)
    table = "device" if level == "device" else "instance"
    params = ", ".join(f"rt__a->{p.name}" for p in target.params)
    pfn = f"PFN_{name}"
    call = f"(({pfn})rt__t->{table}.{name})({params})"
    body = (f"static VkResult rt__replay_{name}(const struct replay_dispatch *rt__t, void *rt__args)\n{{\n"
            f"    struct rt_vk_args_{name} *rt__a = rt__args;\n")
    if target.ret == "VkResult":
        body += f"    rt__a->result = {call};\n    return rt__a->result;\n"
    elif target.ret != "void":
        body += f"    rt__a->result = {call};\n    return VK_SUCCESS;\n"
    else:
        body += f"    {call};\n    return VK_SUCCESS;\n"
    body += "}\n\n"
    return guarded(guard, body)


def emit(reg, names, out_dir):
    c = [banner(reg.header_version), '#include "replay_calls.h"\n\n']
    rows = []
    for n in names:
        target = _target(reg, n)
        guard = target.guard or reg.commands[n].guard
        if reg.command_level(target) == "global" and n != "vkCreateInstance":
            rows.append(f"    [RT_VK_CMD_{n}] = NULL, /* global: answered by the loader */\n")
            continue
        c.append(_call(reg, n, guard))
        rows.append(guarded(guard, f"    [RT_VK_CMD_{n}] = rt__replay_{n},\n",
                            f"    [RT_VK_CMD_{n}] = NULL,\n"))
    c.append("const replay_call_fn replay_calls[RT_VK_CMD_COUNT] = {\n")
    c += rows
    c.append("};\n\n")
    c += _handlers(names)
    write(out_dir, "replay_calls_gen.c", "".join(c))



def _handlers(names):
    """replay_handlers[]: unguarded, as the functions are platform-free; a
    platform's command never reaches them where its block is not compiled."""
    hands = [(n, handwritten.side(n, "replay")) for n in names]
    hands = [(n, h) for n, h in hands if h]
    out = ["/* Hand-written in replay/ (gen/handwritten.py). */\n"]
    out += [f"rt_status {fn}{HANDLER_ARGS};\n" for fn in sorted({h[0] for _, h in hands})]
    out.append("\nconst replay_handler_fn replay_handlers[RT_VK_CMD_COUNT] = {\n")
    out += [f"    [RT_VK_CMD_{n}] = {fn}, /* {why} */\n" for n, (fn, why) in hands]
    out.append("};\n")
    return out
