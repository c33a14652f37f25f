/* tests/apps/textured.c — rt_app_textured: a depth-tested spinning cube with a
 * mipmapped texture. Exercises staging uploads into device-local buffers and
 * an image, layout transitions, mip levels generated with vkCmdBlitImage,
 * descriptor sets (a uniform buffer and a combined image sampler), and a
 * uniform buffer per frame in flight rewritten every frame through
 * persistently mapped memory. */
#include "app.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "textured_frag.h"
#include "textured_vert.h"

#define TEX_SIZE 256
#define TEX_LEVELS 9 /* 256 -> 1 */
#define DEPTH_FORMAT VK_FORMAT_D32_SFLOAT

struct vertex {
    float pos[3], normal[3], uv[2];
};

struct frame_ubo {
    float mvp[16], model[16]; /* column-major, as GLSL reads them */
};

struct textured {
    struct rt_app_buffer vertices, indices;
    struct rt_app_buffer ubo[RT_APP_SLOTS]; /* persistently mapped */
    struct rt_app_image texture, depth;
    VkSampler sampler;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkDescriptorSet sets[RT_APP_SLOTS];
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    VkPipelineLayout layout;
    VkPipeline pipeline;
};

/* The six faces of a unit cube: 24 vertices with their own normals and UVs
 * (0..2, so the texture repeats and minification picks smaller mips). */
static void make_cube(struct vertex v[24], uint16_t idx[36])
{
    static const float n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                  {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int f = 0; f < 6; f++) {
        int a = f / 2, b = (a + 1) % 3, c = (a + 2) % 3; /* normal axis, two tangents */
        float s = n[f][a];
        for (int k = 0; k < 4; k++) {
            float u = (k == 1 || k == 2) ? 1.0f : -1.0f, w = (k >= 2) ? 1.0f : -1.0f;
            struct vertex *o = &v[f * 4 + k];
            o->pos[a] = s;
            o->pos[b] = u * s; /* mirrored on the negative face keeps CCW winding */
            o->pos[c] = w;
            memcpy(o->normal, n[f], sizeof o->normal);
            o->uv[0] = u + 1.0f;
            o->uv[1] = w + 1.0f;
        }
        static const uint16_t quad[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++)
            idx[f * 6 + k] = (uint16_t)(f * 4 + quad[k]);
    }
}

static void mat_mul(float out[16], const float a[16], const float b[16])
{
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float sum = 0;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = sum;
        }
    memcpy(out, r, sizeof r);
}

/* Model = rotate about Y by YAW then about X by PITCH; projection is
 * Vulkan's: y down, depth 0..1. */
static void frame_matrices(struct frame_ubo *u, uint32_t frame, float aspect)
{
    float yaw = 0.21f * (float)frame, pitch = 0.5f + 0.07f * (float)frame;
    float cy = cosf(yaw), sy = sinf(yaw), cp = cosf(pitch), sp = sinf(pitch);
    float ry[16] = {cy, 0, -sy, 0, 0, 1, 0, 0, sy, 0, cy, 0, 0, 0, 0, 1};
    float rx[16] = {1, 0, 0, 0, 0, cp, sp, 0, 0, -sp, cp, 0, 0, 0, 0, 1};
    mat_mul(u->model, rx, ry);
    float near = 0.1f, far = 20.0f, f = 1.0f / tanf(0.5f * 1.0f);
    float proj[16] = {f / aspect, 0, 0, 0, 0, -f, 0, 0, 0, 0, far / (near - far), -1,
                      0, 0, near * far / (near - far), 0};
    float view[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -4.0f, 1};
    float pv[16];
    mat_mul(pv, proj, view);
    mat_mul(u->mvp, pv, u->model);
}

/* A checkerboard with a colour gradient: every mip level looks different. */
static void make_texels(uint8_t *texels)
{
    for (uint32_t y = 0; y < TEX_SIZE; y++)
        for (uint32_t x = 0; x < TEX_SIZE; x++) {
            uint8_t *p = texels + 4 * (y * TEX_SIZE + x);
            bool odd = ((x / 32) ^ (y / 32)) & 1;
            p[0] = odd ? (uint8_t)x : 240;
            p[1] = odd ? (uint8_t)y : 200;
            p[2] = odd ? 255 : (uint8_t)(x ^ y);
            p[3] = 255;
        }
}

/* Level I-1 (TRANSFER_DST) becomes a blit source, is halved into level I, and
 * is then ready for sampling. */
static void blit_mips(struct rt_app *app, VkCommandBuffer cmd, VkImage image)
{
    for (uint32_t i = 1; i < TEX_LEVELS; i++) {
        rt_app_image_barrier(app, cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, i - 1, 1,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_ACCESS_TRANSFER_READ_BIT);
        int32_t src = TEX_SIZE >> (i - 1), dst = TEX_SIZE >> i;
        VkImageBlit blit = {
            .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, i - 1, 0, 1},
            .srcOffsets = {{0, 0, 0}, {src, src, 1}},
            .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, i, 0, 1},
            .dstOffsets = {{0, 0, 0}, {dst, dst, 1}},
        };
        vkCmdBlitImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
        rt_app_image_barrier(app, cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, i - 1, 1,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                             VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    }
    rt_app_image_barrier(app, cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, TEX_LEVELS - 1, 1,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                         VK_ACCESS_SHADER_READ_BIT);
}

