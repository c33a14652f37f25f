/*
 * import/import_snapshot.c — a trimmed GFXReconstruct capture's state
 * snapshot (state markers, metadata 4-8) as retrace's snapshot packets
 * (docs/FORMATS.md §6 and §20 "Trimmed captures"), through trace/'s writer.
 *
 * GFXReconstruct writes the snapshot's objects as ordinary calls (imported
 * as any call) and their contents as metadata: buffer bytes, image texels per
 * aspect with every mip level's size. What this file must know of the calls
 * is what the contents refer to: images (shape, memory binding, the row
 * pitches of linear ones), memory (type, mapping) and buffers. Linear images
 * wait for the end marker: whether GFXReconstruct read them straight from
 * memory (raw bytes with row pitches) or through a staging copy (tightly
 * packed) depends on the snapshot's mappings, which come after the contents.
 */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "formats.h"
#include "import_internal.h"
#include "trace_snapshot.h"

enum { MARKER_BEGIN = 1, MARKER_END = 2 };
enum { META_SWAPCHAIN = 4, META_BEGIN_INIT = 5, META_END_INIT = 6, META_INIT_BUFFER = 7, META_INIT_IMAGE = 8 };

struct snap_image {
    uint64_t id, memory, offset;
    VkImageType type;
    VkFormat format;
    VkExtent3D extent;
    uint32_t mips, layers;
    VkSampleCountFlagBits samples;
    VkImageTiling tiling;
    bool bound;
};

struct snap_memory {
    uint64_t size, map_offset, map_size;
    uint32_t type_index;
    bool mapped;
};

struct snap_row_pitch { /* a linear image's vkGetImageSubresourceLayout */
    uint64_t image;
    uint32_t mip, layer;
    VkSubresourceLayout layout;
};

struct snap_pending { /* a linear image's init, until the end marker */
    size_t image;
    uint32_t aspect, layout;
    uint64_t *level_sizes;
    uint8_t *data;
    size_t size;
    uint64_t index, offset; /* its block, for messages */
};

struct snap_swapchain {
    uint64_t id;
    VkFormat format;
    VkExtent2D extent;
    uint32_t layers;
};

struct import_snapshot {
    struct snap_swapchain *swapchains;
    size_t swapchain_count, swapchain_cap;
    struct snap_image *images;
    size_t image_count, image_cap;
    struct rt_hashmap image_ids; /* id -> index in images */
    struct snap_memory *memories;
    size_t memory_count, memory_cap;
    struct rt_hashmap memory_ids;
    struct rt_hashmap buffer_ids; /* buffers created: id -> 1 */
    struct snap_row_pitch *pitches;
    size_t pitch_count, pitch_cap;
    struct snap_pending *pending;
    size_t pending_count, pending_cap;
    uint8_t *scratch; /* a raw linear subresource made tight */
    uint64_t writer_thread; /* the state writer's, from its vkCreateInstance */
    bool writer_known;
    struct gfxr_block *held; /* other threads' calls, until the end marker */
    size_t held_count, held_cap;
};

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static rt_status oom(void) { return rt_errorf(RT_ERR_INTERNAL, "out of memory"); }

static rt_status block_error(const struct gfxr_block *b, const char *fmt, const char *what)
{
    return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": %s%s", b->index, b->offset, fmt,
                     what);
}

/* ------------------------------------------------------------- markers */

static rt_status snapshot_begin(struct importer *im, const struct gfxr_block *b, uint64_t frame)
{
    if (im->stage != IMPORT_NO_SNAPSHOT)
        return block_error(b, "state marker: a second state snapshot is not imported", "");
    if (im->w || im->sum->calls)
        return block_error(b, "state marker: a state snapshot after the first call is not imported", "");
    if (!frame)
        return block_error(b, "state marker: a snapshot of frame 0", "");
    im->snap = calloc(1, sizeof *im->snap);
    if (!im->snap)
        return oom();
    rt_hashmap_init(&im->snap->image_ids);
    rt_hashmap_init(&im->snap->memory_ids);
    rt_hashmap_init(&im->snap->buffer_ids);
    uint64_t frames = im->submit_frames ? im->scan.submits : im->scan.presents;
    im->stage = IMPORT_IN_SNAPSHOT;
    im->snapshot_frame = frame;
    im->sum->trimmed = true;
    im->sum->first_frame = frame;
    im->sum->last_frame = frames ? frame + frames - 1 : frame;
    return rt_ok_status();
}

