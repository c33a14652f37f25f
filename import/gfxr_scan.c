/*
 * import/gfxr_scan.c — the first read of a GFXReconstruct file, before the
 * import (docs/FORMATS.md §20 "The first read"): the block headers only (a
 * function call's id is outside its compressed payload), to count the
 * frames a trimmed capture holds (its B) and to see whether the capture
 * presents at all (else frames end at submits); the commands it calls (the
 * trace's command table names only those: a 20 KB table of every command
 * would outweigh a small capture); and, for a trimmed capture, the file's
 * SHA-256 (SNAPSHOT_BEGIN names its source by it).
 *
 * A damaged file is not an error here: the scan stops where the blocks stop
 * making sense and the import proper says what is wrong, and where.
 */
#include <string.h>

#include "digest.h"
#include "gfxr_codec.h"
#include "import_internal.h"

#define GFXR_MARKER_BEGIN 1

/* The commands the trace will call: its command table holds only those. */
static void note_command(struct gfxr_scan *s, const struct rt_gfxr_call *c)
{
    if (c->kind == RT_GFXR_CALL_TEMPLATE) { /* written as the plain update it stands for */
        s->used[RT_VK_CMD_vkUpdateDescriptorSets] = true;
        s->used[RT_VK_CMD_vkCmdPushDescriptorSetKHR] = true;
    } else if (c->kind == RT_GFXR_CALL_GENERIC) {
        s->used[c->cmd] = true;
    }
}

static void count_call(struct gfxr_scan *s, FILE *fp, bool in_state)
{
    uint32_t id;
    if (fread(&id, 1, 4, fp) != 4)
        return;
    const struct rt_gfxr_call *c = rt_gfxr_call_find(id);
    if (!c || c->cmd < 0 || c->cmd >= RT_VK_CMD_COUNT)
        return;
    note_command(s, c);
    if (in_state)
        return;
    if (rt_vk_cmd_categories((enum rt_vk_cmd)c->cmd) & RT_VK_CMD_CAT_PRESENTS)
        s->presents++;
    if (rt_vk_cmd_flags((enum rt_vk_cmd)c->cmd) & RT_VK_CMD_FLAG_SUBMITS)
        s->submits++;
}

/* Calls inside the state snapshot are the state writer's, not frames. */
static void scan_blocks(FILE *fp, uint64_t size, uint64_t start, struct gfxr_scan *s)
{
    bool in_state = false;
    for (uint64_t offset = start; size - offset >= 12;) {
        uint8_t head[12];
        uint64_t body;
        uint32_t type;
        if (fseeko(fp, (off_t)offset, SEEK_SET) != 0 || fread(head, 1, sizeof head, fp) != sizeof head)
            return;
        memcpy(&body, head, 8);
        memcpy(&type, head + 8, 4);
        if (body > size - offset - 12)
            return;
        type &= ~GFXR_BLOCK_COMPRESSED;
        uint32_t marker;
        if (type == GFXR_BLOCK_CALL && body >= 4)
            count_call(s, fp, in_state);
        else if (type == GFXR_BLOCK_STATE_MARKER && body >= 4 && fread(&marker, 1, 4, fp) == 4) {
            in_state = marker == GFXR_MARKER_BEGIN;
            s->state_markers++;
        }
        offset += 12 + body;
    }
}

rt_status gfxr_scan(const struct gfxr_file *f, const char *path, struct gfxr_scan *out)
{
    *out = (struct gfxr_scan){0};
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot open %s a second time", path);
    scan_blocks(fp, f->size, f->offset, out);
    rt_status s = rt_ok_status();
    if (out->state_markers)
        s = fseeko(fp, 0, SEEK_SET) == 0
                ? rt_sha256_stream(fp, path, out->sha256)
                : rt_errorf(RT_ERR_BAD_INPUT, "%s: cannot read it to its end for its SHA-256", path);
    fclose(fp);
    return s;
}
