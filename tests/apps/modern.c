/* tests/apps/modern.c — rt_app_modern: the API surface modern engines use.
 * Dynamic rendering (no render pass or framebuffer), instance data read
 * through buffer device addresses from a per-frame mapped buffer, bindless
 * textures (descriptor indexing: a variable-count, partially bound,
 * update-after-bind array indexed non-uniformly), and the framework in sync2
 * mode: vkQueueSubmit2, vkCmdPipelineBarrier2 and a timeline semaphore pace
 * the frames and the uploads instead of fences.
 * Devices without descriptor indexing (Debian 12's lavapipe, Mesa 22.3) get
 * the same array as a plain binding read with constant indices
 * (modern_compat.frag); the pixels are the same either way. */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "modern_compat_frag.h"
#include "modern_frag.h"
#include "modern_vert.h"

#define TEXTURES 8
#define MAX_TEXTURES 64 /* the layout's upper bound; TEXTURES are bound */
#define TEX_SIZE 64
#define INSTANCES 24

struct instance {
    float place[4]; /* center xy, half-size, angle */
    uint32_t info[4]; /* texture index */
};

struct draw_push {
    VkDeviceAddress instances;
    float aspect;
};

struct modern {
    struct rt_app_image textures[TEXTURES];
    struct rt_app_buffer instances[RT_APP_SLOTS]; /* mapped, addressed by the GPU */
    VkDeviceAddress addresses[RT_APP_SLOTS];
    VkSampler sampler;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    bool bindless; /* the device has every descriptor-indexing feature used */
    VkPipelineLayout layout;
    VkPipeline pipeline;
};

/* Texture K: stripes whose width and colours depend on K. */
static void make_texels(uint8_t *px, uint32_t k)
{
    for (uint32_t y = 0; y < TEX_SIZE; y++)
        for (uint32_t x = 0; x < TEX_SIZE; x++) {
            uint8_t *p = px + 4 * (y * TEX_SIZE + x);
            bool on = (((x + (k % 2 ? y : 0)) >> (1 + k % 4)) & 1) != 0;
            p[0] = on ? (uint8_t)(60 + 25 * k) : 20;
            p[1] = on ? (uint8_t)(220 - 20 * k) : (uint8_t)(4 * y);
            p[2] = on ? (uint8_t)(30 * (k % 3) + 90) : (uint8_t)(4 * x);
            p[3] = 255;
        }
}

static rt_status upload_textures(struct rt_app *app, struct modern *m)
{
    for (uint32_t k = 0; k < TEXTURES; k++)
        RT_TRY(rt_app_image_create(app, VK_FORMAT_R8G8B8A8_UNORM, (VkExtent2D){TEX_SIZE, TEX_SIZE},
                                   1, VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                   VK_IMAGE_ASPECT_COLOR_BIT, &m->textures[k]));
    const VkDeviceSize one = TEX_SIZE * TEX_SIZE * 4;
    struct rt_app_buffer staging;
    RT_TRY(rt_app_buffer_create(app, one * TEXTURES, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &staging));
    for (uint32_t k = 0; k < TEXTURES; k++)
        make_texels((uint8_t *)staging.mapped + k * one, k);
    VkCommandBuffer cmd;
    rt_status st = rt_app_upload_begin(app, &cmd);
    for (uint32_t k = 0; k < TEXTURES && rt_ok(&st); k++) {
        VkImage img = m->textures[k].image;
        rt_app_image_barrier(app, cmd, img, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1,
                             VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_COPY_BIT,
                             VK_ACCESS_2_TRANSFER_WRITE_BIT);
        VkBufferImageCopy region = {
            .bufferOffset = k * one,
            .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
            .imageExtent = {TEX_SIZE, TEX_SIZE, 1},
        };
        vkCmdCopyBufferToImage(cmd, staging.buffer, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                               &region);
        rt_app_image_barrier(app, cmd, img, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                             VK_ACCESS_2_TRANSFER_WRITE_BIT,
                             VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                             VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    }
    if (rt_ok(&st))
        st = rt_app_upload_end(app, cmd); /* signals and waits on the timeline */
    rt_app_buffer_destroy(app, &staging);
    return st;
}

static rt_status create_set_layout(struct rt_app *app, struct modern *m)
{
    VkSamplerCreateInfo sampler = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_LINEAR, .minFilter = VK_FILTER_LINEAR,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    };
    RT_VK(vkCreateSampler(app->device, &sampler, NULL, &m->sampler));
    VkDescriptorSetLayoutBinding bindings[2] = {
        {0, VK_DESCRIPTOR_TYPE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, &m->sampler},
        {1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, MAX_TEXTURES, VK_SHADER_STAGE_FRAGMENT_BIT, NULL},
    };
    if (!m->bindless)
        bindings[1].descriptorCount = TEXTURES;
    VkDescriptorBindingFlags flags[2] = {
        0, VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT |
               VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT |
               VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT};
    VkDescriptorSetLayoutBindingFlagsCreateInfo flag_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
        .bindingCount = 2, .pBindingFlags = flags,
    };
    VkDescriptorSetLayoutCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .pNext = m->bindless ? &flag_info : NULL,
        .flags = m->bindless ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT : 0,
        .bindingCount = 2, .pBindings = bindings,
    };
    RT_VK(vkCreateDescriptorSetLayout(app->device, &info, NULL, &m->set_layout));
    return rt_ok_status();
}

