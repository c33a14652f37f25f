/* replay/workarounds/test_flip_blend.c — test-flip-blend, a deliberate break
 * for tests of `retrace diagnose` (issue 19), not a fix: the K-th graphics
 * pipeline the trace creates (K from RETRACE_TEST_FLIP_BLEND, counted from 1
 * over pipelines with colour attachments) blends its first colour attachment
 * the wrong way. Without that variable it refuses to run, so no configuration
 * can turn it on by accident. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "replay_config.h"
#include "workaround.h"

#define ID RT_WA_TEST_FLIP_BLEND

struct counters {
    uint64_t pipelines_seen, pipelines_broken, dynamic_flips;
};
/* A broken pipeline whose blending is dynamic state (zink: VK_EXT_extended_dynamic_state3
 * sets it with vkCmdSetColorBlendEnableEXT/EquationEXT after each bind): the states set
 * while it is bound are broken instead, and the program's own put back at the next bind
 * of another pipeline. One command buffer at a time is followed (replay_config.h's
 * replay_flip_blend): a program recording several at once with that pipeline breaks
 * only the last that bound it. */
REPLAY_WA_COUNTERS(struct counters, ID)

/* K, or 0 when RETRACE_TEST_FLIP_BLEND is not a positive number. */
static uint64_t which(void)
{
    const char *env = getenv("RETRACE_TEST_FLIP_BLEND");
    char *end = NULL;
    unsigned long long k = env && *env ? strtoull(env, &end, 10) : 0;
    return end && !*end ? (uint64_t)k : 0;
}

static rt_status adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    (void)r;
    (void)info;
    if (!which())
        return rt_errorf(RT_ERR_USAGE, "test-flip-blend breaks a pipeline on purpose, for tests: it needs "
                         "RETRACE_TEST_FLIP_BLEND=K (the K-th graphics pipeline with colour attachments)");
    return rt_ok_status();
}

/* Blending off is src ONE, dst ZERO: the dst factor becomes ONE (the draw adds
 * to what is there). Blending on: the two colour factors swap places. */
static void flip(VkPipelineColorBlendAttachmentState *a)
{
    if (!a->blendEnable) {
        a->blendEnable = VK_TRUE;
        a->srcColorBlendFactor = a->srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
        a->dstColorBlendFactor = a->dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
        a->colorBlendOp = a->alphaBlendOp = VK_BLEND_OP_ADD;
        return;
    }
    VkBlendFactor src = a->srcColorBlendFactor;
    a->srcColorBlendFactor = a->dstColorBlendFactor;
    a->dstColorBlendFactor = src;
}

/* Whether the pipeline takes its first attachment's blending from dynamic state. */
static bool dynamic_blend(const VkGraphicsPipelineCreateInfo *info)
{
    const VkPipelineDynamicStateCreateInfo *d = info->pDynamicState;
    for (uint32_t i = 0; d && d->pDynamicStates && i < d->dynamicStateCount; i++)
        if (d->pDynamicStates[i] == VK_DYNAMIC_STATE_COLOR_BLEND_ENABLE_EXT ||
            d->pDynamicStates[i] == VK_DYNAMIC_STATE_COLOR_BLEND_EQUATION_EXT)
            return true;
    return false;
}

/* The equation flip() makes: blending off adds, blending on swaps the colour factors. */
static VkColorBlendEquationEXT flipped_equation(VkBool32 enabled, VkColorBlendEquationEXT e)
{
    if (!enabled)
        return (VkColorBlendEquationEXT){VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE, VK_BLEND_OP_ADD,
                                         VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE, VK_BLEND_OP_ADD};
    VkBlendFactor src = e.srcColorBlendFactor;
    e.srcColorBlendFactor = e.dstColorBlendFactor;
    e.dstColorBlendFactor = src;
    return e;
}

static rt_status live_cb(struct replay *r, uint64_t captured, VkCommandBuffer *cb, struct replay_device **dev)
{
    uint64_t live = 0;
    RT_TRY(replay_live(r, VK_OBJECT_TYPE_COMMAND_BUFFER, captured, &live));
    *cb = (VkCommandBuffer)(uintptr_t)live;
    *dev = replay_device_of(r, *cb);
    return *dev ? rt_ok_status()
                : rt_errorf(RT_ERR_BAD_INPUT, "call %" PRIu64 ": a command buffer of an unknown device", r->call_seq);
}

/* Blending as the program set it in C's command buffer (BROKEN: as flip() would have it), set now. */
static rt_status emit(struct replay *r, struct replay_flip_blend *c, bool broken)
{
    VkCommandBuffer cb;
    struct replay_device *dev;
    RT_TRY(live_cb(r, c->bound_cb, &cb, &dev));
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    bool known = c->state_cb == c->bound_cb;
    VkBool32 enable = known && c->have_enable ? c->enable : VK_FALSE, on = VK_TRUE;
    VkColorBlendEquationEXT eq = known && c->have_equation ? c->equation : (VkColorBlendEquationEXT){0};
    VkColorBlendEquationEXT bad = flipped_equation(enable, eq);
    if (d->vkCmdSetColorBlendEnableEXT && (broken || (known && c->have_enable)))
        d->vkCmdSetColorBlendEnableEXT(cb, 0, 1, broken ? &on : &enable);
    if (d->vkCmdSetColorBlendEquationEXT && (broken || (known && c->have_equation)))
        d->vkCmdSetColorBlendEquationEXT(cb, 0, 1, broken ? &bad : &eq);
    return rt_ok_status();
}

/* Binding the broken pipeline breaks the blending in effect (zink sets it only when it changes, not
 * at every bind); binding another after it puts the program's back. */
