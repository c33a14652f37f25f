/* replay/gpu_stall.c — the gpu delay: before each submission of the trace,
 * a submission of one compute dispatch that spins for the asked time,
 * followed by a barrier (compute -> all commands) that holds every later
 * command of the queue until it is done. The spin is a serial chain of
 * multiply-adds (shaders/gpu_stall.comp) whose length is calibrated on the
 * device: timestamps around a trial dispatch where the queue has them, the
 * host's clock around a submit and wait elsewhere. The calibrated stall is
 * then measured again and reported next to the asked duration. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_stall_comp.h"
#include "log.h"
#include "replay_config.h"

#define MAX_FAMILIES 8
#define CHECK_RUNS 5
#define INNER 1024u     /* steps per outer iteration (shaders/gpu_stall.comp) */
#define MAX_OUTER 65535u /* llvmpipe's loop limit */

struct replay_gpu_stall {
    struct replay_device *dev; /* first: configure.c finds a device's stall by it */
    VkBuffer sink;
    VkDeviceMemory sink_memory;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkQueryPool queries;
    uint32_t iterations; /* outer iterations of INNER steps */
    uint32_t families[MAX_FAMILIES];
    VkCommandPool pools[MAX_FAMILIES];
    VkCommandBuffer cmds[MAX_FAMILIES]; /* recorded once, submitted before every submission */
    uint32_t family_count;
    uint32_t compute_families; /* bit F: family F can run the dispatch (graphics or compute) */
};

#define VK_OK(expr, what)                                                                          \
    do {                                                                                           \
        VkResult vr__ = (expr);                                                                    \
        if (vr__ != VK_SUCCESS)                                                                    \
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "gpu delay: %s failed (%s)", what, replay_result_name(vr__)); \
    } while (0)

static rt_status create_sink(struct replay *r, struct replay_gpu_stall *g)
{
    const struct rt_vk_device_dispatch *d = &g->dev->dispatch.device;
    VkDevice dev = g->dev->handle;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 256,
                               .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
    VK_OK(d->vkCreateBuffer(dev, &info, NULL, &g->sink), "vkCreateBuffer");
    VkMemoryRequirements req;
    d->vkGetBufferMemoryRequirements(dev, g->sink, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size};
    while (alloc.memoryTypeIndex < r->gpu_memory.memoryTypeCount && !(req.memoryTypeBits & (1u << alloc.memoryTypeIndex)))
        alloc.memoryTypeIndex++;
    VK_OK(d->vkAllocateMemory(dev, &alloc, NULL, &g->sink_memory), "vkAllocateMemory");
    VK_OK(d->vkBindBufferMemory(dev, g->sink, g->sink_memory, 0), "vkBindBufferMemory");
    return rt_ok_status();
}

static rt_status create_descriptors(struct replay_gpu_stall *g)
{
    const struct rt_vk_device_dispatch *d = &g->dev->dispatch.device;
    VkDevice dev = g->dev->handle;
    VkDescriptorSetLayoutBinding binding = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo linfo = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                             .bindingCount = 1, .pBindings = &binding};
    VK_OK(d->vkCreateDescriptorSetLayout(dev, &linfo, NULL, &g->set_layout), "vkCreateDescriptorSetLayout");
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
    VkDescriptorPoolCreateInfo pinfo = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                        .poolSizeCount = 1, .pPoolSizes = &size};
    VK_OK(d->vkCreateDescriptorPool(dev, &pinfo, NULL, &g->descriptor_pool), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo ainfo = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = g->descriptor_pool, .descriptorSetCount = 1,
                                         .pSetLayouts = &g->set_layout};
    VK_OK(d->vkAllocateDescriptorSets(dev, &ainfo, &g->set), "vkAllocateDescriptorSets");
    VkDescriptorBufferInfo buffer = {g->sink, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = g->set,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &buffer};
    d->vkUpdateDescriptorSets(dev, 1, &write, 0, NULL);
    return rt_ok_status();
}

static rt_status create_pipeline(struct replay_gpu_stall *g)
{
    const struct rt_vk_device_dispatch *d = &g->dev->dispatch.device;
    VkDevice dev = g->dev->handle;
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 12};
    VkPipelineLayoutCreateInfo linfo = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                        .pSetLayouts = &g->set_layout, .pushConstantRangeCount = 1,
                                        .pPushConstantRanges = &range};
    VK_OK(d->vkCreatePipelineLayout(dev, &linfo, NULL, &g->layout), "vkCreatePipelineLayout");
    VkShaderModuleCreateInfo minfo = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                      .codeSize = sizeof gpu_stall_comp, .pCode = gpu_stall_comp};
    VkShaderModule module;
    VK_OK(d->vkCreateShaderModule(dev, &minfo, NULL, &module), "vkCreateShaderModule");
    VkComputePipelineCreateInfo cinfo = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, .layout = g->layout,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module, .pName = "main"}};
    VkResult vr = d->vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cinfo, NULL, &g->pipeline);
    d->vkDestroyShaderModule(dev, module, NULL);
    VK_OK(vr, "vkCreateComputePipelines");
    return rt_ok_status();
}