rt_status import_snapshot_open(struct importer *im)
{
    const char *name = import_base_name(im->o->in);
    struct rt_trace_snapshot_begin begin = {.first_frame = im->sum->first_frame, .last_frame = im->sum->last_frame,
                                            .source_frames = im->sum->last_frame, .source = name,
                                            .source_length = strlen(name)};
    memcpy(begin.source_sha256, im->scan.sha256, sizeof begin.source_sha256);
    import_count(im, RT_FORMAT_SNAPSHOT_BEGIN_FIXED + begin.source_length);
    RT_TRY(rt_trace_writer_snapshot_begin(im->w, &begin));
    import_count(im, 24);
    return rt_trace_writer_call(im->w, im->guard_id, 0, 0, NULL, 0, NULL);
}

static rt_status flush_pending(struct importer *im);

/* ------------------------------------------- other threads' calls inside */

/*
 * GFXReconstruct sets its write mode before it writes the state, and takes
 * its file lock per block: a call another thread of the program ends
 * meanwhile lands between the state's blocks (glmark2 through zink: the GL
 * thread's vkGetPhysicalDeviceSurfaceCapabilitiesKHR while the present
 * thread writes the state, on the surface the state creates later). The
 * state writer writes every block on the thread that presented, which makes
 * vkCreateInstance first; a call of any other thread is the program's, made
 * at the trim point: it is held and written right after the snapshot.
 */
bool import_snapshot_holds(struct importer *im, enum rt_vk_cmd cmd, uint64_t thread)
{
    struct import_snapshot *s = im->snap;
    if (!s->writer_known && cmd == RT_VK_CMD_vkCreateInstance) {
        s->writer_thread = thread;
        s->writer_known = true;
    }
    return !s->writer_known || thread != s->writer_thread;
}

rt_status import_snapshot_hold(struct importer *im, const struct gfxr_block *b)
{
    struct import_snapshot *s = im->snap;
    if (!grow((void **)&s->held, &s->held_cap, s->held_count + 1, sizeof *s->held))
        return oom();
    uint8_t *body = malloc(b->size ? b->size : 1);
    if (!body)
        return oom();
    memcpy(body, b->body, b->size);
    s->held[s->held_count++] = (struct gfxr_block){b->index, b->offset, b->type, body, b->size};
    return rt_ok_status();
}

static rt_status write_held(struct importer *im)
{
    struct import_snapshot *s = im->snap;
    if (s->held_count)
        RT_TRY(import_note(im, "import: %zu call%s of other threads written inside GFXReconstruct's state snapshot "
                           "(made while it was written), moved after it", s->held_count,
                           s->held_count == 1 ? "" : "s"));
    for (size_t i = 0; i < s->held_count; i++)
        RT_TRY(import_call(im, &s->held[i]));
    return rt_ok_status();
}

static rt_status snapshot_end(struct importer *im, const struct gfxr_block *b)
{
    if (im->stage != IMPORT_IN_SNAPSHOT)
        return block_error(b, "state marker: an end marker without a begin marker", "");
    RT_TRY(import_writer(im, NULL));
    RT_TRY(flush_pending(im));
    struct rt_trace_snapshot_end end = {im->snapshot_packets, im->snapshot_bytes};
    RT_TRY(rt_trace_writer_snapshot_end(im->w, &end));
    im->stage = IMPORT_SNAPSHOT_ENDED;
    rt_status s = write_held(im);
    import_snapshot_free(im);
    return s;
}

rt_status import_state_marker(struct importer *im, const struct gfxr_block *b)
{
    uint32_t type;
    uint64_t frame;
    if (b->size < 12)
        return block_error(b, "state marker is truncated", "");
    memcpy(&type, b->body, 4);
    memcpy(&frame, b->body + 4, 8);
    if (type == MARKER_BEGIN)
        return snapshot_begin(im, b, frame);
    if (type == MARKER_END)
        return snapshot_end(im, b);
    return block_error(b, "state marker of an unknown kind", "");
}

