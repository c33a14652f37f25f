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

And trim's facts (trim/calls.c, trim/layouts.c): each command's role in a
state snapshot (RT_VK_TRIM_ROLE_*: what the trim does with the call before
frame A) and the shape of the arguments it reads (RT_VK_TRIM_ARGS_*: which
create info, barrier or submit), so trim/ compares no command name either.
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
CATEGORIES = ["CREATES_PIPELINE", "EXECUTES", "PRESENTS", "ACQUIRES", "BEGINS_RECORDING", "READS_QUERIES", "DRAWS",
              "RESETS_QUERIES"]

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
        # resets a range of queries (recorded or from the host): a dispatchable
        # handle, then (queryPool, firstQuery, queryCount), in that order
        "RESETS_QUERIES": t.name.startswith(("vkReset", "vkCmdReset")) and [p.type for p in t.params[1:]] == [
            "VkQueryPool", "uint32_t", "uint32_t"],
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


# ------------------------------------------------------------------ trim

# Each has an RT_VK_TRIM_ROLE_<name> in gen/vkcodec_desc.h (the build fails otherwise).
TRIM_ROLES = ["OTHER", "SNAPSHOT_HOLDS", "RESETS_COMMAND_BUFFER", "RESETS_COMMAND_POOL", "RESETS_DESCRIPTOR_POOL",
              "UNMAPS", "RECORDS", "KEEPS_QUERY", "BINDS_MEMORY", "MAPS_MEMORY", "UPDATES_DESCRIPTORS"]

# Calls whose effect a snapshot holds another way (the fences', events',
# semaphores' states and the memory contents it reads back), or that leave
# nothing a replay of the frames after A needs; beside them: every submit,
# wait, present and acquire, and the debug names and labels (rule below).
SNAPSHOT_HOLDS = {
    "vkResetFences": "fence states are read back",
    "vkResetEvent": "event states are read back",
    "vkSetEvent": "event states are read back",
    "vkSignalSemaphore": "a timeline semaphore's value is read back",
    "vkResetQueryPool": "the snapshot resets query pools",
    "vkFlushMappedMemoryRanges": "memory contents are read back",
    "vkSetPrivateData": "the application's own data: no effect on the device",
    "vkTrimCommandPool": "a memory hint: no effect on what is rendered",
    "vkReleaseSwapchainImagesEXT": "acquires before A are not replayed, so neither are their releases",
}

# Queries whose answers replay follows (queue families, buffer and capture
# addresses, memory requirements); every other query before A is dropped.
TRIM_QUERY_FACTS = ["QueueFamilyProperties", "DeviceAddress", "OpaqueCaptureAddress", "MemoryRequirements"]

# Each has an RT_VK_TRIM_ARGS_<name> in gen/vkcodec_desc.h: the argument
# block a snapshot's maker casts to (the command it names, or an alias of it):
# trim, and the importer of trimmed GFXReconstruct captures (import/import_snapshot.c).
TRIM_ARGS = ["NONE", "SUBMIT", "SUBMIT2", "ACQUIRE", "ACQUIRE_INFO", "PRESENT", "BEGIN", "IMAGE_INFO",
             "SWAPCHAIN_IMAGES", "SWAPCHAIN_INFO", "VIEW_INFO", "RENDER_PASS_INFO", "RENDER_PASS2_INFO",
             "FRAMEBUFFER_INFO", "BUFFER_INFO", "SEMAPHORE_INFO", "ALLOCATE_COMMAND_BUFFERS", "BARRIER",
             "WAIT_EVENTS", "DEPENDENCY", "DEPENDENCIES", "RENDER_PASS_BEGIN", "RENDER_PASS_BEGIN2",
             "EXECUTE_COMMANDS", "QUERY_POOL_INFO", "MEMORY_INFO", "BIND_IMAGE", "BIND_IMAGE_INFOS",
             "SUBRESOURCE_LAYOUT", "MAP"]


