/* capture/cmd_templates.c — descriptor update templates. The bytes of
 * vkUpdateDescriptorSetWithTemplate are laid out by the template's entries,
 * which vk.xml cannot describe, so the layer remembers every template and
 * records each templated update as the vkUpdateDescriptorSets (or
 * vkCmdPushDescriptorSetKHR) call it stands for, with an annotation saying
 * so before the first such call of each template (one a call was 9,000 of
 * the 9,001 annotations of glxgears through zink, 4% of its raw trace). A
 * replay then needs nothing but the codec. Templates are kept per
 * device (struct capture_device), keyed by handle: two devices' handles may
 * be equal. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "log.h"
#include "trace.h"

struct capture_template {
    VkDescriptorUpdateTemplateType type;
    VkPipelineBindPoint bind_point;
    VkPipelineLayout layout;
    uint32_t set;
    uint32_t entry_count;
    atomic_bool noted; /* its first update was annotated */
    VkDescriptorUpdateTemplateEntry entries[];
};

static struct capture_template *template_of(struct capture_device *dev, VkDescriptorUpdateTemplate handle)
{
    uint64_t value = 0;
    pthread_mutex_lock(&dev->template_lock);
    bool found = rt_hashmap_get(&dev->templates, (uint64_t)(uintptr_t)handle, &value);
    pthread_mutex_unlock(&dev->template_lock);
    return found ? (struct capture_template *)(uintptr_t)value : NULL;
}

static void remember(struct capture_device *dev, VkDescriptorUpdateTemplate handle,
                     const VkDescriptorUpdateTemplateCreateInfo *info)
{
    struct capture_template *t = malloc(sizeof *t + info->descriptorUpdateEntryCount * sizeof t->entries[0]);
    if (!t)
        return;
    *t = (struct capture_template){info->templateType, info->pipelineBindPoint, info->pipelineLayout, info->set,
                                   info->descriptorUpdateEntryCount, false};
    memcpy(t->entries, info->pDescriptorUpdateEntries, info->descriptorUpdateEntryCount * sizeof t->entries[0]);
    pthread_mutex_lock(&dev->template_lock);
    uint64_t old = 0;
    if (rt_hashmap_get(&dev->templates, (uint64_t)(uintptr_t)handle, &old))
        free((void *)(uintptr_t)old); /* a handle the driver reused */
    if (!rt_hashmap_put(&dev->templates, (uint64_t)(uintptr_t)handle, (uint64_t)(uintptr_t)t))
        free(t);
    pthread_mutex_unlock(&dev->template_lock);
}

static void forget(struct capture_device *dev, VkDescriptorUpdateTemplate handle)
{
    uint64_t value = 0;
    pthread_mutex_lock(&dev->template_lock);
    if (rt_hashmap_get(&dev->templates, (uint64_t)(uintptr_t)handle, &value))
        rt_hashmap_remove(&dev->templates, (uint64_t)(uintptr_t)handle);
    pthread_mutex_unlock(&dev->template_lock);
    free((void *)(uintptr_t)value);
}

void capture_forget_templates(struct capture_device *dev)
{
    struct rt_hashmap_iter it;
    rt_hashmap_iter_init(&it, &dev->templates);
    uint64_t value = 0;
    while (rt_hashmap_iter_next(&it, NULL, &value))
        free((void *)(uintptr_t)value);
    rt_hashmap_finish(&dev->templates);
}

