"""gen/command_flags.py - what each command does, worked out once at build time.

The generated command table carries these as RT_VK_CMD_FLAG_* bits (and the
destroyed argument), so capture, replay and dump ask the table instead of
looking at command names at run time. Each flag says how it is decided: from
vk.xml's structure where vk.xml says enough, from the API's naming rules where
it does not (the spec names every command that only returns information
vkGet*/vkEnumerate*, and every command that ends objects' lives
vkDestroy*/vkFree*), and from a short list with reasons where neither does.
Aliases get the flags of the names they carry and the arguments of the
command they alias.
"""

# The host may see device writes after these return (a fence, event,
# semaphore or query seen ready, or an explicit invalidate), so capture fetches
# the mapped pages it guards again. vk.xml has no attribute for this.
WAITS = [
    "vkWaitForFences", "vkGetFenceStatus", "vkQueueWaitIdle", "vkDeviceWaitIdle",
    "vkWaitSemaphores", "vkWaitSemaphoresKHR", "vkGetSemaphoreCounterValue",
    "vkGetSemaphoreCounterValueKHR", "vkGetEventStatus", "vkGetQueryPoolResults",
    "vkInvalidateMappedMemoryRanges",
]

# Commands that end objects' lives but are not named vkDestroy*/vkFree*.
ALSO_DESTROYS = {
    "vkReleasePerformanceConfigurationINTEL": "ends the configuration vkAcquirePerformanceConfigurationINTEL made",
}

# Each has an RT_VK_CMD_FLAG_<name> in gen/vkcodec_desc.h (the build fails otherwise).
FLAGS = ["QUERY", "ENUMERATE", "CREATES", "DESTROYS", "WAITS", "SUBMITS", "MAPS", "INSTANCE_EXTENSION"]


def _target(reg, name):
    cmd = reg.commands[name]
    return reg.commands[cmd.alias] if cmd.alias else cmd


def _is_handle(reg, type_name):
    return type_name in reg.handles or type_name in reg.handle_alias


def is_query(name):
    """vkGet*/vkEnumerate*: tells the application something."""
    return name.startswith("vkGet") or name.startswith("vkEnumerate")


def is_enumerate(target):
    """The two-call pattern: a writable uint32_t/size_t count parameter that is
    the length of a writable array parameter (NULL on the first call)."""
    by_name = {p.name: p for p in target.params}
    for p in target.params:
        count = by_name.get(p.len[0]) if p.depth == 1 and p.len else None
        if (count is not None and count.depth == 1 and not count.pointee_const(0)
                and count.type in ("uint32_t", "size_t") and not p.pointee_const(0)):
            return True
    return False


def writes_handles(reg, target):
    """A parameter through which the command writes handles (not in structs)."""
    return any(_is_handle(reg, p.type) and p.depth >= 1 and not p.pointee_const(0)
               for p in target.params)


def is_destroy(name):
    return name.startswith("vkDestroy") or name.startswith("vkFree") or name in ALSO_DESTROYS


def destroyed_arg(reg, name):
    """Index of the argument holding the handle(s) the command destroys, or -1:
    the last handle parameter (vkDestroyBuffer's buffer, vkFreeCommandBuffers'
    pCommandBuffers, vkDestroyDevice's device)."""
    if not is_destroy(name):
        return -1
    handles = [i for i, p in enumerate(_target(reg, name).params) if _is_handle(reg, p.type)]
    return handles[-1] if handles else -1


def is_submit(target):
    """Hands work to a queue: a queue command with a fence to signal."""
    params = target.params
    return bool(params) and params[0].type == "VkQueue" and any(
        p.type == "VkFence" and p.depth == 0 for p in params)


def is_map(target):
    """Returns a host pointer to memory the device also sees (a void ** output)."""
    return any(p.type == "void" and p.depth == 2 and not p.pointee_const(0) and not p.len
               for p in target.params)


def is_device_command_of_instance_extension(reg, name):
    """A device command an instance extension brings (VK_EXT_debug_utils has
    the only ones): the loader resolves it through vkGetInstanceProcAddr."""
    return name in reg.instance_extension_commands and reg.command_level(_target(reg, name)) == "device"


def flags(reg, name):
    """The FLAGS that hold for command `name`, in FLAGS order."""
    t = _target(reg, name)
    query = is_query(name)
    have = {
        "QUERY": query,
        "ENUMERATE": is_enumerate(t),
        "CREATES": writes_handles(reg, t) and not query,
        "DESTROYS": is_destroy(name),
        "WAITS": name in WAITS,
        "SUBMITS": is_submit(t),
        "MAPS": is_map(t),
        "INSTANCE_EXTENSION": is_device_command_of_instance_extension(reg, name),
    }
    return [f for f in FLAGS if have[f]]


def check(api_commands):
    """Errors for list entries that are not commands of the API in vk.xml."""
    known = set(api_commands)
    return [f"gen/command_flags.py: {n}: not a command of the vulkan API in this vk.xml"
            for n in WAITS + list(ALSO_DESTROYS) if n not in known]
