"""gen/gfxr/gfxr_rules.py - where GFXReconstruct's parameter encoding is not
the member-by-member walk of vk.xml, one rule each, with its reason.

emit_gfxr.py turns these into tables for gen/gfxr/gfxr_decode.c and fails the
build on a name that is not in vk.xml (a stale rule).

UNIONS: how GFXReconstruct writes a union that has no selector member (a
union with a selector is written as its selected member, as vk.xml says).
REFUSED: commands GFXReconstruct encodes in a layout of its own that the
importer does not map (yet); a capture holding one is refused by name.
"""

UNIONS = {
    "VkClearColorValue": ("U32X4", "written as its uint32[4] view, as an array with its preamble"),
    "VkClearValue": ("U32X4", "written as its VkClearColorValue, the larger member"),
    "VkDeviceOrHostAddressKHR": ("U64", "written as deviceAddress (host addresses mean nothing in a file)"),
    "VkDeviceOrHostAddressConstKHR": ("U64", "written as deviceAddress"),
    "VkPipelineExecutableStatisticValueKHR": ("U64", "written as its u64 view"),
}

REFUSED = {
    "vkCmdPushDescriptorSetWithTemplate2": "pData in GFXReconstruct's template layout",
    "vkCmdPushDescriptorSetWithTemplate2KHR": "pData in GFXReconstruct's template layout",
    "vkCreateRayTracingPipelinesKHR": "deferred operations and shader group handles are written as metadata",
    "vkBuildAccelerationStructuresKHR": "host-built acceleration structures are not mapped",
    "vkCmdBuildAccelerationStructuresKHR": "its geometry arrays are 2-D (ppBuildRangeInfos)",
    "vkCmdBuildAccelerationStructuresIndirectKHR": "its geometry arrays are 2-D",
}

# Decoded by hand in gen/gfxr/gfxr_templates.c: GFXReconstruct writes pData
# as the image, buffer and texel-buffer-view descriptors the template names;
# the importer turns them into the vkUpdateDescriptorSets /
# vkCmdPushDescriptorSetKHR they stand for (as retrace's own capture does).
TEMPLATES = [
    "vkUpdateDescriptorSetWithTemplate",
    "vkUpdateDescriptorSetWithTemplateKHR",
    "vkCmdPushDescriptorSetWithTemplateKHR",
    "vkCmdPushDescriptorSetWithTemplate",
]
