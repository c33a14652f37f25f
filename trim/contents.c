/*
 * trim/contents.c — the snapshot's contents: every live buffer's bytes and
 * every live image subresource's texels as the device holds them at frame
 * A (read through staging copies: replay_trim.h), and the state of every
 * signaled fence, set event, signaled binary semaphore and timeline
 * semaphore, and which queries of every query pool are available (a
 * replay makes those available again and resets the rest: the frames may
 * wait on what they read). Swapchain images are carried like any image (a
 * frame may load what its image showed last time instead of clearing it).
 * Host-visible memory carries, first, the bytes no live buffer or image covers
 * (MEMORY_UPDATE packets, from the replay's mapping): a capture records a
 * mapped write only where it changed the memory's bytes, so a buffer made
 * there after A may read what freed resources left (rt_replay_memory_holes).
 * Multisampled images carry every sample of their colour or depth aspect
 * (IMAGE_SAMPLES, format 1.4, read by a shader: replay_trim.h), after one
 * samples guard call; where the device cannot read them (or their stencil)
 * a warning names the image. Images in UNDEFINED or PREINITIALIZED layout,
 * transient, sparse and planar images carry none (their content is
 * undefined or cannot be copied to a buffer). What a snapshot cannot carry and the frames after A would
 * need is refused before anything is written (trim_check_contents).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "log.h"

#include "formats.h"
#include "replay_trim.h"
#include "trace_snapshot.h"
#include "trim_internal.h"

#define PACKET_OVERHEAD 6

struct sink {
    struct replay *r;
    struct rt_trace_writer *w;
    uint8_t *scratch;
    size_t scratch_size;
    uint64_t *packets, *bytes;
    struct rt_trim_result *result;
    uint32_t samples_guard; /* the command id of the 1.4 samples guard */
    uint64_t memory_id;     /* memory_contents' */
    bool guard_written;
};

static bool bound(const struct trim_state *t, const struct trim_object *o)
{
    return o->memory != TRIM_NONE && t->objects[o->memory].alive;
}

static rt_status buffer_contents(struct sink *k, const struct trim_object *o)
{
    for (uint64_t offset = 0; offset < o->size;) {
        uint64_t n = o->size - offset < k->scratch_size ? o->size - offset : k->scratch_size;
        RT_TRY(rt_replay_read_buffer(k->r, o->id, offset, n, k->scratch));
        struct rt_trace_buffer_content c = {o->id, offset, k->scratch, (size_t)n};
        RT_TRY(rt_trace_writer_buffer_content(k->w, &c));
        *k->packets += 1;
        *k->bytes += PACKET_OVERHEAD + 16 + n;
        k->result->content_bytes += n;
        offset += n;
    }
    k->result->buffers++;
    return rt_ok_status();
}

static uint32_t mip_size(uint32_t size, uint32_t mip)
{
    return size >> mip ? size >> mip : 1;
}

/* One aspect of one subresource, in pieces of whole block rows. */
static rt_status aspect_contents(struct sink *k, const struct trim_object *o, const struct trim_image *img,
                                 struct rt_replay_image_region g)
{
    const struct rt_format_info *f = rt_format_find(rt_format_for_aspect(img->format, g.aspect));
    if (!f || !f->block_size)
        return rt_ok_status();
    uint32_t w = mip_size(img->extent.width, g.mip), h = mip_size(img->extent.height, g.mip);
    uint32_t d = img->type == VK_IMAGE_TYPE_3D ? mip_size(img->extent.depth, g.mip) : 1;
    uint64_t row = (uint64_t)((w + f->block_width - 1) / f->block_width) * f->block_size;
    uint32_t block_rows = (h + f->block_height - 1) / f->block_height;
    uint32_t rows_per = (uint32_t)(k->scratch_size / row) ? (uint32_t)(k->scratch_size / row) : 1;
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t by = 0; by < block_rows; by += rows_per) {
            uint32_t n = block_rows - by < rows_per ? block_rows - by : rows_per;
            g.x = 0, g.y = by * f->block_height, g.z = z, g.width = w, g.depth = 1;
            g.height = by + n == block_rows ? h - g.y : n * f->block_height;
            uint64_t size = row * n;
            RT_TRY(rt_replay_read_image(k->r, o->id, &g, k->scratch, size));
            struct rt_trace_image_content c = {o->id, g.aspect, g.mip, g.layer, g.layout, g.x, g.y, g.z,
                                               g.width, g.height, g.depth, k->scratch, (size_t)size};
            RT_TRY(rt_trace_writer_image_content(k->w, &c));
            *k->packets += 1;
            *k->bytes += PACKET_OVERHEAD + 48 + size;
            k->result->content_bytes += size;
        }
    return rt_ok_status();
}

