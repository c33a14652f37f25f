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
#include "workaround.h"

#define ID RT_WA_TEST_FLIP_BLEND

struct counters {
    uint64_t pipelines_seen, pipelines_broken;
};
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

/* The one command it changes, as a table indexed by command (no name compares). */
static const bool makes_graphics_pipelines[RT_VK_CMD_COUNT] = {[RT_VK_CMD_vkCreateGraphicsPipelines] = true};

static rt_status before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (!makes_graphics_pipelines[cmd])
        return rt_ok_status();
    struct rt_vk_args_vkCreateGraphicsPipelines *a = args;
    for (uint32_t i = 0; a->pCreateInfos && i < a->createInfoCount; i++) {
        const VkPipelineColorBlendStateCreateInfo *cb = a->pCreateInfos[i].pColorBlendState;
        if (!cb || !cb->attachmentCount || !cb->pAttachments || ++counters(r)->pipelines_seen != which())
            continue;
        flip((VkPipelineColorBlendAttachmentState *)cb->pAttachments); /* decoded: ours to change */
        counters(r)->pipelines_broken++;
        char id[24];
        snprintf(id, sizeof id, "0x%" PRIx64, a->pPipelines ? (uint64_t)(uintptr_t)a->pPipelines[i] : 0);
        replay_wa_add_name(r, ID, id, true);
        rt_log(RT_LOG_WARN, "test-flip-blend: pipeline %s (graphics pipeline %" PRIu64 ") blends wrongly, on purpose",
               id, which()); /* so that a test knows which draws to expect */
    }
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, pipelines_seen),
                                                        REPLAY_WA_COUNTER(struct counters, pipelines_broken)};

const struct replay_workaround replay_wa_test_flip_blend = {
    .info = {"test-flip-blend", "TEST ONLY: breaks one pipeline's blending on purpose (diagnose's tests)",
             "vkCreateGraphicsPipelines: the K-th graphics pipeline with colour attachments\n"
             "(RETRACE_TEST_FLIP_BLEND=K, required) blends its first attachment wrongly: blending\n"
             "off becomes additive, blending on swaps the source and destination colour factors.\n"
             "A deliberate break for tests of retrace diagnose, never a fix."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .names_key = "pipelines",
    .adjust_device = adjust_device,
    .before_call = before_call,
};