/* ------------------------------------------------------ what calls made */

static rt_status add_image(struct import_snapshot *s, const struct rt_vk_args_vkCreateImage *a)
{
    if (a->result != VK_SUCCESS || !a->pCreateInfo || !a->pImage)
        return rt_ok_status();
    if (!grow((void **)&s->images, &s->image_cap, s->image_count + 1, sizeof *s->images))
        return oom();
    const VkImageCreateInfo *c = a->pCreateInfo;
    uint64_t id = (uint64_t)(uintptr_t)*a->pImage;
    s->images[s->image_count] = (struct snap_image){.id = id, .type = c->imageType, .format = c->format,
                                                    .extent = c->extent, .mips = c->mipLevels,
                                                    .layers = c->arrayLayers, .samples = c->samples,
                                                    .tiling = c->tiling};
    return rt_hashmap_put(&s->image_ids, id, s->image_count++) ? rt_ok_status() : oom();
}

static rt_status add_memory(struct import_snapshot *s, const struct rt_vk_args_vkAllocateMemory *a)
{
    if (a->result != VK_SUCCESS || !a->pAllocateInfo || !a->pMemory)
        return rt_ok_status();
    if (!grow((void **)&s->memories, &s->memory_cap, s->memory_count + 1, sizeof *s->memories))
        return oom();
    s->memories[s->memory_count] = (struct snap_memory){.size = a->pAllocateInfo->allocationSize,
                                                        .type_index = a->pAllocateInfo->memoryTypeIndex};
    return rt_hashmap_put(&s->memory_ids, (uint64_t)(uintptr_t)*a->pMemory, s->memory_count++) ? rt_ok_status()
                                                                                                : oom();
}

static rt_status add_swapchain(struct import_snapshot *s, const struct rt_vk_args_vkCreateSwapchainKHR *a)
{
    if (a->result != VK_SUCCESS || !a->pCreateInfo || !a->pSwapchain)
        return rt_ok_status();
    if (!grow((void **)&s->swapchains, &s->swapchain_cap, s->swapchain_count + 1, sizeof *s->swapchains))
        return oom();
    const VkSwapchainCreateInfoKHR *c = a->pCreateInfo;
    s->swapchains[s->swapchain_count++] = (struct snap_swapchain){(uint64_t)(uintptr_t)*a->pSwapchain,
                                                                  c->imageFormat, c->imageExtent,
                                                                  c->imageArrayLayers};
    return rt_ok_status();
}

static const struct snap_swapchain *swapchain_of(const struct import_snapshot *s, uint64_t id)
{
    for (size_t i = 0; i < s->swapchain_count; i++)
        if (s->swapchains[i].id == id)
            return &s->swapchains[i];
    return NULL;
}

static struct snap_image *image_of(struct import_snapshot *s, uint64_t id)
{
    uint64_t i;
    return rt_hashmap_get(&s->image_ids, id, &i) ? &s->images[i] : NULL;
}

static struct snap_memory *memory_of(struct import_snapshot *s, uint64_t id)
{
    uint64_t i;
    return rt_hashmap_get(&s->memory_ids, id, &i) ? &s->memories[i] : NULL;
}

static void bind_image(struct import_snapshot *s, VkImage image, VkDeviceMemory memory, VkDeviceSize offset)
{
    struct snap_image *img = image_of(s, (uint64_t)(uintptr_t)image);
    if (!img)
        return;
    img->memory = (uint64_t)(uintptr_t)memory;
    img->offset = offset;
    img->bound = true;
}

static rt_status add_pitch(struct import_snapshot *s, const struct rt_vk_args_vkGetImageSubresourceLayout *a)
{
    if (!a->pSubresource || !a->pLayout)
        return rt_ok_status();
    if (!grow((void **)&s->pitches, &s->pitch_cap, s->pitch_count + 1, sizeof *s->pitches))
        return oom();
    s->pitches[s->pitch_count++] = (struct snap_row_pitch){(uint64_t)(uintptr_t)a->image, a->pSubresource->mipLevel,
                                                           a->pSubresource->arrayLayer, *a->pLayout};
    return rt_ok_status();
}