static VkResult create_template(PFN_vkCreateDescriptorUpdateTemplate next, enum rt_vk_cmd cmd, VkDevice device,
                                const VkDescriptorUpdateTemplateCreateInfo *info, const VkAllocationCallbacks *allocator,
                                VkDescriptorUpdateTemplate *template_out)
{
    VkResult result = next(device, info, allocator, template_out);
    if (result == VK_SUCCESS)
        remember(capture_device_of(device), *template_out, info);
    struct rt_vk_args_vkCreateDescriptorUpdateTemplate args = {device, info, allocator, template_out, result};
    capture_record_call(cmd, &args, (uint64_t)(int64_t)result);
    return result;
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateDescriptorUpdateTemplate(
    VkDevice device, const VkDescriptorUpdateTemplateCreateInfo *info, const VkAllocationCallbacks *allocator,
    VkDescriptorUpdateTemplate *template_out)
{
    return create_template(capture_device_of(device)->dispatch.vkCreateDescriptorUpdateTemplate,
                           RT_VK_CMD_vkCreateDescriptorUpdateTemplate, device, info, allocator, template_out);
}

VKAPI_ATTR VkResult VKAPI_CALL capture_vkCreateDescriptorUpdateTemplateKHR(
    VkDevice device, const VkDescriptorUpdateTemplateCreateInfo *info, const VkAllocationCallbacks *allocator,
    VkDescriptorUpdateTemplate *template_out)
{
    return create_template(capture_device_of(device)->dispatch.vkCreateDescriptorUpdateTemplateKHR,
                           RT_VK_CMD_vkCreateDescriptorUpdateTemplateKHR, device, info, allocator, template_out);
}

static void destroy_template(PFN_vkDestroyDescriptorUpdateTemplate next, enum rt_vk_cmd cmd, VkDevice device,
                             VkDescriptorUpdateTemplate handle, const VkAllocationCallbacks *allocator)
{
    next(device, handle, allocator);
    forget(capture_device_of(device), handle);
    struct rt_vk_args_vkDestroyDescriptorUpdateTemplate args = {device, handle, allocator};
    capture_record_call(cmd, &args, 0);
}

VKAPI_ATTR void VKAPI_CALL capture_vkDestroyDescriptorUpdateTemplate(VkDevice device, VkDescriptorUpdateTemplate handle,
                                                                    const VkAllocationCallbacks *allocator)
{
    destroy_template(capture_device_of(device)->dispatch.vkDestroyDescriptorUpdateTemplate,
                     RT_VK_CMD_vkDestroyDescriptorUpdateTemplate, device, handle, allocator);
}

VKAPI_ATTR void VKAPI_CALL capture_vkDestroyDescriptorUpdateTemplateKHR(VkDevice device,
                                                                       VkDescriptorUpdateTemplate handle,
                                                                       const VkAllocationCallbacks *allocator)
{
    destroy_template(capture_device_of(device)->dispatch.vkDestroyDescriptorUpdateTemplateKHR,
                     RT_VK_CMD_vkDestroyDescriptorUpdateTemplateKHR, device, handle, allocator);
}

/* Gathers COUNT elements of SIZE bytes, STRIDE apart, into one array. */
static void *gather(struct rt_arena *arena, const uint8_t *from, uint32_t count, size_t size, size_t stride)
{
    uint8_t *to = rt_arena_alloc(arena, (size_t)count * size + 1, 16);
    for (uint32_t i = 0; to && i < count; i++)
        memcpy(to + i * size, from + i * stride, size);
    return to;
}

static bool fill_write(struct rt_arena *arena, const VkDescriptorUpdateTemplateEntry *e, const uint8_t *data,
                       VkWriteDescriptorSet *w)
{
    const uint8_t *at = data + e->offset;
    switch (e->descriptorType) {
    case VK_DESCRIPTOR_TYPE_SAMPLER:
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
    case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
        w->pImageInfo = gather(arena, at, e->descriptorCount, sizeof(VkDescriptorImageInfo), e->stride);
        return w->pImageInfo != NULL;
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
        w->pBufferInfo = gather(arena, at, e->descriptorCount, sizeof(VkDescriptorBufferInfo), e->stride);
        return w->pBufferInfo != NULL;
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
        w->pTexelBufferView = gather(arena, at, e->descriptorCount, sizeof(VkBufferView), e->stride);
        return w->pTexelBufferView != NULL;
    case VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK: {
        /* descriptorCount is a byte count here, the bytes contiguous. */
        VkWriteDescriptorSetInlineUniformBlock *block = rt_arena_calloc(arena, 1, sizeof *block, 16);
        if (!block)
            return false;
        *block = (VkWriteDescriptorSetInlineUniformBlock){
            VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_INLINE_UNIFORM_BLOCK, NULL, e->descriptorCount, at};
        w->pNext = block;
        return true;
    }
    case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR: {
        VkWriteDescriptorSetAccelerationStructureKHR *as = rt_arena_calloc(arena, 1, sizeof *as, 16);
        if (!as)
            return false;
        as->sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR;
        as->accelerationStructureCount = e->descriptorCount;
        as->pAccelerationStructures = gather(arena, at, e->descriptorCount, sizeof(VkAccelerationStructureKHR),
                                             e->stride);
        w->pNext = as;
        return as->pAccelerationStructures != NULL;
    }
    default:
        return false;
    }
}

/* The writes a templated update stands for; NULL if a type is unknown. */
static VkWriteDescriptorSet *writes_of(struct rt_arena *arena, const struct capture_template *t, VkDescriptorSet set,
                                       const void *data)
{
    VkWriteDescriptorSet *writes = rt_arena_calloc(arena, t->entry_count + 1, sizeof *writes, 16);
    for (uint32_t i = 0; writes && i < t->entry_count; i++) {
        const VkDescriptorUpdateTemplateEntry *e = &t->entries[i];
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                           .dstBinding = e->dstBinding, .dstArrayElement = e->dstArrayElement,
                                           .descriptorCount = e->descriptorCount, .descriptorType = e->descriptorType};
        if (!fill_write(arena, e, data, &writes[i]))
            return NULL;
    }
    return writes;
}

