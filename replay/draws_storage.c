/* replay/draws_storage.c — what a draw or dispatch may write besides its
 * attachments: the storage images and storage buffers of the descriptor sets
 * bound at its bind point. vkUpdateDescriptorSets' writes and copies are
 * followed per set (storage descriptors only; update templates and push
 * descriptors are not); after the draw each storage image is copied out as
 * role `storageS.B` (PNG where it fits, as attachments), and with
 * --dump-buffers each storage buffer's range as `bufferS.B` (raw .bin + .json).
 * Whether the shader writes a binding is not read from its SPIR-V: read-only
 * storage bindings are saved too. Also the buffer a copy, fill or update
 * wrote (role dst, --dump-buffers). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "draws.h"

static uint64_t key(const void *handle) { return (uint64_t)(uintptr_t)handle; }

static void *lookup(const struct rt_hashmap *m, uint64_t k)
{
    uint64_t v = 0;
    return rt_hashmap_get(m, k, &v) ? (void *)(uintptr_t)v : NULL;
}

static rt_status oom(struct replay *r)
{
    return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
}

static bool dumping(const struct replay *r) { return r->draws->opts && r->draws->opts->frame; }

rt_status replay_draws_create_buffer(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateBuffer *a = args;
    r->draws->buffer_captured = a->pBuffer ? key(*a->pBuffer) : 0;
    VkBufferCreateInfo *info = (VkBufferCreateInfo *)a->pCreateInfo; /* decoded: ours to change */
    if (dumping(r) && r->draws->opts->buffers && info)
        info->usage |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT; /* so that what a draw wrote can be copied out */
    return rt_ok_status();
}

rt_status replay_draws_created_buffer(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateBuffer *a = args;
    struct draw_buffer *b = calloc(1, sizeof *b);
    uint64_t old = 0;
    if (!b)
        return oom(r);
    *b = (struct draw_buffer){a->pCreateInfo->size, a->pCreateInfo->usage, r->draws->buffer_captured};
    if (rt_hashmap_get(&r->draws->buffers, key(*a->pBuffer), &old))
        free((void *)(uintptr_t)old);
    if (!rt_hashmap_put(&r->draws->buffers, key(*a->pBuffer), (uint64_t)(uintptr_t)b)) {
        free(b);
        return oom(r);
    }
    return rt_ok_status();
}

rt_status replay_draws_destroyed_buffer(struct replay *r, void *args)
{
    uint64_t k = key(((struct rt_vk_args_vkDestroyBuffer *)args)->buffer);
    free(lookup(&r->draws->buffers, k));
    rt_hashmap_remove(&r->draws->buffers, k);
    return rt_ok_status();
}

static struct draw_set *set_of(struct replay *r, VkDescriptorSet set, bool fresh)
{
    struct draw_set *s = lookup(&r->draws->sets, key(set));
    if (s && fresh)
        s->count = 0;
    if (!s && (s = calloc(1, sizeof *s)) && !rt_hashmap_put(&r->draws->sets, key(set), (uint64_t)(uintptr_t)s)) {
        free(s);
        s = NULL;
    }
    return s;
}

rt_status replay_draws_created_set_layout(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateDescriptorSetLayout *a = args;
    struct draw_set *l = calloc(1, sizeof *l);
    uint64_t old = 0;
    if (!l)
        return oom(r);
    for (uint32_t i = 0; i < a->pCreateInfo->bindingCount && l->binding_count < DRAW_MAX_DESCRIPTORS; i++) {
        l->bindings[l->binding_count].binding = a->pCreateInfo->pBindings[i].binding;
        l->bindings[l->binding_count++].count = a->pCreateInfo->pBindings[i].descriptorCount;
    }
    if (rt_hashmap_get(&r->draws->layouts, key(*a->pSetLayout), &old))
        free((void *)(uintptr_t)old);
    if (!rt_hashmap_put(&r->draws->layouts, key(*a->pSetLayout), (uint64_t)(uintptr_t)l)) {
        free(l);
        return oom(r);
    }
    return rt_ok_status();
}

