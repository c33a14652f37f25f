/* replay/workarounds/test_late_submits.c — test-late-submits, a model of a
 * driver for tests of `retrace diagnose` (issue 19), not a fix: a queue that
 * lets a submission's work finish after a later one's where nothing orders
 * them, as the spec allows and lavapipe (which runs submissions in order)
 * never shows. A program that reads back without ordering the copy after the
 * draws (rt_app_race) then copies what the image held before them.
 *
 * The model: a vkQueueSubmit of one batch with a fence and no semaphores is
 * held back. When the next call is a vkQueueSubmit to the same queue that
 * waits on no semaphore, whose recordings hold no barrier reaching the held
 * work's stages (nor readback-barrier's full barrier) and begin no render
 * pass, the held batch runs after that submission's own, in it; otherwise
 * before them. Its fence is signalled after. Any other call that waits,
 * presents or destroys, and the frame's end, submit it first, in order.
 * Without RETRACE_TEST_DRIVER=1 it refuses to run. */
#include <inttypes.h>
#include <string.h>

#include "log.h"
#include "workaround.h"

#define ID RT_WA_TEST_LATE_SUBMITS

struct counters {
    uint64_t submissions_held, submissions_late, submissions_in_order;
};
REPLAY_WA_COUNTERS(struct counters, ID)

/* Coarse stage classes: what a recording does, what its barriers wait for. */
enum { GRAPHICS = 1, COMPUTE = 2, TRANSFER = 4, OTHER = 8, EVERY = 15 };

static rt_status adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    (void)r;
    (void)info;
    return replay_wa_test_driver_check("test-late-submits");
}

static struct replay_late_record *record_of(struct replay *r, uint64_t cb, bool create)
{
    struct replay_late_submits *l = &r->config->late;
    for (uint32_t i = 0; i < REPLAY_LATE_RECORDS; i++)
        if (l->records[i].cb == cb)
            return &l->records[i];
    if (!create)
        return NULL;
    struct replay_late_record *rec = &l->records[l->next_record++ % REPLAY_LATE_RECORDS]; /* the oldest goes */
    *rec = (struct replay_late_record){.cb = cb};
    return rec;
}

/* A barrier's source stages as classes: TOP_OF_PIPE and HOST wait for no earlier command's stage. */
static uint8_t source_classes(VkPipelineStageFlags2 s)
{
    const VkPipelineStageFlags2 graphics = VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT | 0x7fcull; /* VERTEX_INPUT..COLOR_OUTPUT */
    const VkPipelineStageFlags2 transfer = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
                                           VK_PIPELINE_STAGE_2_RESOLVE_BIT | VK_PIPELINE_STAGE_2_BLIT_BIT |
                                           VK_PIPELINE_STAGE_2_CLEAR_BIT;
    const VkPipelineStageFlags2 known = graphics | transfer | VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT |
                                        VK_PIPELINE_STAGE_2_HOST_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                        VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT;
    if (s & ~known)
        return EVERY; /* ALL_COMMANDS, BOTTOM_OF_PIPE, and what the model does not know */
    return (uint8_t)((s & graphics ? GRAPHICS : 0) | (s & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT ? COMPUTE : 0) |
                     (s & transfer ? TRANSFER : 0) | (s & VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT ? GRAPHICS | COMPUTE : 0));
}

static uint8_t dependency_sources(const VkDependencyInfo *d)
{
    VkPipelineStageFlags2 s = 0;
    for (uint32_t i = 0; d && i < d->memoryBarrierCount; i++)
        s |= d->pMemoryBarriers[i].srcStageMask;
    for (uint32_t i = 0; d && i < d->bufferMemoryBarrierCount; i++)
        s |= d->pBufferMemoryBarriers[i].srcStageMask;
    for (uint32_t i = 0; d && i < d->imageMemoryBarrierCount; i++)
        s |= d->pImageMemoryBarriers[i].srcStageMask;
    return source_classes(s);
}

