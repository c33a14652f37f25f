/*
 * import/import.c — the block loop of `retrace import`: every block of the
 * GFXReconstruct file in order, mapped or refused (docs/FORMATS.md §20).
 *
 * The trace is written to OUT.import (the writer's own OUT.import.part
 * first) and renamed to OUT only when the import is kept, so a refused
 * capture leaves nothing behind and an old OUT stays as it was.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "import_internal.h"
#include "trace_snapshot.h"
#include "vkcodec.h"

const char *import_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Notes are UTF-8 without NUL: anything but printable ASCII becomes '?'. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            *s = *s == '\n' || *s == '\t' ? ' ' : '?';
}

rt_status import_note(struct importer *im, const char *fmt, ...)
{
    char text[5200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    sanitize(text);
    if (im->w) {
        import_count(im, 4 + strlen(text));
        return rt_trace_writer_annotation(im->w, RT_TRACE_ANNOTATION_NOTE, text);
    }
    if (im->note_count == IMPORT_MAX_NOTES)
        return rt_ok_status(); /* before the first call: only the first few are kept */
    im->notes[im->note_count] = strdup(text);
    if (!im->notes[im->note_count])
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    im->note_count++;
    return rt_ok_status();
}

static rt_status write_held_notes(struct importer *im)
{
    RT_TRY(import_note(im, "import: source=%s gfxrecon=%s compression=%s format=%u.%u", import_base_name(im->o->in),
                       im->sum->gfxr_version[0] ? im->sum->gfxr_version : "unknown", im->sum->compression,
                       im->sum->file_major, im->sum->file_minor));
    for (unsigned i = 0; i < im->note_count; i++) {
        import_count(im, 4 + strlen(im->notes[i]));
        RT_TRY(rt_trace_writer_annotation(im->w, RT_TRACE_ANNOTATION_NOTE, im->notes[i]));
    }
    return rt_ok_status();
}

void import_count(struct importer *im, size_t body_size)
{
    if (im->stage != IMPORT_IN_SNAPSHOT)
        return;
    im->snapshot_packets++;
    im->snapshot_bytes += IMPORT_PACKET_OVERHEAD + body_size;
}

/* The trace's command table: the commands the first read saw, in vk.xml order. */
static uint32_t command_table(struct importer *im, const char **names)
{
    uint32_t count = 0;
    for (unsigned i = 0; i < RT_VK_CMD_COUNT; i++) {
        im->command_ids[i] = im->scan.used[i] ? count : UINT32_MAX;
        if (im->scan.used[i])
            names[count++] = rt_vk_cmd_name((enum rt_vk_cmd)i);
    }
    return count;
}

rt_status import_writer(struct importer *im, const void *create_instance_args)
{
    if (im->w)
        return rt_ok_status();
    const struct rt_vk_args_vkCreateInstance *ci = create_instance_args;
    const VkApplicationInfo *app = ci && ci->pCreateInfo ? ci->pCreateInfo->pApplicationInfo : NULL;
    static const char *names[RT_VK_CMD_COUNT + 1];
    uint32_t count = command_table(im, names);
    bool trimmed = im->stage != IMPORT_NO_SNAPSHOT;
    if (trimmed) /* the snapshot guard last */
        names[im->guard_id = count++] = rt_trace_snapshot_guard;
    char settings[512];
    snprintf(settings, sizeof settings, "imported from %s (GFXReconstruct %s, file format %u.%u, compression %s)%s",
             import_base_name(im->o->in), im->sum->gfxr_version[0] ? im->sum->gfxr_version : "unknown",
             im->sum->file_major, im->sum->file_minor, im->sum->compression,
             im->submit_frames ? " frame-delimiter=submit" : "");
    sanitize(settings);
    struct rt_trace_writer_options wo = {
        .path = im->tmp_path,
        .compression = im->o->compression,
        .frame_seal_ms = 100,
        .application_name = app ? app->pApplicationName : NULL,
        .engine_name = app ? app->pEngineName : NULL,
        .application_version = app ? app->applicationVersion : 0,
        .engine_version = app ? app->engineVersion : 0,
        .api_version = app ? app->apiVersion : 0,
        .vk_header_version = VK_HEADER_VERSION_COMPLETE,
        .settings = settings,
        .command_names = names,
        .command_count = count,
        .device = im->have_props && im->have_memory ? &im->dev : NULL,
        .header_flags = trimmed ? RT_FORMAT_FLAG_SNAPSHOT : 0,
    };
    RT_TRY(rt_trace_writer_create(&wo, &im->w));
    if (trimmed)
        RT_TRY(import_snapshot_open(im));
    return write_held_notes(im);
}

