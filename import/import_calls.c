/*
 * import/import_calls.c — GFXReconstruct function-call blocks -> CALL packets.
 *
 * The parameters are decoded by gen/gfxr (GFXReconstruct's encoding, from
 * retrace's vk.xml tables) into retrace's argument block and encoded again by
 * retrace's codec, so the CALL is exactly what retrace's own capture writes
 * for the same call. Handle ids are kept as they are (docs/FORMATS.md §20).
 * What the importer itself must know of a command: mappings (fills are
 * relative to them) and presents (they end frames).
 */
#include <string.h>

#include "gfxr_codec.h"
#include "import_internal.h"

static rt_status refuse(const struct gfxr_block *b, const char *what, const char *name, const char *why)
{
    return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": %s %s is not imported: %s",
                     b->index, b->offset, what, name, why);
}

static rt_status find_command(const struct gfxr_block *b, uint32_t id, enum rt_vk_cmd *cmd)
{
    char idtext[32];
    snprintf(idtext, sizeof idtext, "0x%x", id);
    const struct rt_gfxr_call *c = rt_gfxr_call_find(id);
    if (!c)
        return refuse(b, "function call id", idtext, "not a Vulkan call of GFXReconstruct's numbering");
    if (c->kind == RT_GFXR_CALL_UNKNOWN || c->kind == RT_GFXR_CALL_REFUSED)
        return refuse(b, "function call", c->name, c->why);
    *cmd = (enum rt_vk_cmd)c->cmd;
    if (c->kind == RT_GFXR_CALL_TEMPLATE)
        return rt_ok_status(); /* import_templates.c writes the update it stands for */
    if (rt_vk_commands[*cmd].excluded || !rt_vk_cmd_encodable(*cmd))
        return refuse(b, "function call", c->name, "not covered by retrace's codec (see vk_coverage.txt)");
    if ((rt_vk_cmd_flags(*cmd) & RT_VK_CMD_FLAG_MAPS) && *cmd != RT_VK_CMD_vkMapMemory)
        return refuse(b, "function call", c->name, "only vkMapMemory's mappings are followed");
    return rt_ok_status();
}

static uint32_t thread_number(struct importer *im, uint64_t gfxr_thread)
{
    uint64_t n;
    if (rt_hashmap_get(&im->threads, gfxr_thread, &n))
        return (uint32_t)n;
    n = rt_hashmap_count(&im->threads) + 1;
    if (!rt_hashmap_put(&im->threads, gfxr_thread, n))
        return 0;
    im->sum->threads = n;
    return (uint32_t)n;
}

/* The parameter bytes of a call block, decompressed where the block is. */
static rt_status call_params(struct importer *im, const struct gfxr_block *b, const uint8_t **params,
                             size_t *size)
{
    size_t head = b->type & GFXR_BLOCK_COMPRESSED ? 20 : 12;
    if (b->size < head)
        return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": function call block of %zu "
                         "bytes", b->index, b->offset, b->size);
    *params = b->body + head;
    *size = b->size - head;
    if (!(b->type & GFXR_BLOCK_COMPRESSED))
        return rt_ok_status();
    uint64_t raw_size;
    memcpy(&raw_size, b->body + 12, 8);
    rt_status s = gfxr_decompress(&im->f, *params, *size, raw_size, params);
    *size = (size_t)raw_size;
    return rt_status_wrap(s, "block %" PRIu64 " at offset %" PRIu64, b->index, b->offset);
}

/* GFXReconstruct's fills are relative to the mapping: remember where it starts. */
static void follow_mapping(struct importer *im, enum rt_vk_cmd cmd, const void *args)
{
    if (cmd != RT_VK_CMD_vkMapMemory)
        return;
    const struct rt_vk_args_vkMapMemory *a = args;
    if (a->result == VK_SUCCESS)
        (void)rt_hashmap_put(&im->map_offsets, (uint64_t)(uintptr_t)a->memory, a->offset);
}

rt_status import_write_call(struct importer *im, enum rt_vk_cmd cmd, uint32_t thread, const void *args)
{
    if (cmd == RT_VK_CMD_vkCreateInstance || !im->w)
        RT_TRY(import_writer(im, cmd == RT_VK_CMD_vkCreateInstance ? args : NULL));
    rt_enc_reset(&im->enc);
    RT_TRY(rt_vk_encode_call(&im->enc, cmd, args));
    if (im->enc.failed)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory encoding %s", rt_vk_cmd_name(cmd));
    uint32_t id = im->command_ids[cmd];
    if (id == UINT32_MAX) /* the first read saw every call id the import meets */
        return rt_errorf(RT_ERR_INTERNAL, "%s is not in the trace's command table", rt_vk_cmd_name(cmd));
    RT_TRY(rt_trace_writer_call(im->w, id, thread, rt_gfxr_return_value(cmd, args), im->enc.data, im->enc.size,
                                NULL));
    im->sum->calls++;
    import_count(im, 24 + im->enc.size);
    if (im->stage == IMPORT_IN_SNAPSHOT) /* the state writer's submits and acquires end no frame */
        return import_snapshot_track(im, cmd, args);
    bool ends = im->submit_frames ? (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_SUBMITS) != 0
                                  : (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_PRESENTS) != 0;
    if (ends) {
        RT_TRY(rt_trace_writer_frame_end(im->w));
        im->sum->frames++;
    }
    return rt_ok_status();
}

rt_status import_call(struct importer *im, const struct gfxr_block *b)
{
    if (b->size < 12)
        return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": function call block of %zu "
                         "bytes", b->index, b->offset, b->size);
    uint32_t id;
    uint64_t thread;
    memcpy(&id, b->body, 4);
    memcpy(&thread, b->body + 4, 8);
    enum rt_vk_cmd cmd = RT_VK_CMD_COUNT;
    RT_TRY(find_command(b, id, &cmd));
    if (im->stage == IMPORT_IN_SNAPSHOT && im->snap && import_snapshot_holds(im, cmd, thread))
        return import_snapshot_hold(im, b);
    const uint8_t *params = NULL;
    size_t size = 0;
    RT_TRY(call_params(im, b, &params, &size));
    rt_arena_reset(&im->arena);
    if (rt_gfxr_call_find(id)->kind == RT_GFXR_CALL_TEMPLATE) {
        struct rt_dec td;
        rt_dec_init(&td, params, size, &im->arena);
        return rt_status_wrap(import_template_call(im, cmd, thread_number(im, thread), &td),
                              "block %" PRIu64 " at offset %" PRIu64, b->index, b->offset);
    }
    void *args = rt_arena_calloc(&im->arena, 1, rt_vk_args_size(cmd), 16);
    if (!args)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory decoding %s", rt_vk_cmd_name(cmd));
    struct rt_dec dec;
    rt_dec_init(&dec, params, size, &im->arena);
    RT_TRY(rt_status_wrap(rt_gfxr_decode_call(&dec, cmd, args), "block %" PRIu64 " at offset %" PRIu64,
                          b->index, b->offset));
    follow_mapping(im, cmd, args);
    RT_TRY(import_write_call(im, cmd, thread_number(im, thread), args));
    if (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_CREATES && rt_vk_commands[cmd].object_type ==
        VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE) /* the KHR alias has the same argument block */
        return import_template_created(im, args);
    return rt_ok_status();
}
