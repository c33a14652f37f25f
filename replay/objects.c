/* replay/objects.c — calls that name an object by (VkObjectType, uint64_t)
 * rather than by a typed handle: debug names and tags, private data. vk.xml
 * cannot tell the codec that objectHandle is a handle, so it is mapped here
 * from the captured id; an object the replay does not have (a surface or a
 * swapchain, say) is skipped rather than named wrongly. */
#include "replay_internal.h"

/* Maps *handle through its type; false when the replay has no such object. */
static bool map_object(struct replay *r, VkObjectType type, uint64_t *handle)
{
    uint64_t live = 0;
    if (!*handle || type == VK_OBJECT_TYPE_UNKNOWN || type == VK_OBJECT_TYPE_SURFACE_KHR ||
        type == VK_OBJECT_TYPE_SWAPCHAIN_KHR || !rt_typed_map_get(&r->handles, type, *handle, &live))
        return false;
    *handle = live;
    return true;
}

rt_status replay_set_object_name(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkSetDebugUtilsObjectNameEXT *a = args;
    VkDebugUtilsObjectNameInfoEXT *info = (VkDebugUtilsObjectNameInfoEXT *)a->pNameInfo;
    if (!map_object(r, info->objectType, &info->objectHandle))
        return replay_skip(r, args, captured_result);
    return replay_generic_call(r, RT_VK_CMD_vkSetDebugUtilsObjectNameEXT, args, captured_result);
}

rt_status replay_set_object_tag(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkSetDebugUtilsObjectTagEXT *a = args;
    VkDebugUtilsObjectTagInfoEXT *info = (VkDebugUtilsObjectTagInfoEXT *)a->pTagInfo;
    if (!map_object(r, info->objectType, &info->objectHandle))
        return replay_skip(r, args, captured_result);
    return replay_generic_call(r, RT_VK_CMD_vkSetDebugUtilsObjectTagEXT, args, captured_result);
}

rt_status replay_set_private_data(struct replay *r, void *args, uint64_t captured_result)
{
    struct rt_vk_args_vkSetPrivateData *a = args;
    if (!map_object(r, a->objectType, &a->objectHandle))
        return replay_skip(r, args, captured_result);
    return replay_generic_call(r, RT_VK_CMD_vkSetPrivateData, args, captured_result);
}
