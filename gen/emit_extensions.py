"""gen/emit_extensions.py - which extension brings each command and structure.

Writes replay_extensions_gen.c: replay_cmd_extension[], indexed by enum
rt_vk_cmd (NULL for core commands), and replay_stype_extensions[], the sType
of every extension structure with its extension. The replayer's
strip-unsupported workaround uses them to stop at a call that uses an
extension it left out of device creation.
"""
from emit_common import banner, c_str, guarded, write


def emit(reg, names, out_dir):
    c = [banner(reg.header_version), '#include "replay_extensions.h"\n\n',
         "const char *const replay_cmd_extension[RT_VK_CMD_COUNT] = {\n"]
    for n in names:
        ext = reg.extension_of.get(n)
        if ext:
            c.append(f"    [RT_VK_CMD_{n}] = {c_str(ext)},\n")
    c.append("};\n\nconst struct replay_stype_extension replay_stype_extensions[] = {\n")
    for name in sorted(reg.structs):
        s = reg.structs[name]
        ext = reg.extension_of.get(name)
        if ext and s.stype and name in reg.required_types:
            c.append(guarded(s.guard, f"    {{{s.stype}, {c_str(ext)}}},\n"))
    c.append("};\n\nconst unsigned replay_stype_extension_count =\n"
             "    sizeof replay_stype_extensions / sizeof replay_stype_extensions[0];\n")
    write(out_dir, "replay_extensions_gen.c", "".join(c))