static VkImageAspectFlags aspects_of(VkFormat format)
{
    const struct rt_format_info *f = rt_format_find(format);
    VkImageAspectFlags a = 0;
    for (uint32_t i = 0; f && i < f->component_count; i++)
        a |= f->components[i].channel == 'D' ? VK_IMAGE_ASPECT_DEPTH_BIT
             : f->components[i].channel == 'S' ? VK_IMAGE_ASPECT_STENCIL_BIT : 0;
    return !f || f->plane_count > 1 ? 0 : a ? a : VK_IMAGE_ASPECT_COLOR_BIT;
}

/* Once, before the first IMAGE_SAMPLES: a 1.3 replay stops there. */
static rt_status samples_guard(struct sink *k)
{
    if (k->guard_written)
        return rt_ok_status();
    RT_TRY(rt_trace_writer_call(k->w, k->samples_guard, 0, 0, NULL, 0, NULL));
    k->guard_written = true;
    *k->packets += 1;
    *k->bytes += PACKET_OVERHEAD + 24;
    return rt_ok_status();
}

/* One aspect of one layer of a multisampled image, in pieces of whole rows. */
static rt_status layer_samples(struct sink *k, const struct trim_object *o, const struct trim_image *img,
                               struct rt_replay_image_region g)
{
    uint64_t row = (uint64_t)img->extent.width * img->samples * RT_TRACE_SAMPLE_BYTES;
    uint32_t rows_per = k->scratch_size / row ? (uint32_t)(k->scratch_size / row) : 0;
    if (!rows_per)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "a row of multisampled image 0x%" PRIx64 " (%u texels, %u samples) "
                         "does not fit a snapshot packet", o->id, img->extent.width, (unsigned)img->samples);
    RT_TRY(samples_guard(k));
    for (uint32_t y = 0; y < img->extent.height; y += rows_per) {
        g.x = 0, g.y = y, g.z = 0, g.width = img->extent.width, g.depth = 1;
        g.height = img->extent.height - y < rows_per ? img->extent.height - y : rows_per;
        uint64_t size = row * g.height;
        uint32_t kind = 0;
        RT_TRY(rt_replay_read_samples(k->r, o->id, &g, img->samples, k->scratch, size, &kind));
        struct rt_trace_image_samples c = {o->id, g.aspect, g.layer, g.layout, img->samples, kind,
                                           g.x, g.y, g.width, g.height, k->scratch, (size_t)size};
        RT_TRY(rt_trace_writer_image_samples(k->w, &c));
        *k->packets += 1;
        *k->bytes += PACKET_OVERHEAD + 44 + size;
        k->result->content_bytes += size;
    }
    return rt_ok_status();
}

/* Every defined layer's colour or depth samples; what cannot be read (a
 * stencil aspect, a format the device cannot sample) is named in a warning
 * (the frames may clear it: --check tells). */
static rt_status image_samples(struct sink *k, const struct trim_state *t, const struct trim_object *o,
                               const struct trim_image *img, VkImageAspectFlags aspects)
{
    bool any = false;
    for (uint32_t l = 0; l < img->layers; l++) {
        VkImageLayout layout = img->layouts[l]; /* one mip */
        if (layout == VK_IMAGE_LAYOUT_UNDEFINED || layout == VK_IMAGE_LAYOUT_PREINITIALIZED)
            continue;
        const VkImageAspectFlagBits order[] = {VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                                               VK_IMAGE_ASPECT_STENCIL_BIT};
        for (int a = 0; a < 3; a++) {
            if (!(aspects & order[a]))
                continue;
            const char *why = rt_replay_samples_unreadable(k->r, o->id, order[a], img->samples);
            if (why) {
                rt_log(RT_LOG_WARN, "trim: a multisampled image (handle 0x%" PRIx64 ", %u samples, layer %u) holds "
                       "content at the first frame that the snapshot does not carry: %s; the trimmed frames "
                       "differ if they read it before clearing it (--check tells)", o->id,
                       (unsigned)img->samples, l, why);
                k->result->samples_not_carried++;
                continue;
            }
            struct rt_replay_image_region g = {.aspect = order[a], .mip = 0, .layer = l, .layout = layout};
            RT_TRY(layer_samples(k, o, img, g));
            any = true;
        }
    }
    k->result->multisampled_images += any;
    (void)t;
    return rt_ok_status();
}