static rt_status create_descriptors(struct rt_app *app, struct modern *m)
{
    RT_TRY(create_set_layout(app, m));
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_SAMPLER, 1},
                                     {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, TEXTURES}};
    VkDescriptorPoolCreateInfo pool = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .flags = m->bindless ? VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT : 0,
        .maxSets = 1, .poolSizeCount = 2, .pPoolSizes = sizes,
    };
    RT_VK(vkCreateDescriptorPool(app->device, &pool, NULL, &m->pool));
    uint32_t count = TEXTURES;
    VkDescriptorSetVariableDescriptorCountAllocateInfo variable = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO,
        .descriptorSetCount = 1, .pDescriptorCounts = &count,
    };
    VkDescriptorSetAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .pNext = m->bindless ? &variable : NULL,
        .descriptorPool = m->pool, .descriptorSetCount = 1, .pSetLayouts = &m->set_layout,
    };
    RT_VK(vkAllocateDescriptorSets(app->device, &alloc, &m->set));
    VkDescriptorImageInfo images[TEXTURES];
    for (uint32_t k = 0; k < TEXTURES; k++)
        images[k] = (VkDescriptorImageInfo){VK_NULL_HANDLE, m->textures[k].view,
                                            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet write = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = m->set, .dstBinding = 1,
        .descriptorCount = TEXTURES, .descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
        .pImageInfo = images,
    };
    vkUpdateDescriptorSets(app->device, 1, &write, 0, NULL);
    return rt_ok_status();
}

static rt_status create_pipeline(struct rt_app *app, struct modern *m)
{
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(struct draw_push)};
    VkPipelineLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1, .pSetLayouts = &m->set_layout,
        .pushConstantRangeCount = 1, .pPushConstantRanges = &range,
    };
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &m->layout));
    struct rt_app_pipeline_desc d = {
        .layout = m->layout,
        .color_format = app->format, /* dynamic rendering: formats, not a render pass */
        .depth_format = VK_FORMAT_UNDEFINED,
    };
    rt_status st = rt_app_shader(app, modern_vert, sizeof modern_vert, &d.vert);
    if (rt_ok(&st) && m->bindless)
        st = rt_app_shader(app, modern_frag, sizeof modern_frag, &d.frag);
    else if (rt_ok(&st))
        st = rt_app_shader(app, modern_compat_frag, sizeof modern_compat_frag, &d.frag);
    if (rt_ok(&st))
        st = rt_app_graphics_pipeline(app, &d, &m->pipeline);
    vkDestroyShaderModule(app->device, d.vert, NULL);
    vkDestroyShaderModule(app->device, d.frag, NULL);
    return st;
}

static rt_status modern_setup(struct rt_app *app, void *user)
{
    struct modern *m = user;
    const VkPhysicalDeviceVulkan12Features *f = &app->enabled12;
    m->bindless = f->descriptorIndexing && f->shaderSampledImageArrayNonUniformIndexing &&
                  f->runtimeDescriptorArray && f->descriptorBindingPartiallyBound &&
                  f->descriptorBindingVariableDescriptorCount &&
                  f->descriptorBindingSampledImageUpdateAfterBind;
    printf("rt_app_modern: bindless textures: %s\n",
           m->bindless ? "descriptor indexing"
                       : "no (the device lacks descriptor indexing): constant indices");
    RT_TRY(upload_textures(app, m));
    RT_TRY(create_descriptors(app, m));
    RT_TRY(create_pipeline(app, m));
    for (uint32_t s = 0; s < RT_APP_SLOTS; s++) {
        RT_TRY(rt_app_buffer_create(app, sizeof(struct instance) * INSTANCES,
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                        VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true,
                                    &m->instances[s]));
        VkBufferDeviceAddressInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                          .buffer = m->instances[s].buffer};
        m->addresses[s] = vkGetBufferDeviceAddress(app->device, &info);
    }
    return rt_ok_status();
}

