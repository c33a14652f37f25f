/* replay/draws.c — the draw counter and what dumps must know (draws.h).
 * The commands followed here are named in two tables indexed by command
 * (before: captured handles; after: live ones), not compared by name; what
 * counts as a draw is gen/'s DRAWS category. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "draws.h"
#include "log.h"

rt_status rt_replay_config_set_skip_draws(struct rt_replay_config *config, const char *spec)
{
    unsigned long long frame = 0, first = 0, last = 0;
    int used = 0;
    int n = sscanf(spec, "%llu:%llu%n-%llu%n", &frame, &first, &used, &last, &used);
    if ((n != 2 && n != 3) || spec[used] || !frame || !first || first > UINT32_MAX || last > UINT32_MAX ||
        strchr(spec, '+') || strchr(spec, ' ') || (n == 3 && last < first))
        return rt_errorf(RT_ERR_USAGE, "--skip-draws '%s': want FRAME:N or FRAME:N-M (from 1, M >= N)", spec);
    config->skip_draws = (struct rt_skip_draws){frame, (uint32_t)first, n == 3 ? (uint32_t)last : (uint32_t)first};
    return rt_ok_status();
}

static uint64_t key(const void *handle) { return (uint64_t)(uintptr_t)handle; }

static void *lookup(const struct rt_hashmap *m, uint64_t k)
{
    uint64_t v = 0;
    return rt_hashmap_get(m, k, &v) ? (void *)(uintptr_t)v : NULL;
}

/* A fresh zeroed record of SIZE under K, replacing (and freeing) an old one. */
static void *put_new(struct rt_hashmap *m, uint64_t k, size_t size)
{
    free(lookup(m, k));
    void *rec = calloc(1, size);
    if (rec && !rt_hashmap_put(m, k, (uint64_t)(uintptr_t)rec)) {
        free(rec);
        return NULL;
    }
    return rec;
}

static void drop(struct rt_hashmap *m, uint64_t k)
{
    free(lookup(m, k));
    rt_hashmap_remove(m, k);
}

static rt_status oom(struct replay *r)
{
    return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
}

static bool dumping(const struct replay *r)
{
    return r->draws && r->draws->opts && r->draws->opts->frame;
}

static bool dump_frame(const struct replay *r) { return dumping(r) && r->frame + 1 == r->draws->opts->frame; }

rt_status replay_draws_begin(struct replay *r)
{
    const struct rt_replay_draw_options *o = r->opts->draws;
    bool skip = r->opts->config && r->opts->config->skip_draws.frame;
    if (!skip && !(o && o->frame))
        return rt_ok_status();
    struct replay_draws *d = calloc(1, sizeof *d);
    if (!d)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->draws = d;
    d->opts = o;
    if (skip)
        d->skip = r->opts->config->skip_draws;
    struct rt_hashmap *maps[] = {&d->images, &d->views, &d->framebuffers, &d->render_passes, &d->cmdbufs,
                                 &d->pipelines, &d->modules, &d->swapchains, &d->dump_early, &d->skip_early,
                                 &d->buffers, &d->sets, &d->layouts, &d->pipeline_numbers};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        rt_hashmap_init(maps[i]);
    d->next_stand_in = 0xd7a3000000000000ull;
    rt_arena_init(&d->mirror_arena, 0, (size_t)1 << 28);
    if (skip)
        RT_TRY(replay_draws_scan(r, d->skip.frame, &d->skip_early));
    if (!dumping(r))
        return rt_ok_status();
    RT_TRY(replay_draws_scan(r, o->frame, &d->dump_early));
    if (mkdir(o->dir, 0777) && errno != EEXIST)
        return rt_errorf(RT_ERR_USAGE, "--dump-dir %s: %s", o->dir, strerror(errno));
    d->index = cJSON_CreateObject();
    if (!d->index || !cJSON_AddNumberToObject(d->index, "frame", (double)o->frame) ||
        !cJSON_AddArrayToObject(d->index, "draws") || !cJSON_AddArrayToObject(d->index, "executed"))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    return rt_ok_status();
}

struct draw_cmdbuf *replay_draws_cmdbuf(struct replay *r, VkCommandBuffer live, bool create)
{
    struct draw_cmdbuf *cb = lookup(&r->draws->cmdbufs, key(live));
    if (!cb && create && (cb = put_new(&r->draws->cmdbufs, key(live), sizeof *cb)))
        cb->handle = live;
    return cb;
}

rt_status replay_draws_runs(struct replay *r, struct draw_cmdbuf *cb, uint32_t number)
{
    if (cb->run_count == cb->run_capacity) {
        size_t n = cb->run_capacity ? cb->run_capacity * 2 : 64;
        uint32_t *grown = realloc(cb->runs, n * sizeof *grown);
        if (!grown)
            return oom(r);
        cb->runs = grown;
        cb->run_capacity = n;
    }
    cb->runs[cb->run_count++] = number;
    return rt_ok_status();
}

/* The command buffer a vkCmd* call records into (its first argument, captured). */
static struct draw_cmdbuf *recording(struct replay *r, const void *args)
{
    uint64_t captured, live = 0;
    memcpy(&captured, args, sizeof captured);
    if (!rt_typed_map_get(&r->handles, VK_OBJECT_TYPE_COMMAND_BUFFER, captured, &live))
        return NULL;
    struct draw_cmdbuf *cb = replay_draws_cmdbuf(r, (VkCommandBuffer)(uintptr_t)live, true);
    if (cb)
        cb->captured = captured;
    return cb;
}

static char *hex_id(char *buf, size_t size, uint64_t id)
{
    snprintf(buf, size, "0x%" PRIx64, id);
    return buf;
}

static bool add_id(cJSON *o, const char *name, uint64_t id)
{
    char text[24];
    return id ? cJSON_AddStringToObject(o, name, hex_id(text, sizeof text, id)) != NULL
              : cJSON_AddNullToObject(o, name) != NULL;
}

/* --- before a call: captured handles ----------------------------------------- */

typedef rt_status (*draw_hook)(struct replay *r, void *args);

