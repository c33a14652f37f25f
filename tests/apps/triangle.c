/* tests/apps/triangle.c — rt_app_triangle: one triangle from a vertex buffer
 * written through mapped memory (map, write, unmap), a classic render pass,
 * and a rotation by frame number in a push constant. */
#include "app.h"

#include <string.h>

#include "triangle_frag.h"
#include "triangle_vert.h"

struct vertex {
    float pos[2];
    float color[3];
};

static const struct vertex vertices[3] = {
    {{0.0f, -0.7f}, {1.0f, 0.2f, 0.2f}},
    {{0.7f, 0.55f}, {0.2f, 1.0f, 0.2f}},
    {{-0.7f, 0.55f}, {0.2f, 0.3f, 1.0f}},
};

struct push {
    float angle;
    float aspect;
};

struct triangle {
    struct rt_app_buffer vertices;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    VkPipelineLayout layout;
    VkPipeline pipeline;
};

static rt_status upload_vertices(struct rt_app *app, struct triangle *t)
{
    RT_TRY(rt_app_buffer_create(app, sizeof vertices, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, false, &t->vertices));
    /* Map, write, unmap: the capture layer must catch bytes written this way. */
    void *map = NULL;
    RT_VK(vkMapMemory(app->device, t->vertices.memory, 0, VK_WHOLE_SIZE, 0, &map));
    memcpy(map, vertices, sizeof vertices);
    vkUnmapMemory(app->device, t->vertices.memory);
    return rt_ok_status();
}

static rt_status triangle_setup(struct rt_app *app, void *user)
{
    struct triangle *t = user;
    RT_TRY(upload_vertices(app, t));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &t->pass));
    RT_TRY(rt_app_framebuffers(app, t->pass, VK_NULL_HANDLE, t->framebuffers));
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(struct push)};
    VkPipelineLayoutCreateInfo layout_info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &range,
    };
    RT_VK(vkCreatePipelineLayout(app->device, &layout_info, NULL, &t->layout));
    VkVertexInputBindingDescription binding = {0, sizeof(struct vertex),
                                               VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attrs[2] = {
        {0, 0, VK_FORMAT_R32G32_SFLOAT, offsetof(struct vertex, pos)},
        {1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(struct vertex, color)},
    };
    struct rt_app_pipeline_desc d = {
        .layout = t->layout, .render_pass = t->pass,
        .bindings = &binding, .binding_count = 1,
        .attributes = attrs, .attribute_count = 2,
    };
    rt_status st = rt_app_shader(app, triangle_vert, sizeof triangle_vert, &d.vert);
    if (rt_ok(&st))
        st = rt_app_shader(app, triangle_frag, sizeof triangle_frag, &d.frag);
    if (rt_ok(&st))
        st = rt_app_graphics_pipeline(app, &d, &t->pipeline);
    vkDestroyShaderModule(app->device, d.vert, NULL);
    vkDestroyShaderModule(app->device, d.frag, NULL);
    return st;
}

static rt_status triangle_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct triangle *t = user;
    VkClearValue clear = {.color = {{0.08f, 0.08f, 0.12f, 1.0f}}};
    rt_app_begin_render_pass(app, f->cmd, t->pass, t->framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->pipeline);
    rt_app_set_viewport(app, f->cmd);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(f->cmd, 0, 1, &t->vertices.buffer, &offset);
    /* Animation by frame number only: every run draws the same pixels. */
    struct push push = {
        .angle = 0.15f * (float)f->number,
        .aspect = (float)app->extent.width / (float)app->extent.height,
    };
    vkCmdPushConstants(f->cmd, t->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, &push);
    vkCmdDraw(f->cmd, 3, 1, 0, 0);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void triangle_teardown(struct rt_app *app, void *user)
{
    struct triangle *t = user;
    vkDestroyPipeline(app->device, t->pipeline, NULL);
    vkDestroyPipelineLayout(app->device, t->layout, NULL);
    rt_app_framebuffers_destroy(app, t->framebuffers);
    vkDestroyRenderPass(app->device, t->pass, NULL);
    rt_app_buffer_destroy(app, &t->vertices);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "triangle",
        .summary = "One rotating triangle from a vertex buffer written through mapped memory.",
        .setup = triangle_setup,
        .record = triangle_record,
        .teardown = triangle_teardown,
    };
    struct triangle t = {0};
    return rt_app_main(&desc, &t, argc, argv);
}
