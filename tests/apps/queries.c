/* tests/apps/queries.c — rt_app_queries: queries written in one frame and
 * read in later ones, as video players and engines time their GPU work
 * (mpv through libplacebo writes timestamps and reads them frames later).
 * Frame N resets slot N % SLOTS of a timestamp pool and of an occlusion
 * pool, writes a timestamp and counts the grid's samples into them; after
 * frame N is submitted the host reads frame N-1's slot with WAIT_BIT (and
 * checks the sample count: exit 1 if wrong). Before drawing, every frame
 * copies the availability of all slots of both pools (vkCmdCopyQueryPoolResults
 * WITH_AVAILABILITY) into the grid's cells: row 1 the timestamps, row 2 the
 * occlusion queries, so the picture shows which queries are available. A
 * trimmed trace of it needs the snapshot to leave available what was
 * available at its first frame, and reset what was reset. */
#include "grid.h"

#define SLOTS 8
#define STRIDE 8 /* one 32-bit result and its availability word */

struct queries {
    VkQueryPool timestamps, occlusion;
    struct rt_app_buffer cells, scratch;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    struct grid grid;
};

static rt_status pool(struct rt_app *app, VkQueryType type, VkQueryPool *out)
{
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = type,
                                  .queryCount = SLOTS};
    RT_VK(vkCreateQueryPool(app->device, &info, NULL, out));
    return rt_ok_status();
}

static rt_status queries_setup(struct rt_app *app, void *user)
{
    struct queries *q = user;
    uint32_t bits = 0;
    VkQueueFamilyProperties families[16];
    uint32_t n = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(app->physical, &n, families);
    if (app->queue_family < n)
        bits = families[app->queue_family].timestampValidBits;
    if (!bits)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the queue family has no timestamps");
    RT_TRY(pool(app, VK_QUERY_TYPE_TIMESTAMP, &q->timestamps));
    RT_TRY(pool(app, VK_QUERY_TYPE_OCCLUSION, &q->occlusion));
    RT_TRY(rt_app_buffer_create(app, GRID_CELLS * sizeof(uint32_t),
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false, &q->cells));
    RT_TRY(rt_app_buffer_create(app, 2 * SLOTS * STRIDE,
                                VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false, &q->scratch));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &q->pass));
    RT_TRY(rt_app_framebuffers(app, q->pass, VK_NULL_HANDLE, q->framebuffers));
    return grid_setup(app, &q->grid, q->pass, q->cells.buffer);
}

static void transfer_barrier(struct rt_app *app, VkCommandBuffer cmd, VkPipelineStageFlags2 dst_stage,
                             VkAccessFlags2 dst_access)
{
    rt_app_memory_barrier(app, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT, dst_stage, dst_access);
}

/* The cells: black, then each slot's availability word (0 or 1) in its cell. */
static void show_availability(struct rt_app *app, struct queries *q, VkCommandBuffer cmd)
{
    vkCmdFillBuffer(cmd, q->scratch.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, q->cells.buffer, 0, VK_WHOLE_SIZE, 0);
    transfer_barrier(app, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
    vkCmdCopyQueryPoolResults(cmd, q->timestamps, 0, SLOTS, q->scratch.buffer, 0, STRIDE,
                              VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    vkCmdCopyQueryPoolResults(cmd, q->occlusion, 0, SLOTS, q->scratch.buffer, SLOTS * STRIDE, STRIDE,
                              VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    transfer_barrier(app, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferCopy regions[2 * SLOTS];
    for (uint32_t i = 0; i < 2 * SLOTS; i++) /* row 1 (cells 0..): timestamps; row 2 (cells 16..): occlusion */
        regions[i] = (VkBufferCopy){.srcOffset = i * STRIDE + 4,
                                    .dstOffset = ((i / SLOTS) * GRID_COLS + i % SLOTS) * sizeof(uint32_t), .size = 4};
    vkCmdCopyBuffer(cmd, q->scratch.buffer, q->cells.buffer, 2 * SLOTS, regions);
    transfer_barrier(app, cmd, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
}

static rt_status queries_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct queries *q = user;
    uint32_t slot = f->number % SLOTS;
    if (f->number == 1) { /* a query is reset once before any use */
        vkCmdResetQueryPool(f->cmd, q->timestamps, 0, SLOTS);
        vkCmdResetQueryPool(f->cmd, q->occlusion, 0, SLOTS);
        transfer_barrier(app, f->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    }
    show_availability(app, q, f->cmd);
    vkCmdResetQueryPool(f->cmd, q->timestamps, slot, 1);
    vkCmdResetQueryPool(f->cmd, q->occlusion, slot, 1);
    vkCmdWriteTimestamp(f->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, q->timestamps, slot);
    VkClearValue clear = {.color = {{0, 0, 0, 1}}};
    rt_app_begin_render_pass(app, f->cmd, q->pass, q->framebuffers[f->image_index], &clear, 1,
                             VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBeginQuery(f->cmd, q->occlusion, slot, 0);
    grid_draw(&q->grid, f->cmd, app->extent);
    vkCmdEndQuery(f->cmd, q->occlusion, slot);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

/* The previous frame's slot, read as a profiler reads it: waiting for it. */
static rt_status queries_read(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct queries *q = user;
    if (f->number < 2)
        return rt_ok_status();
    uint32_t slot = (f->number - 1) % SLOTS;
    uint64_t stamp = 0, samples = 0;
    VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT;
    RT_VK(vkGetQueryPoolResults(app->device, q->timestamps, slot, 1, sizeof stamp, &stamp, sizeof stamp, flags));
    RT_VK(vkGetQueryPoolResults(app->device, q->occlusion, slot, 1, sizeof samples, &samples, sizeof samples, flags));
    if (samples == 0)
        return rt_errorf(RT_ERR_FAILED, "frame %u: the occlusion query counted no samples of the grid", f->number - 1);
    return rt_ok_status();
}

static void queries_teardown(struct rt_app *app, void *user)
{
    struct queries *q = user;
    grid_teardown(app, &q->grid);
    rt_app_framebuffers_destroy(app, q->framebuffers);
    vkDestroyRenderPass(app->device, q->pass, NULL);
    rt_app_buffer_destroy(app, &q->cells);
    rt_app_buffer_destroy(app, &q->scratch);
    vkDestroyQueryPool(app->device, q->timestamps, NULL);
    vkDestroyQueryPool(app->device, q->occlusion, NULL);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "queries",
        .summary = "Timestamp and occlusion queries written in one frame and read in later ones; "
                   "the grid shows which are available.",
        .setup = queries_setup,
        .record = queries_record,
        .after_frame = queries_read,
        .teardown = queries_teardown,
    };
    struct queries q = {0};
    return rt_app_main(&desc, &q, argc, argv);
}
