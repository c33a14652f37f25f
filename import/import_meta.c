/*
 * import/import_meta.c — GFXReconstruct metadata and annotation blocks:
 * memory fills become MEMORY_UPDATE packets, device and memory properties
 * the trace's device, the rest notes; every other metadata type is refused by
 * name (docs/FORMATS.md §20).
 */
#include <string.h>

#include "import_internal.h"

/* GFXReconstruct's metadata types, for messages (its format.h MetaDataType). */
static const char *const meta_names[] = {
    [1] = "display message", [2] = "fill memory", [3] = "resize window",
    [4] = "set swapchain image state (state snapshot)", [5] = "begin resource init (state snapshot)",
    [6] = "end resource init (state snapshot)", [7] = "init buffer (state snapshot)",
    [8] = "init image (state snapshot)", [9] = "create hardware buffer", [10] = "destroy hardware buffer",
    [11] = "set device properties", [12] = "set device memory properties", [13] = "resize window 2",
    [14] = "set opaque address", [15] = "set ray tracing shader group handles", [16] = "create heap allocation",
    [17] = "init subresource", [18] = "exe file info", [19] = "init DX12 acceleration structure",
    [20] = "fill memory resource value", [21] = "DXGI adapter info", [22] = "driver info",
    [24] = "create hardware buffer", [26] = "DX12 runtime info", [27] = "parent to child dependency",
    [28] = "build acceleration structures", [29] = "copy acceleration structures",
    [30] = "write acceleration structures properties", [32] = "set environment variables",
    [33] = "view relative location", [34] = "execute blocks from file", [35] = "create hardware buffer",
    [36] = "initialize meta command", [37] = "set opaque capture descriptor data",
    [38] = "init DX12 acceleration structure", [39] = "init tensor",
};

struct cursor {
    const uint8_t *p;
    size_t left;
    bool failed;
};

static void take(struct cursor *c, void *out, size_t n)
{
    if (c->failed || c->left < n) {
        c->failed = true;
        memset(out, 0, n);
        return;
    }
    memcpy(out, c->p, n);
    c->p += n;
    c->left -= n;
}

static uint32_t take_u32(struct cursor *c)
{
    uint32_t v;
    take(c, &v, 4);
    return v;
}

static uint64_t take_u64(struct cursor *c)
{
    uint64_t v;
    take(c, &v, 8);
    return v;
}

rt_status import_meta_error(const struct gfxr_block *b, uint32_t type, const char *why)
{
    const char *name = type < sizeof meta_names / sizeof meta_names[0] && meta_names[type] ? meta_names[type]
                                                                                          : "unknown";
    return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": metadata %u (%s) %s", b->index,
                     b->offset, type, name, why);
}

static rt_status fill_memory(struct importer *im, const struct gfxr_block *b, struct cursor *c)
{
    (void)take_u64(c); /* the thread that wrote the pages out */
    uint64_t memory = take_u64(c), offset = take_u64(c), size = take_u64(c), base = 0;
    if (c->failed)
        return import_meta_error(b, 2, "is truncated");
    const uint8_t *data = c->p;
    if (b->type & GFXR_BLOCK_COMPRESSED)
        RT_TRY(rt_status_wrap(gfxr_decompress(&im->f, c->p, c->left, size, &data),
                              "block %" PRIu64 " at offset %" PRIu64, b->index, b->offset));
    else if (c->left != size)
        return import_meta_error(b, 2, "holds another size than it says");
    if (!rt_hashmap_get(&im->map_offsets, memory, &base))
        return import_meta_error(b, 2, "fills memory that was never mapped");
    if (offset > UINT64_MAX - base)
        return import_meta_error(b, 2, "has an offset past 2^64");
    RT_TRY(import_writer(im, NULL));
    import_count(im, 16 + (size_t)size);
    RT_TRY(rt_trace_writer_memory_update(im->w, memory, base + offset, data, (size_t)size));
    im->sum->fills++;
    im->sum->fill_bytes += size;
    return rt_ok_status();
}

static rt_status device_ready(struct importer *im)
{
    if (!im->have_props || !im->have_memory || !im->w)
        return rt_ok_status(); /* import_writer hands it over when it makes the writer */
    return rt_trace_writer_set_device_info(im->w, &im->dev);
}

static rt_status device_properties(struct importer *im, const struct gfxr_block *b, struct cursor *c)
{
    struct rt_trace_device_info *d = &im->dev;
    (void)take_u64(c);
    (void)take_u64(c); /* the physical device */
    d->api_version = take_u32(c);
    d->driver_version = take_u32(c);
    d->vendor_id = take_u32(c);
    d->device_id = take_u32(c);
    d->device_type = take_u32(c);
    take(c, d->pipeline_cache_uuid, sizeof d->pipeline_cache_uuid);
    uint32_t len = take_u32(c);
    if (c->failed || len >= sizeof d->device_name || len > c->left)
        return import_meta_error(b, 11, "is truncated or names a device of 256 bytes or more");
    memset(d->device_name, 0, sizeof d->device_name);
    take(c, d->device_name, len);
    if (memchr(d->device_name, 0, len))
        return import_meta_error(b, 11, "has a NUL in its device name");
    im->have_props = true;
    im->sum->device_blocks++;
    return device_ready(im);
}

