/* tests/apps/readback.c — rt_app_readback: draws a grid of hundreds of quads,
 * one draw call each, then in a later submission of the same frame copies the
 * image that is presented into a host-visible buffer and checks the centre of
 * every cell: the object's colour, or the clear colour where this frame skips
 * the object. A mismatch fails the run (exit 1). This is the pattern that
 * breaks when a replay loses the dependency between two submissions. */
#include "app.h"

#include <stdio.h>

#include "readback_frag.h"
#include "readback_vert.h"

#define COLS 20
#define ROWS 15
#define OBJECTS (COLS * ROWS)
#define CLEAR_RGBA 0xff302010u /* A B G R: r=0x10 g=0x20 b=0x30 */

struct quad_push {
    float rect[4]; /* x0 y0 x1 y1 in NDC */
    uint32_t color; /* packed R | G << 8 | B << 16 | A << 24 */
};

struct readback {
    struct rt_app_buffer host; /* the copy of the whole frame */
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    VkPipelineLayout layout;
    VkPipeline pipeline;
    uint32_t cell_w, cell_h;
    uint32_t checked;
};

/* Whether FRAME draws object I, and its colour: both vary per frame. */
static bool object_drawn(uint32_t i, uint32_t frame) { return (i + frame) % 7 != 0; }

static uint32_t object_color(uint32_t i, uint32_t frame)
{
    uint32_t r = (i * 53u + frame * 17u) & 0xff, g = (i * 29u + 64u) & 0xff;
    uint32_t b = (i * 7u + frame * 41u) & 0xff;
    return r | g << 8 | b << 16 | 0xffu << 24;
}

static rt_status readback_setup(struct rt_app *app, void *user)
{
    struct readback *rb = user;
    rb->cell_w = app->extent.width / COLS;
    rb->cell_h = app->extent.height / ROWS;
    if (rb->cell_w < 4 || rb->cell_h < 4)
        return rt_errorf(RT_ERR_USAGE, "readback needs at least %ux%u pixels", 4 * COLS,
                         4 * ROWS);
    RT_TRY(rt_app_buffer_create(app, (VkDeviceSize)app->extent.width * app->extent.height * 4,
                                VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &rb->host));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &rb->pass));
    RT_TRY(rt_app_framebuffers(app, rb->pass, VK_NULL_HANDLE, rb->framebuffers));
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(struct quad_push)};
    VkPipelineLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = 1, .pPushConstantRanges = &range,
    };
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &rb->layout));
    struct rt_app_pipeline_desc d = {.layout = rb->layout, .render_pass = rb->pass};
    rt_status st = rt_app_shader(app, readback_vert, sizeof readback_vert, &d.vert);
    if (rt_ok(&st))
        st = rt_app_shader(app, readback_frag, sizeof readback_frag, &d.frag);
    if (rt_ok(&st))
        st = rt_app_graphics_pipeline(app, &d, &rb->pipeline);
    vkDestroyShaderModule(app->device, d.vert, NULL);
    vkDestroyShaderModule(app->device, d.frag, NULL);
    return st;
}

static void draw_objects(struct rt_app *app, struct readback *rb, VkCommandBuffer cmd,
                         uint32_t frame)
{
    float sx = 2.0f / (float)app->extent.width, sy = 2.0f / (float)app->extent.height;
    for (uint32_t i = 0; i < OBJECTS; i++) {
        if (!object_drawn(i, frame))
            continue;
        uint32_t x0 = (i % COLS) * rb->cell_w + 1, y0 = (i / COLS) * rb->cell_h + 1;
        uint32_t x1 = x0 + rb->cell_w - 2, y1 = y0 + rb->cell_h - 2;
        struct quad_push push = {
            .rect = {(float)x0 * sx - 1.0f, (float)y0 * sy - 1.0f, (float)x1 * sx - 1.0f,
                     (float)y1 * sy - 1.0f},
            .color = object_color(i, frame),
        };
        vkCmdPushConstants(cmd, rb->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, &push);
        vkCmdDraw(cmd, 6, 1, 0, 0);
    }
}

static rt_status readback_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct readback *rb = user;
    VkClearValue clear = {.color = {{0x10 / 255.0f, 0x20 / 255.0f, 0x30 / 255.0f, 1.0f}}};
    rt_app_begin_render_pass(app, f->cmd, rb->pass, rb->framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, rb->pipeline);
    rt_app_set_viewport(app, f->cmd);
    draw_objects(app, rb, f->cmd, f->number);
    vkCmdEndRenderPass(f->cmd);
    /* The copy goes in a later submission: only the barrier below, recorded
     * there, orders it after the drawing submitted here. */
    RT_TRY(rt_app_frame_split(app, f));
    rt_app_frame_copy_to_buffer(app, f, rb->host.buffer);
    return rt_ok_status();
}

/* The pixel at (X, Y) as packed RGBA, whatever the target's byte order. */
static uint32_t pixel_at(const struct rt_app *app, const uint8_t *px, uint32_t x, uint32_t y)
{
    const uint8_t *p = px + 4 * ((size_t)y * app->extent.width + x);
    bool bgra = app->format == VK_FORMAT_B8G8R8A8_UNORM;
    uint32_t r = p[bgra ? 2 : 0], g = p[1], b = p[bgra ? 0 : 2], a = p[3];
    return r | g << 8 | b << 16 | a << 24;
}

static rt_status readback_check(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct readback *rb = user;
    RT_TRY(rt_app_frame_wait(app, f));
    for (uint32_t i = 0; i < OBJECTS; i++) {
        uint32_t x = (i % COLS) * rb->cell_w + rb->cell_w / 2;
        uint32_t y = (i / COLS) * rb->cell_h + rb->cell_h / 2;
        uint32_t want = object_drawn(i, f->number) ? object_color(i, f->number) : CLEAR_RGBA;
        uint32_t got = pixel_at(app, rb->host.mapped, x, y);
        if (got != want)
            return rt_errorf(RT_ERR_FAILED,
                             "readback: frame %u object %u at (%u,%u): RGBA %08x, expected %08x",
                             f->number, i, x, y, got, want);
        rb->checked++;
    }
    /* A gap between cells must still show the clear colour. */
    if (pixel_at(app, rb->host.mapped, 0, 0) != CLEAR_RGBA)
        return rt_errorf(RT_ERR_FAILED, "readback: frame %u: the corner is not the clear colour",
                         f->number);
    if (f->number == app->args.frames)
        printf("rt_app_readback: %u object centres checked over %u frames, all as drawn\n",
               rb->checked, f->number);
    return rt_ok_status();
}

static void readback_teardown(struct rt_app *app, void *user)
{
    struct readback *rb = user;
    vkDestroyPipeline(app->device, rb->pipeline, NULL);
    vkDestroyPipelineLayout(app->device, rb->layout, NULL);
    rt_app_framebuffers_destroy(app, rb->framebuffers);
    vkDestroyRenderPass(app->device, rb->pass, NULL);
    rt_app_buffer_destroy(app, &rb->host);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "readback",
        .summary = "Draws a grid of 300 quads (one draw each), copies the presented image to a\n"
                   "host buffer in a later submission and checks every object's colour.",
        .setup = readback_setup,
        .record = readback_record,
        .after_frame = readback_check,
        .teardown = readback_teardown,
    };
    struct readback rb = {0};
    return rt_app_main(&desc, &rb, argc, argv);
}
