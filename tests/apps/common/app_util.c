/* tests/apps/common/app_util.c — buffers, images, shaders, barriers, uploads. */
#include "app.h"

#include <string.h>

const char *rt_app_result_name(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_SUBOPTIMAL_KHR: return "VK_SUBOPTIMAL_KHR";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_SURFACE_LOST_KHR: return "VK_ERROR_SURFACE_LOST_KHR";
    case VK_ERROR_OUT_OF_DATE_KHR: return "VK_ERROR_OUT_OF_DATE_KHR";
    default: return "VkResult (other)";
    }
}

rt_status rt_app_memory_type(const struct rt_app *app, uint32_t type_bits,
                             VkMemoryPropertyFlags want, uint32_t *index_out)
{
    const VkPhysicalDeviceMemoryProperties *m = &app->mem_props;
    for (uint32_t i = 0; i < m->memoryTypeCount; i++)
        if ((type_bits & (1u << i)) && (m->memoryTypes[i].propertyFlags & want) == want) {
            *index_out = i;
            return rt_ok_status();
        }
    return rt_errorf(RT_ERR_CANNOT_REPLAY, "no memory type with properties 0x%x", want);
}

static rt_status allocate(struct rt_app *app, const VkMemoryRequirements *req,
                          VkMemoryPropertyFlags props, bool address, VkDeviceMemory *memory_out)
{
    VkMemoryAllocateFlagsInfo flags = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    VkMemoryAllocateInfo info = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = address ? &flags : NULL,
        .allocationSize = req->size,
    };
    RT_TRY(rt_app_memory_type(app, req->memoryTypeBits, props, &info.memoryTypeIndex));
    RT_VK(vkAllocateMemory(app->device, &info, NULL, memory_out));
    return rt_ok_status();
}

rt_status rt_app_buffer_create(struct rt_app *app, VkDeviceSize size, VkBufferUsageFlags usage,
                               VkMemoryPropertyFlags props, bool map,
                               struct rt_app_buffer *buffer_out)
{
    struct rt_app_buffer *b = buffer_out;
    *b = (struct rt_app_buffer){.size = size};
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    RT_VK(vkCreateBuffer(app->device, &info, NULL, &b->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(app->device, b->buffer, &req);
    /* Host-visible memory is always coherent here: apps write it and never flush. */
    if (props & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        props |= VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    bool address = (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0;
    RT_TRY(allocate(app, &req, props, address, &b->memory));
    RT_VK(vkBindBufferMemory(app->device, b->buffer, b->memory, 0));
    if (map)
        RT_VK(vkMapMemory(app->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped));
    return rt_ok_status();
}

void rt_app_buffer_destroy(struct rt_app *app, struct rt_app_buffer *buffer)
{
    vkDestroyBuffer(app->device, buffer->buffer, NULL);
    vkFreeMemory(app->device, buffer->memory, NULL); /* also unmaps */
    *buffer = (struct rt_app_buffer){0};
}

/* Device-local buffer filled from a staging buffer by vkCmdCopyBuffer. */
rt_status rt_app_buffer_upload(struct rt_app *app, const void *data, VkDeviceSize size,
                               VkBufferUsageFlags usage, struct rt_app_buffer *buffer_out)
{
    struct rt_app_buffer staging;
    RT_TRY(rt_app_buffer_create(app, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &staging));
    memcpy(staging.mapped, data, size);
    rt_status st = rt_app_buffer_create(app, size, usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false, buffer_out);
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    if (rt_ok(&st))
        st = rt_app_upload_begin(app, &cmd);
    if (rt_ok(&st)) {
        VkBufferCopy region = {0, 0, size};
        vkCmdCopyBuffer(cmd, staging.buffer, buffer_out->buffer, 1, &region);
        st = rt_app_upload_end(app, cmd);
    }
    rt_app_buffer_destroy(app, &staging);
    return st;
}

rt_status rt_app_image_create(struct rt_app *app, VkFormat format, VkExtent2D extent,
                              uint32_t mip_levels, VkImageUsageFlags usage,
                              VkImageAspectFlags aspect, struct rt_app_image *image_out)
{
    struct rt_app_image *img = image_out;
    *img = (struct rt_app_image){0};
    VkImageCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = format,
        .extent = {extent.width, extent.height, 1},
        .mipLevels = mip_levels,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    RT_VK(vkCreateImage(app->device, &info, NULL, &img->image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(app->device, img->image, &req);
    RT_TRY(allocate(app, &req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false, &img->memory));
    RT_VK(vkBindImageMemory(app->device, img->image, img->memory, 0));
    VkImageViewCreateInfo view = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = img->image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D,
        .format = format,
        .subresourceRange = {aspect, 0, mip_levels, 0, 1},
    };
    RT_VK(vkCreateImageView(app->device, &view, NULL, &img->view));
    return rt_ok_status();
}

void rt_app_image_destroy(struct rt_app *app, struct rt_app_image *image)
{
    vkDestroyImageView(app->device, image->view, NULL);
    vkDestroyImage(app->device, image->image, NULL);
    vkFreeMemory(app->device, image->memory, NULL);
    *image = (struct rt_app_image){0};
}

rt_status rt_app_shader(struct rt_app *app, const uint32_t *code, size_t size,
                        VkShaderModule *module_out)
{
    VkShaderModuleCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = size,
        .pCode = code,
    };
    RT_VK(vkCreateShaderModule(app->device, &info, NULL, module_out));
    return rt_ok_status();
}

void rt_app_image_barrier(struct rt_app *app, VkCommandBuffer cmd, VkImage image,
                          VkImageAspectFlags aspect, uint32_t base_mip, uint32_t mip_count,
                          VkImageLayout old_layout, VkImageLayout new_layout,
                          VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                          VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkImageSubresourceRange range = {aspect, base_mip, mip_count, 0, 1};
    if (app->desc->sync2) {
        VkImageMemoryBarrier2 b = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
            .srcStageMask = src_stage, .srcAccessMask = src_access,
            .dstStageMask = dst_stage, .dstAccessMask = dst_access,
            .oldLayout = old_layout, .newLayout = new_layout,
            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
            .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
            .image = image, .subresourceRange = range,
        };
        VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                .imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &b};
        vkCmdPipelineBarrier2(cmd, &dep);
        return;
    }
    /* Vulkan 1.3 §7.1.2: the legacy stage and access bits have the same values
     * in the 64-bit flags, so the low 32 bits are the legacy masks. */
    VkImageMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .srcAccessMask = (VkAccessFlags)src_access, .dstAccessMask = (VkAccessFlags)dst_access,
        .oldLayout = old_layout, .newLayout = new_layout,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image, .subresourceRange = range,
    };
    vkCmdPipelineBarrier(cmd, (VkPipelineStageFlags)src_stage, (VkPipelineStageFlags)dst_stage,
                         0, 0, NULL, 0, NULL, 1, &b);
}

void rt_app_memory_barrier(struct rt_app *app, VkCommandBuffer cmd,
                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    if (app->desc->sync2) {
        VkMemoryBarrier2 b = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
            .srcStageMask = src_stage, .srcAccessMask = src_access,
            .dstStageMask = dst_stage, .dstAccessMask = dst_access,
        };
        VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                .memoryBarrierCount = 1, .pMemoryBarriers = &b};
        vkCmdPipelineBarrier2(cmd, &dep);
        return;
    }
    VkMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = (VkAccessFlags)src_access,
        .dstAccessMask = (VkAccessFlags)dst_access,
    };
    vkCmdPipelineBarrier(cmd, (VkPipelineStageFlags)src_stage, (VkPipelineStageFlags)dst_stage,
                         0, 1, &b, 0, NULL, 0, NULL);
}

