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

Beside the flags, the table carries replay's categories (RT_VK_CMD_CAT_*
bits, and per command its pipeline-cache argument, transfer destination,
delay event and object type): what replay's workarounds and delays act on,
so replay/ and capture/ never compare a command's name
(tests/unit/test_command_names.py fails when one does).
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

# Of WAITS, those that block the host until the device gets somewhere (the
# others only ask, or invalidate): replay's `wait` delay sleeps before these.
BLOCKING_WAITS = [
    "vkWaitForFences", "vkWaitSemaphores", "vkWaitSemaphoresKHR", "vkQueueWaitIdle", "vkDeviceWaitIdle",
]

# Commands that read an image or buffer with the transfer stage by the rule of
# transfer_dst() but that replay's readback-barrier does not cover, with why.
NOT_TRANSFER_READS = {
    "vkCmdResolveImage": "readback-barrier covers copies and blits (README, workarounds show); a resolve "
                         "reads a multisampled attachment the render pass wrote, ordered by its own barriers",
    "vkCmdResolveImage2": "as vkCmdResolveImage",
}

# Each has an RT_VK_CMD_CAT_<name> in gen/vkcodec_desc.h (the build fails otherwise).
CATEGORIES = ["CREATES_PIPELINE", "EXECUTES", "PRESENTS", "ACQUIRES", "BEGINS_RECORDING", "READS_QUERIES", "DRAWS"]

# Of vk.xml's plain action commands, those that write nothing a draw dump could
# show: they mark a point for tools (retrace diagnose numbers the others, DRAWS).
MARKS_ONLY = {
    "vkCmdDebugMarkerBeginEXT": "opens a debug marker region",
    "vkCmdDebugMarkerEndEXT": "closes a debug marker region",
    "vkCmdDebugMarkerInsertEXT": "a debug marker",
    "vkCmdInsertDebugUtilsLabelEXT": "a debug label",
    "vkCmdSetCheckpointNV": "a crash checkpoint",
}


def draws(reg, name):
    """A draw as per-draw dumps count them: vk.xml's tasks="action" alone (render
    pass begins and ends are also state and synchronization) and not a query
    (a VkQueryPool argument) or a marker (MARKS_ONLY)."""
    t = _target(reg, name)
    return (t.tasks == ("action",) and t.name not in MARKS_ONLY and name not in MARKS_ONLY
            and not any(p.type == "VkQueryPool" for p in t.params))

# Replay's injected-delay events a command can belong to: RT_VK_EVENT_<name>
# in gen/vkcodec_desc.h, in replay/config.h's order (replay/delays.c asserts it).
EVENTS = ["CREATE_PIPELINE", "CREATE_SHADER", "SUBMIT", "PRESENT", "ACQUIRE", "MAP", "WAIT"]

# Where a transfer read writes: RT_VK_TRANSFER_<name> in gen/vkcodec_desc.h.
TRANSFER_DSTS = ["NONE", "BUFFER", "IMAGE"]


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


def _canonical_handle(reg, type_name):
    return reg.handle_alias.get(type_name, type_name)


def object_type(reg, name):
    """The VK_OBJECT_TYPE_* of the handles a command creates (the last handle
    it writes) or destroys (its destroyed argument's), else None."""
    t = _target(reg, name)
    if is_destroy(name):
        i = destroyed_arg(reg, name)
        handle = t.params[i].type if i >= 0 else None
    elif writes_handles(reg, t) and not is_query(name):
        handle = [p.type for p in t.params
                  if _is_handle(reg, p.type) and p.depth >= 1 and not p.pointee_const(0)][-1]
    else:
        return None
    return reg.handles[_canonical_handle(reg, handle)][2] if handle else None


def pipeline_cache_arg(reg, name):
    """For a command that creates pipelines: the index of its VkPipelineCache
    argument (replay substitutes its own cache there), else -1."""
    if object_type(reg, name) != "VK_OBJECT_TYPE_PIPELINE" or is_destroy(name):
        return -1
    caches = [i for i, p in enumerate(_target(reg, name).params) if p.type == "VkPipelineCache" and p.depth == 0]
    return caches[0] if caches else -1


