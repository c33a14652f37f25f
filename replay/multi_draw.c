/* replay/multi_draw.c — vkCmdDrawMultiEXT and vkCmdDrawMultiIndexedEXT.
 * Their arrays are read by the driver at the call's `stride`, which may be
 * larger than an element (zink passes 12-byte records to vkCmdDrawMultiEXT,
 * whose element is 8 bytes). The codec decodes a dense array, so the replay
 * always calls with stride = the element's size. A trace from a capture that
 * ignored `stride` (before review R5's fix) holds the first drawCount elements'
 * worth of bytes of the strided array: what lies inside them is recovered,
 * and a draw that lies past them fails the replay by name instead of reading
 * past the decoded array (it used to draw garbage). Owns nothing else. */
#include <inttypes.h>
#include <string.h>

#include "replay_internal.h"

uint32_t replay_multi_draw_recover(void *elements, uint32_t count, uint32_t stride, size_t elem)
{
    if (count <= 1 || stride <= elem)
        return count;
    unsigned char *bytes = elements;
    size_t recorded = (size_t)count * elem;
    uint32_t i = 1; /* element 0 is in place */
    for (; i < count && (size_t)i * stride + elem <= recorded; i++)
        memmove(bytes + i * elem, bytes + (size_t)i * stride, elem); /* forward: i*stride >= i*elem */
    return i;
}

static rt_status densify(struct replay *r, const char *name, void *elements, uint32_t count, uint32_t *stride,
                         size_t elem)
{
    if (elements && *stride > elem) {
        uint32_t kept = replay_multi_draw_recover(elements, count, *stride, elem);
        if (kept < count)
            return rt_errorf(RT_ERR_BAD_INPUT,
                             "call %" PRIu64 ": %s draws %" PRIu32 " records %" PRIu32 " bytes apart, but the capture "
                             "layer that made this trace kept %zu bytes of each: draws %" PRIu32 "-%" PRIu32
                             " are lost (capture the program again with this build)",
                             r->call_seq, name, count, *stride, elem, kept + 1, count);
    }
    *stride = (uint32_t)elem;
    return rt_ok_status();
}

rt_status replay_cmd_draw_multi(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCmdDrawMultiEXT *a = args;
    RT_TRY(densify(r, "vkCmdDrawMultiEXT", (void *)a->pVertexInfo, a->drawCount, &a->stride,
                   sizeof *a->pVertexInfo));
    return replay_generic_call(r, RT_VK_CMD_vkCmdDrawMultiEXT, args, captured_result);
}

rt_status replay_cmd_draw_multi_indexed(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkCmdDrawMultiIndexedEXT *a = args;
    RT_TRY(densify(r, "vkCmdDrawMultiIndexedEXT", (void *)a->pIndexInfo, a->drawCount, &a->stride,
                   sizeof *a->pIndexInfo));
    return replay_generic_call(r, RT_VK_CMD_vkCmdDrawMultiIndexedEXT, args, captured_result);
}