static rt_status upload_texture(struct rt_app *app, struct textured *t)
{
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(app->physical, VK_FORMAT_R8G8B8A8_UNORM, &fp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT |
                                VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    if ((fp.optimalTilingFeatures & need) != need)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "RGBA8 cannot be blitted with linear filtering");
    RT_TRY(rt_app_image_create(app, VK_FORMAT_R8G8B8A8_UNORM, (VkExtent2D){TEX_SIZE, TEX_SIZE},
                               TEX_LEVELS,
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                   VK_IMAGE_USAGE_SAMPLED_BIT,
                               VK_IMAGE_ASPECT_COLOR_BIT, &t->texture));
    struct rt_app_buffer staging;
    RT_TRY(rt_app_buffer_create(app, TEX_SIZE * TEX_SIZE * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &staging));
    make_texels(staging.mapped);
    VkCommandBuffer cmd;
    rt_status st = rt_app_upload_begin(app, &cmd);
    if (rt_ok(&st)) {
        rt_app_image_barrier(app, cmd, t->texture.image, VK_IMAGE_ASPECT_COLOR_BIT, 0,
                             TEX_LEVELS, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        VkBufferImageCopy region = {
            .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
            .imageExtent = {TEX_SIZE, TEX_SIZE, 1},
        };
        vkCmdCopyBufferToImage(cmd, staging.buffer, t->texture.image,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        blit_mips(app, cmd, t->texture.image);
        st = rt_app_upload_end(app, cmd);
    }
    rt_app_buffer_destroy(app, &staging);
    return st;
}

/* The same two descriptors written through a descriptor update template:
 * the data layout comes from the template, which capture must know. */
struct template_data {
    VkDescriptorBufferInfo buf;
    VkDescriptorImageInfo img;
};

static rt_status update_with_template(struct rt_app *app, struct textured *t, VkDescriptorSet set,
                                      VkDescriptorBufferInfo buf, VkDescriptorImageInfo img)
{
    VkDescriptorUpdateTemplateEntry entries[2] = {
        {0, 0, 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, offsetof(struct template_data, buf), sizeof(buf)},
        {1, 0, 1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, offsetof(struct template_data, img), sizeof(img)},
    };
    VkDescriptorUpdateTemplateCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO,
        .descriptorUpdateEntryCount = 2, .pDescriptorUpdateEntries = entries,
        .templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET,
        .descriptorSetLayout = t->set_layout,
    };
    VkDescriptorUpdateTemplate update;
    RT_VK(vkCreateDescriptorUpdateTemplate(app->device, &info, NULL, &update));
    struct template_data data = {buf, img};
    vkUpdateDescriptorSetWithTemplate(app->device, set, update, &data);
    vkDestroyDescriptorUpdateTemplate(app->device, update, NULL);
    return rt_ok_status();
}

static rt_status create_descriptors(struct rt_app *app, struct textured *t)
{
    VkSamplerCreateInfo sampler = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_LINEAR, .minFilter = VK_FILTER_LINEAR,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .maxLod = (float)TEX_LEVELS,
    };
    RT_VK(vkCreateSampler(app->device, &sampler, NULL, &t->sampler));
    VkDescriptorSetLayoutBinding bindings[2] = {
        {0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 2, .pBindings = bindings,
    };
    RT_VK(vkCreateDescriptorSetLayout(app->device, &layout, NULL, &t->set_layout));
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, RT_APP_SLOTS},
                                     {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, RT_APP_SLOTS}};
    VkDescriptorPoolCreateInfo pool = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = RT_APP_SLOTS, .poolSizeCount = 2, .pPoolSizes = sizes,
    };
    RT_VK(vkCreateDescriptorPool(app->device, &pool, NULL, &t->pool));
    VkDescriptorSetLayout layouts[RT_APP_SLOTS] = {t->set_layout, t->set_layout};
    VkDescriptorSetAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = t->pool, .descriptorSetCount = RT_APP_SLOTS, .pSetLayouts = layouts,
    };
    RT_VK(vkAllocateDescriptorSets(app->device, &alloc, t->sets));
    for (uint32_t i = 0; i < RT_APP_SLOTS; i++) {
        RT_TRY(rt_app_buffer_create(app, sizeof(struct frame_ubo),
                                    VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &t->ubo[i]));
        VkDescriptorBufferInfo buf = {t->ubo[i].buffer, 0, VK_WHOLE_SIZE};
        VkDescriptorImageInfo img = {t->sampler, t->texture.view,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        if (i == 1) { /* the other slot goes through a template, so both paths are exercised */
            RT_TRY(update_with_template(app, t, t->sets[i], buf, img));
            continue;
        }
        VkWriteDescriptorSet writes[2] = {
            {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = t->sets[i],
             .dstBinding = 0, .descriptorCount = 1,
             .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .pBufferInfo = &buf},
            {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = t->sets[i],
             .dstBinding = 1, .descriptorCount = 1,
             .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .pImageInfo = &img},
        };
        vkUpdateDescriptorSets(app->device, 2, writes, 0, NULL);
    }
    return rt_ok_status();
}

