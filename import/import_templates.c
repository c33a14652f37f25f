/*
 * import/import_templates.c — descriptor update templates, the importer's one
 * hand-written call mapping (gen/gfxr/gfxr_rules.py TEMPLATES says why):
 * GFXReconstruct writes a template update's pData as the descriptors it
 * names, grouped by kind (every VkDescriptorImageInfo, then every
 * VkDescriptorBufferInfo, then every VkBufferView, each group in the
 * template's entry order), so the importer writes the vkUpdateDescriptorSets
 * or vkCmdPushDescriptorSetKHR the update stands for, as retrace's own
 * capture does (capture/cmd_templates.c). The templates' entries come from
 * their vkCreateDescriptorUpdateTemplate calls.
 */
#include <stdlib.h>
#include <string.h>

#include "gfxr_codec.h"
#include "import_internal.h"

enum kind { KIND_IMAGE, KIND_BUFFER, KIND_TEXEL, KIND_OTHER };

static enum kind kind_of(VkDescriptorType t)
{
    switch (t) {
    case VK_DESCRIPTOR_TYPE_SAMPLER:
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
    case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT: return KIND_IMAGE;
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC: return KIND_BUFFER;
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: return KIND_TEXEL;
    default: return KIND_OTHER;
    }
}

void import_templates_finish(struct importer *im)
{
    for (size_t i = 0; i < im->template_count; i++)
        free(im->templates[i].entries);
    free(im->templates);
    rt_hashmap_finish(&im->template_ids);
}

/* After a vkCreateDescriptorUpdateTemplate(KHR): keep its entries. */
rt_status import_template_created(struct importer *im, const struct rt_vk_args_vkCreateDescriptorUpdateTemplate *a)
{
    const VkDescriptorUpdateTemplateCreateInfo *ci = a->pCreateInfo;
    if (a->result != VK_SUCCESS || !ci || !a->pDescriptorUpdateTemplate)
        return rt_ok_status();
    if (im->template_count == im->template_cap) {
        size_t cap = im->template_cap ? 2 * im->template_cap : 16;
        struct import_template *t = realloc(im->templates, cap * sizeof *t);
        if (!t)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        im->templates = t;
        im->template_cap = cap;
    }
    struct import_template *t = &im->templates[im->template_count];
    *t = (struct import_template){.count = ci->descriptorUpdateEntryCount, .bind_point = ci->pipelineBindPoint};
    t->entries = calloc(t->count ? t->count : 1, sizeof *t->entries);
    if (!t->entries)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (uint32_t i = 0; i < t->count && ci->pDescriptorUpdateEntries; i++)
        t->entries[i] = ci->pDescriptorUpdateEntries[i];
    if (!rt_hashmap_put(&im->template_ids, (uint64_t)(uintptr_t)*a->pDescriptorUpdateTemplate, im->template_count))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    im->template_count++;
    return rt_ok_status();
}

struct groups {
    uint64_t count[3], next[3];
    const uint8_t *at[3]; /* where each group starts in the call's bytes */
};

static const size_t elem_size[3] = {20, 24, 8}; /* sampler, view, layout | buffer, offset, range | view */

static rt_status read_groups(struct rt_dec *d, struct groups *g)
{
    uint32_t attr = rt_dec_u32(d);
    if (attr & 0x40)
        (void)rt_dec_u64(d);
    for (int k = 0; k < 3; k++)
        g->count[k] = rt_dec_u64(d);
    if (d->failed || (attr & 1))
        return rt_errorf(RT_ERR_BAD_INPUT, "template data: truncated or NULL");
    for (int k = 0; k < 3; k++) {
        if (!rt_dec_check_count(d, g->count[k], elem_size[k]))
            return rt_errorf(RT_ERR_BAD_INPUT, "template data: %" PRIu64 " descriptors past its end", g->count[k]);
        g->at[k] = rt_dec_bytes(d, (size_t)g->count[k] * elem_size[k]);
    }
    if (rt_dec_left(d))
        return rt_errorf(RT_ERR_BAD_INPUT, "template data: %zu bytes of acceleration structures or inline uniform "
                         "blocks are not imported", rt_dec_left(d));
    return rt_ok_status();
}

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* One VkWriteDescriptorSet for entry e, its descriptors taken from the next
 * ones of its kind; the ignored handles of an image descriptor become 0, as
 * for vkUpdateDescriptorSets (gfxr_decode.c). */