/* A new set holds nothing (its handle may be a freed set's); its layout's bindings are kept. */
rt_status replay_draws_allocated_sets(struct replay *r, void *args)
{
    struct rt_vk_args_vkAllocateDescriptorSets *a = args;
    for (uint32_t i = 0; a->pAllocateInfo && i < a->pAllocateInfo->descriptorSetCount; i++) {
        struct draw_set *s = set_of(r, a->pDescriptorSets[i], true);
        if (!s)
            return oom(r);
        const struct draw_set *l = lookup(&r->draws->layouts, key(a->pAllocateInfo->pSetLayouts[i]));
        s->binding_count = l ? l->binding_count : 0;
        if (l)
            memcpy(s->bindings, l->bindings, sizeof s->bindings);
    }
    return rt_ok_status();
}

/* BINDING's descriptor count in SET's layout, or UINT32_MAX where the layout is not known. */
static uint32_t binding_size(const struct draw_set *set, uint32_t binding)
{
    for (uint32_t i = 0; i < set->binding_count; i++)
        if (set->bindings[i].binding == binding)
            return set->bindings[i].count;
    return set->binding_count ? 0 : UINT32_MAX;
}

/* Element E of a write at BINDING: past that binding's end it goes on in the next ones. */
static void place(const struct draw_set *set, uint32_t *binding, uint32_t *element)
{
    for (uint32_t guard = 0; guard < 64; guard++) {
        uint32_t n = binding_size(set, *binding);
        if (*element < n)
            return;
        *element -= n;
        ++*binding;
    }
}

static bool storage(VkDescriptorType t)
{
    return t == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
           t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
}

/* SET's slot for BINDING[ELEMENT], made when missing (NULL when the set is full). */
static struct draw_descriptor *slot(struct draw_set *set, uint32_t binding, uint32_t element)
{
    for (uint32_t i = 0; i < set->count; i++)
        if (set->d[i].binding == binding && set->d[i].element == element)
            return &set->d[i];
    if (set->count == DRAW_MAX_DESCRIPTORS)
        return NULL;
    struct draw_descriptor *d = &set->d[set->count++];
    *d = (struct draw_descriptor){.binding = binding, .element = element};
    return d;
}

static void write_one(struct draw_set *set, const VkWriteDescriptorSet *w, uint32_t j)
{
    uint32_t binding = w->dstBinding, element = w->dstArrayElement + j;
    place(set, &binding, &element);
    struct draw_descriptor *d = slot(set, binding, element);
    if (!d)
        return;
    d->type = w->descriptorType;
    if (w->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE && w->pImageInfo) {
        d->view = w->pImageInfo[j].imageView;
        d->layout = w->pImageInfo[j].imageLayout;
    } else if (storage(w->descriptorType) && w->pBufferInfo) {
        d->buffer = w->pBufferInfo[j].buffer;
        d->offset = w->pBufferInfo[j].offset;
        d->range = w->pBufferInfo[j].range;
    } else {
        d->type = VK_DESCRIPTOR_TYPE_MAX_ENUM; /* overwritten by another kind: nothing to save */
    }
}

rt_status replay_draws_updated_sets(struct replay *r, void *args)
{
    struct rt_vk_args_vkUpdateDescriptorSets *a = args;
    for (uint32_t i = 0; a->pDescriptorWrites && i < a->descriptorWriteCount; i++) {
        const VkWriteDescriptorSet *w = &a->pDescriptorWrites[i];
        struct draw_set *set = set_of(r, w->dstSet, false);
        if (!set)
            return oom(r);
        for (uint32_t j = 0; j < w->descriptorCount; j++)
            if (storage(w->descriptorType) || set->count) /* a storage slot may be overwritten */
                write_one(set, w, j);
    }
    for (uint32_t i = 0; a->pDescriptorCopies && i < a->descriptorCopyCount; i++) {
        const VkCopyDescriptorSet *c = &a->pDescriptorCopies[i];
        struct draw_set *from = set_of(r, c->srcSet, false), *to = set_of(r, c->dstSet, false);
        if (!from || !to)
            return oom(r);
        for (uint32_t j = 0; j < c->descriptorCount; j++) {
            uint32_t sb = c->srcBinding, se = c->srcArrayElement + j, db = c->dstBinding, de = c->dstArrayElement + j;
            place(from, &sb, &se);
            place(to, &db, &de);
            for (uint32_t k = 0; k < from->count; k++)
                if (from->d[k].binding == sb && from->d[k].element == se) {
                    struct draw_descriptor copy = from->d[k], *d = slot(to, db, de);
                    if (d)
                        *d = (struct draw_descriptor){db, de, copy.type, copy.view, copy.layout, copy.buffer,
                                                      copy.offset, copy.range};
                }
        }
    }
    return rt_ok_status();
}

