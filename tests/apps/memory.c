/* tests/apps/memory.c — rt_app_memory: the grid shows a storage buffer whose
 * bytes reach it through the memory object, not through the buffer itself:
 * what a replay that gives every resource an allocation of its own
 * (`retrace replay --memory rebind`) must still reproduce. `--case N`:
 *   1  two buffers bound to one allocation at the same offset: the GPU writes
 *      one (vkCmdUpdateBuffer), the grid reads the other;
 *   2  a buffer over a linear image: the GPU copies each frame's colours into
 *      the image, the grid reads the buffer bound over the image's bytes;
 *   3  staging memory written before its buffer exists: each frame maps the
 *      slot's memory, writes, unmaps, then makes a new buffer there (the old
 *      one is destroyed) and copies it into the grid's buffer;
 *   4  never-written memory: half of the grid's buffer is filled on the GPU,
 *      the other half nobody writes, in a fresh allocation (zeros on the
 *      capture's device); buffers full of colours (an upload and its staging
 *      buffer) are freed first, so memory that is recycled instead shows them. */
#include "grid.h"

#include <string.h>

#define CELLS_BYTES (GRID_CELLS * sizeof(uint32_t))
#define ALIAS_OFFSET 256           /* case 1 and 3: where the buffers sit in their memory */
#define FRESH_BYTES (40u << 20)    /* case 4: large enough to be fresh pages, not recycled heap */
#define FRESH_OFFSET (1u << 20)    /* case 4: the grid's buffer sits here in it */

struct memory_app {
    int which;
    VkDeviceMemory memory;         /* the grid's buffer's memory (cases 1, 2, 4) */
    VkBuffer cells;                /* what the grid reads */
    VkBuffer writer;               /* case 1: the alias the GPU writes */
    VkImage image;                 /* case 2: the linear image under the cells */
    struct rt_app_buffer own_cells; /* case 3: a device-local buffer of its own */
    struct rt_app_buffer stage[RT_APP_SLOTS]; /* case 2: per-slot staging, mapped */
    VkDeviceMemory slot_memory[RT_APP_SLOTS]; /* case 3: per-slot staging memory */
    VkBuffer slot_buffer[RT_APP_SLOTS];       /* case 3: made anew each frame */
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    struct grid grid;
};

static rt_status make_buffer(struct rt_app *app, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer *out)
{
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage,
                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    RT_VK(vkCreateBuffer(app->device, &info, NULL, out));
    return rt_ok_status();
}

static rt_status allocate(struct rt_app *app, VkDeviceSize size, uint32_t type_bits, VkMemoryPropertyFlags props,
                          VkDeviceMemory *out)
{
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = size};
    RT_TRY(rt_app_memory_type(app, type_bits, props, &info.memoryTypeIndex));
    RT_VK(vkAllocateMemory(app->device, &info, NULL, out));
    return rt_ok_status();
}

static void colours(uint32_t *cells, uint32_t count, uint32_t frame)
{
    for (uint32_t i = 0; i < count; i++)
        cells[i] = grid_color(i, frame);
}

/* Case 1: the writer and the cells at ALIAS_OFFSET of one allocation. */
static rt_status setup_alias_buffers(struct rt_app *app, struct memory_app *m)
{
    RT_TRY(make_buffer(app, CELLS_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &m->writer));
    RT_TRY(make_buffer(app, CELLS_BYTES, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &m->cells));
    VkMemoryRequirements a, b;
    vkGetBufferMemoryRequirements(app->device, m->writer, &a);
    vkGetBufferMemoryRequirements(app->device, m->cells, &b);
    VkDeviceSize size = ALIAS_OFFSET + (a.size > b.size ? a.size : b.size);
    RT_TRY(allocate(app, size, a.memoryTypeBits & b.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &m->memory));
    RT_VK(vkBindBufferMemory(app->device, m->writer, m->memory, ALIAS_OFFSET));
    RT_VK(vkBindBufferMemory(app->device, m->cells, m->memory, ALIAS_OFFSET));
    return rt_ok_status();
}