/* The dispatch and the barrier that holds later work of the queue behind it;
 * with TIMED, between two timestamps. */
static void record_stall(struct replay_gpu_stall *g, VkCommandBuffer cmd, uint32_t iterations, bool timed)
{
    const struct rt_vk_device_dispatch *d = &g->dev->dispatch.device;
    uint32_t push[3] = {iterations, INNER, 12345u};
    if (timed) {
        d->vkCmdResetQueryPool(cmd, g->queries, 0, 2);
        d->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, g->queries, 0);
    }
    d->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->pipeline);
    d->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->layout, 0, 1, &g->set, 0, NULL);
    d->vkCmdPushConstants(cmd, g->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    d->vkCmdDispatch(cmd, 1, 1, 1);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT};
    d->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                            &barrier, 0, NULL, 0, NULL);
    if (timed)
        d->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, g->queries, 1);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Runs one stall of ITERATIONS on the device's queue and returns its length. */
static rt_status time_stall(struct replay *r, struct replay_gpu_stall *g, VkCommandBuffer cmd, uint32_t iterations,
                            double *ns_out)
{
    const struct rt_vk_device_dispatch *d = &g->dev->dispatch.device;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_OK(d->vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
    record_stall(g, cmd, iterations, g->queries != VK_NULL_HANDLE);
    VK_OK(d->vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    double start = now_ns();
    VK_OK(d->vkQueueSubmit(g->dev->any_queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
    VK_OK(d->vkQueueWaitIdle(g->dev->any_queue), "vkQueueWaitIdle");
    *ns_out = now_ns() - start;
    uint64_t stamps[2];
    if (g->queries && d->vkGetQueryPoolResults(g->dev->handle, g->queries, 0, 2, sizeof stamps, stamps, 8,
                                               VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS)
        *ns_out = (double)(stamps[1] - stamps[0]) * r->gpu_properties.limits.timestampPeriod;
    return rt_ok_status();
}

static rt_status command_buffer(struct replay_gpu_stall *g, uint32_t family, VkCommandPool *pool, VkCommandBuffer *cmd)
{
    const struct rt_vk_device_dispatch *d = &g->dev->dispatch.device;
    VkCommandPoolCreateInfo pinfo = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = family,
                                     .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT};
    VK_OK(d->vkCreateCommandPool(g->dev->handle, &pinfo, NULL, pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ainfo = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = *pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VK_OK(d->vkAllocateCommandBuffers(g->dev->handle, &ainfo, cmd), "vkAllocateCommandBuffers");
    return rt_ok_status();
}

/* Finds the iteration count for the asked duration, then measures it. */
static rt_status calibrate(struct replay *r, struct replay_gpu_stall *g, uint64_t asked_us)
{
    VkCommandPool pool;
    VkCommandBuffer cmd;
    RT_TRY(command_buffer(g, g->dev->any_queue_family, &pool, &cmd));
    double ns = 0, target = (double)asked_us * 1e3;
    uint32_t n = 1;
    /* The first dispatch may include compiling the shader: not timed. */
    rt_status s = time_stall(r, g, cmd, 1, &ns);
    /* Grow the trial until it is long enough to time well (>= 2 ms or the target). */
    while (rt_ok(&s) && (s = time_stall(r, g, cmd, n, &ns), rt_ok(&s)) && ns < (target < 2e6 ? target : 2e6) &&
           n < MAX_OUTER / 8)
        n *= 8;
    /* Then scale to the target, twice: the second corrects what is not linear. */
    for (int round = 0; round < 2 && rt_ok(&s); round++) {
        double iterations = ns > 0 ? (double)n * target / ns : (double)n;
        n = iterations > MAX_OUTER ? MAX_OUTER : iterations < 1 ? 1 : (uint32_t)iterations;
        s = time_stall(r, g, cmd, n, &ns);
    }
    g->iterations = n;
    double total = 0;
    for (int i = 0; i < CHECK_RUNS && rt_ok(&s); i++) {
        s = time_stall(r, g, cmd, g->iterations, &ns);
        total += ns;
    }
    g->dev->dispatch.device.vkDestroyCommandPool(g->dev->handle, pool, NULL);
    struct rt_replay_outcome *o = &r->result->outcome;
    o->gpu_stall.asked_us = asked_us;
    o->gpu_stall.iterations = (uint64_t)g->iterations * INNER;
    o->gpu_stall.measured_ns = (uint64_t)(total / CHECK_RUNS);
    o->gpu_stall.method = g->queries ? "calibrated-loop (timestamps)" : "calibrated-loop (host clock)";
    return s;
}

static void create_queries(struct replay *r, struct replay_gpu_stall *g)
{
    uint32_t count = 0;
    r->instance_dispatch.vkGetPhysicalDeviceQueueFamilyProperties(r->gpu, &count, NULL);
    VkQueueFamilyProperties *props = rt_arena_calloc(&r->arena, count + 1, sizeof *props, 8);
    if (!props)
        return;
    r->instance_dispatch.vkGetPhysicalDeviceQueueFamilyProperties(r->gpu, &count, props);
    for (uint32_t f = 0; f < count && f < 32; f++)
        if (props[f].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT))
            g->compute_families |= 1u << f;
    if (g->dev->any_queue_family >= count || !props[g->dev->any_queue_family].timestampValidBits ||
        r->gpu_properties.limits.timestampPeriod <= 0)
        return;
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    if (g->dev->dispatch.device.vkCreateQueryPool(g->dev->handle, &info, NULL, &g->queries) != VK_SUCCESS)
        g->queries = VK_NULL_HANDLE;
}

rt_status replay_gpu_stall_create(struct replay *r, struct replay_device *dev, struct replay_gpu_stall **out)
{
    struct replay_gpu_stall *g = calloc(1, sizeof *g);
    if (!g)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    g->dev = dev;
    *out = g;
    RT_TRY(create_sink(r, g));
    RT_TRY(create_descriptors(g));
    RT_TRY(create_pipeline(g));
    create_queries(r, g);
    if (g->dev->any_queue_family >= 32 || !(g->compute_families & (1u << g->dev->any_queue_family)))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "gpu delay: the device's first queue (family %u) cannot run compute",
                         g->dev->any_queue_family);
    RT_TRY(calibrate(r, g, r->config->delay[RT_DELAY_GPU]->us));
    rt_log(RT_LOG_INFO, "gpu delay: %" PRIu64 " us asked, %.1f us measured (%u x %u steps)",
           r->config->delay[RT_DELAY_GPU]->us, (double)r->result->outcome.gpu_stall.measured_ns / 1e3, g->iterations,
           INNER);
    return rt_ok_status();
}

/* The stall's command buffer for FAMILY, recorded on first use. */
static rt_status stall_command_buffer(struct replay_gpu_stall *g, uint32_t family, VkCommandBuffer *out)
{
    for (uint32_t i = 0; i < g->family_count; i++) {
        if (g->families[i] == family) {
            *out = g->cmds[i];
            return rt_ok_status();
        }
    }
    if (g->family_count == MAX_FAMILIES)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "gpu delay: more than %d queue families", MAX_FAMILIES);
    uint32_t i = g->family_count;
    RT_TRY(command_buffer(g, family, &g->pools[i], &g->cmds[i]));
    g->families[i] = family;
    g->family_count++;
    const struct rt_vk_device_dispatch *d = &g->dev->dispatch.device;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
    VK_OK(d->vkBeginCommandBuffer(g->cmds[i], &begin), "vkBeginCommandBuffer");
    record_stall(g, g->cmds[i], g->iterations, false);
    VK_OK(d->vkEndCommandBuffer(g->cmds[i]), "vkEndCommandBuffer");
    *out = g->cmds[i];
    return rt_ok_status();
}

rt_status replay_gpu_stall_submit(struct replay *r, struct replay_gpu_stall *g, VkQueue queue)
{
    VkCommandBuffer cmd;
    uint32_t family = replay_queue_family(r, queue);
    if (family >= 32 || !(g->compute_families & (1u << family)))
        return rt_ok_status(); /* a transfer-only queue cannot dispatch: not stalled, not counted */
    RT_TRY(stall_command_buffer(g, family, &cmd));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    VK_OK(g->dev->dispatch.device.vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
    r->result->outcome.delays[RT_DELAY_GPU].count++;
    r->result->outcome.delays[RT_DELAY_GPU].total_us += r->config->delay[RT_DELAY_GPU]->us;
    return rt_ok_status();
}

void replay_gpu_stall_destroy(struct replay_gpu_stall *g)
{
    const struct rt_vk_device_dispatch *d = &g->dev->dispatch.device;
    VkDevice dev = g->dev->handle;
    d->vkDeviceWaitIdle(dev);
    for (uint32_t i = 0; i < g->family_count; i++)
        d->vkDestroyCommandPool(dev, g->pools[i], NULL);
    d->vkDestroyQueryPool(dev, g->queries, NULL);
    d->vkDestroyPipeline(dev, g->pipeline, NULL);
    d->vkDestroyPipelineLayout(dev, g->layout, NULL);
    d->vkDestroyDescriptorPool(dev, g->descriptor_pool, NULL);
    d->vkDestroyDescriptorSetLayout(dev, g->set_layout, NULL);
    d->vkDestroyBuffer(dev, g->sink, NULL);
    d->vkFreeMemory(dev, g->sink_memory, NULL);
    free(g);
}
