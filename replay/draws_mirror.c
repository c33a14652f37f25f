/* replay/draws_mirror.c — calls recorded a second time, decoded again from
 * their packets with the command buffer swapped, for two needs of per-draw
 * work (docs/FORMATS.md 7.1):
 *
 * - A shadow. `--skip-draws F:N` leaves draw N out of the recording that
 *   holds it; when that recording was made before frame F (vkcube records
 *   once and re-submits every frame), the other frames that submit it would
 *   lose the draw too. So such a recording is made twice: the program's
 *   command buffer gets frame F's version (the draw left out, and any dump
 *   copies), and a command buffer of ours, its shadow, every call including
 *   the skipped draw. Every submission outside frame F, and every
 *   vkCmdExecuteCommands recorded outside frame F, runs the shadow instead.
 *
 * - A log. A secondary command buffer recorded to continue its primary's
 *   render pass cannot end that pass, so its draws cannot be split where they
 *   are recorded. Its calls are kept (their packets), and where a primary of
 *   the dump frame executes it, they are replayed into the primary instead,
 *   inline, between a restart of the pass with inline contents and one with
 *   secondary contents: each draw can then be split like a primary's own.
 *   The secondary's state is the primary's from there on, which the spec
 *   allows (a primary's state is undefined after vkCmdExecuteCommands).
 *   Its first execution in the dump frame is replayed so; later ones run it.
 *
 * Both call the command's own replay path (its handler or the generic call),
 * so handle mapping, rebinding and workarounds of those paths apply alike. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "draws.h"
#include "log.h"

static bool dumping(const struct replay *r) { return r->draws->opts && r->draws->opts->frame; }

static bool dump_frame(const struct replay *r) { return dumping(r) && r->frame + 1 == r->draws->opts->frame; }

static struct draw_cmdbuf *record_of(struct replay *r, uint64_t captured)
{
    uint64_t live = 0;
    if (!captured || !rt_typed_map_get(&r->handles, VK_OBJECT_TYPE_COMMAND_BUFFER, captured, &live))
        return NULL;
    return replay_draws_cmdbuf(r, (VkCommandBuffer)(uintptr_t)live, false);
}

static bool shadowed(const struct draw_cmdbuf *cb) { return cb && cb->shadowing && cb->shadow; }

/* How a walk over a call's handles swaps its command buffers: the first one
 * to FIRST (when non-zero), the others (with SHADOWS) to their shadows. */
struct swap {
    struct replay *r;
    uint32_t seen;
    uint64_t first;
    bool shadows;
    bool track; /* the calls land in a primary of the frame: follow what they bind (draws.c) */
};

static void swap_one(void *user, VkObjectType type, void *slot, bool output)
{
    struct swap *w = user;
    if (type != VK_OBJECT_TYPE_COMMAND_BUFFER || output)
        return;
    uint64_t id;
    memcpy(&id, slot, sizeof id);
    if (w->seen++ == 0 && w->first) {
        memcpy(slot, &w->first, sizeof w->first);
        return;
    }
    struct draw_cmdbuf *cb = w->shadows ? record_of(w->r, id) : NULL;
    if (shadowed(cb))
        memcpy(slot, &cb->shadow_id, sizeof cb->shadow_id);
}

/* Packet P decoded again into our arena, its command buffers swapped as W says, and called. */
static rt_status call_again(struct replay *r, const struct rt_trace_packet *p, struct swap *w, enum rt_vk_cmd *cmd_out,
                            void **args_out)
{
    enum rt_vk_cmd cmd;
    void *args;
    RT_TRY(replay_decode_call(r->header, r->commands, p, &r->draws->mirror_arena, &cmd, &args));
    rt_vk_walk_handles(cmd, args, swap_one, w);
    if (w->track) /* the pipeline and sets bound, for the draw's storage */
        RT_TRY(replay_draws_track(r, cmd, args));
    replay_handler_fn handler = replay_handler(cmd);
    RT_TRY(handler ? handler(r, args, p->u.call.return_value) : replay_generic_call(r, cmd, args, p->u.call.return_value));
    if (w->track)
        RT_TRY(replay_draws_track_after(r, cmd, args));
    if (cmd_out)
        *cmd_out = cmd;
    if (args_out)
        *args_out = args;
    return rt_ok_status();
}

/* --- the shadow ---------------------------------------------------------------- */