static void map_memory(struct import_snapshot *s, const struct rt_vk_args_vkMapMemory *a)
{
    struct snap_memory *m = memory_of(s, (uint64_t)(uintptr_t)a->memory);
    if (m && a->result == VK_SUCCESS)
        *m = (struct snap_memory){m->size, a->offset, a->size, m->type_index, true};
}

static void bind_images(struct import_snapshot *s, uint32_t count, const VkBindImageMemoryInfo *infos)
{
    for (uint32_t i = 0; infos && i < count; i++)
        bind_image(s, infos[i].image, infos[i].memory, infos[i].memoryOffset);
}

/* What a call means for the snapshot, by its argument block's shape
 * (gen/command_flags.py's trim_args: aliases share their command's). */
rt_status import_snapshot_track(struct importer *im, enum rt_vk_cmd cmd, const void *args)
{
    struct import_snapshot *s = im->snap;
    if (!s)
        return rt_ok_status();
    switch ((enum rt_vk_trim_args)rt_vk_commands[cmd].trim_args) {
    case RT_VK_TRIM_ARGS_IMAGE_INFO:
        return add_image(s, args);
    case RT_VK_TRIM_ARGS_MEMORY_INFO:
        return add_memory(s, args);
    case RT_VK_TRIM_ARGS_SWAPCHAIN_INFO:
        return add_swapchain(s, args);
    case RT_VK_TRIM_ARGS_BUFFER_INFO: {
        const struct rt_vk_args_vkCreateBuffer *a = args;
        if (a->result == VK_SUCCESS && a->pBuffer &&
            !rt_hashmap_put(&s->buffer_ids, (uint64_t)(uintptr_t)*a->pBuffer, 1))
            return oom();
        return rt_ok_status();
    }
    case RT_VK_TRIM_ARGS_BIND_IMAGE: {
        const struct rt_vk_args_vkBindImageMemory *a = args;
        bind_image(s, a->image, a->memory, a->memoryOffset);
        return rt_ok_status();
    }
    case RT_VK_TRIM_ARGS_BIND_IMAGE_INFOS: {
        const struct rt_vk_args_vkBindImageMemory2 *a = args;
        bind_images(s, a->bindInfoCount, a->pBindInfos);
        return rt_ok_status();
    }
    case RT_VK_TRIM_ARGS_SUBRESOURCE_LAYOUT:
        return add_pitch(s, args);
    case RT_VK_TRIM_ARGS_MAP:
        map_memory(s, args);
        return rt_ok_status();
    default:
        return rt_ok_status();
    }
}

/* ------------------------------------------------------------ contents */

struct cursor {
    const uint8_t *p;
    size_t left;
    bool failed;
};

static void skip(struct cursor *c, size_t n)
{
    if (c->failed || c->left < n) {
        c->failed = true;
        return;
    }
    c->p += n;
    c->left -= n;
}

/* A little-endian field of n <= 8 bytes. */
static uint64_t take(struct cursor *c, size_t n)
{
    uint64_t v = 0;
    if (n > sizeof v || c->failed || c->left < n) {
        c->failed = true;
        return 0;
    }
    memcpy(&v, c->p, n);
    c->p += n;
    c->left -= n;
    return v;
}

/* The data after a content header: decompressed when the block is. */
static rt_status content_data(struct importer *im, const struct gfxr_block *b, uint32_t type, struct cursor *c,
                              uint64_t data_size, const uint8_t **data)
{
    if (!(b->type & GFXR_BLOCK_COMPRESSED)) {
        if (c->left != data_size)
            return import_meta_error(b, type, "holds another size than it says");
        *data = c->p;
        return rt_ok_status();
    }
    return rt_status_wrap(gfxr_decompress(&im->f, c->p, c->left, data_size, data),
                          "block %" PRIu64 " at offset %" PRIu64, b->index, b->offset);
}