/* An image's usage in the dump's replay: a transfer source, so that a draw's
 * target can be copied out. A transient attachment cannot be one; where the
 * device has no lazily allocated memory (it is bound to ordinary memory
 * anyway), it becomes an ordinary attachment. */
static VkImageUsageFlags dump_usage(const struct replay *r, VkImageUsageFlags usage)
{
    bool lazy = false;
    for (uint32_t i = 0; i < r->gpu_memory.memoryTypeCount; i++)
        lazy |= (r->gpu_memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT) != 0;
    if ((usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT) && !lazy)
        usage &= ~(VkImageUsageFlags)VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
    return usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT ? usage : usage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
}

/* The first struct of type TYPE in a decoded pNext chain (ours to change), or NULL. */
static void *chained(const void *next, VkStructureType type)
{
    for (const VkBaseInStructure *b = next; b; b = b->pNext)
        if (b->sType == type)
            return (void *)b;
    return NULL;
}

static rt_status create_image(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateImage *a = args;
    r->draws->image_captured = a->pImage ? key(*a->pImage) : 0;
    VkImageCreateInfo *info = (VkImageCreateInfo *)a->pCreateInfo; /* decoded: ours to change */
    if (dumping(r) && info)
        info->usage = dump_usage(r, info->usage);
    return rt_ok_status();
}

/* An imageless framebuffer says its images' usage, which must be their views' at
 * each begin: the usage create_image gave them. */
static rt_status create_framebuffer(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateFramebuffer *a = args;
    VkFramebufferAttachmentsCreateInfo *att =
        dumping(r) && a->pCreateInfo ? chained(a->pCreateInfo->pNext, VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO)
                                     : NULL;
    for (uint32_t i = 0; att && att->pAttachmentImageInfos && i < att->attachmentImageInfoCount; i++) {
        VkFramebufferAttachmentImageInfo *im = (VkFramebufferAttachmentImageInfo *)&att->pAttachmentImageInfos[i];
        im->usage = dump_usage(r, im->usage);
    }
    return rt_ok_status();
}

/* DIR/shader_HASH.spv, for a disassembler (retrace diagnose runs spirv-dis on it). */
static void save_spirv(struct replay *r, const char *hex, const uint32_t *code, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/shader_%s.spv", r->draws->opts->dir, hex);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(code, 1, size, f) == size;
    if (f && fclose(f))
        ok = false;
    if (!ok)
        rt_log(RT_LOG_WARN, "replay: cannot write %s: %s", path, strerror(errno));
}

static rt_status create_shader_module(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateShaderModule *a = args;
    if (!dumping(r) || !a->pCreateInfo || !a->pShaderModule)
        return rt_ok_status();
    XXH128_hash_t h = XXH3_128bits(a->pCreateInfo->pCode, a->pCreateInfo->codeSize);
    char *hex = malloc(33);
    if (!hex)
        return oom(r);
    snprintf(hex, 33, "%016" PRIx64 "%016" PRIx64, (uint64_t)h.high64, (uint64_t)h.low64);
    save_spirv(r, hex, a->pCreateInfo->pCode, a->pCreateInfo->codeSize);
    free(lookup(&r->draws->modules, key(*a->pShaderModule)));
    if (!rt_hashmap_put(&r->draws->modules, key(*a->pShaderModule), (uint64_t)(uintptr_t)hex)) {
        free(hex);
        return oom(r);
    }
    return rt_ok_status();
}

static const char *stage_name(VkShaderStageFlagBits stage)
{
    const struct rt_vk_enum_desc *e = &rt_vk_enums[RT_VK_ENUM_VkShaderStageFlagBits];
    for (uint32_t i = 0; i < e->count; i++)
        if (e->values[i].value == (int64_t)stage)
            return e->values[i].full;
    return "unknown";
}

static bool add_spirv_name(cJSON *s, const char *hash)
{
    char name[64];
    snprintf(name, sizeof name, "shader_%s.spv", hash ? hash : "");
    return hash ? cJSON_AddStringToObject(s, "spirv", name) != NULL : cJSON_AddNullToObject(s, "spirv") != NULL;
}

/* A pipeline's shaders, as draws.json lists them. */
static rt_status remember_stages(struct replay *r, uint64_t pipeline, const VkPipelineShaderStageCreateInfo *stages,
                                 uint32_t count)
{
    cJSON *list = cJSON_CreateArray();
    for (uint32_t i = 0; list && i < count; i++) {
        cJSON *s = cJSON_CreateObject();
        const char *hash = lookup(&r->draws->modules, key(stages[i].module));
        if (!s || !cJSON_AddItemToArray(list, s) || !cJSON_AddStringToObject(s, "stage", stage_name(stages[i].stage)) ||
            !add_id(s, "module", key(stages[i].module)) ||
            !(hash ? cJSON_AddStringToObject(s, "xxh128", hash) : cJSON_AddNullToObject(s, "xxh128")) ||
            !add_spirv_name(s, hash) ||
            !cJSON_AddStringToObject(s, "entry", stages[i].pName ? stages[i].pName : "")) {
            cJSON_Delete(list);
            return oom(r);
        }
    }
    if (!list)
        return oom(r);
    cJSON_Delete(lookup(&r->draws->pipelines, pipeline));
    if (!rt_hashmap_put(&r->draws->pipelines, pipeline, (uint64_t)(uintptr_t)list)) {
        cJSON_Delete(list);
        return oom(r);
    }
    return rt_ok_status();
}

/* The COUNT pipelines a creation call made, numbered as `retrace dump` names them. */
static rt_status number_pipelines(struct replay *r, const VkPipeline *pipelines, uint32_t count)
{
    struct replay_draws *d = r->draws;
    for (uint32_t i = 0; dumping(r) && pipelines && i < count; i++) {
        uint64_t n = 0;
        if (!pipelines[i] || rt_hashmap_get(&d->pipeline_numbers, key(pipelines[i]), &n))
            continue;
        if (!rt_hashmap_put(&d->pipeline_numbers, key(pipelines[i]), ++d->pipelines_numbered))
            return oom(r);
    }
    return rt_ok_status();
}

