/* capture/cmd_multi_draw.c — vkCmdDrawMultiEXT and vkCmdDrawMultiIndexedEXT.
 * The driver reads their arrays at the call's `stride` (vk.xml: stride=
 * "stride"), which may be larger than an element: zink passes 12-byte
 * records to vkCmdDrawMultiEXT, whose element is 8 bytes. The codec encodes
 * a dense array, so the layer gathers the draws from their strided places and
 * records the call with stride = the element's size; the driver gets the
 * application's call as it was. Before this (review R5) the trace kept the
 * first drawCount * 8 bytes of a 12-byte-strided array and the replay drew
 * garbage past them. Owns only these two commands. */
#include <string.h>

#include "arena.h"
#include "capture.h"
#include "log.h"

/* DST gets COUNT elements of ELEM bytes taken STRIDE bytes apart from SRC. */
static void gather(void *dst, const void *src, uint32_t count, uint32_t stride, size_t elem)
{
    for (uint32_t i = 0; i < count; i++)
        memcpy((unsigned char *)dst + (size_t)i * elem, (const unsigned char *)src + (size_t)i * stride, elem);
}

/* A dense copy of a strided array in ARENA; SRC itself where it is dense. */
static const void *dense(struct rt_arena *arena, const void *src, uint32_t count, uint32_t *stride, size_t elem)
{
    const void *out = src;
    if (src && count > 1 && *stride != elem) {
        void *copy = rt_arena_alloc(arena, (size_t)count * elem, 8);
        if (!copy)
            return NULL;
        gather(copy, src, count, *stride, elem);
        out = copy;
    }
    *stride = (uint32_t)elem;
    return out;
}

VKAPI_ATTR void VKAPI_CALL capture_vkCmdDrawMultiEXT(VkCommandBuffer cmd, uint32_t drawCount,
                                                     const VkMultiDrawInfoEXT *pVertexInfo, uint32_t instanceCount,
                                                     uint32_t firstInstance, uint32_t stride)
{
    capture_device_of(cmd)->dispatch.vkCmdDrawMultiEXT(cmd, drawCount, pVertexInfo, instanceCount, firstInstance,
                                                       stride);
    struct capture_call_arena scratch;
    struct rt_arena *arena = capture_call_arena_init(&scratch);
    struct rt_vk_args_vkCmdDrawMultiEXT args = {cmd, drawCount, NULL, instanceCount, firstInstance, stride};
    args.pVertexInfo = dense(arena, pVertexInfo, drawCount, &args.stride, sizeof *pVertexInfo);
    if (args.pVertexInfo || !pVertexInfo)
        capture_record_call(RT_VK_CMD_vkCmdDrawMultiEXT, &args, 0);
    else
        rt_log(RT_LOG_WARN, "capture: out of memory: a vkCmdDrawMultiEXT was not recorded");
    rt_arena_finish(arena);
}

VKAPI_ATTR void VKAPI_CALL capture_vkCmdDrawMultiIndexedEXT(VkCommandBuffer cmd, uint32_t drawCount,
                                                            const VkMultiDrawIndexedInfoEXT *pIndexInfo,
                                                            uint32_t instanceCount, uint32_t firstInstance,
                                                            uint32_t stride, const int32_t *pVertexOffset)
{
    capture_device_of(cmd)->dispatch.vkCmdDrawMultiIndexedEXT(cmd, drawCount, pIndexInfo, instanceCount,
                                                              firstInstance, stride, pVertexOffset);
    struct capture_call_arena scratch;
    struct rt_arena *arena = capture_call_arena_init(&scratch);
    struct rt_vk_args_vkCmdDrawMultiIndexedEXT args = {cmd, drawCount, NULL, instanceCount, firstInstance, stride,
                                                       pVertexOffset};
    args.pIndexInfo = dense(arena, pIndexInfo, drawCount, &args.stride, sizeof *pIndexInfo);
    if (args.pIndexInfo || !pIndexInfo)
        capture_record_call(RT_VK_CMD_vkCmdDrawMultiIndexedEXT, &args, 0);
    else
        rt_log(RT_LOG_WARN, "capture: out of memory: a vkCmdDrawMultiIndexedEXT was not recorded");
    rt_arena_finish(arena);
}
