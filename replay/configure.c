/* replay/configure.c — the engine's side of a replay configuration: the
 * hooks of replay_config.h. Workarounds act here at the point they concern
 * (recording, submission, presentation, object creation); device creation's
 * changes are in device_config.c, the rest in strip.c, gpu_stall.c and
 * pipeline_cache.c. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "replay_config.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool replay_workaround(const struct replay *r, enum rt_workaround w)
{
    return r->config && r->config->cfg->workarounds[w];
}

static void count(struct replay *r, enum rt_workaround w, int counter, uint64_t n)
{
    r->result->outcome.acted[w][counter] += n;
}

rt_status replay_config_begin(struct replay *r)
{
    struct rt_replay_outcome *o = &r->result->outcome;
    snprintf(o->application, sizeof o->application, "%s", r->header->application_name);
    if (r->header->has_device)
        snprintf(o->capture_device, sizeof o->capture_device, "%s", r->header->device.device_name);
    if (!r->opts->config)
        return rt_ok_status();
    struct replay_config_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    st->cfg = r->opts->config;
    for (uint32_t i = 0; i < st->cfg->delay_count; i++)
        st->delay[st->cfg->delays[i].event] = &st->cfg->delays[i];
    rt_jitter_init(&st->jitter, st->cfg->seed);
    rt_hashmap_init(&st->readback_cmds);
    st->frame_start = now_seconds();
    r->config = st;
    return rt_ok_status();
}

void replay_config_finish(struct replay *r)
{
    struct replay_config_state *st = r->config;
    if (!st)
        return;
    rt_hashmap_finish(&st->readback_cmds);
    free(st);
    r->config = NULL;
}

static rt_status grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return rt_ok_status();
    size_t n = *capacity ? *capacity * 2 : 64;
    void *grown = realloc(*items, n * size);
    if (!grown)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    *items = grown;
    *capacity = n;
    return rt_ok_status();
}

void replay_config_frame_end(struct replay *r)
{
    struct rt_replay_outcome *o = &r->result->outcome;
    if (!r->config || o->frame_count >= RT_REPLAY_MAX_FRAME_TIMES)
        return;
    double now = now_seconds();
    rt_status s = grow((void **)&o->frame_ms, &o->frame_capacity, o->frame_count, sizeof *o->frame_ms);
    if (rt_ok(&s))
        o->frame_ms[o->frame_count++] = (now - r->config->frame_start) * 1e3;
    r->config->frame_start = now;
}

void replay_config_screenshot(struct replay *r, uint64_t frame, const char *path)
{
    struct rt_replay_outcome *o = &r->result->outcome;
    size_t capacity = o->screenshot_capacity;
    rt_status s = grow((void **)&o->screenshot_frames, &capacity, o->screenshot_count, sizeof *o->screenshot_frames);
    if (rt_ok(&s))
        s = grow((void **)&o->screenshot_paths, &o->screenshot_capacity, o->screenshot_count,
                 sizeof *o->screenshot_paths);
    char *copy = rt_ok(&s) ? strdup(path) : NULL;
    if (!copy)
        return; /* out of memory: the report lists one screenshot fewer */
    o->screenshot_frames[o->screenshot_count] = frame;
    o->screenshot_paths[o->screenshot_count++] = copy;
}

void rt_replay_outcome_finish(struct rt_replay_outcome *o)
{
    for (size_t i = 0; i < o->screenshot_count; i++)
        free(o->screenshot_paths[i]);
    free(o->frame_ms);
    free(o->screenshot_frames);
    free(o->screenshot_paths);
    o->frame_ms = NULL;
    o->screenshot_frames = NULL;
    o->screenshot_paths = NULL;
    o->frame_count = o->frame_capacity = o->screenshot_count = o->screenshot_capacity = 0;
}

void replay_config_validation_message(struct replay *r, const char *message_id)
{
    if (message_id && !strncmp(message_id, "SYNC-HAZARD", 11))
        r->result->outcome.sync_hazards++;
}

/* Hazards between submissions (draws in one, the copy reading them in the
 * next) are checked only with this enable, which the layers of Vulkan SDK
 * 1.3.2xx (Debian 12's) read from the environment; later layers ignore it. */
