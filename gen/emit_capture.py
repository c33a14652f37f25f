"""gen/emit_capture.py - the capture layer's intercepts.

Writes capture_intercepts_gen.c: for every command of the API, a function
with the command's exact signature that forwards the call to the next layer
and records it with capture_record_call() (capture/capture.h), and a table of
every entry point sorted by name for the layer's vkGet*ProcAddr. Commands
whose meaning vk.xml does not carry are hand-written in capture/ (the
"capture" entries of gen/handwritten.py); they are declared here from vk.xml
and the table names their symbol, so a missing or mismatched one fails the
build. Commands that submit (RT_VK_CMD_FLAG_SUBMITS) first hand the
mapped-memory writes to the trace; after commands that let the application
observe GPU writes (RT_VK_CMD_FLAG_WAITS) the memory tracker fetches pages
again.
"""
import command_flags
import handwritten
from emit_common import banner, guarded, write

SIGNED_RESULTS = ("VkResult", "int32_t")


def _target(reg, name):
    cmd = reg.commands[name]
    return reg.commands[cmd.alias] if cmd.alias else cmd


def _signature(name, target, prefix):
    params = ", ".join(p.decl for p in target.params) or "void"
    return f"static VKAPI_ATTR {target.ret} VKAPI_CALL {prefix}{name}({params})"


def _lookup(reg, name, target):
    level = reg.command_level(target)
    first = target.params[0].name
    if level == "device":
        return f"capture_device_of((const void *){first})->dispatch", True
    return f"capture_instance_of((const void *){first})->dispatch", False


def _args_init(target, has_result):
    inits, copies = [], []
    for p in target.params:
        if p.dims:
            copies.append(f"    memcpy(rt__args.{p.name}, {p.name}, sizeof rt__args.{p.name});\n")
        else:
            inits.append(f".{p.name} = {p.name}")
    if has_result:
        inits.append(".result = rt__result")
    return inits, copies


def _intercept(reg, name, guard):
    target = _target(reg, name)
    table, is_device = _lookup(reg, name, target)
    has_result = target.ret != "void"
    call_args = ", ".join(p.name for p in target.params)
    lines = [_signature(name, target, "rt__capture_") + "\n{\n"]
    pfn = f"PFN_{name}"
    lines.append(f"    {pfn} rt__next = ({pfn}){table}.{name};\n")
    flags = command_flags.flags(reg, name)
    if "SUBMITS" in flags:
        lines.append(f"    capture_before_submit((const void *){target.params[0].name});\n")
    call = f"rt__next({call_args});\n"
    lines.append(f"    {target.ret} rt__result = {call}" if has_result else f"    {call}")
    if "WAITS" in flags:
        lines.append(f"    capture_after_sync((const void *){target.params[0].name});\n")
    inits, copies = _args_init(target, has_result)
    lines.append(f"    struct rt_vk_args_{name} rt__args = {{{', '.join(inits)}}};\n")
    lines += copies
    ret = "0"
    if has_result:
        ret = ("(uint64_t)(int64_t)rt__result" if target.ret in SIGNED_RESULTS
               else "(uint64_t)rt__result")
    lines.append(f"    capture_record_call(RT_VK_CMD_{name}, &rt__args, {ret});\n")
    if "SUBMITS" in flags:
        lines.append(f"    capture_after_submit((const void *){target.params[0].name});\n")
    if has_result:
        lines.append("    return rt__result;\n")
    lines.append("}\n\n")
    del is_device
    return guarded(guard, "".join(lines))


# The platforms a Linux loader hands out commands of, and their scalar types
# (every other parameter is a Vulkan type or a pointer, which passes as void *).
# A build without one of these headers still knows the command from vk.xml:
# its detector has the command's ABI, passes each call on unrecorded, and says
# so at the first call (capture/unrecorded.c), so the name is reported only
# where the program calls it, not where the loader looks it up.
PASS_THROUGH_GUARDS = ("VK_USE_PLATFORM_XLIB_KHR", "VK_USE_PLATFORM_XLIB_XRANDR_EXT",
                       "VK_USE_PLATFORM_XCB_KHR", "VK_USE_PLATFORM_WAYLAND_KHR")