typedef void (*record_hook)(struct replay *r, struct replay_late_record *rec, void *args);

static void barrier(struct replay *r, struct replay_late_record *rec, void *args)
{
    (void)r;
    rec->orders |= source_classes(((struct rt_vk_args_vkCmdPipelineBarrier *)args)->srcStageMask);
}

static void wait_events(struct replay *r, struct replay_late_record *rec, void *args)
{
    (void)r;
    rec->orders |= source_classes(((struct rt_vk_args_vkCmdWaitEvents *)args)->srcStageMask);
}

static void barrier2(struct replay *r, struct replay_late_record *rec, void *args)
{
    (void)r;
    rec->orders |= dependency_sources(((struct rt_vk_args_vkCmdPipelineBarrier2 *)args)->pDependencyInfo);
}

static void wait_events2(struct replay *r, struct replay_late_record *rec, void *args)
{
    (void)r;
    struct rt_vk_args_vkCmdWaitEvents2 *a = args;
    for (uint32_t i = 0; a->pDependencyInfos && i < a->eventCount; i++)
        rec->orders |= dependency_sources(&a->pDependencyInfos[i]);
}

/* A render pass's own dependencies are not read: it counts as waiting for everything. */
static void begin_pass(struct replay *r, struct replay_late_record *rec, void *args)
{
    (void)r;
    (void)args;
    rec->stages |= GRAPHICS;
    rec->orders = EVERY;
    rec->in_pass = true;
}

static void end_pass(struct replay *r, struct replay_late_record *rec, void *args)
{
    (void)r;
    (void)args;
    rec->in_pass = false;
}

/* Secondaries: theirs, as recorded (one not followed counts as everything). */
static void execute(struct replay *r, struct replay_late_record *rec, void *args)
{
    struct rt_vk_args_vkCmdExecuteCommands *a = args;
    for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++) {
        struct replay_late_record *sec = record_of(r, (uint64_t)(uintptr_t)a->pCommandBuffers[i], false);
        rec->stages |= sec ? sec->stages : EVERY;
        rec->orders |= sec ? sec->orders : EVERY;
    }
}

/* The recorded commands it reads, as a table indexed by command (aliases by their canonical command). */
static const record_hook record_hooks[RT_VK_CMD_COUNT] = {
    [RT_VK_CMD_vkCmdPipelineBarrier] = barrier,
    [RT_VK_CMD_vkCmdWaitEvents] = wait_events,
    [RT_VK_CMD_vkCmdPipelineBarrier2] = barrier2,
    [RT_VK_CMD_vkCmdWaitEvents2] = wait_events2,
    [RT_VK_CMD_vkCmdBeginRenderPass] = begin_pass,
    [RT_VK_CMD_vkCmdBeginRenderPass2] = begin_pass,
    [RT_VK_CMD_vkCmdBeginRendering] = begin_pass,
    [RT_VK_CMD_vkCmdEndRenderPass] = end_pass,
    [RT_VK_CMD_vkCmdEndRenderPass2] = end_pass,
    [RT_VK_CMD_vkCmdEndRendering] = end_pass,
    [RT_VK_CMD_vkCmdExecuteCommands] = execute,
};

static void note_recording(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    uint64_t cb;
    memcpy(&cb, args, sizeof cb); /* a recorded command's first member */
    struct replay_late_record *rec = record_of(r, cb, true);
    if (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_BEGINS_RECORDING) {
        *rec = (struct replay_late_record){.cb = cb};
        return;
    }
    int32_t alias = rt_vk_commands[cmd].alias_of;
    record_hook hook = record_hooks[alias >= 0 ? (enum rt_vk_cmd)alias : cmd];
    if (hook)
        hook(r, rec, args);
    else if (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_DRAWS) /* a copy outside a pass is a transfer; else unknown */
        rec->stages |= rec->in_pass ? GRAPHICS : rt_vk_commands[cmd].transfer_dst != RT_VK_TRANSFER_NONE ? TRANSFER : EVERY;
}