static void record_update(VkDevice device, VkDescriptorSet set, VkDescriptorUpdateTemplate handle, const void *data,
                          const char *name)
{
    struct capture_template *t = template_of(capture_device_of(device), handle);
    struct capture_call_arena scratch;
    struct rt_arena *arena = capture_call_arena_init(&scratch);
    VkWriteDescriptorSet *writes = t ? writes_of(arena, t, set, data) : NULL;
    if (writes) {
        struct rt_vk_args_vkUpdateDescriptorSets args = {device, t->entry_count, writes, 0, NULL};
        char note[128];
        snprintf(note, sizeof note, "%s recorded as vkUpdateDescriptorSets", name);
        if (!atomic_exchange(&t->noted, true))
            capture_record_annotation(RT_TRACE_ANNOTATION_NOTE, note);
        capture_record_call(RT_VK_CMD_vkUpdateDescriptorSets, &args, 0);
    } else {
        rt_log(RT_LOG_WARN, "capture: %s with an unknown template or descriptor type cannot be recorded", name);
    }
    rt_arena_finish(arena);
}

VKAPI_ATTR void VKAPI_CALL capture_vkUpdateDescriptorSetWithTemplate(VkDevice device, VkDescriptorSet set,
                                                                    VkDescriptorUpdateTemplate handle, const void *data)
{
    capture_device_of(device)->dispatch.vkUpdateDescriptorSetWithTemplate(device, set, handle, data);
    record_update(device, set, handle, data, "vkUpdateDescriptorSetWithTemplate");
}

VKAPI_ATTR void VKAPI_CALL capture_vkUpdateDescriptorSetWithTemplateKHR(VkDevice device, VkDescriptorSet set,
                                                                       VkDescriptorUpdateTemplate handle,
                                                                       const void *data)
{
    capture_device_of(device)->dispatch.vkUpdateDescriptorSetWithTemplateKHR(device, set, handle, data);
    record_update(device, set, handle, data, "vkUpdateDescriptorSetWithTemplateKHR");
}

VKAPI_ATTR void VKAPI_CALL capture_vkCmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer cmd,
                                                                        VkDescriptorUpdateTemplate handle,
                                                                        VkPipelineLayout layout, uint32_t set,
                                                                        const void *data)
{
    struct capture_device *dev = capture_device_of(cmd);
    dev->dispatch.vkCmdPushDescriptorSetWithTemplateKHR(cmd, handle, layout, set, data);
    struct capture_template *t = template_of(dev, handle);
    struct capture_call_arena scratch;
    struct rt_arena *arena = capture_call_arena_init(&scratch);
    VkWriteDescriptorSet *writes = t ? writes_of(arena, t, VK_NULL_HANDLE, data) : NULL;
    if (writes) {
        struct rt_vk_args_vkCmdPushDescriptorSetKHR args = {cmd, t->bind_point, layout, set, t->entry_count, writes};
        if (!atomic_exchange(&t->noted, true))
            capture_record_annotation(RT_TRACE_ANNOTATION_NOTE,
                                      "vkCmdPushDescriptorSetWithTemplateKHR recorded as vkCmdPushDescriptorSetKHR");
        capture_record_call(RT_VK_CMD_vkCmdPushDescriptorSetKHR, &args, 0);
    } else {
        rt_log(RT_LOG_WARN, "capture: vkCmdPushDescriptorSetWithTemplateKHR with an unknown template cannot be recorded");
    }
    rt_arena_finish(arena);
}