PLATFORM_SCALARS = {"VisualID": "unsigned long", "RROutput": "unsigned long", "Window": "unsigned long",
                    "xcb_visualid_t": "uint32_t", "xcb_window_t": "uint32_t"}


def _abi_decl(p):
    if p.stars or p.dims:
        return f"void *{p.name}"
    return f"{PLATFORM_SCALARS.get(p.type, p.type)} {p.name}"


def _pass_through(reg, name, guard):
    """The detector for a command whose platform header the build lacks."""
    target = _target(reg, name)
    level = reg.command_level(target)
    creates = command_flags.writes_handles(reg, target) and not command_flags.is_query(name)
    decls = [_abi_decl(p) for p in target.params]
    params = ", ".join(decls)
    types = ", ".join(d.rsplit(" ", 1)[0] if not d.startswith("void *") else "void *" for d in decls)
    call_args = ", ".join(p.name for p in target.params)
    ret = target.ret if target.ret != "void" else None
    body = (f"static _Atomic(PFN_vkVoidFunction) rt__next_{name};\n\n"
            f"static VKAPI_ATTR {target.ret} VKAPI_CALL rt__unrecorded_{name}({params})\n{{\n"
            f"    capture_unrecorded_called(\"{name}\", {str(creates).lower()});\n"
            f"    PFN_vkVoidFunction rt__next = atomic_load_explicit(&rt__next_{name}, memory_order_acquire);\n"
            f"    {'return ' if ret else ''}(({target.ret} (VKAPI_PTR *)({types}))rt__next)({call_args});\n}}\n\n")
    del level
    return f"#ifndef {guard}\n{body}#endif /* {guard} */\n"


def _pass_through_table(entries):
    c = ["/* Commands of platforms this build has no header for: detectors, sorted by name. */\n"
         "const struct capture_detector capture_detectors[] = {\n"]
    for n, guard, _ in sorted(entries):
        c.append(f"#ifndef {guard}\n    {{\"{n}\", (PFN_vkVoidFunction)rt__unrecorded_{n}, &rt__next_{n}}},\n"
                 "#endif\n")
    c.append("    {NULL, NULL, NULL} /* never empty */\n};\n\n"
             "const size_t capture_detector_count = sizeof capture_detectors / sizeof capture_detectors[0] - 1;\n")
    return "".join(c)


def emit(reg, names, out_dir):
    c = [banner(reg.header_version),
         "#include <stdatomic.h>\n#include <stdint.h>\n#include <string.h>\n\n#include \"capture.h\"\n\n"]
    entries, detectors = [], []
    for n in names:
        target = _target(reg, n)
        guard = target.guard or reg.commands[n].guard
        level = reg.command_level(target)
        hand = handwritten.side(n, "capture")
        if hand:
            c.append(f"/* {n}: hand-written in capture/{hand[0]}: {hand[1]} */\n")
            symbol = f"capture_{n}"
            c.append(guarded(guard, _signature(n, target, "capture_").replace("static ", "", 1) + ";\n"))
        elif level == "global":
            c.append(f"/* {n}: a global command the loader answers itself; not intercepted */\n")
            continue
        else:
            c.append(_intercept(reg, n, guard))
            symbol = f"rt__capture_{n}"
        entries.append((n, symbol, guard, level == "device"))
        if guard in PASS_THROUGH_GUARDS and not hand:
            c.append(_pass_through(reg, n, guard))
            detectors.append((n, guard, level == "device"))
    c.append("const struct capture_entry capture_entries[] = {\n")
    for n, symbol, guard, is_device in sorted(entries):
        c.append(guarded(guard, f"    {{\"{n}\", (PFN_vkVoidFunction){symbol}, {str(is_device).lower()}, "
                                f"RT_VK_CMD_{n}}},\n"))
    c.append("};\n\nconst size_t capture_entry_count = sizeof capture_entries / sizeof capture_entries[0];\n")
    c.append(_pass_through_table(detectors))
    write(out_dir, "capture_intercepts_gen.c", "".join(c))

