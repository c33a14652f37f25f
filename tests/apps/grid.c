/* tests/apps/grid.c — a storage buffer shown as a grid of cells (grid.h). */
#include "grid.h"

#include "grid_frag.h"
#include "grid_vert.h"

struct grid_push {
    uint32_t cols, rows, width, height;
};

static rt_status grid_descriptors(struct rt_app *app, struct grid *g, VkBuffer cells)
{
    VkDescriptorSetLayoutBinding binding = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                            VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 1, .pBindings = &binding,
    };
    RT_VK(vkCreateDescriptorSetLayout(app->device, &set_info, NULL, &g->set_layout));
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
    VkDescriptorPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &size};
    RT_VK(vkCreateDescriptorPool(app->device, &pool, NULL, &g->pool));
    VkDescriptorSetAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = g->pool, .descriptorSetCount = 1, .pSetLayouts = &g->set_layout,
    };
    RT_VK(vkAllocateDescriptorSets(app->device, &alloc, &g->set));
    VkDescriptorBufferInfo buf = {cells, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet write = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = g->set, .dstBinding = 0,
        .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &buf,
    };
    vkUpdateDescriptorSets(app->device, 1, &write, 0, NULL);
    return rt_ok_status();
}

rt_status grid_setup(struct rt_app *app, struct grid *g, VkRenderPass pass, VkBuffer cells)
{
    RT_TRY(grid_descriptors(app, g, cells));
    VkPushConstantRange range = {VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(struct grid_push)};
    VkPipelineLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
        .pSetLayouts = &g->set_layout, .pushConstantRangeCount = 1, .pPushConstantRanges = &range,
    };
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &g->layout));
    struct rt_app_pipeline_desc d = {.layout = g->layout, .render_pass = pass};
    rt_status st = rt_app_shader(app, grid_vert, sizeof grid_vert, &d.vert);
    if (rt_ok(&st))
        st = rt_app_shader(app, grid_frag, sizeof grid_frag, &d.frag);
    if (rt_ok(&st))
        st = rt_app_graphics_pipeline(app, &d, &g->pipeline);
    vkDestroyShaderModule(app->device, d.vert, NULL);
    vkDestroyShaderModule(app->device, d.frag, NULL);
    return st;
}

void grid_draw(struct grid *g, VkCommandBuffer cmd, VkExtent2D extent)
{
    struct grid_push push = {GRID_COLS, GRID_ROWS, extent.width, extent.height};
    VkViewport viewport = {0, 0, (float)extent.width, (float)extent.height, 0, 1};
    VkRect2D scissor = {{0, 0}, extent};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, g->pipeline);
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, g->layout, 0, 1, &g->set, 0, NULL);
    vkCmdPushConstants(cmd, g->layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof push, &push);
    vkCmdDraw(cmd, 3, 1, 0, 0);
}

void grid_teardown(struct rt_app *app, struct grid *g)
{
    vkDestroyPipeline(app->device, g->pipeline, NULL);
    vkDestroyPipelineLayout(app->device, g->layout, NULL);
    vkDestroyDescriptorPool(app->device, g->pool, NULL);
    vkDestroyDescriptorSetLayout(app->device, g->set_layout, NULL);
}

uint32_t grid_color(uint32_t i, uint32_t frame)
{
    uint32_t r = (i * 53u + frame * 17u + 40u) & 0xff, g = (i * 29u + 64u) & 0xff;
    uint32_t b = (i * 7u + frame * 41u + 90u) & 0xff;
    return r | g << 8 | b << 16 | 0xffu << 24;
}