static void enable_submit_validation(void)
{
    static const char key[] = "VALIDATION_CHECK_ENABLE_SYNCHRONIZATION_VALIDATION_QUEUE_SUBMIT";
    const char *old = getenv("VK_LAYER_ENABLES");
    char value[1024];
    if (old && strstr(old, key))
        return;
    snprintf(value, sizeof value, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", key);
    setenv("VK_LAYER_ENABLES", value, 1);
}

const void *replay_config_instance_chain(struct replay *r, const void *next)
{
    static const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    if (!r->opts->config || r->opts->config->validate != RT_VALIDATE_SYNC)
        return next;
    enable_submit_validation();
    VkValidationFeaturesEXT *f = rt_arena_calloc(&r->arena, 1, sizeof *f, 8);
    if (!f)
        return next;
    *f = (VkValidationFeaturesEXT){.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, .pNext = next,
                                   .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = enables};
    return f;
}

/* --- recording: readback-barrier ------------------------------------------- */

static rt_status live_command_buffer(struct replay *r, VkCommandBuffer captured, VkCommandBuffer *out)
{
    uint64_t live = 0;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)captured, &live));
    *out = (VkCommandBuffer)(uintptr_t)live;
    return rt_ok_status();
}

static bool found_command_buffer(struct replay *r, VkCommandBuffer captured, VkCommandBuffer *out)
{
    rt_status s = live_command_buffer(r, captured, out);
    return rt_ok(&s);
}

/* Every write before, on this queue, made visible to transfer reads after. */
static rt_status insert_barrier(struct replay *r, VkCommandBuffer captured, bool into_buffer)
{
    VkCommandBuffer cmd;
    RT_TRY(live_command_buffer(r, captured, &cmd));
    struct replay_device *dev = replay_device_of(r, cmd);
    if (!dev)
        return rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": a command buffer of an unknown device", r->call_seq);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    dev->dispatch.device.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                              0, 1, &barrier, 0, NULL, 0, NULL);
    count(r, RT_WA_READBACK_BARRIER, 0, 1);
    if (into_buffer && !rt_hashmap_put(&r->config->readback_cmds, (uint64_t)(uintptr_t)cmd, 1))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    return rt_ok_status();
}

/* --- submission: readback-barrier's wait, gpu delay, serialize-submits ----- */

struct readback_search {
    struct replay *r;
    bool found;
};

static void find_readback(void *user, VkObjectType type, void *slot, bool output)
{
    struct readback_search *q = user;
    VkCommandBuffer captured, live;
    uint64_t v;
    if (type != VK_OBJECT_TYPE_COMMAND_BUFFER || output || q->found)
        return;
    memcpy(&captured, slot, sizeof captured);
    q->found = found_command_buffer(q->r, captured, &live) &&
               rt_hashmap_get(&q->r->config->readback_cmds, (uint64_t)(uintptr_t)live, &v);
}

/* Does the submission run a command buffer that copies into a buffer? Its
 * command buffers are wherever the argument block keeps them. */
static bool holds_readback(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    struct readback_search q = {r, false};
    rt_vk_walk_handles(cmd, args, find_readback, &q);
    return q.found;
}

/* Waits for every earlier submission on the queue's device, whichever fence
 * or semaphore the trace gave it. */
static void wait_earlier_submissions(struct replay *r, struct replay_device *dev)
{
    if (!r->config->submissions_in_flight)
        return;
    dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
    count(r, RT_WA_READBACK_BARRIER, 1, 1);
    count(r, RT_WA_READBACK_BARRIER, 2, r->config->submissions_in_flight);
    r->config->submissions_in_flight = 0;
}

static struct replay_gpu_stall *stall_of(struct replay *r, struct replay_device *dev)
{
    for (int i = 0; i < REPLAY_MAX_STALLS; i++)
        if (r->config->stalls[i] && *(struct replay_device **)r->config->stalls[i] == dev)
            return r->config->stalls[i];
    return NULL;
}

static rt_status before_submit(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    VkQueue captured;
    uint64_t live = 0;
    memcpy(&captured, args, sizeof captured); /* every submit starts with its queue */
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_QUEUE, (uint64_t)(uintptr_t)captured, &live));
    VkQueue queue = (VkQueue)(uintptr_t)live;
    struct replay_device *dev = replay_device_of(r, queue);
    if (!dev)
        return rt_ok_status();
    bool executes = rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_EXECUTES;
    if (replay_workaround(r, RT_WA_READBACK_BARRIER) && executes && holds_readback(r, cmd, args))
        wait_earlier_submissions(r, dev);
    struct replay_gpu_stall *stall = r->config->delay[RT_DELAY_GPU] ? stall_of(r, dev) : NULL;
    if (stall && executes)
        RT_TRY(replay_gpu_stall_submit(r, stall, queue));
    return rt_ok_status();
}