static rt_status create_graphics_pipelines(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateGraphicsPipelines *a = args;
    for (uint32_t i = 0; dumping(r) && a->pPipelines && i < a->createInfoCount; i++)
        RT_TRY(remember_stages(r, key(a->pPipelines[i]), a->pCreateInfos[i].pStages, a->pCreateInfos[i].stageCount));
    return number_pipelines(r, a->pPipelines, a->createInfoCount);
}

static rt_status create_compute_pipelines(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateComputePipelines *a = args;
    for (uint32_t i = 0; dumping(r) && a->pPipelines && i < a->createInfoCount; i++)
        RT_TRY(remember_stages(r, key(a->pPipelines[i]), &a->pCreateInfos[i].stage, 1));
    return number_pipelines(r, a->pPipelines, a->createInfoCount);
}

static rt_status create_ray_tracing_pipelines(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateRayTracingPipelinesKHR *a = args;
    return number_pipelines(r, a->pPipelines, a->createInfoCount);
}

static rt_status bind_pipeline(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdBindPipeline *a = args;
    struct draw_cmdbuf *cb = recording(r, args);
    if (cb && a->pipelineBindPoint <= VK_PIPELINE_BIND_POINT_COMPUTE)
        cb->pipeline[a->pipelineBindPoint] = key(a->pipeline);
    return rt_ok_status();
}

static rt_status bind_descriptor_sets(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdBindDescriptorSets *a = args;
    struct draw_cmdbuf *cb = recording(r, args);
    for (uint32_t i = 0; cb && a->pipelineBindPoint <= VK_PIPELINE_BIND_POINT_COMPUTE && i < a->descriptorSetCount;
         i++)
        if (a->firstSet + i < DRAW_MAX_SETS) {
            cb->sets[a->pipelineBindPoint][a->firstSet + i] = key(a->pDescriptorSets[i]);
            free(cb->pushed[a->pipelineBindPoint][a->firstSet + i]); /* a bound set replaces a push */
            cb->pushed[a->pipelineBindPoint][a->firstSet + i] = NULL;
        }
    return rt_ok_status();
}

/* In the dump frame a render pass begins as its store variant (compatible:
 * the framebuffer and pipelines stay valid), so that a split keeps every
 * attachment's content. */
static rt_status begin_render_pass_info(struct replay *r, void *args, VkSubpassContents contents)
{
    struct rt_vk_args_vkCmdBeginRenderPass *a = args;
    struct draw_cmdbuf *cb = recording(r, args);
    if (!cb || !a->pRenderPassBegin)
        return rt_ok_status();
    VkRenderPassBeginInfo *info = (VkRenderPassBeginInfo *)a->pRenderPassBegin;
    uint64_t pass = 0, fb = 0;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_RENDER_PASS, key(info->renderPass), &pass));
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_FRAMEBUFFER, key(info->framebuffer), &fb));
    cb->kind = DRAW_RENDER_PASS;
    cb->pass = (VkRenderPass)(uintptr_t)pass;
    cb->framebuffer = (VkFramebuffer)(uintptr_t)fb;
    cb->pass_captured = key(info->renderPass);
    cb->framebuffer_captured = key(info->framebuffer);
    cb->area = info->renderArea;
    cb->contents = contents;
    cb->subpass = 0;
    cb->view_count = 0; /* an imageless framebuffer's views come with the begin */
    const VkRenderPassAttachmentBeginInfo *views = chained(info->pNext, VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO);
    for (uint32_t i = 0; views && views->pAttachments && i < views->attachmentCount && i < DRAW_MAX_ATTACHMENTS; i++) {
        uint64_t live = 0;
        RT_TRY(replay_live(r, VK_OBJECT_TYPE_IMAGE_VIEW, key(views->pAttachments[i]), &live));
        cb->views[cb->view_count++] = (VkImageView)(uintptr_t)live;
    }
    struct draw_render_pass *rp = lookup(&r->draws->render_passes, pass);
    if ((dump_frame(r) || cb->early_dump) && rp && rp->store_id)
        info->renderPass = (VkRenderPass)(uintptr_t)rp->store_id;
    return rt_ok_status();
}

static rt_status begin_render_pass(struct replay *r, void *args)
{
    return begin_render_pass_info(r, args, ((struct rt_vk_args_vkCmdBeginRenderPass *)args)->contents);
}

static rt_status begin_render_pass2(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdBeginRenderPass2 *a = args;
    return begin_render_pass_info(r, args, a->pSubpassBeginInfo ? a->pSubpassBeginInfo->contents
                                                                : VK_SUBPASS_CONTENTS_INLINE);
}

static rt_status next_subpass(struct replay *r, void *args)
{
    struct draw_cmdbuf *cb = recording(r, args);
    if (cb) {
        cb->subpass++;
        cb->contents = ((struct rt_vk_args_vkCmdNextSubpass *)args)->contents;
    }
    return rt_ok_status();
}

static rt_status next_subpass2(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdNextSubpass2 *a = args;
    struct draw_cmdbuf *cb = recording(r, args);
    if (cb) {
        cb->subpass++;
        cb->contents = a->pSubpassBeginInfo ? a->pSubpassBeginInfo->contents : VK_SUBPASS_CONTENTS_INLINE;
    }
    return rt_ok_status();
}

static rt_status end_rendering(struct replay *r, void *args)
{
    struct draw_cmdbuf *cb = recording(r, args);
    if (cb)
        cb->kind = DRAW_OUTSIDE;
    return rt_ok_status();
}

/* Dynamic rendering in the dump frame stores every attachment (DONT_CARE allows it). */
static rt_status begin_rendering(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdBeginRendering *a = args;
    VkRenderingInfo *info = (VkRenderingInfo *)a->pRenderingInfo;
    struct draw_cmdbuf *cb = dumping(r) ? recording(r, args) : NULL;
    if (!info || !(dump_frame(r) || (cb && cb->early_dump)))
        return rt_ok_status();
    for (uint32_t i = 0; i < info->colorAttachmentCount; i++)
        ((VkRenderingAttachmentInfo *)info->pColorAttachments)[i].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    if (info->pDepthAttachment)
        ((VkRenderingAttachmentInfo *)info->pDepthAttachment)->storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    if (info->pStencilAttachment)
        ((VkRenderingAttachmentInfo *)info->pStencilAttachment)->storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    return rt_ok_status();
}