/* Instances on a ring that turns by frame number; each picks a texture. */
static void write_instances(struct instance *out, uint32_t frame)
{
    for (uint32_t i = 0; i < INSTANCES; i++) {
        float ring = i < 8 ? 0.3f : 0.75f, n = i < 8 ? 8.0f : 16.0f;
        float a = 6.2831853f * (float)(i < 8 ? i : i - 8) / n +
                  (i < 8 ? 0.08f : -0.05f) * (float)frame;
        out[i] = (struct instance){
            .place = {ring * cosf(a), ring * sinf(a), i < 8 ? 0.14f : 0.11f,
                      0.1f * (float)(frame + i)},
            .info = {(i * 5) % TEXTURES, 0, 0, 0},
        };
    }
}

static rt_status modern_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct modern *m = user;
    /* The timeline says the slot's previous frame is done: rewrite its data. */
    write_instances(m->instances[f->slot].mapped, f->number);
    VkRenderingAttachmentInfo color = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = f->view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue = {.color = {{0.03f, 0.06f, 0.09f, 1.0f}}},
    };
    VkRenderingInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, app->extent},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &color,
    };
    vkCmdBeginRendering(f->cmd, &rendering);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, m->pipeline);
    rt_app_set_viewport(app, f->cmd);
    vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, m->layout, 0, 1, &m->set,
                            0, NULL);
    struct draw_push push = {m->addresses[f->slot],
                             (float)app->extent.width / (float)app->extent.height};
    vkCmdPushConstants(f->cmd, m->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, &push);
    vkCmdDraw(f->cmd, 6, INSTANCES, 0, 0);
    vkCmdEndRendering(f->cmd);
    return rt_ok_status();
}

static void modern_teardown(struct rt_app *app, void *user)
{
    struct modern *m = user;
    VkDevice dev = app->device;
    vkDestroyPipeline(dev, m->pipeline, NULL);
    vkDestroyPipelineLayout(dev, m->layout, NULL);
    vkDestroyDescriptorPool(dev, m->pool, NULL);
    vkDestroyDescriptorSetLayout(dev, m->set_layout, NULL);
    vkDestroySampler(dev, m->sampler, NULL);
    for (uint32_t s = 0; s < RT_APP_SLOTS; s++)
        rt_app_buffer_destroy(app, &m->instances[s]);
    for (uint32_t k = 0; k < TEXTURES; k++)
        rt_app_image_destroy(app, &m->textures[k]);
}

int main(int argc, char **argv)
{
    static const VkPhysicalDeviceVulkan12Features features12 = {
        .bufferDeviceAddress = VK_TRUE,
        .timelineSemaphore = VK_TRUE,
    };
    static const VkPhysicalDeviceVulkan12Features optional12 = {
        .descriptorIndexing = VK_TRUE,
        .shaderSampledImageArrayNonUniformIndexing = VK_TRUE,
        .runtimeDescriptorArray = VK_TRUE,
        .descriptorBindingPartiallyBound = VK_TRUE,
        .descriptorBindingVariableDescriptorCount = VK_TRUE,
        .descriptorBindingSampledImageUpdateAfterBind = VK_TRUE,
    };
    static const VkPhysicalDeviceVulkan13Features features13 = {
        .dynamicRendering = VK_TRUE,
        .synchronization2 = VK_TRUE,
    };
    static const struct rt_app_desc desc = {
        .name = "modern",
        .summary = "Dynamic rendering, buffer device address, bindless textures (descriptor\n"
                   "indexing), timeline semaphores and synchronization2.",
        .features12 = &features12,
        .optional12 = &optional12,
        .features13 = &features13,
        .sync2 = true,
        .setup = modern_setup,
        .record = modern_record,
        .teardown = modern_teardown,
    };
    struct modern m = {0};
    return rt_app_main(&desc, &m, argc, argv);
}
