"""gen/handwritten.py - the commands capture and replay write by hand.

One list for both generators: a command whose meaning vk.xml does not carry
gets an entry here, with one reason per side.

"capture": "FILE: why" - capture/FILE defines capture_<vkName> with the
command's exact signature. emit_capture.py declares it (from vk.xml, so a
signature that drifted does not compile) and puts it in the layer's entry
table instead of a generated intercept.

"replay": "FUNCTION: why" - replay/ defines FUNCTION with the signature of
replay_handler_fn (replay/replay_calls.h); emit_replay.py declares it and puts
it in replay_handlers[], which the engine runs instead of the generated call.
replay_skip counts the call as skipped and does nothing.

A stale entry is a build error: vkgen.py fails on a name that is not a command
of the vulkan API in vk.xml, and the generated files reference every function
named here, so one that nobody defines fails to link.
"""

HAND_WRITTEN = {
    # ---- instances and devices -------------------------------------------
    "vkCreateInstance": {
        "capture": "layer.c: walks the loader's layer chain, opens the trace",
        "replay": "replay_create_instance: keeps the extensions this loader has, adds validation",
    },
    "vkDestroyInstance": {
        "capture": "layer.c: closes the trace with the last instance",
        "replay": "replay_destroy_instance: drops that instance and its devices; other instances live on",
    },
    "vkEnumeratePhysicalDevices": {
        "replay": "replay_enumerate_physical_devices: picks the replay GPU (--device) for the captured one",
    },
    "vkCreateDevice": {
        "capture": "layer.c: walks the loader's layer chain, records the device identity",
        "replay": "replay_create_device: names missing extensions, features and queue families first",
    },
    "vkDestroyDevice": {
        "capture": "layer.c: drops the device's dispatch table",
        "replay": "replay_destroy_device: releases the device's swapchains and memory first",
    },
    "vkGetInstanceProcAddr": {
        "capture": "layer.c: the layer's own entry point",
    },
    "vkGetDeviceProcAddr": {
        "capture": "layer.c: the layer's own entry point",
    },
    "vkEnumerateInstanceLayerProperties": {
        "capture": "layer.c: describes this layer",
    },
    "vkEnumerateInstanceExtensionProperties": {
        "capture": "layer.c: this layer adds no extension",
    },
    "vkEnumerateDeviceLayerProperties": {
        "capture": "layer.c: describes this layer",
    },
    "vkEnumerateDeviceExtensionProperties": {
        "capture": "layer.c: answers for this layer's name, forwards the rest",
    },

    # ---- queues ----------------------------------------------------------
    "vkGetPhysicalDeviceQueueFamilyProperties": {
        "replay": "replay_queue_family_properties: remembers the families the application saw",
    },
    "vkGetPhysicalDeviceQueueFamilyProperties2": {
        "replay": "replay_queue_family_properties2: remembers the families the application saw",
    },
    "vkGetPhysicalDeviceQueueFamilyProperties2KHR": {
        "replay": "replay_queue_family_properties2: remembers the families the application saw",
    },
    "vkGetDeviceQueue": {
        "capture": "cmd_present.c: remembers each queue's family, for screenshot copies",
        "replay": "replay_get_device_queue: remembers each queue's family",
    },
    "vkGetDeviceQueue2": {
        "capture": "cmd_present.c: remembers each queue's family, for screenshot copies",
        "replay": "replay_get_device_queue2: remembers each queue's family",
    },

    # ---- memory ----------------------------------------------------------
    "vkAllocateMemory": {
        "capture": "cmd_memory.c: remembers each allocation's memory type (coherence), opaque addresses",
        "replay": "replay_allocate_memory: made again (the home of its resources), its memory type translated",
    },
    "vkFreeMemory": {
        "capture": "cmd_memory.c: freeing a mapped allocation unmaps it",
        "replay": "replay_free_memory: frees the replay's own allocations behind it",
    },
    "vkMapMemory": {
        "capture": "cmd_memory.c: hands the application a tracked pointer",
        "replay": "replay_skip: memory updates carry the bytes",
    },
    "vkUnmapMemory": {
        "capture": "cmd_memory.c: records the last writes, stops tracking",
        "replay": "replay_skip: memory updates carry the bytes",
    },
    "vkFlushMappedMemoryRanges": {
        "capture": "cmd_memory.c: records exactly the flushed bytes",
        "replay": "replay_skip: memory updates carry the bytes",
    },
    "vkInvalidateMappedMemoryRanges": {
        "replay": "replay_skip: memory updates carry the bytes",
    },
    "vkCreateBuffer": {
        "capture": "cmd_addresses.c: capture-replay buffer device addresses",
        "replay": "replay_create_buffer: drops opaque capture addresses the replay cannot use",
    },
    "vkCreateImage": {
        "replay": "replay_create_image: remembers linear images and formats (rebind mode, readbacks)",
    },
    "vkGetImageMemoryRequirements": {
        "replay": "replay_get_image_memory_requirements: keeps the capture's size, for rebind placement",
    },
    "vkGetImageMemoryRequirements2": {
        "replay": "replay_get_image_memory_requirements2: keeps the capture's size, for rebind placement",
    },
    "vkGetImageMemoryRequirements2KHR": {
        "replay": "replay_get_image_memory_requirements2: keeps the capture's size, for rebind placement",
    },
    "vkDestroyBuffer": {
        "replay": "replay_destroy_buffer: its record (and rebound allocation) goes, so a reused handle starts afresh",
    },
    "vkDestroyImage": {
        "replay": "replay_destroy_image: its record (and rebound allocation) goes, so a reused handle starts afresh",
    },
    "vkBindBufferMemory": {
        "replay": "replay_bind_buffer_memory: in rebind mode at the captured offset where it fits, else memory of its own",
    },
    "vkBindImageMemory": {
        "replay": "replay_bind_image_memory: in rebind mode at the captured offset where it fits, else memory of its own",
    },
    "vkBindBufferMemory2": {
        "replay": "replay_bind_buffer_memory2: in rebind mode at the captured offset where it fits, else memory of its own",
    },
    "vkBindBufferMemory2KHR": {
        "replay": "replay_bind_buffer_memory2: in rebind mode at the captured offset where it fits, else memory of its own",
    },
    "vkBindImageMemory2": {
        "replay": "replay_bind_image_memory2: in rebind mode at the captured offset where it fits, else memory of its own",
    },
    "vkBindImageMemory2KHR": {
        "replay": "replay_bind_image_memory2: in rebind mode at the captured offset where it fits, else memory of its own",
    },

    # ---- buffer device addresses -----------------------------------------
    "vkGetBufferDeviceAddress": {
        "replay": "replay_get_buffer_device_address: remembers captured -> replay addresses",
    },
    "vkGetBufferDeviceAddressKHR": {
        "replay": "replay_get_buffer_device_address: remembers captured -> replay addresses",
    },
    "vkGetBufferDeviceAddressEXT": {
        "replay": "replay_get_buffer_device_address: remembers captured -> replay addresses",
    },
    "vkCmdPushConstants": {
        "replay": "replay_cmd_push_constants: moves captured buffer addresses in the constants",
    },

    # ---- read-backs and submission ---------------------------------------
    "vkBeginCommandBuffer": {
        "replay": "replay_begin_command_buffer: forgets the buffer's recorded image copies",
    },
    "vkAllocateCommandBuffers": {
        "replay": "replay_allocate_command_buffers: a new command buffer starts with no recorded copies",
    },
    "vkFreeCommandBuffers": {
        "replay": "replay_free_command_buffers: their recorded copies go",
    },
    "vkDestroyCommandPool": {
        "replay": "replay_destroy_command_pool: the recorded copies of its command buffers go",
    },
    "vkCmdCopyImageToBuffer": {
        "replay": "replay_cmd_copy_image_to_buffer: records the copy, for --readbacks",
    },
    "vkCmdCopyImageToBuffer2": {
        "replay": "replay_cmd_copy_image_to_buffer2: records the copy, for --readbacks",
    },
    "vkCmdCopyImageToBuffer2KHR": {
        "replay": "replay_cmd_copy_image_to_buffer2_khr: records the copy, for --readbacks",
    },
    "vkQueueSubmit": {
        "replay": "replay_queue_submit: saves the submitted copies' read-backs once done",
    },
    "vkQueueSubmit2": {
        "replay": "replay_queue_submit2: saves the submitted copies' read-backs once done",
    },
    "vkQueueSubmit2KHR": {
        "replay": "replay_queue_submit2: saves the submitted copies' read-backs once done",
    },

    # ---- what the application observed of the GPU ------------------------
    "vkWaitForFences": {
        "replay": "replay_wait_for_fences: waits for what the capture saw signalled",
    },
    "vkGetFenceStatus": {
        "replay": "replay_get_fence_status: waits for what the capture saw signalled",
    },
    "vkGetEventStatus": {
        "replay": "replay_get_event_status: waits for what the capture saw set",
    },
    "vkGetSemaphoreCounterValue": {
        "replay": "replay_get_semaphore_counter_value: waits for the value the capture saw",
    },
    "vkGetSemaphoreCounterValueKHR": {
        "replay": "replay_get_semaphore_counter_value: waits for the value the capture saw",
    },
    "vkWaitSemaphores": {
        "replay": "replay_wait_semaphores: waits for what the capture saw reached",
    },
    "vkWaitSemaphoresKHR": {
        "replay": "replay_wait_semaphores: waits for what the capture saw reached",
    },
    "vkGetQueryPoolResults": {
        "replay": "replay_get_query_pool_results: waits for the results the capture saw available",
    },

    # ---- presentation ----------------------------------------------------
    "vkCreateXcbSurfaceKHR": {"replay": "replay_create_surface: a placeholder: replay is headless"},
    "vkCreateXlibSurfaceKHR": {"replay": "replay_create_surface: a placeholder: replay is headless"},
    "vkCreateWaylandSurfaceKHR": {"replay": "replay_create_surface: a placeholder: replay is headless"},
    "vkCreateWin32SurfaceKHR": {"replay": "replay_create_surface: a placeholder: replay is headless"},
    "vkCreateAndroidSurfaceKHR": {"replay": "replay_create_surface: a placeholder: replay is headless"},
    "vkCreateMetalSurfaceEXT": {"replay": "replay_create_surface: a placeholder: replay is headless"},
    "vkCreateHeadlessSurfaceEXT": {"replay": "replay_create_surface: a placeholder: replay is headless"},
    "vkDestroySurfaceKHR": {"replay": "replay_skip: the surface was a placeholder"},
    "vkCreateSwapchainKHR": {
        "capture": "cmd_present.c: adds TRANSFER_SRC usage for screenshots, records the original",
        "replay": "replay_create_swapchain: ordinary images in the swapchain's format and extent",
    },
    "vkDestroySwapchainKHR": {
        "capture": "cmd_present.c: forgets the swapchain's format and extent",
        "replay": "replay_destroy_swapchain: destroys the images that stood for it",
    },
    "vkGetSwapchainImagesKHR": {
        "replay": "replay_get_swapchain_images: hands out the images that stand for it",
    },
    "vkAcquireNextImageKHR": {
        "replay": "replay_acquire_next_image: returns the captured index",
    },
    "vkAcquireNextImage2KHR": {
        "replay": "replay_acquire_next_image2: returns the captured index",
    },
    "vkQueuePresentKHR": {
        "capture": "cmd_present.c: ends a frame, takes capture-time screenshots",
        "replay": "replay_queue_present: waits for its semaphores, counts a frame, takes screenshots",
    },

    # ---- descriptor update templates -------------------------------------
    "vkCreateDescriptorUpdateTemplate": {
        "capture": "cmd_templates.c: remembers the template's data layout",
    },
    "vkCreateDescriptorUpdateTemplateKHR": {
        "capture": "cmd_templates.c: remembers the template's data layout",
    },
    "vkDestroyDescriptorUpdateTemplate": {
        "capture": "cmd_templates.c: forgets the template",
    },
    "vkDestroyDescriptorUpdateTemplateKHR": {
        "capture": "cmd_templates.c: forgets the template",
    },
    "vkUpdateDescriptorSetWithTemplate": {
        "capture": "cmd_templates.c: recorded as the vkUpdateDescriptorSets it stands for",
    },
    "vkUpdateDescriptorSetWithTemplateKHR": {
        "capture": "cmd_templates.c: recorded as the vkUpdateDescriptorSets it stands for",
    },
    "vkCmdPushDescriptorSetWithTemplateKHR": {
        "capture": "cmd_templates.c: recorded as the vkCmdPushDescriptorSetKHR it stands for",
    },

    # ---- draws with a stride (vk.xml's stride= attribute) ---------------
    "vkCmdDrawMultiEXT": {
        "capture": "cmd_multi_draw.c: the draws at `stride` recorded densely, stride = their size",
        "replay": "replay_cmd_draw_multi: calls with stride = the element size; a lost draw fails",
    },
    "vkCmdDrawMultiIndexedEXT": {
        "capture": "cmd_multi_draw.c: the draws at `stride` recorded densely, stride = their size",
        "replay": "replay_cmd_draw_multi_indexed: calls with stride = the element size; a lost draw fails",
    },

    # ---- objects named by (type, id) and debug callbacks -----------------
    "vkSetDebugUtilsObjectNameEXT": {
        "replay": "replay_set_object_name: maps objectHandle through its type, which vk.xml does not say",
    },
    "vkSetDebugUtilsObjectTagEXT": {
        "replay": "replay_set_object_tag: maps objectHandle through its type, which vk.xml does not say",
    },
    "vkSetPrivateData": {
        "replay": "replay_set_private_data: maps objectHandle through its type, which vk.xml does not say",
    },
    "vkSetPrivateDataEXT": {
        "replay": "replay_set_private_data: maps objectHandle through its type, which vk.xml does not say",
    },
    "vkDebugMarkerSetObjectNameEXT": {"replay": "replay_skip: object types of a deprecated enum"},
    "vkDebugMarkerSetObjectTagEXT": {"replay": "replay_skip: object types of a deprecated enum"},
    "vkCreateDebugUtilsMessengerEXT": {"replay": "replay_skip: the application's callback is not here"},
    "vkDestroyDebugUtilsMessengerEXT": {"replay": "replay_skip: the application's callback is not here"},
    "vkCreateDebugReportCallbackEXT": {"replay": "replay_skip: the application's callback is not here"},
    "vkDestroyDebugReportCallbackEXT": {"replay": "replay_skip: the application's callback is not here"},
}

SIDES = ("capture", "replay")


def side(name, which):
    """(where, why) of name's hand-written side `which`, or None if generated."""
    text = HAND_WRITTEN.get(name, {}).get(which)
    if text is None:
        return None
    where, why = text.split(":", 1)
    return where.strip(), why.strip()


def check(api_commands):
    """Errors for stale or malformed entries; api_commands: names in vk.xml."""
    errors = []
    known = set(api_commands)
    for name, sides in HAND_WRITTEN.items():
        if name not in known:
            errors.append(f"{name}: not a command of the vulkan API in this vk.xml")
        for key, text in sides.items():
            if key not in SIDES:
                errors.append(f"{name}: unknown side {key!r} (expected capture or replay)")
            elif ":" not in text or not text.split(":", 1)[1].strip():
                errors.append(f"{name}: {key} entry needs 'WHERE: why', got {text!r}")
            elif key == "replay" and not text.split(":", 1)[0].strip().isidentifier():
                errors.append(f"{name}: replay entry must start with a function name, got {text!r}")
        if not sides:
            errors.append(f"{name}: lists neither capture nor replay")
    return errors
