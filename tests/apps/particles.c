/* tests/apps/particles.c — rt_app_particles: a compute shader steps a particle
 * fountain and writes the indirect draw arguments; each frame then draws the
 * particles with vkCmdDrawIndexedIndirect (the GPU-prepared indirect path),
 * reading the particle buffer as a per-instance vertex buffer. */
#include "app.h"

#include <string.h>

#include "particles_comp.h"
#include "particles_frag.h"
#include "particles_vert.h"

#define PARTICLES 4096
#define LIFETIME 90 /* frames; matches particles.comp */
#define PREWARM LIFETIME /* simulation steps run at setup so the fountain is full */

struct particle {
    float pos[4], vel[4], init[4]; /* see particles.comp */
};

struct sim_push {
    uint32_t frame, count;
};

struct particles {
    struct rt_app_buffer state, args, corners, indices;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkPipelineLayout sim_layout, draw_layout;
    VkPipeline sim, draw;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
};

/* A fixed-seed generator: the same particles every run. */
static float rand01(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}

static rt_status upload_state(struct rt_app *app, struct particles *p)
{
    static struct particle init[PARTICLES];
    uint32_t seed = 12345;
    for (uint32_t i = 0; i < PARTICLES; i++) {
        memset(&init[i], 0, sizeof init[i]);
        init[i].init[0] = (rand01(&seed) - 0.5f) * 0.024f;
        init[i].init[1] = -0.03f - 0.015f * rand01(&seed);
        init[i].init[2] = rand01(&seed);
        init[i].init[3] = (float)(i * LIFETIME / PARTICLES); /* spawns spread over a life */
    }
    RT_TRY(rt_app_buffer_upload(app, init, sizeof init,
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                    VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                &p->state));
    static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    static const uint16_t indices[6] = {0, 1, 2, 0, 2, 3};
    RT_TRY(rt_app_buffer_upload(app, corners, sizeof corners, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                &p->corners));
    RT_TRY(rt_app_buffer_upload(app, indices, sizeof indices, VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                                &p->indices));
    return rt_app_buffer_create(app, sizeof(VkDrawIndexedIndirectCommand),
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                    VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false, &p->args);
}

static rt_status create_sim(struct rt_app *app, struct particles *p)
{
    VkDescriptorSetLayoutBinding bindings[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 2, .pBindings = bindings,
    };
    RT_VK(vkCreateDescriptorSetLayout(app->device, &set_info, NULL, &p->set_layout));
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &size};
    RT_VK(vkCreateDescriptorPool(app->device, &pool, NULL, &p->pool));
    VkDescriptorSetAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = p->pool, .descriptorSetCount = 1, .pSetLayouts = &p->set_layout,
    };
    RT_VK(vkAllocateDescriptorSets(app->device, &alloc, &p->set));
    VkDescriptorBufferInfo bufs[2] = {{p->state.buffer, 0, VK_WHOLE_SIZE},
                                      {p->args.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet write = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->set, .dstBinding = 0,
        .descriptorCount = 2, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = bufs,
    };
    vkUpdateDescriptorSets(app->device, 1, &write, 0, NULL);
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct sim_push)};
    VkPipelineLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
        .pSetLayouts = &p->set_layout, .pushConstantRangeCount = 1, .pPushConstantRanges = &range,
    };
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &p->sim_layout));
    RT_TRY(rt_app_compute_pipeline(app, particles_comp, sizeof particles_comp, p->sim_layout, &p->sim));
    return rt_ok_status();
}

static rt_status create_draw(struct rt_app *app, struct particles *p)
{
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &p->pass));
    RT_TRY(rt_app_framebuffers(app, p->pass, VK_NULL_HANDLE, p->framebuffers));
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(float)};
    VkPipelineLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = 1, .pPushConstantRanges = &range,
    };
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &p->draw_layout));
    VkVertexInputBindingDescription bindings[2] = {
        {0, 2 * sizeof(float), VK_VERTEX_INPUT_RATE_VERTEX},
        {1, sizeof(struct particle), VK_VERTEX_INPUT_RATE_INSTANCE},
    };
    VkVertexInputAttributeDescription attrs[3] = {
        {0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
        {1, 1, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(struct particle, pos)},
        {2, 1, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(struct particle, vel)},
    };
    struct rt_app_pipeline_desc d = {
        .layout = p->draw_layout, .render_pass = p->pass,
        .bindings = bindings, .binding_count = 2,
        .attributes = attrs, .attribute_count = 3,
        .blend = true,
    };
    rt_status st = rt_app_shader(app, particles_vert, sizeof particles_vert, &d.vert);
    if (rt_ok(&st))
        st = rt_app_shader(app, particles_frag, sizeof particles_frag, &d.frag);
    if (rt_ok(&st))
        st = rt_app_graphics_pipeline(app, &d, &p->draw);
    vkDestroyShaderModule(app->device, d.vert, NULL);
    vkDestroyShaderModule(app->device, d.frag, NULL);
    return st;
}