rt_status replay_draws_pushed_set(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdPushDescriptorSetKHR *a = args;
    struct draw_cmdbuf *cb = replay_draws_cmdbuf(r, a->commandBuffer, true);
    if (!cb)
        return oom(r);
    if (a->pipelineBindPoint > VK_PIPELINE_BIND_POINT_COMPUTE || a->set >= DRAW_MAX_SETS)
        return rt_ok_status();
    struct draw_set **slot_of = &cb->pushed[a->pipelineBindPoint][a->set];
    if (!*slot_of && !(*slot_of = calloc(1, sizeof **slot_of)))
        return oom(r);
    cb->sets[a->pipelineBindPoint][a->set] = 0; /* what a push replaces */
    for (uint32_t i = 0; a->pDescriptorWrites && i < a->descriptorWriteCount; i++) {
        const VkWriteDescriptorSet *w = &a->pDescriptorWrites[i];
        for (uint32_t j = 0; j < w->descriptorCount; j++) /* bindings not written keep what was pushed */
            if (storage(w->descriptorType) || (*slot_of)->count)
                write_one(*slot_of, w, j);
    }
    return rt_ok_status();
}

void replay_draws_forget_pushed(struct draw_cmdbuf *cb)
{
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < DRAW_MAX_SETS; i++) {
            free(cb->pushed[p][i]);
            cb->pushed[p][i] = NULL;
        }
}

static rt_status dump_descriptor(struct replay *r, struct draw_pending *p, const struct replay_device *dev, int set,
                                 const struct draw_descriptor *d)
{
    char role[32];
    if (d->type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE && d->view) {
        const struct draw_view *v = lookup(&r->draws->views, key(d->view));
        snprintf(role, sizeof role, d->element ? "storage%d.%u.%u" : "storage%d.%u", set, d->binding, d->element);
        if (!v)
            return replay_draws_not_saved(r, p->entry, role, "a view replay does not know");
        const struct draw_image *im = lookup(&r->draws->images, key(v->image));
        uint32_t w = im ? im->extent.width >> v->mip : 0, h = im ? im->extent.height >> v->mip : 0;
        struct draw_target t = {.image = v->image, .format = v->format, .mip = v->mip, .layer = v->layer,
                                .width = w ? w : 1, .height = h ? h : 1, .layout = d->layout, .role = role};
        return replay_draws_copy_out(r, p, dev, &t);
    }
    if ((d->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || d->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC) &&
        d->buffer) {
        snprintf(role, sizeof role, d->element ? "buffer%d.%u.%u" : "buffer%d.%u", set, d->binding, d->element);
        if (r->draws->opts->buffers)
            return replay_draws_copy_buffer(r, p, dev, d->buffer, d->offset, d->range, role, set, (int)d->binding);
        if (p->cb->kind == DRAW_OUTSIDE) /* a dispatch: say why it saved nothing (draws have their attachments) */
            return replay_draws_not_saved(r, p->entry, role, "a storage buffer (saved with --dump-buffers)");
    }
    return rt_ok_status();
}

