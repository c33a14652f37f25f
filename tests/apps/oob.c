/* tests/apps/oob.c — rt_app_oob: a compute shader copies a 64-value storage
 * buffer into the 128 cells of the grid, reading SRC[i]: the second half of
 * the reads fall past the end of the buffer. What they return is
 * undefined, unless the device bounds-checks shader buffer access
 * (robustBufferAccess: zero or in-bounds data), which is what the
 * robust-buffer-access workaround of `retrace replay` turns on. The first half
 * of the grid shows the buffer's colours; the second half is what the device
 * makes of the reads out of bounds. */
#include "grid.h"

#include "oob_comp.h"

#define SRC_VALUES (GRID_CELLS / 2)

struct oob_push {
    uint32_t count, offset;
};

struct oob {
    struct rt_app_buffer src, neighbour, cells;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline copy;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    struct grid grid;
};

static rt_status create_buffers(struct rt_app *app, struct oob *o)
{
    VkDeviceSize size = SRC_VALUES * sizeof(uint32_t);
    RT_TRY(rt_app_buffer_create(app, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &o->src));
    /* Something for an unchecked read past SRC to find, on devices that place it next. */
    RT_TRY(rt_app_buffer_create(app, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &o->neighbour));
    uint32_t *src = o->src.mapped, *next = o->neighbour.mapped;
    for (uint32_t i = 0; i < SRC_VALUES; i++) {
        src[i] = grid_color(i, 0);
        next[i] = 0xff0000ffu; /* opaque red */
    }
    return rt_app_buffer_create(app, GRID_CELLS * sizeof(uint32_t), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false, &o->cells);
}

static rt_status create_copy(struct rt_app *app, struct oob *o)
{
    VkDescriptorSetLayoutBinding bindings[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 2, .pBindings = bindings,
    };
    RT_VK(vkCreateDescriptorSetLayout(app->device, &set_info, NULL, &o->set_layout));
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &size};
    RT_VK(vkCreateDescriptorPool(app->device, &pool, NULL, &o->pool));
    VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = o->pool, .descriptorSetCount = 1,
                                         .pSetLayouts = &o->set_layout};
    RT_VK(vkAllocateDescriptorSets(app->device, &alloc, &o->set));
    VkDescriptorBufferInfo bufs[2] = {{o->src.buffer, 0, VK_WHOLE_SIZE}, {o->cells.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = o->set,
                                  .descriptorCount = 2, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = bufs};
    vkUpdateDescriptorSets(app->device, 1, &write, 0, NULL);
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct oob_push)};
    VkPipelineLayoutCreateInfo layout = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                         .setLayoutCount = 1, .pSetLayouts = &o->set_layout,
                                         .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &o->layout));
    RT_TRY(rt_app_compute_pipeline(app, oob_comp, sizeof oob_comp, o->layout, &o->copy));
    return rt_ok_status();
}

static rt_status oob_setup(struct rt_app *app, void *user)
{
    struct oob *o = user;
    RT_TRY(create_buffers(app, o));
    RT_TRY(create_copy(app, o));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &o->pass));
    RT_TRY(rt_app_framebuffers(app, o->pass, VK_NULL_HANDLE, o->framebuffers));
    return grid_setup(app, &o->grid, o->pass, o->cells.buffer);
}

static rt_status oob_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct oob *o = user;
    /* The last frame's grid read the cells: done before the copy rewrites them. */
    rt_app_memory_barrier(app, f->cmd, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    struct oob_push push = {GRID_CELLS, 0};
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->copy);
    vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->layout, 0, 1, &o->set, 0, NULL);
    vkCmdPushConstants(f->cmd, o->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    vkCmdDispatch(f->cmd, (GRID_CELLS + 63) / 64, 1, 1);
    rt_app_memory_barrier(app, f->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    VkClearValue clear = {.color = {{0, 0, 0, 1}}};
    rt_app_begin_render_pass(app, f->cmd, o->pass, o->framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    grid_draw(&o->grid, f->cmd, app->extent);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void oob_teardown(struct rt_app *app, void *user)
{
    struct oob *o = user;
    grid_teardown(app, &o->grid);
    rt_app_framebuffers_destroy(app, o->framebuffers);
    vkDestroyRenderPass(app->device, o->pass, NULL);
    vkDestroyPipeline(app->device, o->copy, NULL);
    vkDestroyPipelineLayout(app->device, o->layout, NULL);
    vkDestroyDescriptorPool(app->device, o->pool, NULL);
    vkDestroyDescriptorSetLayout(app->device, o->set_layout, NULL);
    rt_app_buffer_destroy(app, &o->cells);
    rt_app_buffer_destroy(app, &o->neighbour);
    rt_app_buffer_destroy(app, &o->src);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "oob",
        .summary = "A compute shader reads a storage buffer past its end (undefined without\n"
                   "robustBufferAccess); the grid shows what the reads returned.",
        .setup = oob_setup,
        .record = oob_record,
        .teardown = oob_teardown,
    };
    struct oob o = {0};
    return rt_app_main(&desc, &o, argc, argv);
}