static rt_status create_swapchain(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateSwapchainKHR *a = args;
    if (!a->pSwapchain || !a->pCreateInfo)
        return rt_ok_status();
    struct draw_image *im = put_new(&r->draws->swapchains, key(*a->pSwapchain), sizeof *im);
    if (!im)
        return oom(r);
    *im = (struct draw_image){a->pCreateInfo->imageFormat,
                              {a->pCreateInfo->imageExtent.width, a->pCreateInfo->imageExtent.height, 1},
                              VK_SAMPLE_COUNT_1_BIT, a->pCreateInfo->imageUsage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, 0};
    return rt_ok_status();
}

/* A logged secondary's recording ends here (draws_mirror.c logs calls up to it, not it). */
static rt_status end_recording(struct replay *r, void *args)
{
    struct draw_cmdbuf *cb = recording(r, args);
    if (cb)
        cb->logging = false;
    return rt_ok_status();
}

static rt_status destroy_device(struct replay *r, void *args)
{
    struct rt_vk_args_vkDestroyDevice *a = args;
    uint64_t live = 0;
    if (rt_typed_map_get(&r->handles, VK_OBJECT_TYPE_DEVICE, key(a->device), &live))
        replay_draws_device_gone(r, (VkDevice)(uintptr_t)live);
    return rt_ok_status();
}

static const draw_hook before_hooks[RT_VK_CMD_COUNT] = {
    [RT_VK_CMD_vkCreateImage] = create_image,
    [RT_VK_CMD_vkCreateFramebuffer] = create_framebuffer,
    [RT_VK_CMD_vkCreateBuffer] = replay_draws_create_buffer,
    [RT_VK_CMD_vkCreateShaderModule] = create_shader_module,
    [RT_VK_CMD_vkCreateGraphicsPipelines] = create_graphics_pipelines,
    [RT_VK_CMD_vkCreateComputePipelines] = create_compute_pipelines,
    [RT_VK_CMD_vkCreateRayTracingPipelinesKHR] = create_ray_tracing_pipelines,
    [RT_VK_CMD_vkCmdBindPipeline] = bind_pipeline,
    [RT_VK_CMD_vkCmdBindDescriptorSets] = bind_descriptor_sets,
    [RT_VK_CMD_vkCmdBeginRenderPass] = begin_render_pass,
    [RT_VK_CMD_vkCmdBeginRenderPass2] = begin_render_pass2,
    [RT_VK_CMD_vkCmdBeginRenderPass2KHR] = begin_render_pass2,
    [RT_VK_CMD_vkCmdNextSubpass] = next_subpass,
    [RT_VK_CMD_vkCmdNextSubpass2] = next_subpass2,
    [RT_VK_CMD_vkCmdNextSubpass2KHR] = next_subpass2,
    [RT_VK_CMD_vkCmdEndRenderPass] = end_rendering,
    [RT_VK_CMD_vkCmdEndRenderPass2] = end_rendering,
    [RT_VK_CMD_vkCmdEndRenderPass2KHR] = end_rendering,
    [RT_VK_CMD_vkCmdEndRendering] = end_rendering,
    [RT_VK_CMD_vkCmdEndRenderingKHR] = end_rendering,
    [RT_VK_CMD_vkCmdBeginRendering] = begin_rendering,
    [RT_VK_CMD_vkCmdBeginRenderingKHR] = begin_rendering,
    [RT_VK_CMD_vkCreateSwapchainKHR] = create_swapchain,
    [RT_VK_CMD_vkDestroyDevice] = destroy_device,
    [RT_VK_CMD_vkEndCommandBuffer] = end_recording,
};

/* Of the before hooks, those a recorded call runs (the binds): what draws_mirror.c's replayed calls follow. */
rt_status replay_draws_track(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    static const draw_hook binds[RT_VK_CMD_COUNT] = {
        [RT_VK_CMD_vkCmdBindPipeline] = bind_pipeline,
        [RT_VK_CMD_vkCmdBindDescriptorSets] = bind_descriptor_sets,
    };
    return binds[cmd] ? binds[cmd](r, args) : rt_ok_status();
}

/* And after it (live handles): what it pushed. */
rt_status replay_draws_track_after(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    static const draw_hook pushes[RT_VK_CMD_COUNT] = {
        [RT_VK_CMD_vkCmdPushDescriptorSetKHR] = replay_draws_pushed_set,
    };
    return pushes[cmd] ? pushes[cmd](r, args) : rt_ok_status();
}

static bool selected(const struct replay_draws *d, uint32_t number)
{
    if (!d->opts->only)
        return true;
    for (uint32_t i = 0; i < d->opts->only_count; i++)
        if (d->opts->only[i] == number)
            return true;
    return false;
}

/* "pipeline_name": "<VkPipeline N>", as `retrace dump` prints the pipeline (null: none or unknown). */
static bool add_pipeline_name(struct replay *r, cJSON *e, uint64_t pipeline)
{
    uint64_t n = 0;
    char name[48];
    if (!pipeline || !rt_hashmap_get(&r->draws->pipeline_numbers, pipeline, &n))
        return cJSON_AddNullToObject(e, "pipeline_name") != NULL;
    snprintf(name, sizeof name, "<VkPipeline %" PRIu64 ">", n);
    return cJSON_AddStringToObject(e, "pipeline_name", name) != NULL;
}

