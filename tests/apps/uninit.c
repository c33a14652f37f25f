/* tests/apps/uninit.c — rt_app_uninit: the grid shows a storage buffer that
 * nothing ever writes. Before making it, the app fills a buffer of the same
 * size with colours and frees it, so a device that recycles memory has old
 * bytes to show: the picture is whatever the new allocation happened to
 * hold. `retrace replay --workarounds zero-init` fills every new allocation
 * with zeros, so the replayed grid is black, replay after replay. */
#include "grid.h"

#include <string.h>

struct uninit {
    struct rt_app_buffer cells;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    struct grid grid;
};

/* Memory of the cells' size, written and freed: what recycling could hand back. */
static rt_status leave_old_bytes(struct rt_app *app)
{
    struct rt_app_buffer old;
    RT_TRY(rt_app_buffer_create(app, GRID_CELLS * sizeof(uint32_t), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &old));
    uint32_t *p = old.mapped;
    for (uint32_t i = 0; i < GRID_CELLS; i++)
        p[i] = grid_color(i, 7);
    rt_app_buffer_destroy(app, &old);
    return rt_ok_status();
}

static rt_status uninit_setup(struct rt_app *app, void *user)
{
    struct uninit *u = user;
    RT_TRY(leave_old_bytes(app));
    /* Never mapped, copied to or cleared: its contents are undefined. */
    RT_TRY(rt_app_buffer_create(app, GRID_CELLS * sizeof(uint32_t), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, false, &u->cells));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &u->pass));
    RT_TRY(rt_app_framebuffers(app, u->pass, VK_NULL_HANDLE, u->framebuffers));
    return grid_setup(app, &u->grid, u->pass, u->cells.buffer);
}

static rt_status uninit_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct uninit *u = user;
    VkClearValue clear = {.color = {{0, 0, 0, 1}}};
    rt_app_begin_render_pass(app, f->cmd, u->pass, u->framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    grid_draw(&u->grid, f->cmd, app->extent);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void uninit_teardown(struct rt_app *app, void *user)
{
    struct uninit *u = user;
    grid_teardown(app, &u->grid);
    rt_app_framebuffers_destroy(app, u->framebuffers);
    vkDestroyRenderPass(app->device, u->pass, NULL);
    rt_app_buffer_destroy(app, &u->cells);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "uninit",
        .summary = "Shows a storage buffer nothing ever wrote (undefined contents) as a grid.",
        .setup = uninit_setup,
        .record = uninit_record,
        .teardown = uninit_teardown,
    };
    struct uninit u = {0};
    return rt_app_main(&desc, &u, argc, argv);
}