static rt_status bind(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdBindPipeline *a = args;
    struct replay_flip_blend *c = &r->config->flip_blend;
    uint64_t cb = (uint64_t)(uintptr_t)a->commandBuffer;
    if (a->pipelineBindPoint != VK_PIPELINE_BIND_POINT_GRAPHICS || !c->broken)
        return rt_ok_status();
    if ((uint64_t)(uintptr_t)a->pipeline == c->broken) {
        if (c->bound_cb == cb)
            return rt_ok_status();
        c->bound_cb = cb;
        c->flipped = true;
        counters(r)->dynamic_flips++;
        return emit(r, c, true);
    }
    if (cb != c->bound_cb)
        return rt_ok_status();
    rt_status s = c->flipped ? emit(r, c, false) : rt_ok_status();
    c->bound_cb = 0;
    c->flipped = false;
    return s;
}

/* The program's values are kept (for the command buffer it sets them in) before any change. */
static void track(struct replay_flip_blend *c, uint64_t cb)
{
    if (c->state_cb != cb) {
        c->state_cb = cb;
        c->have_enable = c->have_equation = false;
    }
}

static rt_status set_enable(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdSetColorBlendEnableEXT *a = args;
    struct replay_flip_blend *c = &r->config->flip_blend;
    uint64_t cb = (uint64_t)(uintptr_t)a->commandBuffer;
    if (a->firstAttachment != 0 || !a->attachmentCount || !a->pColorBlendEnables || !c->broken)
        return rt_ok_status();
    track(c, cb);
    c->enable = a->pColorBlendEnables[0];
    c->have_enable = true;
    if (cb != c->bound_cb)
        return rt_ok_status();
    ((VkBool32 *)a->pColorBlendEnables)[0] = VK_TRUE; /* decoded: ours to change */
    c->flipped = true;
    counters(r)->dynamic_flips++;
    return rt_ok_status();
}

static rt_status set_equation(struct replay *r, void *args)
{
    struct rt_vk_args_vkCmdSetColorBlendEquationEXT *a = args;
    struct replay_flip_blend *c = &r->config->flip_blend;
    uint64_t cb = (uint64_t)(uintptr_t)a->commandBuffer;
    if (a->firstAttachment != 0 || !a->attachmentCount || !a->pColorBlendEquations || !c->broken)
        return rt_ok_status();
    track(c, cb);
    c->equation = a->pColorBlendEquations[0];
    c->have_equation = true;
    if (cb != c->bound_cb)
        return rt_ok_status();
    ((VkColorBlendEquationEXT *)a->pColorBlendEquations)[0] =
        flipped_equation(c->have_enable ? c->enable : VK_TRUE, c->equation);
    c->flipped = true;
    counters(r)->dynamic_flips++;
    return rt_ok_status();
}

typedef rt_status (*hook)(struct replay *r, void *args);

static rt_status create(struct replay *r, void *args);

/* The commands it changes, as a table indexed by command (no name compares). */
static const hook hooks[RT_VK_CMD_COUNT] = {
    [RT_VK_CMD_vkCreateGraphicsPipelines] = create,
    [RT_VK_CMD_vkCmdBindPipeline] = bind,
    [RT_VK_CMD_vkCmdSetColorBlendEnableEXT] = set_enable,
    [RT_VK_CMD_vkCmdSetColorBlendEquationEXT] = set_equation,
};

static rt_status before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    return hooks[cmd] ? hooks[cmd](r, args) : rt_ok_status();
}

static rt_status create(struct replay *r, void *args)
{
    struct rt_vk_args_vkCreateGraphicsPipelines *a = args;
    for (uint32_t i = 0; a->pCreateInfos && i < a->createInfoCount; i++) {
        const VkPipelineColorBlendStateCreateInfo *cb = a->pCreateInfos[i].pColorBlendState;
        if (!cb || !cb->attachmentCount || !cb->pAttachments || ++counters(r)->pipelines_seen != which())
            continue;
        flip((VkPipelineColorBlendAttachmentState *)cb->pAttachments); /* decoded: ours to change */
        counters(r)->pipelines_broken++;
        if (dynamic_blend(&a->pCreateInfos[i]) && a->pPipelines) /* what the flip above does not reach */
            r->config->flip_blend.broken = (uint64_t)(uintptr_t)a->pPipelines[i];
        char id[24];
        snprintf(id, sizeof id, "0x%" PRIx64, a->pPipelines ? (uint64_t)(uintptr_t)a->pPipelines[i] : 0);
        replay_wa_add_name(r, ID, id, true);
        rt_log(RT_LOG_WARN, "test-flip-blend: pipeline %s (graphics pipeline %" PRIu64 ") blends wrongly, on purpose",
               id, which()); /* so that a test knows which draws to expect */
    }
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, pipelines_seen),
                                                        REPLAY_WA_COUNTER(struct counters, pipelines_broken),
                                                        REPLAY_WA_COUNTER(struct counters, dynamic_flips)};

const struct replay_workaround replay_wa_test_flip_blend = {
    .info = {"test-flip-blend", "TEST ONLY: breaks one pipeline's blending on purpose (diagnose's tests)",
             "vkCreateGraphicsPipelines: the K-th graphics pipeline with colour attachments\n"
             "(RETRACE_TEST_FLIP_BLEND=K, required) blends its first attachment wrongly: blending\n"
             "off becomes additive, blending on swaps the source and destination colour factors.\n"
             "Where that pipeline's blending is dynamic state (zink), vkCmdSetColorBlendEnableEXT and\n"
             "vkCmdSetColorBlendEquationEXT while it is bound are broken the same way instead.\n"
             "A deliberate break for tests of retrace diagnose, never a fix."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .names_key = "pipelines",
    .adjust_device = adjust_device,
    .before_call = before_call,
};