static rt_status create_pipeline(struct rt_app *app, struct textured *t)
{
    RT_TRY(rt_app_image_create(app, DEPTH_FORMAT, app->extent, 1,
                               VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                               VK_IMAGE_ASPECT_DEPTH_BIT, &t->depth));
    RT_TRY(rt_app_render_pass(app, DEPTH_FORMAT, &t->pass));
    RT_TRY(rt_app_framebuffers(app, t->pass, t->depth.view, t->framebuffers));
    VkPipelineLayoutCreateInfo layout_info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1, .pSetLayouts = &t->set_layout,
    };
    RT_VK(vkCreatePipelineLayout(app->device, &layout_info, NULL, &t->layout));
    VkVertexInputBindingDescription binding = {0, sizeof(struct vertex),
                                               VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attrs[3] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(struct vertex, pos)},
        {1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(struct vertex, normal)},
        {2, 0, VK_FORMAT_R32G32_SFLOAT, offsetof(struct vertex, uv)},
    };
    struct rt_app_pipeline_desc d = {
        .layout = t->layout, .render_pass = t->pass,
        .bindings = &binding, .binding_count = 1,
        .attributes = attrs, .attribute_count = 3,
        .depth_test = true,
    };
    rt_status st = rt_app_shader(app, textured_vert, sizeof textured_vert, &d.vert);
    if (rt_ok(&st))
        st = rt_app_shader(app, textured_frag, sizeof textured_frag, &d.frag);
    if (rt_ok(&st))
        st = rt_app_graphics_pipeline(app, &d, &t->pipeline);
    vkDestroyShaderModule(app->device, d.vert, NULL);
    vkDestroyShaderModule(app->device, d.frag, NULL);
    return st;
}

static rt_status textured_setup(struct rt_app *app, void *user)
{
    struct textured *t = user;
    struct vertex v[24];
    uint16_t idx[36];
    make_cube(v, idx);
    RT_TRY(rt_app_buffer_upload(app, v, sizeof v, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &t->vertices));
    RT_TRY(rt_app_buffer_upload(app, idx, sizeof idx, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &t->indices));
    RT_TRY(upload_texture(app, t));
    RT_TRY(create_descriptors(app, t));
    return create_pipeline(app, t);
}

static rt_status textured_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct textured *t = user;
    /* The slot's previous frame has completed, so its uniform buffer is free. */
    frame_matrices(t->ubo[f->slot].mapped, f->number,
                   (float)app->extent.width / (float)app->extent.height);
    VkClearValue clear[2] = {{.color = {{0.09f, 0.12f, 0.16f, 1.0f}}},
                             {.depthStencil = {1.0f, 0}}};
    rt_app_begin_render_pass(app, f->cmd, t->pass, t->framebuffers[f->image_index],
                             clear, 2, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->pipeline);
    rt_app_set_viewport(app, f->cmd);
    vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->layout, 0, 1,
                            &t->sets[f->slot], 0, NULL);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(f->cmd, 0, 1, &t->vertices.buffer, &offset);
    vkCmdBindIndexBuffer(f->cmd, t->indices.buffer, 0, VK_INDEX_TYPE_UINT16);
    vkCmdDrawIndexed(f->cmd, 36, 1, 0, 0, 0);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void textured_teardown(struct rt_app *app, void *user)
{
    struct textured *t = user;
    VkDevice dev = app->device;
    vkDestroyPipeline(dev, t->pipeline, NULL);
    vkDestroyPipelineLayout(dev, t->layout, NULL);
    rt_app_framebuffers_destroy(app, t->framebuffers);
    vkDestroyRenderPass(dev, t->pass, NULL);
    vkDestroyDescriptorPool(dev, t->pool, NULL);
    vkDestroyDescriptorSetLayout(dev, t->set_layout, NULL);
    vkDestroySampler(dev, t->sampler, NULL);
    for (uint32_t i = 0; i < RT_APP_SLOTS; i++)
        rt_app_buffer_destroy(app, &t->ubo[i]);
    rt_app_image_destroy(app, &t->depth);
    rt_app_image_destroy(app, &t->texture);
    rt_app_buffer_destroy(app, &t->indices);
    rt_app_buffer_destroy(app, &t->vertices);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "textured",
        .summary = "A depth-tested spinning cube with a mipmapped texture (staging uploads,\n"
                   "vkCmdBlitImage mips, descriptor sets, a per-frame mapped uniform buffer).",
        .setup = textured_setup,
        .record = textured_record,
        .teardown = textured_teardown,
    };
    struct textured t = {0};
    return rt_app_main(&desc, &t, argc, argv);
}