/* The draw's object in draws.json, with what is known before it runs. */
static rt_status start_entry(struct replay *r, enum rt_vk_cmd cmd, struct draw_cmdbuf *cb, uint32_t number)
{
    cJSON *e = cJSON_CreateObject();
    /* outside rendering only dispatches use a pipeline; a secondary that continues a pass draws */
    int point = cb->kind == DRAW_OUTSIDE && !cb->continues_pass ? 1 : 0;
    uint64_t pipeline = cb->pipeline[point];
    cJSON *shaders = pipeline ? lookup(&r->draws->pipelines, pipeline) : NULL;
    cJSON *bindings = e ? cJSON_AddArrayToObject(e, "bindings") : NULL;
    for (int i = 0; bindings && i < DRAW_MAX_SETS; i++) {
        cJSON *b = cb->sets[point][i] || cb->pushed[point][i] ? cJSON_CreateObject() : NULL;
        if (b && (!cJSON_AddItemToArray(bindings, b) || !cJSON_AddNumberToObject(b, "set", i) ||
                  !add_id(b, "descriptor_set", cb->sets[point][i]) ||
                  (cb->pushed[point][i] && !cJSON_AddTrueToObject(b, "pushed"))))
            bindings = NULL;
    }
    if (!bindings || !cJSON_AddNumberToObject(e, "draw", number) ||
        !cJSON_AddNumberToObject(e, "call", (double)r->call_seq) ||
        !cJSON_AddStringToObject(e, "command", rt_vk_cmd_name(cmd)) || !add_id(e, "command_buffer", cb->captured) ||
        !add_id(e, "pipeline", pipeline) || !add_pipeline_name(r, e, pipeline) ||
        !cJSON_AddItemToObject(e, "shaders", shaders ? cJSON_Duplicate(shaders, true) : cJSON_CreateArray()) ||
        !cJSON_AddArrayToObject(e, "files") || !cJSON_AddArrayToObject(e, "not_saved") ||
        !cJSON_AddItemToArray(cJSON_GetObjectItem(r->draws->index, "draws"), e)) {
        cJSON_Delete(e);
        return oom(r);
    }
    r->draws->pending = (struct draw_pending){true, e, cb, number};
    return rt_ok_status();
}

/* A draw of the --skip-draws or --dump-draws frame: recorded in it, or into
 * a recording made earlier that the frame submits (draws_scan.c). */
static rt_status count_draw(struct replay *r, enum rt_vk_cmd cmd, void *args, bool *skip)
{
    struct replay_draws *d = r->draws;
    uint64_t frame = r->frame + 1;
    bool early = rt_hashmap_count(&d->dump_early) || rt_hashmap_count(&d->skip_early);
    struct draw_cmdbuf *rec = early ? recording(r, args) : NULL;
    bool in_skip = d->skip.frame && (frame == d->skip.frame || (rec && rec->early_skip));
    bool in_dump = dumping(r) && (dump_frame(r) || (rec && rec->early_dump));
    if (in_skip && ++d->skip_draws >= d->skip.first && d->skip_draws <= d->skip.last) {
        *skip = true;
        r->result->draws_skipped++;
        if (frame != d->skip.frame && !d->skip_early_warned && !(rec && rec->shadowing)) { /* no shadow (draws_mirror.c) */
            d->skip_early_warned = true;
            rt_log(RT_LOG_WARN,
                   "replay: --skip-draws %" PRIu64 ":%" PRIu32 ": draw %" PRIu32 " is in a command buffer recorded "
                   "before frame %" PRIu64 "; every frame that submits that recording loses it, not only frame %" PRIu64,
                   d->skip.frame, d->skip.first, d->skip_draws, d->skip.frame, d->skip.frame);
        }
    }
    if (!dumping(r) && in_skip)
        r->result->frame_draws = d->skip_draws;
    if (!in_dump)
        return rt_ok_status();
    uint32_t number = ++d->dump_draws;
    r->result->frame_draws = number;
    struct draw_cmdbuf *target = rec ? rec : recording(r, args);
    if (target && !target->logging) /* a logged secondary's run where its primary runs it (draws_mirror.c) */
        RT_TRY(replay_draws_runs(r, target, number));
    struct draw_cmdbuf *cb = selected(d, number) ? target : NULL;
    RT_TRY(cb ? start_entry(r, cmd, cb, number) : rt_ok_status());
    if (cb && *skip && !cJSON_AddTrueToObject(d->pending.entry, "skipped"))
        return oom(r);
    return rt_ok_status();
}

rt_status replay_draws_before_call(struct replay *r, enum rt_vk_cmd cmd, void *args, bool *skip)
{
    struct replay_draws *d = r->draws;
    *skip = false;
    d->pending.active = false;
    bool recorded = rt_vk_commands[cmd].trim_role == RT_VK_TRIM_ROLE_RECORDS &&
                    !(rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_BEGINS_RECORDING);
    d->current = recorded ? recording(r, args) : NULL;
    if (before_hooks[cmd])
        RT_TRY(before_hooks[cmd](r, args));
    if (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_DRAWS)
        RT_TRY(count_draw(r, cmd, args, skip));
    bool defer = false;
    if (d->current)
        RT_TRY(replay_draws_mirror_log(r, cmd, d->current, *skip, &defer));
    if (defer) /* dumped where its primary runs it (draws_mirror.c) */
        d->pending.active = false;
    return *skip ? rt_ok_status() : replay_draws_mirror_runs(r, cmd, args, skip);
}

/* --- after a call: live handles ------------------------------------------------ */

static rt_status created_image(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateImage *a = args;
    struct draw_image *im = put_new(&r->draws->images, key(*a->pImage), sizeof *im);
    if (!im)
        return oom(r);
    *im = (struct draw_image){a->pCreateInfo->format, a->pCreateInfo->extent, a->pCreateInfo->samples,
                              a->pCreateInfo->usage, r->draws->image_captured};
    return rt_ok_status();
}

static rt_status destroyed_image(struct replay *r, void *args)
{
    drop(&r->draws->images, key(((struct rt_vk_args_vkDestroyImage *)args)->image));
    return rt_ok_status();
}

/* The swapchain's images: captured ids in the arguments (swapchain.c maps them). */
static rt_status got_swapchain_images(struct replay *r, void *args)
{
    struct rt_vk_args_vkGetSwapchainImagesKHR *a = args;
    const struct draw_image *sc = lookup(&r->draws->swapchains, key(a->swapchain));
    for (uint32_t i = 0; sc && a->pSwapchainImages && a->pSwapchainImageCount && i < *a->pSwapchainImageCount; i++) {
        uint64_t live = 0;
        if (!rt_typed_map_get(&r->handles, VK_OBJECT_TYPE_IMAGE, key(a->pSwapchainImages[i]), &live))
            continue;
        struct draw_image *im = put_new(&r->draws->images, live, sizeof *im);
        if (!im)
            return oom(r);
        *im = *sc;
        im->captured = key(a->pSwapchainImages[i]);
    }
    return rt_ok_status();
}