static rt_status init_buffer(struct importer *im, const struct gfxr_block *b, struct cursor *c)
{
    skip(c, 16); /* thread, device */
    uint64_t buffer = take(c, 8), size = take(c, 8), one;
    if (c->failed)
        return import_meta_error(b, META_INIT_BUFFER, "is truncated");
    if (!rt_hashmap_get(&im->snap->buffer_ids, buffer, &one))
        return import_meta_error(b, META_INIT_BUFFER, "fills a buffer the snapshot did not create");
    const uint8_t *data;
    RT_TRY(content_data(im, b, META_INIT_BUFFER, c, size, &data));
    RT_TRY(import_writer(im, NULL));
    size_t max = rt_trace_snapshot_max_data();
    for (uint64_t at = 0; at < size; at += max) {
        size_t n = size - at < max ? (size_t)(size - at) : max;
        struct rt_trace_buffer_content bc = {buffer, at, data + at, n};
        import_count(im, 16 + n);
        RT_TRY(rt_trace_writer_buffer_content(im->w, &bc));
        im->sum->content_packets++;
        im->sum->content_bytes += n;
    }
    im->sum->buffer_inits++;
    return rt_ok_status();
}

/* One mip level's shape in texel blocks of an aspect's format. */
struct level {
    uint32_t w, h, d;     /* texels */
    uint32_t block_rows;  /* rows of texel blocks */
    uint32_t block_height;
    uint64_t row, slice;  /* bytes of a block row, of a slice */
};

static uint32_t at_mip(uint32_t size, uint32_t mip) { return size >> mip ? size >> mip : 1; }

static struct level level_of(const struct snap_image *img, const struct rt_format_info *f, uint32_t mip)
{
    struct level l = {at_mip(img->extent.width, mip), at_mip(img->extent.height, mip),
                      img->type == VK_IMAGE_TYPE_3D ? at_mip(img->extent.depth, mip) : 1, 0, f->block_height, 0, 0};
    l.row = (uint64_t)((l.w + f->block_width - 1) / f->block_width) * f->block_size;
    l.block_rows = (l.h + f->block_height - 1) / f->block_height;
    l.slice = l.row * l.block_rows;
    return l;
}

/* One subresource's tight texels as IMAGE_CONTENT packets of whole block rows. */
static rt_status write_subresource(struct importer *im, const struct snap_image *img, uint32_t aspect,
                                   uint32_t layout, uint32_t mip, uint32_t layer, const struct level *l,
                                   const uint8_t *texels)
{
    size_t max = rt_trace_snapshot_max_data();
    uint32_t per = (uint32_t)(max / l->row) ? (uint32_t)(max / l->row) : 1;
    if (l->row > max)
        return rt_errorf(RT_ERR_BAD_INPUT, "image %" PRIu64 ": a row of %" PRIu64 " bytes is larger than a packet",
                         img->id, l->row);
    for (uint32_t z = 0; z < l->d; z++)
        for (uint32_t by = 0; by < l->block_rows; by += per) {
            uint32_t n = l->block_rows - by < per ? l->block_rows - by : per;
            uint32_t y = by * l->block_height, height = by + n == l->block_rows ? l->h - y : n * l->block_height;
            size_t size = (size_t)(l->row * n);
            struct rt_trace_image_content ic = {img->id, aspect, mip, layer, layout, 0, y, z, l->w, height, 1,
                                                texels + z * l->slice + by * l->row, size};
            import_count(im, 48 + size);
            RT_TRY(rt_trace_writer_image_content(im->w, &ic));
            im->sum->content_packets++;
            im->sum->content_bytes += size;
        }
    return rt_ok_status();
}

static const struct rt_format_info *aspect_format(const struct snap_image *img, uint32_t aspect)
{
    const struct rt_format_info *whole = rt_format_find(img->format);
    const struct rt_format_info *f = rt_format_find(rt_format_for_aspect(img->format, aspect));
    return whole && whole->plane_count <= 1 && f && f->block_size && f->block_width && f->block_height ? f : NULL;
}

/* GFXReconstruct's staging layout: level L at the sum of the level sizes
 * before it, its layers one after another, each tightly packed. */