static rt_status make_shadow(struct replay *r, struct draw_cmdbuf *cb)
{
    struct replay_device *dev = replay_device_of(r, cb->handle);
    if (!dev || !cb->pool)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "a command buffer of an unknown device or pool");
    VkCommandBufferAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = cb->pool, .level = cb->level, .commandBufferCount = 1};
    r->own_depth++;
    VkResult res = dev->dispatch.device.vkAllocateCommandBuffers(dev->handle, &info, &cb->shadow);
    r->own_depth--;
    if (res != VK_SUCCESS) {
        cb->shadow = VK_NULL_HANDLE;
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkAllocateCommandBuffers: %s", replay_result_name(res));
    }
    cb->shadow_id = r->draws->next_stand_in++;
    return replay_remember(r, VK_OBJECT_TYPE_COMMAND_BUFFER, cb->shadow_id, (uint64_t)(uintptr_t)cb->shadow);
}

/* A shadow that cannot be made or recorded: the frames that submit the recording lose the draw, as said. */
static void no_shadow(struct replay *r, struct draw_cmdbuf *cb, rt_status *s)
{
    rt_log(RT_LOG_WARN, "replay: --skip-draws %" PRIu64 ": no second recording of call %" PRIu64 " (%s); every "
           "frame that submits it loses the skipped draw, not only frame %" PRIu64, r->draws->skip.frame,
           r->call_seq, s->msg, r->draws->skip.frame);
    rt_status_free(s);
    cb->shadowing = false;
}

rt_status replay_draws_mirror_call(struct replay *r, enum rt_vk_cmd cmd)
{
    struct draw_cmdbuf *cb = r->draws->current;
    (void)cmd;
    if (!shadowed(cb) || !r->packet)
        return rt_ok_status();
    struct swap w = {r, 0, cb->shadow_id, true};
    rt_status s = call_again(r, r->packet, &w, NULL, NULL);
    if (!rt_ok(&s))
        no_shadow(r, cb, &s);
    return rt_ok_status();
}

/* --- the log ---------------------------------------------------------------------- */

void replay_draws_mirror_forget(struct replay *r, struct draw_cmdbuf *cb, bool free_shadow)
{
    for (size_t i = 0; i < cb->log_count; i++)
        free((void *)cb->log[i].packet.u.call.params);
    free(cb->log);
    cb->log = NULL;
    cb->log_count = cb->log_capacity = 0;
    cb->logging = cb->inlined = false;
    if (free_shadow && cb->shadow) {
        struct replay_device *dev = replay_device_of(r, cb->handle);
        if (dev)
            dev->dispatch.device.vkFreeCommandBuffers(dev->handle, cb->pool, 1, &cb->shadow);
    }
    if (free_shadow || !cb->shadow) {
        cb->shadow = VK_NULL_HANDLE;
        cb->shadowing = false;
    }
}

rt_status replay_draws_mirror_begun(struct replay *r, struct draw_cmdbuf *cb)
{
    replay_draws_mirror_forget(r, cb, false);
    cb->shadowing = false;
    cb->logging = dumping(r) && cb->continues_pass && cb->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY &&
                  (dump_frame(r) || cb->early_dump);
    if (!cb->early_skip || !r->packet)
        return rt_ok_status();
    rt_status s = cb->shadow ? rt_ok_status() : make_shadow(r, cb);
    cb->shadowing = rt_ok(&s);
    if (rt_ok(&s)) {
        struct swap w = {r, 0, cb->shadow_id, false};
        s = call_again(r, r->packet, &w, NULL, NULL);
    }
    if (!rt_ok(&s))
        no_shadow(r, cb, &s);
    return rt_ok_status();
}

rt_status replay_draws_mirror_log(struct replay *r, enum rt_vk_cmd cmd, struct draw_cmdbuf *cb, bool skipped,
                                  bool *defer)
{
    struct draw_pending *p = &r->draws->pending;
    *defer = false;
    if (!cb->logging || !r->packet)
        return rt_ok_status();
    if (cb->log_count == cb->log_capacity) {
        size_t n = cb->log_capacity ? cb->log_capacity * 2 : 32;
        struct draw_logged *grown = realloc(cb->log, n * sizeof *grown);
        if (!grown)
            return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
        cb->log = grown;
        cb->log_capacity = n;
    }
    struct draw_logged *l = &cb->log[cb->log_count];
    *l = (struct draw_logged){.cmd = cmd, .packet = *r->packet, .skipped = skipped};
    uint8_t *params = malloc(r->packet->u.call.size ? r->packet->u.call.size : 1);
    if (!params)
        return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
    memcpy(params, r->packet->u.call.params, r->packet->u.call.size);
    l->packet.u.call.params = params;
    if (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_DRAWS)
        l->number = r->draws->dump_draws; /* counted just before (draws.c) */
    if (p->active && p->cb == cb) { /* a draw to dump: where its primary runs it */
        l->entry = p->entry;
        l->number = p->number;
        *defer = true;
    }
    cb->log_count++;
    return rt_ok_status();
}

