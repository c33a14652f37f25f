/* replay/workarounds/no_pipeline_cache.c — no-pipeline-cache: captured
 * pipeline-cache data is dropped, so every pipeline is compiled afresh; a
 * --pipeline-cache file is not loaded (pipeline_cache.c asks
 * replay_no_pipeline_cache_skips_file). */
#include "workaround.h"

#define ID RT_WA_NO_PIPELINE_CACHE

struct counters {
    uint64_t caches_emptied;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static rt_status before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    const struct rt_vk_command_desc *d = &rt_vk_commands[cmd];
    if (!(d->flags & RT_VK_CMD_FLAG_CREATES) || d->object_type != VK_OBJECT_TYPE_PIPELINE_CACHE)
        return rt_ok_status();
    /* vkCreatePipelineCache is the one command that makes pipeline caches */
    VkPipelineCacheCreateInfo *info =
        (VkPipelineCacheCreateInfo *)((struct rt_vk_args_vkCreatePipelineCache *)args)->pCreateInfo;
    if (info->initialDataSize)
        counters(r)->caches_emptied++;
    info->initialDataSize = 0;
    info->pInitialData = NULL;
    return rt_ok_status();
}

bool replay_no_pipeline_cache_skips_file(struct replay *r)
{
    if (!replay_workaround(r, ID))
        return false;
    counters(r)->caches_emptied++;
    return true;
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, caches_emptied)};

const struct replay_workaround replay_wa_no_pipeline_cache = {
    .info = {"no-pipeline-cache", "drop captured pipeline-cache data: every pipeline is compiled afresh",
             "vkCreatePipelineCache: the captured initial data is dropped (an empty cache is made);\n"
             "--pipeline-cache FILE is not loaded (the file is still written at the end)."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .before_call = before_call,
};