static rt_status write_tight(struct importer *im, const struct snap_pending *p, const struct snap_image *img,
                             const struct gfxr_block *b)
{
    const struct rt_format_info *f = aspect_format(img, p->aspect);
    if (!f)
        return import_meta_error(b, META_INIT_IMAGE, "of an image format (multi-planar or unknown) that is not "
                                                     "imported");
    uint64_t at = 0;
    for (uint32_t m = 0; m < img->mips; m++) {
        struct level l = level_of(img, f, m);
        uint64_t layer_size = l.slice * l.d;
        if (at > p->size || layer_size * img->layers > p->size - at)
            return import_meta_error(b, META_INIT_IMAGE, "holds fewer bytes than the image's texels");
        for (uint32_t layer = 0; layer < img->layers; layer++)
            RT_TRY(write_subresource(im, img, p->aspect, p->layout, m, layer, &l, p->data + at + layer * layer_size));
        at += p->level_sizes[m];
    }
    return rt_ok_status();
}

static const VkSubresourceLayout *pitch_of(const struct import_snapshot *s, uint64_t image, uint32_t mip,
                                           uint32_t layer)
{
    for (size_t i = 0; i < s->pitch_count; i++)
        if (s->pitches[i].image == image && s->pitches[i].mip == mip && s->pitches[i].layer == layer)
            return &s->pitches[i].layout;
    return NULL;
}

/* A linear image read from memory: each subresource's rows by its pitches. */
static rt_status write_raw(struct importer *im, const struct snap_pending *p, const struct snap_image *img,
                           const struct gfxr_block *b)
{
    const struct rt_format_info *f = aspect_format(img, p->aspect);
    if (!f || p->aspect != VK_IMAGE_ASPECT_COLOR_BIT)
        return import_meta_error(b, META_INIT_IMAGE, "of a linear depth, stencil or multi-planar image read from "
                                                     "memory is not imported");
    for (uint32_t m = 0; m < img->mips; m++)
        for (uint32_t layer = 0; layer < img->layers; layer++) {
            struct level l = level_of(img, f, m);
            const VkSubresourceLayout *sl = pitch_of(im->snap, img->id, m, layer);
            if (!sl)
                return import_meta_error(b, META_INIT_IMAGE, "of a linear image without its subresource layouts");
            size_t tight_size = (size_t)(l.slice * l.d);
            uint8_t *tight = realloc(im->snap->scratch, tight_size ? tight_size : 1);
            if (!tight)
                return oom();
            im->snap->scratch = tight;
            for (uint32_t z = 0; z < l.d; z++)
                for (uint32_t r = 0; r < l.block_rows; r++) {
                    uint64_t from = sl->offset + z * sl->depthPitch + (uint64_t)r * sl->rowPitch;
                    if (from > p->size || l.row > p->size - from)
                        return import_meta_error(b, META_INIT_IMAGE, "holds fewer bytes than its row pitches say");
                    memcpy(tight + z * l.slice + r * l.row, p->data + from, (size_t)l.row);
                }
            RT_TRY(write_subresource(im, img, p->aspect, p->layout, m, layer, &l, tight));
        }
    return rt_ok_status();
}

/* Whether GFXReconstruct read a linear image straight from its memory: host
 * visible and cached, and unmapped or mapped whole from 0 (its rule). */
static bool read_from_memory(const struct importer *im, const struct snap_image *img)
{
    const struct snap_memory *m = memory_of(im->snap, img->memory);
    if (!m || m->type_index >= im->dev.memory_type_count || !im->have_memory)
        return false;
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    bool whole = !m->mapped || (m->map_offset == 0 && (m->map_size == m->size || m->map_size == VK_WHOLE_SIZE));
    return (im->dev.memory_types[m->type_index].property_flags & want) == want && whole;
}

static rt_status write_linear(struct importer *im, const struct snap_pending *p)
{
    const struct snap_image *img = &im->snap->images[p->image];
    const struct gfxr_block b = {.index = p->index, .offset = p->offset};
    /* GFXReconstruct writes the pitches of every image it may read from
     * memory (0.9.18 of none: it stages them all), so without them it staged. */
    bool raw = read_from_memory(im, img) && pitch_of(im->snap, img->id, 0, 0);
    bool preinitialized = p->layout == VK_IMAGE_LAYOUT_PREINITIALIZED || p->layout == VK_IMAGE_LAYOUT_UNDEFINED;
    if (preinitialized && !raw)
        return import_meta_error(&b, META_INIT_IMAGE, "of a preinitialized linear image read through a staging "
                                                      "copy is not imported");
    if (preinitialized) { /* its content is its memory's bytes */
        import_count(im, 16 + p->size);
        return rt_trace_writer_memory_update(im->w, img->memory, img->offset, p->data, p->size);
    }
    return raw ? write_raw(im, p, img, &b) : write_tight(im, p, img, &b);
}