static rt_status image_contents(struct sink *k, const struct trim_state *t, const struct trim_object *o)
{
    const struct trim_image *img = &t->images[o->info];
    VkImageAspectFlags aspects = aspects_of(img->format);
    /* a swapchain's images have no memory of their own to be bound to */
    if (img->transient || img->sparse || !aspects || !img->layouts || (!img->swapchain && !bound(t, o)))
        return rt_ok_status();
    if (img->samples != VK_SAMPLE_COUNT_1_BIT)
        return img->mips == 1 && img->type == VK_IMAGE_TYPE_2D ? image_samples(k, t, o, img, aspects)
                                                               : rt_ok_status();
    bool any = false;
    for (uint32_t m = 0; m < img->mips; m++)
        for (uint32_t l = 0; l < img->layers; l++) {
            VkImageLayout layout = img->layouts[(size_t)m * img->layers + l];
            if (layout == VK_IMAGE_LAYOUT_UNDEFINED || layout == VK_IMAGE_LAYOUT_PREINITIALIZED)
                continue;
            /* depth before stencil: the replay keeps the depth it wrote (snapshot_apply.c) */
            const VkImageAspectFlagBits order[] = {VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                                                   VK_IMAGE_ASPECT_STENCIL_BIT};
            for (int a = 0; a < 3; a++)
                if (aspects & order[a]) {
                    struct rt_replay_image_region g = {.aspect = order[a], .mip = m, .layer = l, .layout = layout};
                    RT_TRY(aspect_contents(k, o, img, g));
                    any = true;
                }
        }
    k->result->images += any;
    return rt_ok_status();
}

static rt_status hole(void *user, uint64_t offset, const void *data, size_t size)
{
    struct sink *k = user;
    RT_TRY(rt_trace_writer_memory_update(k->w, k->memory_id, offset, data, size));
    *k->packets += 1;
    *k->bytes += PACKET_OVERHEAD + 16 + size;
    k->result->memory_bytes += size;
    return rt_ok_status();
}

static rt_status memory_contents(struct sink *k, const struct trim_object *o)
{
    k->memory_id = o->id;
    uint64_t before = k->result->memory_bytes;
    RT_TRY(rt_replay_memory_holes(k->r, o->id, k->scratch_size, hole, k));
    k->result->memories += k->result->memory_bytes > before;
    return rt_ok_status();
}

static rt_status sync_state(struct sink *k, const struct trim_object *o)
{
    uint64_t value = 0;
    bool timeline = o->type == VK_OBJECT_TYPE_SEMAPHORE && o->timeline;
    if (o->type == VK_OBJECT_TYPE_SEMAPHORE && !o->timeline)
        value = o->signaled;
    else
        RT_TRY(rt_replay_read_sync(k->r, o->type, o->id, &value));
    if (!value && o->type != VK_OBJECT_TYPE_FENCE) /* a fence may have been created signaled */
        return rt_ok_status();
    struct rt_trace_sync_state s = {o->type, timeline, o->id, value};
    RT_TRY(rt_trace_writer_sync_state(k->w, &s));
    *k->packets += 1;
    *k->bytes += PACKET_OVERHEAD + 24;
    k->result->sync_objects++;
    return rt_ok_status();
}

/* The query types a replay can make available again with an empty begin/end
 * or a timestamp (snapshot_apply.c); the others (acceleration structure
 * properties, performance, video) it can only reset. */
static bool remade(uint32_t type)
{
    return type == VK_QUERY_TYPE_OCCLUSION || type == VK_QUERY_TYPE_PIPELINE_STATISTICS ||
           type == VK_QUERY_TYPE_TIMESTAMP || type == VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT ||
           type == VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT || type == VK_QUERY_TYPE_MESH_PRIMITIVES_GENERATED_EXT;
}