/* A submission with the held batch's command buffers (captured ids, in the call's arena) before or after INFOS. */
static rt_status with_held(struct replay *r, struct rt_vk_args_vkQueueSubmit *a, bool after)
{
    struct replay_late_submits *l = &r->config->late;
    VkSubmitInfo *infos = rt_arena_calloc(&r->arena, a->submitCount + 1, sizeof *infos, 8);
    VkCommandBuffer *cmds = rt_arena_calloc(&r->arena, l->count, sizeof *cmds, 8);
    if (!infos || !cmds)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    memcpy(cmds, l->cmds, l->count * sizeof *cmds);
    VkSubmitInfo held = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = l->count, .pCommandBuffers = cmds};
    if (a->submitCount)
        memcpy(infos + (after ? 0 : 1), a->pSubmits, a->submitCount * sizeof *infos);
    infos[after ? a->submitCount : 0] = held;
    a->pSubmits = infos;
    a->submitCount++;
    return rt_ok_status();
}

static rt_status remember_signal(struct replay *r)
{
    struct replay_late_submits *l = &r->config->late;
    uint64_t queue = 0, fence = 0;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_QUEUE, l->queue, &queue));
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_FENCE, l->fence, &fence));
    l->signal_queue = (VkQueue)(uintptr_t)queue;
    l->signal_fence = (VkFence)(uintptr_t)fence;
    l->held = false;
    return rt_ok_status();
}

/* The held batch submitted now, as the program submitted it, through replay's own submit. */
static rt_status flush(struct replay *r)
{
    struct replay_late_submits *l = &r->config->late;
    if (!l->held)
        return rt_ok_status();
    struct rt_vk_args_vkQueueSubmit a = {.queue = (VkQueue)(uintptr_t)l->queue, .fence = (VkFence)(uintptr_t)l->fence};
    RT_TRY(with_held(r, &a, false));
    l->held = false;
    counters(r)->submissions_in_order++;
    return replay_queue_submit(r, &a, VK_SUCCESS);
}

/* Whether the submission may run before the held batch: nothing in it waits for that batch's work. */
static bool may_pass(struct replay *r, const struct rt_vk_args_vkQueueSubmit *a)
{
    struct replay_late_submits *l = &r->config->late;
    uint8_t held = 0;
    for (uint32_t i = 0; i < l->count; i++) {
        struct replay_late_record *rec = record_of(r, l->cmds[i], false);
        held |= rec ? rec->stages : EVERY;
    }
    for (uint32_t i = 0; i < a->submitCount; i++) {
        const VkSubmitInfo *s = &a->pSubmits[i];
        if (s->waitSemaphoreCount || s->pNext)
            return false;
        for (uint32_t k = 0; k < s->commandBufferCount; k++) {
            uint64_t cb = (uint64_t)(uintptr_t)s->pCommandBuffers[k], live = 0, v;
            struct replay_late_record *rec = record_of(r, cb, false);
            rt_status st = replay_live(r, VK_OBJECT_TYPE_COMMAND_BUFFER, cb, &live);
            bool barrier = rt_ok(&st) && rt_hashmap_get(&r->config->readback_cmds, live, &v); /* readback-barrier's */
            rt_status_free(&st);
            if (!rec || (rec->orders & held) || barrier)
                return false;
        }
    }
    return true;
}

static bool holdable(const struct rt_vk_args_vkQueueSubmit *a)
{
    const VkSubmitInfo *s = a->pSubmits;
    return a->fence && a->submitCount == 1 && s && !s->pNext && !s->waitSemaphoreCount &&
           !s->signalSemaphoreCount && s->commandBufferCount && s->commandBufferCount <= REPLAY_LATE_MAX_CMDS;
}