static rt_status flush_pending(struct importer *im)
{
    struct import_snapshot *s = im->snap;
    for (size_t i = 0; i < s->pending_count; i++)
        RT_TRY(write_linear(im, &s->pending[i]));
    return rt_ok_status();
}

static rt_status keep_pending(struct importer *im, const struct gfxr_block *b, size_t image, uint32_t aspect,
                              uint32_t layout, const uint64_t *level_sizes, uint32_t levels, const uint8_t *data,
                              size_t size)
{
    struct import_snapshot *s = im->snap;
    if (!grow((void **)&s->pending, &s->pending_cap, s->pending_count + 1, sizeof *s->pending))
        return oom();
    struct snap_pending p = {image, aspect, layout, malloc(levels ? levels * sizeof *level_sizes : 1), malloc(size ? size : 1),
                             size, b->index, b->offset};
    if (!p.level_sizes || !p.data) {
        free(p.level_sizes);
        free(p.data);
        return oom();
    }
    memcpy(p.level_sizes, level_sizes, levels * sizeof *level_sizes);
    memcpy(p.data, data, size);
    s->pending[s->pending_count++] = p;
    return rt_ok_status();
}

static rt_status init_image(struct importer *im, const struct gfxr_block *b, struct cursor *c)
{
    skip(c, 16); /* thread, device */
    uint64_t id = take(c, 8), size = take(c, 8);
    uint32_t aspect = (uint32_t)take(c, 4), layout = (uint32_t)take(c, 4), levels = (uint32_t)take(c, 4);
    struct snap_image *img = c->failed ? NULL : image_of(im->snap, id);
    if (c->failed)
        return import_meta_error(b, META_INIT_IMAGE, "is truncated");
    if (!img || !img->bound)
        return import_meta_error(b, META_INIT_IMAGE, "fills an image the snapshot did not create and bind");
    bool no_content = layout == VK_IMAGE_LAYOUT_UNDEFINED && img->tiling != VK_IMAGE_TILING_LINEAR;
    if (!size || img->samples != VK_SAMPLE_COUNT_1_BIT || no_content) {
        im->sum->layout_only_images++; /* as retrace's own trim: no content (FORMATS §6) */
        return rt_ok_status();
    }
    if (levels != img->mips || (uint64_t)levels * 8 > c->left || !aspect || (aspect & (aspect - 1)))
        return import_meta_error(b, META_INIT_IMAGE, "has a level count or aspect that does not fit its image");
    uint64_t level_sizes[16];
    if (levels > 16)
        return import_meta_error(b, META_INIT_IMAGE, "has more than 16 mip levels");
    for (uint32_t i = 0; i < levels; i++)
        level_sizes[i] = take(c, 8);
    const uint8_t *data;
    RT_TRY(content_data(im, b, META_INIT_IMAGE, c, size, &data));
    RT_TRY(import_writer(im, NULL));
    im->sum->image_inits++;
    if (img->tiling == VK_IMAGE_TILING_LINEAR)
        return keep_pending(im, b, (size_t)(img - im->snap->images), aspect, layout, level_sizes, levels, data,
                            (size_t)size);
    struct snap_pending p = {0, aspect, layout, level_sizes, (uint8_t *)data, (size_t)size, b->index, b->offset};
    return write_tight(im, &p, img, b);
}

/* A swapchain image in a layout other than UNDEFINED at the snapshot (the
 * frames' barriers start from it): GFXReconstruct keeps no content of
 * swapchain images, so it is written as zeros in that layout. */