static rt_status query_state(struct sink *k, const struct trim_object *o)
{
    if (!o->query_count || o->query_type == VK_QUERY_TYPE_PERFORMANCE_QUERY_KHR)
        return rt_ok_status(); /* its results need a profiling lock: left as created */
    uint8_t *available = calloc(o->query_count, 1);
    if (!available)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status s = rt_replay_read_queries(k->r, o->id, o->query_count, o->query_values, available);
    uint32_t n = 0;
    for (uint32_t i = 0; i < o->query_count; i++)
        n += available[i];
    if (rt_ok(&s) && n && !remade(o->query_type))
        rt_log(RT_LOG_WARN, "trim: %u queries of query pool 0x%" PRIx64 " (type %u) are available at the first "
               "frame, and a replay cannot make queries of that type available again: the trimmed frames wait "
               "forever if they read them with VK_QUERY_RESULT_WAIT_BIT", n, o->id, o->query_type);
    struct rt_trace_query_state q = {o->id, o->query_type, o->query_count, available};
    if (rt_ok(&s))
        s = rt_trace_writer_query_state(k->w, &q);
    free(available);
    RT_TRY(s);
    *k->packets += 1;
    *k->bytes += PACKET_OVERHEAD + 16 + o->query_count;
    k->result->query_pools++;
    k->result->queries_available += n;
    return rt_ok_status();
}

static rt_status one(struct sink *k, const struct trim_state *t, const struct trim_object *o)
{
    if (o->type == VK_OBJECT_TYPE_QUERY_POOL)
        return query_state(k, o);
    if (o->type == VK_OBJECT_TYPE_BUFFER && bound(t, o) && !o->sparse)
        return buffer_contents(k, o);
    if (o->type == VK_OBJECT_TYPE_IMAGE && o->info != TRIM_NONE)
        return image_contents(k, t, o);
    if (o->type == VK_OBJECT_TYPE_FENCE || o->type == VK_OBJECT_TYPE_EVENT || o->type == VK_OBJECT_TYPE_SEMAPHORE)
        return sync_state(k, o);
    return rt_ok_status();
}

static bool defined_somewhere(const struct trim_image *img)
{
    for (uint64_t i = 0; img->layouts && i < (uint64_t)img->mips * img->layers; i++)
        if (img->layouts[i] != VK_IMAGE_LAYOUT_UNDEFINED && img->layouts[i] != VK_IMAGE_LAYOUT_PREINITIALIZED)
            return true;
    return false;
}

static bool planar(VkFormat format)
{
    const struct rt_format_info *f = rt_format_find(format);
    return f && f->plane_count > 1;
}

/* Sparse resources lose their bindings (vkQueueBindSparse before A is not
 * replayed) and planar images their planes: a trim that would drop them
 * silently is refused, naming the object. (Multisampled images are carried
 * where the device can read them, else warned of: image_samples.) */
rt_status trim_check_contents(const struct trim_state *t, uint64_t frame)
{
    for (uint32_t i = 0; i < t->object_count; i++) {
        const struct trim_object *o = &t->objects[i];
        const struct trim_image *img = o->type == VK_OBJECT_TYPE_IMAGE && o->info != TRIM_NONE ? &t->images[o->info]
                                                                                               : NULL;
        const char *what = o->type == VK_OBJECT_TYPE_BUFFER && o->sparse ? "a sparse buffer"
                           : img && img->sparse                          ? "a sparse image"
                           : img && planar(img->format) && defined_somewhere(img) ? "a planar (multi-plane) image"
                                                                                   : NULL;
        if (o->alive && what)
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot trim at frame %" PRIu64 ": %s (handle 0x%" PRIx64 ") is "
                             "alive there, and a snapshot does not carry %s yet; trim at a frame before it is "
                             "made or after it is destroyed", frame, what, o->id,
                             o->sparse || (img && img->sparse) ? "sparse bindings" : "the contents of planar images");
    }
    return rt_ok_status();
}

rt_status trim_write_contents(struct trim_state *t, struct replay *r, struct rt_trace_writer *w,
                              uint32_t samples_guard, uint64_t *packets, uint64_t *bytes)
{
    struct sink k = {.r = r, .w = w, .scratch_size = rt_trace_snapshot_max_data(), .packets = packets,
                     .bytes = bytes, .result = t->result, .samples_guard = samples_guard};
    if (!(k.scratch = malloc(k.scratch_size)))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    rt_status s = rt_ok_status();
    /* memory bytes first: the resources' own contents are written over them */
    for (uint32_t i = 0; i < t->object_count && rt_ok(&s); i++)
        if (t->objects[i].alive && t->objects[i].type == VK_OBJECT_TYPE_DEVICE_MEMORY)
            s = memory_contents(&k, &t->objects[i]);
    for (uint32_t i = 0; i < t->object_count && rt_ok(&s); i++)
        if (t->objects[i].alive)
            s = one(&k, t, &t->objects[i]);
    free(k.scratch);
    return s;
}