def _fields(reg, target):
    """The parameters, and the members of the structs they point to (one level)."""
    out = list(target.params)
    for p in target.params:
        s = reg.structs.get(reg.canonical_struct(p.type))
        if s and p.depth == 1:
            out += s.members
    return out


def transfer_dst(reg, name):
    """A recorded copy or blit that reads an image or buffer (a srcImage or
    srcBuffer) into another (dstImage or dstBuffer): the kind it writes."""
    t = _target(reg, name)
    if not name.startswith("vkCmd") or (t.name in NOT_TRANSFER_READS or name in NOT_TRANSFER_READS):
        return "NONE"
    fields = {f.name: f for f in _fields(reg, t)}
    if not ({"srcImage", "srcBuffer"} & fields.keys()):
        return "NONE"
    dst = fields.get("dstBuffer") or fields.get("dstImage")
    return {"VkBuffer": "BUFFER", "VkImage": "IMAGE"}.get(dst.type, "NONE") if dst else "NONE"


def _reaches(reg, type_name, wanted, seen):
    """Does struct type_name hold (through members and pointers) a wanted type?"""
    s = reg.structs.get(reg.canonical_struct(type_name))
    if not s or type_name in seen:
        return False
    seen.add(type_name)
    return any(m.type == wanted or _reaches(reg, m.type, wanted, seen) for m in s.members)


def categories(reg, name):
    """The CATEGORIES that hold for command `name`, in CATEGORIES order."""
    t = _target(reg, name)
    params = {p.name: p for p in t.params}
    have = {
        "CREATES_PIPELINE": pipeline_cache_arg(reg, name) >= 0,
        # a submission that runs command buffers (vkQueueBindSparse runs none)
        "EXECUTES": is_submit(t) and any(p.type == "VkCommandBuffer" or _reaches(reg, p.type, "VkCommandBuffer", set())
                                         for p in t.params),
        "PRESENTS": any(p.type == "VkPresentInfoKHR" for p in t.params),
        # writes the index of the swapchain image it acquired
        "ACQUIRES": "pImageIndex" in params and not params["pImageIndex"].pointee_const(0),
        "BEGINS_RECORDING": any(p.type == "VkCommandBufferBeginInfo" for p in t.params),
        # copies query results into host memory (not a recorded vkCmd*)
        "READS_QUERIES": not name.startswith("vkCmd") and any(p.type == "VkQueryPool" for p in t.params) and any(
            p.type == "void" and p.depth == 1 and not p.pointee_const(0) for p in t.params),
        "DRAWS": draws(reg, name),
    }
    return [c for c in CATEGORIES if have[c]]


def delay_event(reg, name):
    """The EVENTS entry whose injected delay replay sleeps before `name`, or None."""
    t = _target(reg, name)
    cats = categories(reg, name)
    creates = not is_destroy(name) and object_type(reg, name)
    rules = [
        ("CREATE_PIPELINE", "CREATES_PIPELINE" in cats),
        ("CREATE_SHADER", creates in ("VK_OBJECT_TYPE_SHADER_MODULE", "VK_OBJECT_TYPE_SHADER_EXT")),
        ("SUBMIT", is_submit(t)),
        ("PRESENT", "PRESENTS" in cats),
        ("ACQUIRE", "ACQUIRES" in cats),
        ("MAP", is_map(t) and any(p.type == "VkDeviceMemory" for p in t.params)),  # not host mappings of descriptor sets
        ("WAIT", name in BLOCKING_WAITS),
    ]
    return next((event for event, holds in rules if holds), None)


def check(api_commands):
    """Errors for list entries that are not commands of the API in vk.xml."""
    known = set(api_commands)
    errors = [f"gen/command_flags.py: {n}: not a command of the vulkan API in this vk.xml"
              for n in WAITS + list(ALSO_DESTROYS) + BLOCKING_WAITS + list(NOT_TRANSFER_READS) + list(MARKS_ONLY)
              if n not in known]
    return errors + [f"gen/command_flags.py: BLOCKING_WAITS: {n} is not in WAITS"
                     for n in BLOCKING_WAITS if n not in WAITS]