static rt_status created_view(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateImageView *a = args;
    struct draw_view *v = put_new(&r->draws->views, key(*a->pView), sizeof *v);
    if (!v)
        return oom(r);
    const VkImageViewCreateInfo *info = a->pCreateInfo;
    *v = (struct draw_view){info->image, info->format, info->subresourceRange.baseMipLevel,
                            info->subresourceRange.baseArrayLayer};
    return rt_ok_status();
}

static rt_status destroyed_view(struct replay *r, void *args)
{
    drop(&r->draws->views, key(((struct rt_vk_args_vkDestroyImageView *)args)->imageView));
    return rt_ok_status();
}

static rt_status created_framebuffer(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateFramebuffer *a = args;
    struct draw_framebuffer *fb = put_new(&r->draws->framebuffers, key(*a->pFramebuffer), sizeof *fb);
    if (!fb)
        return oom(r);
    const VkFramebufferCreateInfo *info = a->pCreateInfo;
    fb->width = info->width;
    fb->height = info->height;
    fb->imageless = (info->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT) != 0;
    fb->count = info->attachmentCount < DRAW_MAX_ATTACHMENTS ? info->attachmentCount : DRAW_MAX_ATTACHMENTS;
    for (uint32_t i = 0; !fb->imageless && i < fb->count; i++)
        fb->views[i] = info->pAttachments[i];
    return rt_ok_status();
}

static rt_status destroyed_framebuffer(struct replay *r, void *args)
{
    drop(&r->draws->framebuffers, key(((struct rt_vk_args_vkDestroyFramebuffer *)args)->framebuffer));
    return rt_ok_status();
}

static void free_render_pass(struct replay *r, uint64_t pass)
{
    struct draw_render_pass *rp = lookup(&r->draws->render_passes, pass);
    if (rp)
        replay_draws_render_pass_free(r, rp);
    drop(&r->draws->render_passes, pass);
}

/* A subpass's attachment indices, from either version of its description. */
static void subpass_refs(struct draw_subpass *dst, uint32_t colours, const uint32_t *colour, uint32_t depth)
{
    dst->colour_count = colours < DRAW_MAX_ATTACHMENTS ? colours : DRAW_MAX_ATTACHMENTS;
    for (uint32_t k = 0; k < dst->colour_count; k++)
        dst->colour[k] = colour[k];
    dst->depth = depth;
}

static void subpass_of(struct draw_subpass *dst, const VkSubpassDescription *s)
{
    uint32_t colour[DRAW_MAX_ATTACHMENTS];
    for (uint32_t k = 0; k < s->colorAttachmentCount && k < DRAW_MAX_ATTACHMENTS; k++)
        colour[k] = s->pColorAttachments[k].attachment;
    subpass_refs(dst, s->colorAttachmentCount, colour,
                 s->pDepthStencilAttachment ? s->pDepthStencilAttachment->attachment : VK_ATTACHMENT_UNUSED);
}

static void subpass2_of(struct draw_subpass *dst, const VkSubpassDescription2 *s)
{
    uint32_t colour[DRAW_MAX_ATTACHMENTS];
    for (uint32_t k = 0; k < s->colorAttachmentCount && k < DRAW_MAX_ATTACHMENTS; k++)
        colour[k] = s->pColorAttachments[k].attachment;
    subpass_refs(dst, s->colorAttachmentCount, colour,
                 s->pDepthStencilAttachment ? s->pDepthStencilAttachment->attachment : VK_ATTACHMENT_UNUSED);
}

static struct draw_render_pass *new_render_pass(struct replay *r, VkRenderPass pass, uint32_t attachments,
                                                uint32_t subpasses)
{
    free_render_pass(r, key(pass));
    struct draw_render_pass *rp = put_new(&r->draws->render_passes, key(pass), sizeof *rp);
    if (rp) {
        rp->subpasses = subpasses;
        rp->count = attachments < DRAW_MAX_ATTACHMENTS ? attachments : DRAW_MAX_ATTACHMENTS;
    }
    return rp;
}

static rt_status created_render_pass(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateRenderPass *a = args;
    const VkRenderPassCreateInfo *info = a->pCreateInfo;
    struct draw_render_pass *rp = new_render_pass(r, *a->pRenderPass, info->attachmentCount, info->subpassCount);
    if (!rp)
        return oom(r);
    for (uint32_t i = 0; i < rp->count; i++)
        rp->final_layout[i] = info->pAttachments[i].finalLayout;
    for (uint32_t i = 0; i < info->subpassCount && i < DRAW_MAX_SUBPASSES; i++)
        subpass_of(&rp->sub[i], &info->pSubpasses[i]);
    return dumping(r) ? replay_draws_render_pass_variants(r, a->device, info, rp) : rt_ok_status();
}

static rt_status created_render_pass2(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateRenderPass2 *a = args;
    const VkRenderPassCreateInfo2 *info = a->pCreateInfo;
    struct draw_render_pass *rp = new_render_pass(r, *a->pRenderPass, info->attachmentCount, info->subpassCount);
    if (!rp)
        return oom(r);
    for (uint32_t i = 0; i < rp->count; i++)
        rp->final_layout[i] = info->pAttachments[i].finalLayout;
    for (uint32_t i = 0; i < info->subpassCount && i < DRAW_MAX_SUBPASSES; i++)
        subpass2_of(&rp->sub[i], &info->pSubpasses[i]);
    return dumping(r) ? replay_draws_render_pass2_variants(r, a->device, info, rp) : rt_ok_status();
}

static rt_status destroyed_render_pass(struct replay *r, void *args)
{
    free_render_pass(r, key(((struct rt_vk_args_vkDestroyRenderPass *)args)->renderPass));
    return rt_ok_status();
}