static rt_status memory_properties(struct importer *im, const struct gfxr_block *b, struct cursor *c)
{
    struct rt_trace_device_info *d = &im->dev;
    (void)take_u64(c);
    (void)take_u64(c);
    d->memory_type_count = take_u32(c);
    d->memory_heap_count = take_u32(c);
    if (c->failed || d->memory_type_count > RT_TRACE_MAX_MEMORY_TYPES ||
        d->memory_heap_count > RT_TRACE_MAX_MEMORY_HEAPS)
        return import_meta_error(b, 12, "is truncated or has more memory types or heaps than Vulkan allows");
    for (uint32_t i = 0; i < d->memory_type_count; i++) {
        d->memory_types[i].property_flags = take_u32(c);
        d->memory_types[i].heap_index = take_u32(c);
    }
    for (uint32_t i = 0; i < d->memory_heap_count; i++) {
        d->memory_heaps[i].size = take_u64(c);
        d->memory_heaps[i].flags = take_u32(c);
    }
    if (c->failed)
        return import_meta_error(b, 12, "is truncated");
    im->have_memory = true;
    im->sum->device_blocks++;
    return device_ready(im);
}

static rt_status resize_window(struct importer *im, const struct gfxr_block *b, struct cursor *c, uint32_t type)
{
    (void)take_u64(c);
    uint64_t surface = take_u64(c);
    uint32_t w = take_u32(c), h = take_u32(c);
    if (c->failed)
        return import_meta_error(b, type, "is truncated");
    return import_note(im, "gfxrecon: resize window of surface %" PRIu64 " to %ux%u", surface, w, h);
}

/* Display messages and driver info: the thread, then text. */
static rt_status text_note(struct importer *im, const struct gfxr_block *b, struct cursor *c, uint32_t type)
{
    (void)take_u64(c);
    if (c->failed)
        return import_meta_error(b, type, "is truncated");
    size_t n = strnlen((const char *)c->p, c->left);
    return import_note(im, "gfxrecon %s: %.*s", meta_names[type], (int)(n < 1024 ? n : 1024),
                       (const char *)c->p);
}

rt_status import_meta(struct importer *im, const struct gfxr_block *b)
{
    struct cursor c = {b->body, b->size, false};
    uint32_t id = take_u32(&c), type = id & 0xffff, family = id >> 16;
    if (c.failed)
        return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": metadata block of %zu bytes",
                         b->index, b->offset, b->size);
    if (family != 1 && family != 0)
        return import_meta_error(b, type, "of another API family than Vulkan is not imported");
    if (type == 2)
        return fill_memory(im, b, &c);
    if (type >= 4 && type <= 8) /* a trimmed capture's state snapshot */
        return import_snapshot_meta(im, b, type, c.p, c.left);
    if (b->type & GFXR_BLOCK_COMPRESSED)
        return import_meta_error(b, type, "compressed is not imported");
    switch (type) {
    case 11: return device_properties(im, b, &c);
    case 12: return memory_properties(im, b, &c);
    case 3:
    case 13: return resize_window(im, b, &c, type);
    case 1:
    case 22: return text_note(im, b, &c, type);
    case 18: return import_note(im, "gfxrecon: exe file info (not kept)");
    default: return import_meta_error(b, type, "is not imported");
    }
}

/* The version GFXReconstruct writes in its "operation" annotation's JSON. */
static void take_version(struct importer *im, const char *data, size_t n)
{
    static const char key[] = "\"gfxrecon-version\"";
    const char *k = memmem(data, n, key, sizeof key - 1);
    const char *q = k ? memchr(k + sizeof key - 1, '"', n - (size_t)(k + sizeof key - 1 - data)) : NULL;
    const char *e = q ? memchr(q + 1, '"', n - (size_t)(q + 1 - data)) : NULL;
    if (e && (size_t)(e - q - 1) < sizeof im->sum->gfxr_version)
        snprintf(im->sum->gfxr_version, sizeof im->sum->gfxr_version, "%.*s", (int)(e - q - 1), q + 1);
}

rt_status import_annotation(struct importer *im, const struct gfxr_block *b)
{
    struct cursor c = {b->body, b->size, false};
    (void)take_u32(&c); /* text, JSON or XML */
    uint32_t label_len = take_u32(&c);
    uint64_t data_len = take_u64(&c);
    if (c.failed || label_len > c.left || data_len != c.left - label_len)
        return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": annotation sizes do not fit "
                         "its block", b->index, b->offset);
    const char *label = (const char *)c.p, *data = label + label_len;
    if (label_len == 9 && memcmp(label, "operation", 9) == 0)
        take_version(im, data, (size_t)data_len);
    im->sum->annotations++;
    return import_note(im, "gfxrecon annotation %.*s: %.*s", (int)(label_len < 256 ? label_len : 256), label,
                       (int)(data_len < 4096 ? data_len : 4096), data);
}