/* One simulation step for SIM_FRAME: reset the instance count, dispatch, and
 * make the results visible to the indirect draw and the vertex fetch. The
 * first barrier also orders this step after the previous step's draw. */
static void record_step(struct rt_app *app, VkCommandBuffer cmd, struct particles *p,
                        uint32_t sim_frame)
{
    rt_app_memory_barrier(app, cmd,
                          VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                              VK_PIPELINE_STAGE_VERTEX_INPUT_BIT |
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT |
                              VK_ACCESS_SHADER_WRITE_BIT);
    vkCmdFillBuffer(cmd, p->args.buffer, offsetof(VkDrawIndexedIndirectCommand, instanceCount),
                    sizeof(uint32_t), 0);
    rt_app_memory_barrier(app, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->sim);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->sim_layout, 0, 1, &p->set,
                            0, NULL);
    struct sim_push push = {sim_frame, PARTICLES};
    vkCmdPushConstants(cmd, p->sim_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    vkCmdDispatch(cmd, PARTICLES / 64, 1, 1);
    rt_app_memory_barrier(app, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                              VK_PIPELINE_STAGE_VERTEX_INPUT_BIT |
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_INDIRECT_COMMAND_READ_BIT |
                              VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_SHADER_READ_BIT |
                              VK_ACCESS_SHADER_WRITE_BIT);
}

static rt_status particles_setup(struct rt_app *app, void *user)
{
    struct particles *p = user;
    RT_TRY(upload_state(app, p));
    RT_TRY(create_sim(app, p));
    RT_TRY(create_draw(app, p));
    VkCommandBuffer cmd;
    RT_TRY(rt_app_upload_begin(app, &cmd));
    for (uint32_t i = 0; i < PREWARM; i++)
        record_step(app, cmd, p, i);
    return rt_app_upload_end(app, cmd);
}

static rt_status particles_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct particles *p = user;
    record_step(app, f->cmd, p, PREWARM + f->number - 1);
    VkClearValue clear = {.color = {{0.02f, 0.02f, 0.05f, 1.0f}}};
    rt_app_begin_render_pass(app, f->cmd, p->pass, p->framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->draw);
    rt_app_set_viewport(app, f->cmd);
    float aspect = (float)app->extent.width / (float)app->extent.height;
    vkCmdPushConstants(f->cmd, p->draw_layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof aspect,
                       &aspect);
    VkBuffer vbs[2] = {p->corners.buffer, p->state.buffer};
    VkDeviceSize offsets[2] = {0, 0};
    vkCmdBindVertexBuffers(f->cmd, 0, 2, vbs, offsets);
    vkCmdBindIndexBuffer(f->cmd, p->indices.buffer, 0, VK_INDEX_TYPE_UINT16);
    vkCmdDrawIndexedIndirect(f->cmd, p->args.buffer, 0, 1, sizeof(VkDrawIndexedIndirectCommand));
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void particles_teardown(struct rt_app *app, void *user)
{
    struct particles *p = user;
    VkDevice dev = app->device;
    vkDestroyPipeline(dev, p->draw, NULL);
    vkDestroyPipeline(dev, p->sim, NULL);
    vkDestroyPipelineLayout(dev, p->draw_layout, NULL);
    vkDestroyPipelineLayout(dev, p->sim_layout, NULL);
    rt_app_framebuffers_destroy(app, p->framebuffers);
    vkDestroyRenderPass(dev, p->pass, NULL);
    vkDestroyDescriptorPool(dev, p->pool, NULL);
    vkDestroyDescriptorSetLayout(dev, p->set_layout, NULL);
    rt_app_buffer_destroy(app, &p->indices);
    rt_app_buffer_destroy(app, &p->corners);
    rt_app_buffer_destroy(app, &p->args);
    rt_app_buffer_destroy(app, &p->state);
}

int main(int argc, char **argv)
{
    /* glslang's Vulkan 1.3 SPIR-V declares the workgroup size with
     * LocalSizeId, which needs maintenance4. */
    static const VkPhysicalDeviceVulkan13Features features13 = {.maintenance4 = VK_TRUE};
    static const struct rt_app_desc desc = {
        .name = "particles",
        .features13 = &features13,
        .summary = "A compute-simulated particle fountain drawn with vkCmdDrawIndexedIndirect\n"
                   "from arguments the compute shader wrote.",
        .setup = particles_setup,
        .record = particles_record,
        .teardown = particles_teardown,
    };
    struct particles p = {0};
    return rt_app_main(&desc, &p, argc, argv);
}