/* Case 2: a GRID_CELLS x 1 linear image and the cells, both at offset 0. */
static rt_status setup_buffer_over_image(struct rt_app *app, struct memory_app *m)
{
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                              .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {GRID_CELLS, 1, 1}, .mipLevels = 1,
                              .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_LINEAR,
                              .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(app->physical, info.format, &props);
    if (!(props.linearTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_DST_BIT))
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the device cannot copy into linear R8G8B8A8 images");
    RT_VK(vkCreateImage(app->device, &info, NULL, &m->image));
    RT_TRY(make_buffer(app, CELLS_BYTES, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &m->cells));
    VkMemoryRequirements a, b;
    vkGetImageMemoryRequirements(app->device, m->image, &a);
    vkGetBufferMemoryRequirements(app->device, m->cells, &b);
    RT_TRY(allocate(app, a.size > b.size ? a.size : b.size, a.memoryTypeBits & b.memoryTypeBits, 0, &m->memory));
    RT_VK(vkBindImageMemory(app->device, m->image, m->memory, 0));
    RT_VK(vkBindBufferMemory(app->device, m->cells, m->memory, 0));
    VkImageSubresource sub = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout layout;
    vkGetImageSubresourceLayout(app->device, m->image, &sub, &layout);
    if (layout.offset != 0)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the linear image's texels do not start at its memory offset");
    for (uint32_t s = 0; s < RT_APP_SLOTS; s++)
        RT_TRY(rt_app_buffer_create(app, CELLS_BYTES, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, true, &m->stage[s]));
    return rt_ok_status();
}

/* Case 3: per-slot host memory; its buffers come and go each frame. */
static rt_status setup_staging(struct rt_app *app, struct memory_app *m)
{
    RT_TRY(rt_app_buffer_create(app, CELLS_BYTES, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false,
                                &m->own_cells));
    m->cells = m->own_cells.buffer;
    VkBuffer probe;
    RT_TRY(make_buffer(app, CELLS_BYTES, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &probe));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(app->device, probe, &req);
    vkDestroyBuffer(app->device, probe, NULL);
    for (uint32_t s = 0; s < RT_APP_SLOTS; s++)
        RT_TRY(allocate(app, 4096, req.memoryTypeBits,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                        &m->slot_memory[s]));
    return rt_ok_status();
}

/* Case 4: colours left in freed memory, then the cells in a fresh allocation. */
static rt_status setup_fresh(struct rt_app *app, struct memory_app *m)
{
    struct rt_app_buffer old;
    uint32_t cells[GRID_CELLS];
    colours(cells, GRID_CELLS, 7);
    RT_TRY(rt_app_buffer_upload(app, cells, CELLS_BYTES, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &old));
    rt_app_buffer_destroy(app, &old);
    RT_TRY(make_buffer(app, CELLS_BYTES, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       &m->cells));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(app->device, m->cells, &req);
    RT_TRY(allocate(app, FRESH_BYTES, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, &m->memory));
    RT_VK(vkBindBufferMemory(app->device, m->cells, m->memory, FRESH_OFFSET));
    return rt_ok_status();
}

static rt_status memory_setup(struct rt_app *app, void *user)
{
    struct memory_app *m = user;
    rt_status (*const setups[])(struct rt_app *, struct memory_app *) = {
        setup_alias_buffers, setup_buffer_over_image, setup_staging, setup_fresh};
    RT_TRY(setups[m->which - 1](app, m));
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &m->pass));
    RT_TRY(rt_app_framebuffers(app, m->pass, VK_NULL_HANDLE, m->framebuffers));
    return grid_setup(app, &m->grid, m->pass, m->cells);
}

