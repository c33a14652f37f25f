"""gen/emit_dispatch.py - dispatch tables shared by capture and replay.

struct rt_vk_instance_dispatch holds every global, instance and
physical-device command; struct rt_vk_device_dispatch every device command.
Entries of platform-guarded commands are PFN_vkVoidFunction so the layout
never depends on -D flags. An alias left NULL by the loader borrows the
pointer of the command it aliases (same signature), as Mesa's tables do.
"""
from emit_common import banner, write


def _entry(reg, n):
    cmd = reg.commands[n]
    target = reg.commands[cmd.alias] if cmd.alias else cmd
    guard = target.guard or cmd.guard
    return ("PFN_vkVoidFunction" if guard else f"PFN_{n}"), n


def _split(reg, names):
    inst, dev = [], []
    for n in names:
        cmd = reg.commands[n]
        level = reg.command_level(reg.commands[cmd.alias or n])
        (dev if level == "device" else inst).append(n)
    return inst, dev


def emit(reg, names, out_dir):
    inst, dev = _split(reg, names)
    h = [banner(reg.header_version), "#ifndef RT_VK_DISPATCH_GEN_H\n#define RT_VK_DISPATCH_GEN_H\n\n",
         "#include <vulkan/vulkan.h>\n\n"]
    for tname, items in (("instance", inst), ("device", dev)):
        h.append(f"struct rt_vk_{tname}_dispatch {{\n")
        h += [f"    {t} {n};\n" for t, n in (_entry(reg, n) for n in items)]
        h.append("};\n\n")
    h.append("/**\n * Fills every entry through gipa. With instance == VK_NULL_HANDLE only the\n"
             " * global commands are loaded (the rest become NULL); with an instance, all\n"
             " * but the global ones. Missing commands are NULL.\n */\n"
             "void rt_vk_instance_dispatch_load(struct rt_vk_instance_dispatch *table,\n"
             "                                  PFN_vkGetInstanceProcAddr gipa, VkInstance instance);\n\n"
             "/** Fills every device entry through gdpa; missing commands are NULL. */\n"
             "void rt_vk_device_dispatch_load(struct rt_vk_device_dispatch *table,\n"
             "                                PFN_vkGetDeviceProcAddr gdpa, VkDevice device);\n\n#endif\n")
    write(out_dir, "vk_dispatch_gen.h", "".join(h))
    c = [banner(reg.header_version), "#include <string.h>\n\n#include \"vk_dispatch_gen.h\"\n\n",
         "void rt_vk_instance_dispatch_load(struct rt_vk_instance_dispatch *table,\n"
         "                                  PFN_vkGetInstanceProcAddr gipa, VkInstance instance)\n{\n"
         "    memset(table, 0, sizeof *table);\n"]
    for n in inst:
        t, _ = _entry(reg, n)
        level = reg.command_level(reg.commands[reg.commands[n].alias or n])
        # Global commands only without an instance: a layer's next
        # vkGetInstanceProcAddr may not accept NULL once an instance exists
        # (the validation layer crashes), and nobody needs them then.
        src = "VK_NULL_HANDLE" if level == "global" else "instance"
        cond = ("if (instance == VK_NULL_HANDLE) {\n        " if level == "global"
                else "if (instance != VK_NULL_HANDLE) {\n        ")
        end = "\n    }"
        c.append(f"    {cond}table->{n} = ({t})gipa({src}, \"{n}\");{end}\n")
    c += _alias_fixups(reg, inst)
    c.append("}\n\nvoid rt_vk_device_dispatch_load(struct rt_vk_device_dispatch *table,\n"
             "                                PFN_vkGetDeviceProcAddr gdpa, VkDevice device)\n{\n"
             "    memset(table, 0, sizeof *table);\n")
    for n in dev:
        t, _ = _entry(reg, n)
        c.append(f"    table->{n} = ({t})gdpa(device, \"{n}\");\n")
    c += _alias_fixups(reg, dev)
    c.append("}\n")
    write(out_dir, "vk_dispatch_gen.c", "".join(c))


def _alias_fixups(reg, names):
    present = set(names)
    out = []
    for n in names:
        a = reg.commands[n].alias
        if a and a in present:
            ta, _ = _entry(reg, a)
            tn, _ = _entry(reg, n)
            out.append(f"    if (!table->{n}) {{\n        table->{n} = ({tn})(PFN_vkVoidFunction)table->{a};\n    }}\n")
            out.append(f"    if (!table->{a}) {{\n        table->{a} = ({ta})(PFN_vkVoidFunction)table->{n};\n    }}\n")
    return out