static rt_status after_submit(struct replay *r, const void *args)
{
    VkQueue queue;
    memcpy(&queue, args, sizeof queue); /* mapped to the live queue by the call */
    r->config->submissions_in_flight++;
    struct replay_device *dev = replay_device_of(r, queue);
    if (!dev || !replay_workaround(r, RT_WA_SERIALIZE_SUBMITS))
        return rt_ok_status();
    dev->dispatch.device.vkQueueWaitIdle(queue);
    r->config->submissions_in_flight = 0;
    count(r, RT_WA_SERIALIZE_SUBMITS, 0, 1);
    return rt_ok_status();
}

/* --- object creation --------------------------------------------------------- */

static void use_replay_cache(struct replay *r, VkPipelineCache *slot)
{
    if (r->config->cache)
        *slot = (VkPipelineCache)(uintptr_t)replay_pipeline_cache_id(r->config->cache);
}

static void before_create(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    const struct rt_vk_command_desc *d = &rt_vk_commands[cmd];
    bool creates = d->flags & RT_VK_CMD_FLAG_CREATES;
    if (creates && d->object_type == VK_OBJECT_TYPE_PIPELINE_CACHE && replay_workaround(r, RT_WA_NO_PIPELINE_CACHE)) {
        /* vkCreatePipelineCache is the one command that makes pipeline caches */
        VkPipelineCacheCreateInfo *info = (VkPipelineCacheCreateInfo *)((struct rt_vk_args_vkCreatePipelineCache *)args)->pCreateInfo;
        if (info->initialDataSize)
            count(r, RT_WA_NO_PIPELINE_CACHE, 0, 1);
        info->initialDataSize = 0;
        info->pInitialData = NULL;
    } else if (creates && d->object_type == VK_OBJECT_TYPE_SAMPLER && replay_workaround(r, RT_WA_NO_ANISOTROPY)) {
        /* vkCreateSampler is the one command that makes samplers */
        VkSamplerCreateInfo *info = (VkSamplerCreateInfo *)((struct rt_vk_args_vkCreateSampler *)args)->pCreateInfo;
        if (info->anisotropyEnable)
            count(r, RT_WA_NO_ANISOTROPY, 0, 1);
        info->anisotropyEnable = VK_FALSE;
    } else if (d->categories & RT_VK_CMD_CAT_CREATES_PIPELINE) {
        use_replay_cache(r, rt_vk_cmd_arg(cmd, args, d->pipeline_cache_arg));
    }
}

rt_status replay_config_before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (!r->config)
        return rt_ok_status();
    replay_delay_before_call(r, cmd);
    if (r->config->stripped_extension_count || r->config->stripped_feature_count)
        RT_TRY(replay_strip_check_call(r, cmd, args));
    VkCommandBuffer cmdbuf; /* the first member of a recorded command's block */
    memcpy(&cmdbuf, args, sizeof cmdbuf);
    enum rt_vk_transfer_dst dst = rt_vk_commands[cmd].transfer_dst;
    if (dst != RT_VK_TRANSFER_NONE && replay_workaround(r, RT_WA_READBACK_BARRIER))
        return insert_barrier(r, cmdbuf, dst == RT_VK_TRANSFER_BUFFER);
    if ((rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_BEGINS_RECORDING) && replay_workaround(r, RT_WA_READBACK_BARRIER)) {
        VkCommandBuffer live;
        if (found_command_buffer(r, cmdbuf, &live))
            rt_hashmap_remove(&r->config->readback_cmds, (uint64_t)(uintptr_t)live);
        return rt_ok_status();
    }
    if (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_SUBMITS)
        return before_submit(r, cmd, args);
    before_create(r, cmd, args);
    return rt_ok_status();
}

rt_status replay_config_after_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (!r->config)
        return rt_ok_status();
    if (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_SUBMITS)
        return after_submit(r, args);
    if ((rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_PRESENTS) && replay_workaround(r, RT_WA_SERIALIZE_FRAMES)) {
        VkQueue queue;
        memcpy(&queue, args, sizeof queue);
        struct replay_device *dev = replay_device_of(r, queue);
        if (dev) {
            dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
            r->config->submissions_in_flight = 0;
            count(r, RT_WA_SERIALIZE_FRAMES, 0, 1);
        }
    }
    return rt_ok_status();
}