static rt_status hold(struct replay *r, struct rt_vk_args_vkQueueSubmit *a)
{
    struct replay_late_submits *l = &r->config->late;
    l->held = true;
    l->queue = (uint64_t)(uintptr_t)a->queue;
    l->fence = (uint64_t)(uintptr_t)a->fence;
    l->count = a->pSubmits[0].commandBufferCount;
    for (uint32_t i = 0; i < l->count; i++)
        l->cmds[i] = (uint64_t)(uintptr_t)a->pSubmits[0].pCommandBuffers[i];
    a->submitCount = 0; /* decoded: ours to change; an empty submission, no fence */
    a->pSubmits = NULL;
    a->fence = VK_NULL_HANDLE;
    counters(r)->submissions_held++;
    return rt_ok_status();
}

static rt_status before_submit(struct replay *r, struct replay_device *dev, enum rt_vk_cmd cmd, void *args)
{
    (void)dev;
    struct replay_late_submits *l = &r->config->late;
    struct rt_vk_args_vkQueueSubmit *a = args;
    bool submit = rt_vk_commands[cmd].trim_args == RT_VK_TRIM_ARGS_SUBMIT; /* vkQueueSubmit's arguments */
    if (l->held && (!submit || (uint64_t)(uintptr_t)a->queue != l->queue))
        return flush(r);
    if (!submit)
        return rt_ok_status();
    if (!l->held)
        return holdable(a) ? hold(r, a) : rt_ok_status();
    bool late = may_pass(r, a);
    RT_TRY(with_held(r, a, late));
    counters(r)->submissions_late += late;
    counters(r)->submissions_in_order += !late;
    return remember_signal(r);
}

/* The held batch's fence, once the submission that carries it is made. */
static rt_status after_submit(struct replay *r, struct replay_device *dev, VkQueue queue)
{
    struct replay_late_submits *l = &r->config->late;
    (void)queue;
    if (!l->signal_fence)
        return rt_ok_status();
    VkResult res = dev->dispatch.device.vkQueueSubmit(l->signal_queue, 0, NULL, l->signal_fence);
    l->signal_fence = VK_NULL_HANDLE;
    return res == VK_SUCCESS ? rt_ok_status()
                             : rt_errorf(RT_ERR_CANNOT_REPLAY, "test-late-submits: signalling a held fence: %d", res);
}

static rt_status before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    uint32_t flags = rt_vk_cmd_flags(cmd);
    if (rt_vk_commands[cmd].trim_role == RT_VK_TRIM_ROLE_RECORDS) { /* vkCmd*, begin, end */
        note_recording(r, cmd, args);
        return rt_ok_status();
    }
    if ((flags & (RT_VK_CMD_FLAG_WAITS | RT_VK_CMD_FLAG_DESTROYS)) ||
        (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_PRESENTS))
        return flush(r);
    return rt_ok_status();
}

static void frame_end(struct replay *r)
{
    rt_status s = flush(r);
    if (!rt_ok(&s))
        rt_log(RT_LOG_WARN, "test-late-submits: %s", s.msg);
    rt_status_free(&s);
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, submissions_held),
                                                        REPLAY_WA_COUNTER(struct counters, submissions_late),
                                                        REPLAY_WA_COUNTER(struct counters, submissions_in_order)};

const struct replay_workaround replay_wa_test_late_submits = {
    .info = {"test-late-submits",
             "TEST ONLY: models a queue that runs unordered submissions out of order (diagnose's tests)",
             "submission: a vkQueueSubmit of one batch with a fence and no semaphores is held back; the\n"
             "next vkQueueSubmit to that queue runs it after its own batches when nothing orders it\n"
             "after the held one (no semaphore wait, no barrier from the held work's stages, no render\n"
             "pass, no readback-barrier barrier), else before them; the held fence is signalled after.\n"
             "Any other wait, present or destroy, and the frame's end, submit it first, in order.\n"
             "Needs RETRACE_TEST_DRIVER=1. A model of a bug for tests of retrace diagnose, never a fix."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .adjust_device = adjust_device,
    .before_call = before_call,
    .before_submit = before_submit,
    .after_submit = after_submit,
    .frame_end = frame_end,
};