def _param(t, type_name, name=None):
    """The parameter of TYPE (and NAME), or None."""
    return next((p for p in t.params if p.type == type_name and (name is None or p.name == name)), None)


def _takes(reg, t, type_name):
    """A handle of TYPE passed by value, or a struct reaching it."""
    return any(p.type == type_name and p.depth == 0 or _reaches(reg, p.type, type_name, set()) for p in t.params)


def _writes(reg, t, type_name):
    return any(p.type == type_name and p.depth >= 1 and not p.pointee_const(0) or
               p.depth >= 1 and not p.pointee_const(0) and _reaches(reg, p.type, type_name, set())
               for p in t.params)


def _debug_only(reg, name):
    """Names, tags and labels for debuggers (VK_EXT_debug_utils, VK_EXT_debug_marker), not recorded."""
    t = _target(reg, name)
    return (("DebugUtils" in t.name or "DebugMarker" in t.name) and not t.name.startswith("vkCmd")
            and not is_query(name) and not writes_handles(reg, t) and not is_destroy(name))


def trim_role(reg, name):
    """The TRIM_ROLES entry of `name`: the first rule that holds, in trim's order."""
    t = _target(reg, name)
    cats, f = categories(reg, name), flags(reg, name)
    first = t.params[0].type if t.params else None
    rules = [
        ("SNAPSHOT_HOLDS", "SUBMITS" in f or "WAITS" in f or "PRESENTS" in cats or "ACQUIRES" in cats
         or t.name in SNAPSHOT_HOLDS or _debug_only(reg, name)),
        ("RESETS_COMMAND_BUFFER", t.name.startswith("vkReset") and first == "VkCommandBuffer"),
        ("RESETS_COMMAND_POOL", t.name.startswith("vkReset") and _param(t, "VkCommandPool") is not None),
        ("RESETS_DESCRIPTOR_POOL", t.name.startswith("vkReset") and _param(t, "VkDescriptorPool") is not None),
        ("UNMAPS", t.name.startswith("vkUnmap") and _param(t, "VkDeviceMemory") is not None),
        # recorded: every vkCmd* (the spec's naming rule), the begin, and the end
        ("RECORDS", t.name.startswith("vkCmd") or "BEGINS_RECORDING" in cats
         or (t.name.startswith("vkEnd") and first == "VkCommandBuffer")),
        ("KEEPS_QUERY", "QUERY" in f and (any(x in t.name for x in TRIM_QUERY_FACTS)
                                          or _writes(reg, t, "VkPhysicalDevice") or _writes(reg, t, "VkImage"))),
        ("BINDS_MEMORY", t.name.startswith("vkBind") and _takes(reg, t, "VkDeviceMemory")),
        ("MAPS_MEMORY", "MAPS" in f and _param(t, "VkDeviceMemory") is not None),
        ("UPDATES_DESCRIPTORS", t.name.startswith("vkUpdateDescriptorSet")),
    ]
    return next((role for role, holds in rules if holds), "OTHER")