static rt_status import_block(struct importer *im, const struct gfxr_block *b)
{
    switch (b->type & ~GFXR_BLOCK_COMPRESSED) {
    case GFXR_BLOCK_CALL:
        return import_call(im, b);
    case GFXR_BLOCK_META:
        return import_meta(im, b);
    case GFXR_BLOCK_ANNOTATION:
        if (b->type & GFXR_BLOCK_COMPRESSED)
            break;
        return import_annotation(im, b);
    case GFXR_BLOCK_STATE_MARKER:
        if (b->type & GFXR_BLOCK_COMPRESSED)
            break;
        return import_state_marker(im, b);
    case GFXR_BLOCK_FRAME_MARKER:
        im->sum->markers++; /* frames come from presents, as retrace's own captures count them */
        return rt_ok_status();
    default:
        break;
    }
    const char *what = (b->type & ~GFXR_BLOCK_COMPRESSED) == GFXR_BLOCK_METHOD ? "method call (D3D)"
                       : (b->type & ~GFXR_BLOCK_COMPRESSED) == GFXR_BLOCK_STATE_MARKER ? "compressed state marker"
                                                                                       : "unknown";
    return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": block type 0x%x (%s) is not "
                     "imported", b->index, b->offset, b->type, what);
}

/* After a stop: how many blocks were left, read without decoding them. */
static void count_rest(struct importer *im)
{
    struct gfxr_block b;
    bool end = false;
    for (;;) {
        rt_status s = gfxr_next(&im->f, &b, &end);
        if (!rt_ok(&s) || end) {
            rt_status_free(&s);
            return;
        }
        im->sum->blocks_left++;
    }
}

static void note_stop(struct importer *im, const struct gfxr_block *b, const rt_status *s)
{
    im->sum->stopped = true;
    im->sum->stop_block = b->index;
    im->sum->stop_offset = b->offset;
    snprintf(im->sum->stop_reason, sizeof im->sum->stop_reason, "%s", s->msg ? s->msg : "");
}

/* The loop: RT_OK with every block, or the first error; *keep says whether
 * what was written so far is to be kept (truncation, --keep-going). */
static rt_status run_blocks(struct importer *im, bool *keep)
{
    for (;;) {
        struct gfxr_block b = {0};
        bool end = false;
        rt_status s = gfxr_next(&im->f, &b, &end);
        if (rt_ok(&s) && end)
            return s;
        bool truncated = !rt_ok(&s);
        if (rt_ok(&s))
            s = import_block(im, &b);
        if (rt_ok(&s)) {
            im->sum->blocks++;
            continue;
        }
        note_stop(im, &b, &s);
        *keep = s.code == RT_ERR_BAD_INPUT && (truncated || im->o->keep_going);
        if (!truncated)
            count_rest(im);
        return s;
    }
}

/* Closes the writer; renames OUT.import to OUT when the import succeeded or
 * its good part is kept, else removes it. A stop that keeps nothing written
 * (the first block refused) still leaves a valid, empty trace. */
/* A trimmed capture's part of the summary note. */
static const char *snapshot_text(const struct rt_import_summary *m)
{
    static char text[256];
    if (!m->trimmed)
        return "";
    snprintf(text, sizeof text, "; state snapshot of frame %" PRIu64 ": %" PRIu64 " buffer and %" PRIu64 " image inits "
             "-> %" PRIu64 " content packets (%" PRIu64 " bytes), %" PRIu64 " images with no content, %" PRIu64
             " swapchain images in their layout", m->first_frame, m->buffer_inits, m->image_inits,
             m->content_packets, m->content_bytes, m->layout_only_images, m->swapchain_images);
    return text;
}