/* Dynamic rendering: the attachments, kept for the split's resume. */
static rt_status began_rendering(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdBeginRendering *a = args;
    struct draw_cmdbuf *cb = replay_draws_cmdbuf(r, a->commandBuffer, true);
    if (!cb)
        return oom(r);
    const VkRenderingInfo *info = a->pRenderingInfo;
    cb->kind = DRAW_DYNAMIC;
    cb->dynamic.info = *info;
    cb->dynamic.info.pNext = NULL;
    cb->dynamic.info.colorAttachmentCount =
        info->colorAttachmentCount < DRAW_MAX_ATTACHMENTS ? info->colorAttachmentCount : DRAW_MAX_ATTACHMENTS;
    for (uint32_t i = 0; i < cb->dynamic.info.colorAttachmentCount; i++)
        cb->dynamic.color[i] = info->pColorAttachments[i];
    cb->dynamic.info.pColorAttachments = cb->dynamic.color;
    if (info->pDepthAttachment) {
        cb->dynamic.depth = *info->pDepthAttachment;
        cb->dynamic.info.pDepthAttachment = &cb->dynamic.depth;
    }
    if (info->pStencilAttachment) {
        cb->dynamic.stencil = *info->pStencilAttachment;
        cb->dynamic.info.pStencilAttachment = &cb->dynamic.stencil;
    }
    return rt_ok_status();
}

static void forget_cmdbuf(struct replay *r, VkCommandBuffer live);

static rt_status allocated_command_buffers(struct replay *r, void *args)
{
    struct rt_vk_args_vkAllocateCommandBuffers *a = args;
    for (uint32_t i = 0; i < a->pAllocateInfo->commandBufferCount; i++) {
        forget_cmdbuf(r, a->pCommandBuffers[i]);
        struct draw_cmdbuf *cb = put_new(&r->draws->cmdbufs, key(a->pCommandBuffers[i]), sizeof *cb);
        if (!cb)
            return oom(r);
        cb->handle = a->pCommandBuffers[i];
        cb->pool = a->pAllocateInfo->commandPool;
        cb->level = a->pAllocateInfo->level;
    }
    return rt_ok_status();
}

static void forget_cmdbuf(struct replay *r, VkCommandBuffer live)
{
    struct draw_cmdbuf *cb = replay_draws_cmdbuf(r, live, false);
    if (cb) {
        replay_draws_release(r, cb);
        replay_draws_mirror_forget(r, cb, false); /* a pool that goes takes the shadow with it */
        replay_draws_forget_pushed(cb);
        free(cb->copies);
        free(cb->runs);
    }
    drop(&r->draws->cmdbufs, key(live));
}

static rt_status freed_command_buffers(struct replay *r, void *args)
{
    struct rt_vk_args_vkFreeCommandBuffers *a = args;
    for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++) {
        struct draw_cmdbuf *cb = replay_draws_cmdbuf(r, a->pCommandBuffers[i], false);
        if (cb)
            replay_draws_mirror_forget(r, cb, true);
        forget_cmdbuf(r, a->pCommandBuffers[i]);
    }
    return rt_ok_status();
}

/* vkDestroyCommandPool and vkResetCommandPool: its command buffers' copies go. */
static rt_status pool_done(struct replay *r, VkCommandPool pool, bool destroyed)
{
    struct rt_hashmap_iter it;
    uint64_t k, v;
    rt_hashmap_iter_init(&it, &r->draws->cmdbufs);
    while (rt_hashmap_iter_next(&it, &k, &v)) {
        struct draw_cmdbuf *cb = (struct draw_cmdbuf *)(uintptr_t)v;
        if (cb->pool != pool)
            continue;
        if (destroyed)
            forget_cmdbuf(r, cb->handle); /* removing the entry just returned is allowed */
        else
            replay_draws_release(r, cb);
    }
    return rt_ok_status();
}

static rt_status destroyed_pool(struct replay *r, void *args)
{
    return pool_done(r, ((struct rt_vk_args_vkDestroyCommandPool *)args)->commandPool, true);
}

static rt_status reset_pool(struct replay *r, void *args)
{
    return pool_done(r, ((struct rt_vk_args_vkResetCommandPool *)args)->commandPool, false);
}

static rt_status begun_recording(struct replay *r, void *args)
{
    VkCommandBuffer live;
    memcpy(&live, args, sizeof live);
    struct draw_cmdbuf *cb = replay_draws_cmdbuf(r, live, true);
    const VkCommandBufferBeginInfo *info = ((struct rt_vk_args_vkBeginCommandBuffer *)args)->pBeginInfo;
    if (cb) {
        replay_draws_release(r, cb);
        cb->kind = DRAW_OUTSIDE;
        cb->continues_pass = info && (info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT);
        uint64_t v = 0;
        cb->early_dump = rt_hashmap_get(&r->draws->dump_early, r->call_seq, &v);
        cb->early_skip = rt_hashmap_get(&r->draws->skip_early, r->call_seq, &v);
        memset(cb->pipeline, 0, sizeof cb->pipeline);
        memset(cb->sets, 0, sizeof cb->sets);
        replay_draws_forget_pushed(cb);
        cb->run_count = 0;
        cb->runs_listed = false;
        RT_TRY(replay_draws_mirror_begun(r, cb));
    }
    return rt_ok_status();
}