def trim_args(reg, name):
    """The TRIM_ARGS entry of `name`: by the structs it takes, so aliases and
    promoted versions (vkCmdPipelineBarrier2KHR) share their command's."""
    t = _target(reg, name)
    cats, obj = categories(reg, name), object_type(reg, name)
    recorded = t.name.startswith("vkCmd")
    creates = writes_handles(reg, t) and not is_query(name) and not is_destroy(name)
    dep = _param(t, "VkDependencyInfo")
    execute = next((p for p in t.params if p.type == "VkCommandBuffer" and p.depth == 1 and p.len), None)
    rules = [
        ("SUBMIT", _param(t, "VkSubmitInfo") is not None),
        ("SUBMIT2", _param(t, "VkSubmitInfo2") is not None),
        ("ACQUIRE_INFO", _param(t, "VkAcquireNextImageInfoKHR") is not None),
        ("ACQUIRE", "ACQUIRES" in cats and _param(t, "VkSemaphore") is not None),
        ("PRESENT", "PRESENTS" in cats),
        ("BEGIN", "BEGINS_RECORDING" in cats),
        ("IMAGE_INFO", creates and obj == "VK_OBJECT_TYPE_IMAGE" and _param(t, "VkImageCreateInfo", "pCreateInfo")),
        ("SWAPCHAIN_IMAGES", is_query(name) and _writes(reg, t, "VkImage") and _param(t, "VkSwapchainKHR")),
        ("SWAPCHAIN_INFO", creates and _param(t, "VkSwapchainCreateInfoKHR", "pCreateInfo")),
        ("VIEW_INFO", creates and _param(t, "VkImageViewCreateInfo", "pCreateInfo")),
        ("RENDER_PASS_INFO", creates and _param(t, "VkRenderPassCreateInfo", "pCreateInfo")),
        ("RENDER_PASS2_INFO", creates and _param(t, "VkRenderPassCreateInfo2", "pCreateInfo")),
        ("FRAMEBUFFER_INFO", creates and _param(t, "VkFramebufferCreateInfo", "pCreateInfo")),
        ("BUFFER_INFO", creates and obj == "VK_OBJECT_TYPE_BUFFER" and _param(t, "VkBufferCreateInfo", "pCreateInfo")),
        ("SEMAPHORE_INFO", creates and _param(t, "VkSemaphoreCreateInfo", "pCreateInfo")),
        ("ALLOCATE_COMMAND_BUFFERS", creates and _param(t, "VkCommandBufferAllocateInfo")),
        ("BARRIER", recorded and _param(t, "VkImageMemoryBarrier") and not _param(t, "VkEvent")),
        ("WAIT_EVENTS", recorded and _param(t, "VkImageMemoryBarrier") and _param(t, "VkEvent")),
        ("DEPENDENCY", recorded and dep and not dep.len and not _param(t, "VkEvent")),
        ("DEPENDENCIES", recorded and dep and dep.len and _param(t, "VkEvent")),
        ("RENDER_PASS_BEGIN", recorded and _param(t, "VkRenderPassBeginInfo") and not _param(t, "VkSubpassBeginInfo")),
        ("RENDER_PASS_BEGIN2", recorded and _param(t, "VkRenderPassBeginInfo") and _param(t, "VkSubpassBeginInfo")),
        ("EXECUTE_COMMANDS", recorded and execute is not None),
        ("QUERY_POOL_INFO", creates and _param(t, "VkQueryPoolCreateInfo", "pCreateInfo")),
        ("MEMORY_INFO", creates and _param(t, "VkMemoryAllocateInfo", "pAllocateInfo")),
        # (image, memory, memoryOffset) by value, or an array of VkBindImageMemoryInfo
        ("BIND_IMAGE", t.name.startswith("vkBind") and _param(t, "VkImage") and _param(t, "VkDeviceMemory")),
        ("BIND_IMAGE_INFOS", t.name.startswith("vkBind") and _param(t, "VkBindImageMemoryInfo")),
        # an image's subresource (not VkImageSubresource2) and the layout it writes
        ("SUBRESOURCE_LAYOUT", is_query(name) and _param(t, "VkImageSubresource") and _param(t, "VkImage")),
        # memory, offset, size and ppData by value (not vkMapMemory2's VkMemoryMapInfo)
        ("MAP", "MAPS" in flags(reg, name) and _param(t, "VkDeviceMemory") is not None),
    ]
    return next((shape for shape, holds in rules if holds), "NONE")


def check(api_commands):
    """Errors for list entries that are not commands of the API in vk.xml."""
    known = set(api_commands)
    errors = [f"gen/command_flags.py: {n}: not a command of the vulkan API in this vk.xml"
              for n in WAITS + list(ALSO_DESTROYS) + BLOCKING_WAITS + list(NOT_TRANSFER_READS) + list(MARKS_ONLY)
              + list(SNAPSHOT_HOLDS)
              if n not in known]
    return errors + [f"gen/command_flags.py: BLOCKING_WAITS: {n} is not in WAITS"
                     for n in BLOCKING_WAITS if n not in WAITS]
