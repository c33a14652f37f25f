"""gen/emit_commands.py - command ids, names, levels and argument blocks.

Writes vk_commands_gen.h (enum rt_vk_cmd in vk.xml order, one
struct rt_vk_args_<vkName> per command) and vk_commands_gen.c (the command
table and a sorted name index). rt_vk_cmd values are internal: traces store
command names, never these numbers.
"""
import command_flags
from emit_common import banner, c_str, guarded, write

LEVELS = {"global": "RT_VK_LEVEL_GLOBAL", "instance": "RT_VK_LEVEL_INSTANCE",
          "physical_device": "RT_VK_LEVEL_PHYSICAL_DEVICE", "device": "RT_VK_LEVEL_DEVICE"}


def args_struct(reg, name, target):
    """struct rt_vk_args_<name>: each parameter with its C type, then result."""
    fields = []
    for p in target.params:
        decl = p.decl
        if p.dims and decl.startswith("const "):
            decl = decl[len("const "):]  # array parameters are copied in, not pointed to
        fields.append(f"    {decl};\n")
    if target.ret != "void":
        fields.append(f"    {target.ret} result;\n")
    if not fields:
        fields.append("    char rt__unused;\n")
    return f"struct rt_vk_args_{name} {{\n" + "".join(fields) + "};\n"


def flags_init(reg, name):
    """One command's RT_VK_CMD_FLAG_ bits as an initialiser (its descriptor
    and the dense table rt_vk_cmd_flags reads carry the same)."""
    return " | ".join(f"RT_VK_CMD_FLAG_{f}" for f in command_flags.flags(reg, name)) or "0"


def replay_categories(reg, name):
    """The categories, pipeline-cache argument, delay event, transfer
    destination and object type of one command, as initialisers."""
    cats = " | ".join(f"RT_VK_CMD_CAT_{c}" for c in command_flags.categories(reg, name)) or "0"
    event = command_flags.delay_event(reg, name)
    obj = command_flags.object_type(reg, name) or "0"
    return (f"{cats}, {command_flags.pipeline_cache_arg(reg, name)}, "
            f"{'RT_VK_EVENT_' + event if event else '-1'}, RT_VK_TRANSFER_{command_flags.transfer_dst(reg, name)}, "
            f"{obj}, RT_VK_TRIM_ROLE_{command_flags.trim_role(reg, name)}, "
            f"RT_VK_TRIM_ARGS_{command_flags.trim_args(reg, name)}")


def emit_header(reg, names, out_dir):
    lines = [banner(reg.header_version), "#ifndef RT_VK_COMMANDS_GEN_H\n#define RT_VK_COMMANDS_GEN_H\n\n",
             "#include <stdbool.h>\n#include <vulkan/vulkan.h>\n\n#include \"vkcodec_desc.h\"\n\n",
             "/* Every command of the vulkan API in vk.xml order. Internal: traces store\n"
             " * names, because this order changes between header versions. */\nenum rt_vk_cmd {\n"]
    lines += [f"    RT_VK_CMD_{n},\n" for n in names]
    lines.append("    RT_VK_CMD_COUNT\n};\n\n")
    lines.append("/* Argument blocks: every parameter with its exact C type, then the return\n"
                 " * value as `result`. Aliases have their own block with the same layout.\n"
                 " * Blocks of platform commands exist only where the platform is enabled. */\n")
    for n in names:
        cmd = reg.commands[n]
        target = reg.commands[cmd.alias] if cmd.alias else cmd
        lines.append(guarded(target.guard or cmd.guard, args_struct(reg, n, target)))
    lines.append("\nextern const struct rt_vk_command_desc rt_vk_commands[RT_VK_CMD_COUNT];\n\n")
    lines.append("/** \"vkCreateBuffer\" for RT_VK_CMD_vkCreateBuffer; NULL when out of range. */\n"
                 "const char *rt_vk_cmd_name(enum rt_vk_cmd cmd);\n"
                 "/** Looks a command up by name; false when vk.xml does not have it. */\n"
                 "bool rt_vk_cmd_from_name(const char *name, enum rt_vk_cmd *cmd_out);\n"
                 "/** Global, instance, physical-device or device, from the first parameter. */\n"
                 "enum rt_vk_level rt_vk_cmd_level(enum rt_vk_cmd cmd);\n"
                 "/** What the command does: enum rt_vk_cmd_flag bits; 0 when out of range. */\n"
                 "unsigned rt_vk_cmd_flags(enum rt_vk_cmd cmd);\n"
                 "/** For RT_VK_CMD_FLAG_DESTROYS: the argument-block member (index into its\n"
                 " * struct rt_vk_struct_desc) holding the handle or handles it destroys; else -1. */\n"
                 "int rt_vk_cmd_destroyed_arg(enum rt_vk_cmd cmd);\n"
                 "/** Replay's categories: enum rt_vk_cmd_category bits; 0 when out of range. */\n"
                 "unsigned rt_vk_cmd_categories(enum rt_vk_cmd cmd);\n"
                 "/** The enum rt_vk_cmd_event the command belongs to, or -1 (also out of range). */\n"
                 "int rt_vk_cmd_event(enum rt_vk_cmd cmd);\n"
                 "/** A pointer to member INDEX of the argument block ARGS of CMD (a pipeline\n"
                 " * cache, a destroyed handle): NULL when INDEX is negative or out of range. */\n"
                 "void *rt_vk_cmd_arg(enum rt_vk_cmd cmd, void *args, int index);\n\n#endif\n")
    write(out_dir, "vk_commands_gen.h", "".join(lines))