/* The last note: how the blocks were mapped (info prints it as "import map"). */
static rt_status write_summary(struct importer *im)
{
    const struct rt_import_summary *m = im->sum;
    char stop[160] = "";
    if (m->stopped)
        snprintf(stop, sizeof stop, "; stopped at block %" PRIu64 " (offset %" PRIu64 "), %" PRIu64
                 " blocks after it not imported", m->stop_block, m->stop_offset, m->blocks_left);
    return import_note(im, "import summary: %" PRIu64 " blocks: %" PRIu64 " function calls -> calls (%" PRIu64
                       " threads), %" PRIu64 " memory fills -> memory updates (%" PRIu64 " bytes), %" PRIu64
                       " device properties -> device, %" PRIu64 " annotations -> notes, %" PRIu64 " frame markers "
                       "(frames from %" PRIu64 " %s)%s%s", m->blocks, m->calls, m->threads, m->fills,
                       m->fill_bytes, m->device_blocks, m->annotations, m->markers, m->frames,
                       m->submit_frames ? "submits" : "presents", snapshot_text(m), stop);
}

static rt_status finish(struct importer *im, rt_status s, bool keep)
{
    if (im->stage == IMPORT_IN_SNAPSHOT) { /* a trace that stops inside its snapshot has no frame to replay */
        keep = false;
        if (rt_ok(&s))
            s = rt_errorf(RT_ERR_BAD_INPUT, "the capture ends inside its state snapshot (no end marker)");
    }
    if ((keep || rt_ok(&s)) && !im->w) { /* nothing but a header: an empty trace */
        rt_status w = import_writer(im, NULL);
        keep = rt_ok(&w);
        rt_status_free(&w);
    }
    if (im->w && (rt_ok(&s) || keep)) {
        rt_status n = write_summary(im);
        if (rt_ok(&s))
            s = n;
        else
            rt_status_free(&n);
    }
    if (im->w) {
        rt_status c = rt_trace_writer_close(im->w, &im->sum->out);
        im->w = NULL;
        if (!rt_ok(&c))
            keep = false;
        if (rt_ok(&s))
            s = c;
        else
            rt_status_free(&c);
    }
    if (!(rt_ok(&s) || keep)) {
        unlink(im->tmp_path);
        return s;
    }
    if (rename(im->tmp_path, im->o->out) != 0) {
        unlink(im->tmp_path);
        rt_status_free(&s);
        return rt_errorf(RT_ERR_INTERNAL, "cannot rename the trace to %s", im->o->out);
    }
    return s;
}

rt_status rt_import_gfxr(const struct rt_import_options *o, struct rt_import_summary *summary)
{
    *summary = (struct rt_import_summary){0};
    struct importer im = {.o = o, .sum = summary};
    if ((size_t)snprintf(im.tmp_path, sizeof im.tmp_path, "%s.import", o->out) >= sizeof im.tmp_path)
        return rt_errorf(RT_ERR_USAGE, "output path too long");
    RT_TRY(gfxr_open(o->in, &im.f));
    rt_status scanned = gfxr_scan(&im.f, o->in, &im.scan);
    if (!rt_ok(&scanned)) {
        gfxr_close(&im.f);
        return scanned;
    }
    im.submit_frames = o->delimiter == RT_IMPORT_DELIMITER_SUBMIT ||
                       (o->delimiter == RT_IMPORT_DELIMITER_AUTO && !im.scan.presents && im.scan.submits);
    summary->submit_frames = im.submit_frames;
    summary->bytes_in = im.f.size;
    summary->compression = gfxr_compression_name(im.f.compression);
    summary->file_major = im.f.major;
    summary->file_minor = im.f.minor;
    rt_arena_init(&im.arena, 1 << 16, (size_t)512 << 20); /* bounds one decoded call */
    rt_enc_init(&im.enc);
    rt_hashmap_init(&im.map_offsets);
    rt_hashmap_init(&im.threads);
    rt_hashmap_init(&im.template_ids);
    bool keep = false;
    rt_status s = run_blocks(&im, &keep);
    s = finish(&im, s, keep);
    for (unsigned i = 0; i < im.note_count; i++)
        free(im.notes[i]);
    rt_hashmap_finish(&im.threads);
    import_templates_finish(&im);
    import_snapshot_free(&im);
    rt_hashmap_finish(&im.map_offsets);
    rt_enc_finish(&im.enc);
    rt_arena_finish(&im.arena);
    gfxr_close(&im.f);
    return s;
}