rt_status rt_app_upload_begin(struct rt_app *app, VkCommandBuffer *cmd_out)
{
    VkCommandBufferAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = app->upload_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    RT_VK(vkAllocateCommandBuffers(app->device, &alloc, cmd_out));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    RT_VK(vkBeginCommandBuffer(*cmd_out, &begin));
    return rt_ok_status();
}

/* Submits and waits: a fence, or in sync2 mode the timeline semaphore. */
static rt_status upload_submit(struct rt_app *app, VkCommandBuffer cmd)
{
    if (app->desc->sync2) {
        VkSemaphoreSubmitInfo signal = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                        .semaphore = app->timeline,
                                        .value = ++app->timeline_value,
                                        .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
        VkCommandBufferSubmitInfo cb = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                        .commandBuffer = cmd};
        VkSubmitInfo2 info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                              .commandBufferInfoCount = 1, .pCommandBufferInfos = &cb,
                              .signalSemaphoreInfoCount = 1, .pSignalSemaphoreInfos = &signal};
        RT_VK(vkQueueSubmit2(app->queue, 1, &info, VK_NULL_HANDLE));
        VkSemaphoreWaitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                    .semaphoreCount = 1, .pSemaphores = &app->timeline,
                                    .pValues = &signal.value};
        RT_VK(vkWaitSemaphores(app->device, &wait, UINT64_MAX));
        return rt_ok_status();
    }
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    RT_VK(vkCreateFence(app->device, &fence_info, NULL, &fence));
    VkSubmitInfo info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                         .commandBufferCount = 1, .pCommandBuffers = &cmd};
    VkResult r = vkQueueSubmit(app->queue, 1, &info, fence);
    if (r == VK_SUCCESS)
        r = vkWaitForFences(app->device, 1, &fence, VK_TRUE, UINT64_MAX);
    vkDestroyFence(app->device, fence, NULL);
    RT_VK(r);
    return rt_ok_status();
}

rt_status rt_app_upload_end(struct rt_app *app, VkCommandBuffer cmd)
{
    VkResult r = vkEndCommandBuffer(cmd);
    rt_status st = r == VK_SUCCESS ? upload_submit(app, cmd)
                                   : rt_errorf(RT_ERR_INTERNAL, "vkEndCommandBuffer: %s",
                                               rt_app_result_name(r));
    vkFreeCommandBuffers(app->device, app->upload_pool, 1, &cmd);
    return st;
}