/* S's logged calls replayed into P (rendering, dump frame), each logged draw split after. */
static rt_status inline_secondary(struct replay *r, struct draw_cmdbuf *p, struct draw_cmdbuf *s,
                                  struct replay_device *dev)
{
    VkSubpassContents contents = p->contents;
    VkRenderingFlags flags = p->dynamic.info.flags;
    p->contents = VK_SUBPASS_CONTENTS_INLINE;
    p->dynamic.info.flags &= ~(VkRenderingFlags)VK_RENDERING_CONTENTS_SECONDARY_COMMAND_BUFFERS_BIT;
    rt_status st = replay_draws_restart(r, p, dev);
    for (size_t i = 0; rt_ok(&st) && i < s->log_count; i++) {
        struct draw_logged *l = &s->log[i];
        enum rt_vk_cmd cmd = l->cmd;
        struct swap w = {r, 0, p->captured, true, true};
        if (!l->skipped)
            st = call_again(r, &l->packet, &w, &cmd, NULL);
        if (rt_ok(&st) && l->number)
            st = replay_draws_runs(r, p, l->number);
        if (rt_ok(&st) && l->entry) {
            struct draw_pending pending = {true, l->entry, p, l->number};
            st = replay_draws_dump(r, &pending, cmd, NULL);
        }
    }
    p->contents = contents;
    p->dynamic.info.flags = flags;
    if (rt_ok(&st))
        st = replay_draws_restart(r, p, dev);
    s->inlined = true;
    return st;
}

/* A logged secondary not yet replayed into a primary, with draws of the frame (saved or not: "executed" lists them all). */
static bool has_draws(const struct draw_cmdbuf *s)
{
    for (size_t i = 0; s && !s->inlined && i < s->log_count; i++)
        if (s->log[i].number)
            return true;
    return false;
}

/* vkCmdExecuteCommands into P (captured ids): its logged secondaries inline, the rest executed as they are. */
static rt_status execute(struct replay *r, struct rt_vk_args_vkCmdExecuteCommands *a, struct draw_cmdbuf *p,
                         bool *skip)
{
    bool any = false;
    for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++)
        any |= has_draws(record_of(r, (uint64_t)(uintptr_t)a->pCommandBuffers[i]));
    struct replay_device *dev = any ? replay_device_of(r, p->handle) : NULL;
    const char *why = any ? replay_draws_split_why(r, p) : NULL;
    if (!dev || why) {
        for (uint32_t i = 0; why && i < a->commandBufferCount; i++) {
            struct draw_cmdbuf *s = record_of(r, (uint64_t)(uintptr_t)a->pCommandBuffers[i]);
            for (size_t k = 0; has_draws(s) && k < s->log_count; k++)
                if (s->log[k].entry)
                    RT_TRY(replay_draws_not_saved(r, s->log[k].entry, "attachments", why));
        }
        return rt_ok_status();
    }
    *skip = true; /* made here, one secondary at a time */
    p->dev = dev;
    for (uint32_t i = 0; i < a->commandBufferCount; i++) {
        uint64_t id = (uint64_t)(uintptr_t)a->pCommandBuffers[i], live = 0;
        struct draw_cmdbuf *s = record_of(r, id);
        if (has_draws(s)) {
            RT_TRY(inline_secondary(r, p, s, dev));
            continue;
        }
        RT_TRY(replay_live(r, VK_OBJECT_TYPE_COMMAND_BUFFER, id, &live));
        VkCommandBuffer one = (VkCommandBuffer)(uintptr_t)live;
        dev->dispatch.device.vkCmdExecuteCommands(p->handle, 1, &one);
    }
    return rt_ok_status();
}

/* Commands that run other command buffers inside the first (a table: no name compares). */
static const bool executes[RT_VK_CMD_COUNT] = {[RT_VK_CMD_vkCmdExecuteCommands] = true};

rt_status replay_draws_mirror_runs(struct replay *r, enum rt_vk_cmd cmd, void *args, bool *skip)
{
    struct replay_draws *d = r->draws;
    bool records = executes[cmd];
    struct draw_cmdbuf *p = records ? r->draws->current : NULL;
    if (!records && !(rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_EXECUTES))
        return rt_ok_status();
    /* outside frame F, the shadows run; a shadowed recording's own executes keep frame F's (its shadow swaps) */
    if (d->skip.frame && r->frame + 1 != d->skip.frame && !shadowed(p)) {
        struct swap w = {r, 0, 0, true};
        rt_vk_walk_handles(cmd, args, swap_one, &w);
    }
    if (records && p && dumping(r) && (dump_frame(r) || p->early_dump) && p->kind != DRAW_OUTSIDE)
        return execute(r, args, p, skip);
    return rt_ok_status();
}
