"""gen/overrides.py - what the generated codec cannot express, and why.

Three lists, each entry with a one-line reason. vkgen.py fails when it finds
something it cannot express that is not listed here, and warns about entries
that are no longer needed, so nothing is ever skipped silently.

EXCLUDED: commands and structs the table-driven codec refuses to encode (a
clean error, never wrong bytes); capture and replay must hand-write them.
A command or struct that reaches an excluded struct through a parameter or
member (not through pNext) is excluded too; vkgen.py lists those in
vk_coverage.txt with the entry that caused it.

LEN_FROM_PROSE: array lengths that video.xml states only in comments or that
the H.264/H.265 specs define; the value is a C expression over the members of
the same struct. Every other video.xml pointer without `len` was checked by
hand to point at a single struct ("must be a valid pointer").

OPAQUE_POINTERS: `void *` members and parameters without a `len`, whose
pointer value is all there is to record (it is encoded as a 64-bit number).
"""

EXCLUDED = {
    "vkCmdBuildAccelerationStructuresKHR":
        "ppBuildRangeInfos[i] has pInfos[i].geometryCount elements: a per-element length vk.xml does not state",
    "vkBuildAccelerationStructuresKHR":
        "ppBuildRangeInfos[i] has pInfos[i].geometryCount elements, and host builds read instance data through raw addresses",
    "vkCmdBuildAccelerationStructuresIndirectKHR":
        "ppMaxPrimitiveCounts[i] has pInfos[i].geometryCount elements: a per-element length vk.xml does not state",
    "vkUpdateDescriptorSetWithTemplate":
        "pData's layout is defined by the descriptor update template's entries, not by vk.xml",
    "vkCmdPushDescriptorSetWithTemplateKHR":
        "pData's layout is defined by the descriptor update template's entries, not by vk.xml",
    "StdVideoH265HrdParameters":
        "pSubLayerHrdParametersNal/Vcl hold max_sub_layers_minus1+1 entries of the enclosing VPS/SPS, outside this struct",
}

LEN_FROM_PROSE = {
    ("StdVideoH264SequenceParameterSet", "pOffsetForRefFrame"):
        ("num_ref_frames_in_pic_order_cnt_cycle", "video.xml comment; H.264 7.4.2.1.1 offset_for_ref_frame[i]"),
    ("StdVideoH265SequenceParameterSet", "pShortTermRefPicSet"):
        ("num_short_term_ref_pic_sets", "video.xml comment: array of num_short_term_ref_pic_sets"),
    ("StdVideoEncodeH264RefMemMgmtCtrlOperations", "pRefList0ModOperations"):
        ("refList0ModOpCount", "the count member beside it (video.xml has no len)"),
    ("StdVideoEncodeH264RefMemMgmtCtrlOperations", "pRefList1ModOperations"):
        ("refList1ModOpCount", "the count member beside it (video.xml has no len)"),
    ("StdVideoEncodeH264RefMemMgmtCtrlOperations", "pRefPicMarkingOperations"):
        ("refPicMarkingOpCount", "the count member beside it (video.xml has no len)"),
    ("StdVideoEncodeH265ReferenceModifications", "pReferenceList0Modifications"):
        ("referenceList0ModificationsCount", "the count member beside it (video.xml has no len)"),
    ("StdVideoEncodeH265ReferenceModifications", "pReferenceList1Modifications"):
        ("referenceList1ModificationsCount", "the count member beside it (video.xml has no len)"),
}

OPAQUE_POINTERS = {
    "*.pUserData": "the application's callback cookie: only its value means anything",
    "VkViSurfaceCreateInfoNN.window": "a platform window: only its value means anything",
    "VkIOSSurfaceCreateInfoMVK.pView": "a platform view: only its value means anything",
    "VkMacOSSurfaceCreateInfoMVK.pView": "a platform view: only its value means anything",
    "VkImportMemoryHostPointerInfoEXT.pHostPointer": "host memory: its bytes are capture's memory tracking's job",
    "vkGetMemoryHostPointerPropertiesEXT.pHostPointer": "host memory: its bytes are capture's memory tracking's job",
    "VkCheckpointDataNV.pCheckpointMarker": "an application marker value",
    "VkCheckpointData2NV.pCheckpointMarker": "an application marker value",
    "vkCmdSetCheckpointNV.pCheckpointMarker": "an application marker value",
    "VkDeviceOrHostAddressKHR.hostAddress": "a union member: the union travels as raw bytes",
    "VkDeviceOrHostAddressConstKHR.hostAddress": "a union member: the union travels as raw bytes",
    "vkMapMemory.ppData": "the mapped address: mapped bytes are capture's memory tracking's job",
    "vkGetDescriptorSetHostMappingVALVE.ppData": "a mapped address: its bytes are capture's memory tracking's job",
    "VkCuLaunchInfoNVX.pParams": "CUDA kernel parameters whose layout only the kernel knows (values kept)",
    "VkCuLaunchInfoNVX.pExtras": "CUDA launch extras whose layout only the kernel knows (values kept)",
    "VkOpticalFlowSessionCreatePrivateDataInfoNV.pPrivateData": "driver-private data of unstated size (value kept)",
    # The following point at bytes whose size is a device property or lives
    # in another call's output; the bytes are NOT recorded (value kept).
    "VkRayTracingShaderGroupCreateInfoKHR.pShaderGroupCaptureReplayHandle":
        "shaderGroupHandleCaptureReplaySize bytes (a device property): not recorded",
    "VkOpaqueCaptureDescriptorDataCreateInfoEXT.opaqueCaptureDescriptorData":
        "*CaptureReplayDescriptorDataSize bytes (a device property): not recorded",
    "VkDeviceFaultInfoEXT.pVendorBinaryData":
        "output of VkDeviceFaultCountsEXT::vendorBinarySize bytes, a sibling parameter's member: not recorded",
    "vkGetBufferOpaqueCaptureDescriptorDataEXT.pData": "output of a device-property size: not recorded",
    "vkGetImageOpaqueCaptureDescriptorDataEXT.pData": "output of a device-property size: not recorded",
    "vkGetImageViewOpaqueCaptureDescriptorDataEXT.pData": "output of a device-property size: not recorded",
    "vkGetSamplerOpaqueCaptureDescriptorDataEXT.pData": "output of a device-property size: not recorded",
    "vkGetAccelerationStructureOpaqueCaptureDescriptorDataEXT.pData":
        "output of a device-property size: not recorded",
}
