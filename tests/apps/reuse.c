/* tests/apps/reuse.c — rt_app_reuse: host memory whose bytes outlive the
 * buffers bound to it. One host-visible allocation holds no buffer between
 * frames; each frame maps it, writes the grid's colours (the same every
 * frame), binds a new staging buffer there, copies it into the grid's
 * buffer in a submission of its own, and destroys it once that has run,
 * before the frame draws and presents. The capture layer records
 * only the pages a write changed, so after frame 1 the writes leave no
 * trace: a replay that starts mid-run
 * (a trimmed trace) must hold the allocation's bytes as they were, though no
 * live resource covers them. */
#include "grid.h"

#include <string.h>

#define CELLS_BYTES (GRID_CELLS * sizeof(uint32_t))
#define STAGE_OFFSET 256 /* where each frame's buffer sits in the allocation */

struct reuse {
    VkDeviceMemory memory; /* host-visible; no buffer in it between frames */
    VkBuffer stage;        /* this frame's, destroyed after it */
    struct rt_app_buffer cells;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    struct grid grid;
};

static rt_status make_stage(struct rt_app *app, VkBuffer *out)
{
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = CELLS_BYTES,
                               .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    RT_VK(vkCreateBuffer(app->device, &info, NULL, out));
    return rt_ok_status();
}

static rt_status reuse_setup(struct rt_app *app, void *user)
{
    struct reuse *u = user;
    RT_TRY(rt_app_buffer_create(app, CELLS_BYTES, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false, &u->cells));
    VkBuffer probe;
    RT_TRY(make_stage(app, &probe));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(app->device, probe, &req);
    vkDestroyBuffer(app->device, probe, NULL);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = 4096};
    RT_TRY(rt_app_memory_type(app, req.memoryTypeBits,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                              &alloc.memoryTypeIndex));
    RT_VK(vkAllocateMemory(app->device, &alloc, NULL, &u->memory));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &u->pass));
    RT_TRY(rt_app_framebuffers(app, u->pass, VK_NULL_HANDLE, u->framebuffers));
    return grid_setup(app, &u->grid, u->pass, u->cells.buffer);
}

/* The colours go in while no buffer is bound there; then one is, its copy
 * runs in a one-time submission waited for, and it goes: at every frame's
 * start the allocation holds the colours but no buffer. */
static rt_status restage(struct rt_app *app, struct reuse *u)
{
    void *p = NULL;
    RT_VK(vkMapMemory(app->device, u->memory, 0, VK_WHOLE_SIZE, 0, &p));
    uint32_t *cells = (uint32_t *)((uint8_t *)p + STAGE_OFFSET);
    for (uint32_t i = 0; i < GRID_CELLS; i++)
        cells[i] = grid_color(i, 1);
    vkUnmapMemory(app->device, u->memory);
    RT_TRY(make_stage(app, &u->stage));
    RT_VK(vkBindBufferMemory(app->device, u->stage, u->memory, STAGE_OFFSET));
    VkCommandBuffer cmd;
    RT_TRY(rt_app_upload_begin(app, &cmd));
    /* the frame in flight may still read the cells */
    rt_app_memory_barrier(app, cmd, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy copy = {0, 0, CELLS_BYTES};
    vkCmdCopyBuffer(cmd, u->stage, u->cells.buffer, 1, &copy);
    RT_TRY(rt_app_upload_end(app, cmd));
    vkDestroyBuffer(app->device, u->stage, NULL);
    u->stage = VK_NULL_HANDLE;
    return rt_ok_status();
}

static rt_status reuse_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct reuse *u = user;
    RT_TRY(restage(app, u));
    rt_app_memory_barrier(app, f->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    VkClearValue clear = {.color = {{0, 0, 0, 1}}};
    rt_app_begin_render_pass(app, f->cmd, u->pass, u->framebuffers[f->image_index], &clear, 1,
                             VK_SUBPASS_CONTENTS_INLINE);
    grid_draw(&u->grid, f->cmd, app->extent);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void reuse_teardown(struct rt_app *app, void *user)
{
    struct reuse *u = user;
    grid_teardown(app, &u->grid);
    rt_app_framebuffers_destroy(app, u->framebuffers);
    vkDestroyRenderPass(app->device, u->pass, NULL);
    vkDestroyBuffer(app->device, u->stage, NULL);
    vkFreeMemory(app->device, u->memory, NULL);
    if (u->cells.buffer)
        rt_app_buffer_destroy(app, &u->cells);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "reuse",
        .summary = "A grid copied each frame from host memory that holds no buffer between frames.",
        .setup = reuse_setup,
        .record = reuse_record,
        .teardown = reuse_teardown,
    };
    struct reuse u = {0};
    return rt_app_main(&desc, &u, argc, argv);
}