static rt_status fill_write(struct importer *im, const VkDescriptorUpdateTemplateEntry *e, struct groups *g,
                            VkDescriptorSet set, VkWriteDescriptorSet *w)
{
    enum kind k = kind_of(e->descriptorType);
    if (k == KIND_OTHER)
        return rt_errorf(RT_ERR_BAD_INPUT, "template entry of descriptor type %d is not imported", e->descriptorType);
    if (e->descriptorCount > g->count[k] - g->next[k])
        return rt_errorf(RT_ERR_BAD_INPUT, "template data holds fewer descriptors than its template names");
    *w = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, e->dstBinding,
                                e->dstArrayElement, e->descriptorCount, e->descriptorType, NULL, NULL, NULL};
    size_t n = e->descriptorCount;
    const uint8_t *src = g->at[k] + g->next[k] * elem_size[k];
    g->next[k] += n;
    void *out = rt_arena_calloc(&im->arena, n ? n : 1, k == KIND_IMAGE ? sizeof(VkDescriptorImageInfo)
                                : k == KIND_BUFFER ? sizeof(VkDescriptorBufferInfo) : sizeof(VkBufferView), 16);
    if (!out)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    bool sampler = e->descriptorType == VK_DESCRIPTOR_TYPE_SAMPLER, combined =
        e->descriptorType == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    for (size_t i = 0; i < n; i++, src += elem_size[k]) {
        if (k == KIND_IMAGE) {
            VkDescriptorImageInfo *ii = (VkDescriptorImageInfo *)out + i;
            uint32_t layout;
            memcpy(&layout, src + 16, 4);
            *ii = (VkDescriptorImageInfo){(VkSampler)(uintptr_t)(sampler || combined ? load64(src) : 0),
                                          (VkImageView)(uintptr_t)(sampler ? 0 : load64(src + 8)),
                                          (VkImageLayout)layout};
        } else if (k == KIND_BUFFER) {
            *((VkDescriptorBufferInfo *)out + i) = (VkDescriptorBufferInfo){
                (VkBuffer)(uintptr_t)load64(src), load64(src + 8), load64(src + 16)};
        } else {
            ((VkBufferView *)out)[i] = (VkBufferView)(uintptr_t)load64(src);
        }
    }
    w->pImageInfo = k == KIND_IMAGE ? out : NULL;
    w->pBufferInfo = k == KIND_BUFFER ? out : NULL;
    w->pTexelBufferView = k == KIND_TEXEL ? out : NULL;
    return rt_ok_status();
}

static rt_status make_writes(struct importer *im, uint64_t template_id, VkDescriptorSet set, struct rt_dec *d,
                             VkWriteDescriptorSet **writes, uint32_t *count, VkPipelineBindPoint *bind_point)
{
    uint64_t index;
    if (!rt_hashmap_get(&im->template_ids, template_id, &index))
        return rt_errorf(RT_ERR_BAD_INPUT, "update with template %" PRIu64 ", which no call created", template_id);
    const struct import_template *t = &im->templates[index];
    struct groups g = {0};
    RT_TRY(read_groups(d, &g));
    *writes = rt_arena_calloc(&im->arena, t->count ? t->count : 1, sizeof **writes, 16);
    if (!*writes)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    for (uint32_t i = 0; i < t->count; i++)
        RT_TRY(fill_write(im, &t->entries[i], &g, set, &(*writes)[i]));
    *count = t->count;
    *bind_point = t->bind_point;
    return rt_ok_status();
}

rt_status import_template_call(struct importer *im, enum rt_vk_cmd cmd, uint32_t thread, struct rt_dec *d)
{
    VkWriteDescriptorSet *writes = NULL;
    uint32_t count = 0;
    VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;
    /* a push records into a command buffer, its first parameter */
    bool push = rt_vk_commands[cmd].args->members[0].aux == VK_OBJECT_TYPE_COMMAND_BUFFER;
    uint64_t first = rt_dec_u64(d), template_id, set = 0, layout = 0;
    if (push) {
        template_id = rt_dec_u64(d);
        layout = rt_dec_u64(d);
        set = rt_dec_u32(d);
    } else {
        set = rt_dec_u64(d);
        template_id = rt_dec_u64(d);
    }
    if (d->failed)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: truncated", rt_vk_cmd_name(cmd));
    RT_TRY(rt_status_wrap(make_writes(im, template_id, push ? VK_NULL_HANDLE : (VkDescriptorSet)(uintptr_t)set, d,
                                      &writes, &count, &bind_point), "%s", rt_vk_cmd_name(cmd)));
    if (push) {
        struct rt_vk_args_vkCmdPushDescriptorSetKHR a = {(VkCommandBuffer)(uintptr_t)first, bind_point,
                                                         (VkPipelineLayout)(uintptr_t)layout, (uint32_t)set, count,
                                                         writes};
        return import_write_call(im, RT_VK_CMD_vkCmdPushDescriptorSetKHR, thread, &a);
    }
    struct rt_vk_args_vkUpdateDescriptorSets a = {(VkDevice)(uintptr_t)first, count, writes, 0, NULL};
    return import_write_call(im, RT_VK_CMD_vkUpdateDescriptorSets, thread, &a);
}
