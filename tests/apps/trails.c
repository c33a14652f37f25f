/* tests/apps/trails.c — rt_app_trails: every frame draws over what its
 * target image showed last time instead of clearing it (as compositors and
 * some engines' partial redraws do): a render pass that loads the image and
 * one new coloured square, placed and coloured by the frame number. Each
 * swapchain image therefore shows the squares of every frame that rendered
 * into it, so a trimmed trace needs the swapchain images' contents at its
 * first frame. No shaders: the squares are vkCmdClearAttachments. */
#include "app.h"

#define SQUARE 24

struct trails {
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
};

/* One colour attachment, loaded and stored, in COLOR_ATTACHMENT_OPTIMAL
 * before and after (the framework's barriers bring it there and away). */
static rt_status load_pass(struct rt_app *app, VkRenderPass *out)
{
    VkAttachmentDescription color = {.format = app->format, .samples = VK_SAMPLE_COUNT_1_BIT,
                                     .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                     .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                     .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                     .initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                     .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                    .colorAttachmentCount = 1, .pColorAttachments = &ref};
    VkRenderPassCreateInfo info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
                                   .pAttachments = &color, .subpassCount = 1, .pSubpasses = &subpass};
    RT_VK(vkCreateRenderPass(app->device, &info, NULL, out));
    return rt_ok_status();
}

static rt_status trails_setup(struct rt_app *app, void *user)
{
    struct trails *t = user;
    if (app->extent.width <= SQUARE || app->extent.height <= SQUARE)
        return rt_errorf(RT_ERR_USAGE, "trails needs more than %ux%u pixels", SQUARE, SQUARE);
    RT_TRY(load_pass(app, &t->pass));
    return rt_app_framebuffers(app, t->pass, VK_NULL_HANDLE, t->framebuffers);
}

static void square(VkCommandBuffer cmd, VkOffset2D at, VkExtent2D size, float r, float g, float b)
{
    VkClearAttachment clear = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .colorAttachment = 0,
                               .clearValue = {.color = {{r, g, b, 1}}}};
    VkClearRect rect = {.rect = {at, size}, .baseArrayLayer = 0, .layerCount = 1};
    vkCmdClearAttachments(cmd, 1, &clear, 1, &rect);
}

static rt_status trails_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct trails *t = user;
    rt_app_begin_render_pass(app, f->cmd, t->pass, t->framebuffers[f->image_index], NULL, 0,
                             VK_SUBPASS_CONTENTS_INLINE);
    if (!f->kept) /* the image's first frame: nothing to draw over yet */
        square(f->cmd, (VkOffset2D){0, 0}, app->extent, 0.1f, 0.1f, 0.15f);
    uint32_t n = f->number, w = app->extent.width - SQUARE, h = app->extent.height - SQUARE;
    VkOffset2D at = {(int32_t)(n * 37 % w), (int32_t)(n * 23 % h)};
    square(f->cmd, at, (VkExtent2D){SQUARE, SQUARE}, (float)(n * 53 % 256) / 255.0f,
           (float)(n * 97 % 256) / 255.0f, (float)(n * 151 % 256) / 255.0f);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void trails_teardown(struct rt_app *app, void *user)
{
    struct trails *t = user;
    rt_app_framebuffers_destroy(app, t->framebuffers);
    vkDestroyRenderPass(app->device, t->pass, NULL);
}

int main(int argc, char **argv)
{
    static const struct rt_app_desc desc = {
        .name = "trails",
        .summary = "Each frame loads its target image and adds one square: the images keep every earlier square.",
        .keeps_target = true,
        .setup = trails_setup,
        .record = trails_record,
        .teardown = trails_teardown,
    };
    struct trails t = {0};
    return rt_app_main(&desc, &t, argc, argv);
}