static const draw_hook after_hooks[RT_VK_CMD_COUNT] = {
    [RT_VK_CMD_vkCreateImage] = created_image,
    [RT_VK_CMD_vkDestroyImage] = destroyed_image,
    [RT_VK_CMD_vkCreateBuffer] = replay_draws_created_buffer,
    [RT_VK_CMD_vkDestroyBuffer] = replay_draws_destroyed_buffer,
    [RT_VK_CMD_vkAllocateDescriptorSets] = replay_draws_allocated_sets,
    [RT_VK_CMD_vkCreateDescriptorSetLayout] = replay_draws_created_set_layout,
    [RT_VK_CMD_vkUpdateDescriptorSets] = replay_draws_updated_sets,
    [RT_VK_CMD_vkCmdPushDescriptorSetKHR] = replay_draws_pushed_set,
    [RT_VK_CMD_vkGetSwapchainImagesKHR] = got_swapchain_images,
    [RT_VK_CMD_vkCreateImageView] = created_view,
    [RT_VK_CMD_vkDestroyImageView] = destroyed_view,
    [RT_VK_CMD_vkCreateFramebuffer] = created_framebuffer,
    [RT_VK_CMD_vkDestroyFramebuffer] = destroyed_framebuffer,
    [RT_VK_CMD_vkCreateRenderPass] = created_render_pass,
    [RT_VK_CMD_vkCreateRenderPass2] = created_render_pass2,
    [RT_VK_CMD_vkCreateRenderPass2KHR] = created_render_pass2,
    [RT_VK_CMD_vkDestroyRenderPass] = destroyed_render_pass,
    [RT_VK_CMD_vkCmdBeginRendering] = began_rendering,
    [RT_VK_CMD_vkCmdBeginRenderingKHR] = began_rendering,
    [RT_VK_CMD_vkAllocateCommandBuffers] = allocated_command_buffers,
    [RT_VK_CMD_vkFreeCommandBuffers] = freed_command_buffers,
    [RT_VK_CMD_vkDestroyCommandPool] = destroyed_pool,
    [RT_VK_CMD_vkResetCommandPool] = reset_pool,
};

rt_status replay_draws_after_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (after_hooks[cmd])
        RT_TRY(after_hooks[cmd](r, args));
    if (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_BEGINS_RECORDING)
        RT_TRY(begun_recording(r, args));
    if (r->draws->current)
        RT_TRY(replay_draws_mirror_call(r, cmd));
    struct draw_pending *p = &r->draws->pending;
    if (!p->active)
        return rt_ok_status();
    p->active = false;
    return replay_draws_dump(r, p, cmd, args);
}

rt_status replay_draws_submitted(struct replay *r, VkQueue queue, const VkCommandBuffer *cmds, uint32_t count)
{
    (void)queue;
    cJSON *executed = r->draws ? cJSON_GetObjectItem(r->draws->index, "executed") : NULL;
    for (uint32_t i = 0; r->draws && i < count; i++) {
        struct draw_cmdbuf *cb = replay_draws_cmdbuf(r, cmds[i], false);
        for (size_t k = 0; cb && executed && dump_frame(r) && !cb->runs_listed && k < cb->run_count; k++)
            if (!cJSON_AddItemToArray(executed, cJSON_CreateNumber(cb->runs[k])))
                return oom(r);
        if (cb && dump_frame(r))
            cb->runs_listed = true; /* the order the frame first runs its draws in */
        if (cb && cb->copy_count && (dump_frame(r) || !cb->early_dump)) /* an earlier frame's run is not the frame's */
            RT_TRY(replay_draws_save(r, cb));
    }
    return rt_ok_status();
}

void replay_draws_frame_end(struct replay *r)
{
    (void)r; /* draws are counted for their one frame only (count_draw) */
}

void replay_draws_device_gone(struct replay *r, VkDevice device)
{
    struct rt_hashmap_iter it;
    uint64_t k, v;
    rt_hashmap_iter_init(&it, &r->draws->cmdbufs);
    while (rt_hashmap_iter_next(&it, &k, &v))
        replay_draws_release(r, (struct draw_cmdbuf *)(uintptr_t)v);
    rt_hashmap_iter_init(&it, &r->draws->render_passes);
    while (rt_hashmap_iter_next(&it, &k, &v)) {
        struct draw_render_pass *rp = (struct draw_render_pass *)(uintptr_t)v;
        if (rp->device == device)
            replay_draws_render_pass_free(r, rp);
    }
}

static void free_values(struct rt_hashmap *m, bool json)
{
    struct rt_hashmap_iter it;
    uint64_t k, v;
    rt_hashmap_iter_init(&it, m);
    while (rt_hashmap_iter_next(&it, &k, &v)) {
        if (json)
            cJSON_Delete((cJSON *)(uintptr_t)v);
        else
            free((void *)(uintptr_t)v);
    }
    rt_hashmap_finish(m);
}

rt_status replay_draws_finish(struct replay *r)
{
    struct replay_draws *d = r->draws;
    if (!d)
        return rt_ok_status();
    rt_status s = d->index ? replay_draws_write_index(r) : rt_ok_status();
    replay_draws_device_gone(r, VK_NULL_HANDLE);
    struct rt_hashmap_iter it;
    uint64_t k, v;
    rt_hashmap_iter_init(&it, &d->render_passes);
    while (rt_hashmap_iter_next(&it, &k, &v)) {
        struct draw_render_pass *rp = (struct draw_render_pass *)(uintptr_t)v;
        if (rp->dev) /* a replay that stops at --end-frame may still run a pass of ours */
            rp->dev->dispatch.device.vkDeviceWaitIdle(rp->device);
        replay_draws_render_pass_free(r, rp);
    }
    rt_hashmap_iter_init(&it, &d->cmdbufs);
    while (rt_hashmap_iter_next(&it, &k, &v)) {
        replay_draws_mirror_forget(r, (struct draw_cmdbuf *)(uintptr_t)v, false);
        replay_draws_forget_pushed((struct draw_cmdbuf *)(uintptr_t)v);
        free(((struct draw_cmdbuf *)(uintptr_t)v)->copies);
        free(((struct draw_cmdbuf *)(uintptr_t)v)->runs);
    }
    rt_arena_finish(&d->mirror_arena);
    struct rt_hashmap *plain[] = {&d->images, &d->views, &d->framebuffers, &d->render_passes, &d->cmdbufs,
                                  &d->modules, &d->swapchains, &d->buffers, &d->sets, &d->layouts};
    rt_hashmap_finish(&d->dump_early);
    rt_hashmap_finish(&d->skip_early);
    rt_hashmap_finish(&d->pipeline_numbers);
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        free_values(plain[i], false);
    free_values(&d->pipelines, true);
    cJSON_Delete(d->index);
    free(d);
    r->draws = NULL;
    return s;
}