/* Case 3: write the slot's memory while no buffer is bound there, then bind one. */
static rt_status restage(struct rt_app *app, struct memory_app *m, struct rt_app_frame *f)
{
    vkDestroyBuffer(app->device, m->slot_buffer[f->slot], NULL); /* its last copy has completed */
    m->slot_buffer[f->slot] = VK_NULL_HANDLE;
    void *p = NULL;
    RT_VK(vkMapMemory(app->device, m->slot_memory[f->slot], 0, VK_WHOLE_SIZE, 0, &p));
    colours((uint32_t *)((uint8_t *)p + ALIAS_OFFSET), GRID_CELLS, f->number);
    vkUnmapMemory(app->device, m->slot_memory[f->slot]);
    RT_TRY(make_buffer(app, CELLS_BYTES, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &m->slot_buffer[f->slot]));
    RT_VK(vkBindBufferMemory(app->device, m->slot_buffer[f->slot], m->slot_memory[f->slot], ALIAS_OFFSET));
    VkBufferCopy copy = {0, 0, CELLS_BYTES};
    vkCmdCopyBuffer(f->cmd, m->slot_buffer[f->slot], m->cells, 1, &copy);
    return rt_ok_status();
}

/* Case 2: the frame's colours copied into the linear image. */
static void copy_into_image(struct rt_app *app, struct memory_app *m, struct rt_app_frame *f)
{
    colours(m->stage[f->slot].mapped, GRID_CELLS, f->number);
    rt_app_image_barrier(app, f->cmd, m->image, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {GRID_CELLS, 1, 1}};
    vkCmdCopyBufferToImage(f->cmd, m->stage[f->slot].buffer, m->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                           &region);
}

/* What the GPU writes before the draw reads the cells. */
static rt_status write_cells(struct rt_app *app, struct memory_app *m, struct rt_app_frame *f)
{
    uint32_t cells[GRID_CELLS];
    colours(cells, GRID_CELLS, f->number);
    rt_app_memory_barrier(app, f->cmd, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT);
    if (m->which == 1)
        vkCmdUpdateBuffer(f->cmd, m->writer, 0, CELLS_BYTES, cells);
    else if (m->which == 2)
        copy_into_image(app, m, f);
    else if (m->which == 3)
        RT_TRY(restage(app, m, f));
    else
        vkCmdUpdateBuffer(f->cmd, m->cells, 0, CELLS_BYTES / 2, cells);
    rt_app_memory_barrier(app, f->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    return rt_ok_status();
}

static rt_status memory_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct memory_app *m = user;
    RT_TRY(write_cells(app, m, f));
    VkClearValue clear = {.color = {{0, 0, 0, 1}}};
    rt_app_begin_render_pass(app, f->cmd, m->pass, m->framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_INLINE);
    grid_draw(&m->grid, f->cmd, app->extent);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

static void memory_teardown(struct rt_app *app, void *user)
{
    struct memory_app *m = user;
    grid_teardown(app, &m->grid);
    rt_app_framebuffers_destroy(app, m->framebuffers);
    vkDestroyRenderPass(app->device, m->pass, NULL);
    for (uint32_t s = 0; s < RT_APP_SLOTS; s++) {
        rt_app_buffer_destroy(app, &m->stage[s]);
        vkDestroyBuffer(app->device, m->slot_buffer[s], NULL);
        vkFreeMemory(app->device, m->slot_memory[s], NULL);
    }
    if (m->own_cells.buffer)
        rt_app_buffer_destroy(app, &m->own_cells);
    else
        vkDestroyBuffer(app->device, m->cells, NULL);
    vkDestroyBuffer(app->device, m->writer, NULL);
    vkDestroyImage(app->device, m->image, NULL);
    vkFreeMemory(app->device, m->memory, NULL);
}

int main(int argc, char **argv)
{
    struct memory_app m = {.which = 1};
    const struct rt_app_int_option options[] = {
        {"case", "1 aliased buffers, 2 a buffer over an image, 3 staging written before its buffer, "
                 "4 never-written memory", &m.which, 1, 4},
    };
    const struct rt_app_desc desc = {
        .name = "memory",
        .summary = "A grid drawn from a buffer whose bytes come through its memory object:\n"
                   "aliased resources, staging written before binding, never-written memory.",
        .options = options,
        .option_count = 1,
        .setup = memory_setup,
        .record = memory_record,
        .teardown = memory_teardown,
    };
    return rt_app_main(&desc, &m, argc, argv);
}
