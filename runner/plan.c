/*
 * runner/plan.c — the trace x configuration list and its shards. A job's
 * shard depends only on its position in the whole list, so every machine of
 * a farm computes the same split from the same manifest.
 */
#include <stdlib.h>
#include <string.h>

#include "runner.h"

static bool has_tag(const struct rt_manifest_trace *t, const char *tag)
{
    if (!tag)
        return true;
    for (size_t i = 0; i < t->tag_count; i++)
        if (!strcmp(t->tags[i], tag))
            return true;
    return false;
}

static bool wanted(const struct rt_manifest *m, size_t config, const char *name)
{
    return !name || !strcmp(m->configs[config].name, name);
}

rt_status rt_run_jobs_plan(const struct rt_manifest *manifest, const struct rt_run_filter *filter,
                           struct rt_run_plan *out)
{
    memset(out, 0, sizeof *out);
    const char *tag = filter->tag, *cfg = filter->configuration;
    uint32_t shard_index = filter->shard_count ? filter->shard_index : 1;
    uint32_t shard_count = filter->shard_count ? filter->shard_count : 1;
    if (shard_index == 0 || shard_index > shard_count)
        return rt_errorf(RT_ERR_USAGE, "shard %u/%u: I must be from 1 to N", shard_index, shard_count);
    bool known = !cfg;
    for (size_t c = 0; !known && c < manifest->config_count; c++)
        known = wanted(manifest, c, cfg);
    if (!known)
        return rt_errorf(RT_ERR_USAGE, "%s names no configuration '%s'", manifest->path, cfg);
    size_t total = 0;
    for (size_t t = 0; t < manifest->trace_count; t++)
        for (size_t c = 0; has_tag(&manifest->traces[t], tag) && c < manifest->traces[t].config_count; c++)
            total += wanted(manifest, manifest->traces[t].configs[c], cfg);
    out->jobs = calloc(total ? total : 1, sizeof *out->jobs);
    if (!out->jobs)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    size_t k = 0;
    for (size_t t = 0; t < manifest->trace_count; t++) {
        const struct rt_manifest_trace *tr = &manifest->traces[t];
        if (!has_tag(tr, tag))
            continue;
        for (size_t c = 0; c < tr->config_count; c++) {
            if (!wanted(manifest, tr->configs[c], cfg))
                continue;
            if (k++ % shard_count == shard_index - 1)
                out->jobs[out->count++] = (struct rt_run_job){.trace = t, .config = tr->configs[c], .index = k - 1};
        }
    }
    out->total = total;
    return rt_ok_status();
}

void rt_run_plan_finish(struct rt_run_plan *plan)
{
    free(plan->jobs);
    memset(plan, 0, sizeof *plan);
}