static rt_status swapchain_image_layout(struct importer *im, const struct gfxr_block *b,
                                        const struct snap_swapchain *sc, uint64_t image, uint32_t layout)
{
    struct snap_image img = {.id = image, .type = VK_IMAGE_TYPE_2D, .format = sc->format,
                             .extent = {sc->extent.width, sc->extent.height, 1}, .mips = 1, .layers = sc->layers};
    const struct rt_format_info *f = aspect_format(&img, VK_IMAGE_ASPECT_COLOR_BIT);
    if (!f)
        return import_meta_error(b, META_SWAPCHAIN, "names a swapchain of a format that is not imported");
    struct level l = level_of(&img, f, 0);
    uint8_t *zeros = calloc(1, l.slice ? (size_t)l.slice : 1);
    if (!zeros)
        return oom();
    rt_status s = rt_ok_status();
    for (uint32_t layer = 0; rt_ok(&s) && layer < img.layers; layer++)
        s = write_subresource(im, &img, VK_IMAGE_ASPECT_COLOR_BIT, layout, 0, layer, &l, zeros);
    free(zeros);
    im->sum->swapchain_images++;
    return s;
}

static rt_status swapchain_state(struct importer *im, const struct gfxr_block *b, struct cursor *c)
{
    skip(c, 16);
    uint64_t swapchain = take(c, 8);
    skip(c, 4); /* the last image presented */
    uint32_t count = (uint32_t)take(c, 4);
    const struct snap_swapchain *sc = swapchain_of(im->snap, swapchain);
    if (c->failed || (uint64_t)count * 48 != c->left)
        return import_meta_error(b, META_SWAPCHAIN, "is truncated or holds another count than it says");
    if (!sc)
        return import_meta_error(b, META_SWAPCHAIN, "names a swapchain the snapshot did not create");
    RT_TRY(import_writer(im, NULL));
    for (uint32_t i = 0; i < count; i++) {
        uint64_t image = take(c, 8);
        skip(c, 4); /* its index */
        uint32_t layout = (uint32_t)take(c, 4), acquired = (uint32_t)take(c, 4);
        skip(c, 28);
        if (acquired)
            return import_meta_error(b, META_SWAPCHAIN, "has an image acquired at the snapshot and not presented "
                                                        "yet: not imported (the trace would present an image it "
                                                        "never acquired)");
        if (layout != VK_IMAGE_LAYOUT_UNDEFINED && layout != VK_IMAGE_LAYOUT_PREINITIALIZED)
            RT_TRY(swapchain_image_layout(im, b, sc, image, layout));
    }
    return import_note(im, "gfxrecon: swapchain %" PRIu64 " state at the snapshot: %u images, none acquired",
                       swapchain, count);
}

rt_status import_snapshot_meta(struct importer *im, const struct gfxr_block *b, uint32_t type, const uint8_t *body,
                               size_t size)
{
    if (im->stage != IMPORT_IN_SNAPSHOT || !im->snap)
        return import_meta_error(b, type, "outside a state snapshot is not imported");
    if ((b->type & GFXR_BLOCK_COMPRESSED) && type != META_INIT_BUFFER && type != META_INIT_IMAGE)
        return import_meta_error(b, type, "compressed is not imported");
    struct cursor c = {body, size, false};
    switch (type) {
    case META_SWAPCHAIN:
        return swapchain_state(im, b, &c);
    case META_BEGIN_INIT:
    case META_END_INIT:
        skip(&c, type == META_BEGIN_INIT ? 32 : 16);
        return c.failed ? import_meta_error(b, type, "is truncated") : rt_ok_status();
    case META_INIT_BUFFER:
        return init_buffer(im, b, &c);
    default:
        return init_image(im, b, &c);
    }
}

void import_snapshot_free(struct importer *im)
{
    struct import_snapshot *s = im->snap;
    if (!s)
        return;
    for (size_t i = 0; i < s->pending_count; i++) {
        free(s->pending[i].level_sizes);
        free(s->pending[i].data);
    }
    for (size_t i = 0; i < s->held_count; i++)
        free((void *)s->held[i].body);
    free(s->held);
    rt_hashmap_finish(&s->image_ids);
    rt_hashmap_finish(&s->memory_ids);
    rt_hashmap_finish(&s->buffer_ids);
    free(s->images);
    free(s->swapchains);
    free(s->memories);
    free(s->pitches);
    free(s->pending);
    free(s->scratch);
    free(s);
    im->snap = NULL;
}