def emit_source(reg, names, containers, out_dir):
    lines = [banner(reg.header_version), "#include <stddef.h>\n#include <stdlib.h>\n#include <string.h>\n\n",
             '#include "vk_commands_gen.h"\n#include "vk_tables_gen.h"\n\n']
    index = {n: i for i, n in enumerate(names)}
    for n in names:
        cmd = reg.commands[n]
        c = containers[cmd.alias or n]
        if c.excluded and not c.members:
            lines.append(f"/* {n}: not encoded by the generated codec: {c.excluded} */\n")
            continue
        body = (f"extern const struct rt_vk_member rt__m_{c.name}[];\n"
                f"static const struct rt_vk_struct_desc rt__args_{n} = {{{c_str(n)}, rt__m_{c.name}, "
                f"{c_str(c.excluded)}, {c_str(c.guard)}, NULL, sizeof(struct rt_vk_args_{n}), "
                f"_Alignof(struct rt_vk_args_{n}), 1, 0, {len(c.members)}, 0, false, false, true}};\n")
        if cmd.alias:
            body += (f"_Static_assert(sizeof(struct rt_vk_args_{n}) == sizeof(struct rt_vk_args_{cmd.alias}),"
                     f" \"alias layout\");\n")
        lines.append(guarded(c.guard, body))
    lines.append("\nconst struct rt_vk_command_desc rt_vk_commands[RT_VK_CMD_COUNT] = {\n")
    for n in names:
        cmd = reg.commands[n]
        c = containers[cmd.alias or n]
        alias = f"RT_VK_CMD_{cmd.alias}" if cmd.alias else "-1"
        level = LEVELS[reg.command_level(reg.commands[cmd.alias or n])]
        flags = flags_init(reg, n)
        destroyed = command_flags.destroyed_arg(reg, n)
        head = f"    [RT_VK_CMD_{n}] = {{{c_str(n)}, "
        tail = (f", {c_str(c.guard)}, {c_str(c.excluded)}, {alias}, {level}, {flags}, {destroyed}, "
                f"{replay_categories(reg, n)}}},\n")
        if c.excluded and not c.members:
            lines.append(head + "NULL" + tail)
        else:
            lines.append(guarded(c.guard, head + f"&rt__args_{n}" + tail, head + "NULL" + tail))
    lines.append("};\n\n")
    # Read at every captured call (capture/record.c): a dense table stays in
    # cache where the commands' 56-byte entries do not (a miss a call, ~8%
    # of the layer's own samples on glxgears through zink, bench/README.md).
    lines.append("static const uint16_t rt__flags[RT_VK_CMD_COUNT] = {\n")
    lines += [f"    [RT_VK_CMD_{n}] = {flags_init(reg, n)},\n" for n in names]
    lines.append("};\n\n")
    lines.append("static const uint16_t rt__by_name[] = {\n")
    lines += [f"    RT_VK_CMD_{n},\n" for n in sorted(names)]
    lines.append("};\n\n" + LOOKUP_C)
    del index
    write(out_dir, "vk_commands_gen.c", "".join(lines))


LOOKUP_C = """const char *rt_vk_cmd_name(enum rt_vk_cmd cmd)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT) {
        return NULL;
    }
    return rt_vk_commands[cmd].name;
}

static int rt__cmp_name(const void *rt__key, const void *rt__item)
{
    return strcmp((const char *)rt__key, rt_vk_commands[*(const uint16_t *)rt__item].name);
}

bool rt_vk_cmd_from_name(const char *name, enum rt_vk_cmd *cmd_out)
{
    const uint16_t *rt__hit = bsearch(name, rt__by_name, RT_VK_CMD_COUNT, sizeof rt__by_name[0],
                                      rt__cmp_name);
    if (!rt__hit) {
        return false;
    }
    *cmd_out = (enum rt_vk_cmd)*rt__hit;
    return true;
}

enum rt_vk_level rt_vk_cmd_level(enum rt_vk_cmd cmd)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT) {
        return RT_VK_LEVEL_GLOBAL;
    }
    return (enum rt_vk_level)rt_vk_commands[cmd].level;
}

unsigned rt_vk_cmd_flags(enum rt_vk_cmd cmd)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT) {
        return 0;
    }
    return rt__flags[cmd];
}

int rt_vk_cmd_destroyed_arg(enum rt_vk_cmd cmd)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT) {
        return -1;
    }
    return rt_vk_commands[cmd].destroyed_arg;
}

unsigned rt_vk_cmd_categories(enum rt_vk_cmd cmd)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT) {
        return 0;
    }
    return rt_vk_commands[cmd].categories;
}

int rt_vk_cmd_event(enum rt_vk_cmd cmd)
{
    if ((unsigned)cmd >= RT_VK_CMD_COUNT) {
        return -1;
    }
    return rt_vk_commands[cmd].event;
}

void *rt_vk_cmd_arg(enum rt_vk_cmd cmd, void *args, int index)
{
    const struct rt_vk_struct_desc *rt__d = (unsigned)cmd < RT_VK_CMD_COUNT ? rt_vk_commands[cmd].args : NULL;
    if (!rt__d || !rt__d->members || index < 0 || index >= (int)rt__d->nmembers) {
        return NULL;
    }
    return (char *)args + rt__d->members[index].offset;
}
"""