rt_status replay_draws_dump_storage(struct replay *r, struct draw_pending *p, const struct replay_device *dev,
                                    int point)
{
    rt_status s = rt_ok_status();
    size_t before = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(p->entry, "not_saved")) + p->cb->copy_count;
    for (int i = 0; i < DRAW_MAX_SETS && rt_ok(&s); i++) {
        uint64_t live = 0;
        const struct draw_set *set = p->cb->pushed[point][i];
        if (!set && (!p->cb->sets[point][i] ||
                     !rt_typed_map_get(&r->handles, VK_OBJECT_TYPE_DESCRIPTOR_SET, p->cb->sets[point][i], &live)))
            continue;
        if (!set)
            set = lookup(&r->draws->sets, live);
        for (uint32_t k = 0; set && k < set->count && rt_ok(&s); k++)
            s = dump_descriptor(r, p, dev, i, &set->d[k]);
    }
    size_t after = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(p->entry, "not_saved")) + p->cb->copy_count;
    if (rt_ok(&s) && point == 1 && after == before)
        s = replay_draws_not_saved(r, p->entry, "dst", "no storage image or buffer this build follows");
    return s;
}

/* The buffer a copy, fill or update writes, and where it is in its arguments. */
struct buffer_range {
    VkBuffer buffer;
    VkDeviceSize offset, size;
};
typedef bool (*buffer_dst_fn)(const void *args, struct buffer_range *out);

static bool fill_dst(const void *args, struct buffer_range *out)
{
    const struct rt_vk_args_vkCmdFillBuffer *a = args;
    *out = (struct buffer_range){a->dstBuffer, a->dstOffset, a->size};
    return true;
}

static bool update_dst(const void *args, struct buffer_range *out)
{
    const struct rt_vk_args_vkCmdUpdateBuffer *a = args;
    *out = (struct buffer_range){a->dstBuffer, a->dstOffset, a->dataSize};
    return true;
}

static bool copy_dst(const void *args, struct buffer_range *out)
{
    out->buffer = ((const struct rt_vk_args_vkCmdCopyBuffer *)args)->dstBuffer;
    return true;
}

static bool image_to_buffer_dst(const void *args, struct buffer_range *out)
{
    out->buffer = ((const struct rt_vk_args_vkCmdCopyImageToBuffer *)args)->dstBuffer;
    return true;
}

static bool copy2_dst(const void *args, struct buffer_range *out)
{
    const VkCopyBufferInfo2 *i = ((const struct rt_vk_args_vkCmdCopyBuffer2 *)args)->pCopyBufferInfo;
    return i && (out->buffer = i->dstBuffer);
}

static bool image_to_buffer2_dst(const void *args, struct buffer_range *out)
{
    const VkCopyImageToBufferInfo2 *i = ((const struct rt_vk_args_vkCmdCopyImageToBuffer2 *)args)->pCopyImageToBufferInfo;
    return i && (out->buffer = i->dstBuffer);
}

static const buffer_dst_fn buffer_dsts[RT_VK_CMD_COUNT] = {
    [RT_VK_CMD_vkCmdFillBuffer] = fill_dst,
    [RT_VK_CMD_vkCmdUpdateBuffer] = update_dst,
    [RT_VK_CMD_vkCmdCopyBuffer] = copy_dst,
    [RT_VK_CMD_vkCmdCopyImageToBuffer] = image_to_buffer_dst,
    [RT_VK_CMD_vkCmdCopyBuffer2] = copy2_dst,
    [RT_VK_CMD_vkCmdCopyBuffer2KHR] = copy2_dst,
    [RT_VK_CMD_vkCmdCopyImageToBuffer2] = image_to_buffer2_dst,
    [RT_VK_CMD_vkCmdCopyImageToBuffer2KHR] = image_to_buffer2_dst,
};

bool replay_draws_buffer_dst(enum rt_vk_cmd cmd, const void *args, VkBuffer *buffer, VkDeviceSize *offset,
                             VkDeviceSize *size)
{
    struct buffer_range b = {VK_NULL_HANDLE, 0, VK_WHOLE_SIZE};
    if (!buffer_dsts[cmd] || !buffer_dsts[cmd](args, &b) || !b.buffer)
        return false;
    *buffer = b.buffer, *offset = b.offset, *size = b.size;
    return true;
}
