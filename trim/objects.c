/*
 * trim/objects.c — the objects of the source trace, one entry per life, the
 * calls that may go into the snapshot, and the closure that picks them: what
 * is alive at frame A is needed; a kept call needs every object it names
 * (so a pipeline keeps the shader modules and cache it was made from, even
 * where the source destroyed them before A: their creation and their
 * destroy are kept, in the source's order).
 */
#include <stdlib.h>
#include <string.h>

#include "trim_internal.h"

bool trim_grow(void **array, uint32_t *cap, uint32_t count, size_t size)
{
    if (count < *cap)
        return true;
    uint32_t n = *cap ? *cap * 2 : 256;
    void *p = realloc(*array, (size_t)n * size);
    if (!p)
        return false;
    memset((char *)p + (size_t)*cap * size, 0, (size_t)(n - *cap) * size);
    *array = p;
    *cap = n;
    return true;
}

static void out_of_memory(struct trim_state *t)
{
    if (rt_ok(&t->error))
        t->error = rt_errorf(RT_ERR_INTERNAL, "out of memory following the trace's objects");
}

void trim_state_init(struct trim_state *t)
{
    rt_typed_map_init(&t->current);
    t->error = rt_ok_status();
}

void trim_state_finish(struct trim_state *t)
{
    rt_typed_map_finish(&t->current);
    for (uint32_t i = 0; i < t->image_count; i++)
        free(t->images[i].layouts);
    for (uint32_t i = 0; i < t->cmdbuf_count; i++) {
        free(t->cmdbufs[i].recording);
        free(t->cmdbufs[i].transitions);
    }
    for (uint32_t i = 0; i < t->pass_count; i++)
        free(t->passes[i].final_layouts);
    for (uint32_t i = 0; i < t->framebuffer_count; i++)
        free(t->framebuffers[i].views);
    free(t->objects);
    free(t->records);
    free(t->refs);
    free(t->images);
    free(t->cmdbufs);
    free(t->views);
    free(t->passes);
    free(t->framebuffers);
}

uint32_t trim_object_find(const struct trim_state *t, VkObjectType type, uint64_t id)
{
    uint64_t v = 0;
    return id && rt_typed_map_get(&t->current, type, id, &v) && v ? (uint32_t)(v - 1) : TRIM_NONE;
}

uint32_t trim_object_add(struct trim_state *t, VkObjectType type, uint64_t id, uint32_t created, uint32_t owner)
{
    if (!trim_grow((void **)&t->objects, &t->object_cap, t->object_count, sizeof *t->objects)) {
        out_of_memory(t);
        return TRIM_NONE;
    }
    uint32_t old = trim_object_find(t, type, id);
    if (old != TRIM_NONE) /* enumerated again, or a handle the driver reused without our seeing the destroy */
        t->objects[old].alive = false;
    uint32_t i = t->object_count++;
    t->objects[i] = (struct trim_object){.type = type, .id = id, .created = created, .owner = owner,
                                         .info = TRIM_NONE, .memory = TRIM_NONE, .map = TRIM_NONE, .alive = true};
    if (!rt_typed_map_put(&t->current, type, id, (uint64_t)i + 1))
        out_of_memory(t);
    return i;
}

void trim_object_kill(struct trim_state *t, uint32_t object)
{
    if (object == TRIM_NONE || !t->objects[object].alive)
        return;
    struct trim_object *o = &t->objects[object];
    o->alive = false;
    uint32_t cur = trim_object_find(t, o->type, o->id);
    if (cur == object) /* 0: no live entry (the map has no removal) */
        (void)rt_typed_map_put(&t->current, o->type, o->id, 0);
    /* Children come after their owner: the scan starts there. Only pools,
     * swapchains, devices and instances own anything, and they end rarely. */
    if (o->type == VK_OBJECT_TYPE_COMMAND_POOL || o->type == VK_OBJECT_TYPE_DESCRIPTOR_POOL ||
        o->type == VK_OBJECT_TYPE_SWAPCHAIN_KHR || o->type == VK_OBJECT_TYPE_DEVICE ||
        o->type == VK_OBJECT_TYPE_INSTANCE || o->type == VK_OBJECT_TYPE_PHYSICAL_DEVICE)
        for (uint32_t i = object + 1; i < t->object_count; i++)
            if (t->objects[i].owner == object && t->objects[i].alive)
                trim_object_kill(t, i);
}

uint32_t trim_record_add(struct trim_state *t, uint64_t seq, enum trim_record_kind kind)
{
    if (!trim_grow((void **)&t->records, &t->record_cap, t->record_count, sizeof *t->records)) {
        out_of_memory(t);
        return TRIM_NONE;
    }
    uint32_t i = t->record_count++;
    t->records[i] = (struct trim_record){.seq = seq, .first = (uint32_t)t->ref_count, .kind = (uint8_t)kind};
    return i;
}

void trim_record_ref(struct trim_state *t, uint32_t record, uint32_t object, bool subject)
{
    if (record == TRIM_NONE || object == TRIM_NONE)
        return;
    if (t->ref_count >= t->ref_cap) {
        uint64_t n = t->ref_cap ? t->ref_cap * 2 : 4096;
        uint32_t *p = n <= UINT32_MAX ? realloc(t->refs, n * sizeof *p) : NULL;
        if (!p) {
            out_of_memory(t);
            return;
        }
        t->refs = p;
        t->ref_cap = n;
    }
    struct trim_record *r = &t->records[record];
    /* refs are appended to the newest record only (calls.c makes one at a time) */
    t->refs[t->ref_count++] = object;
    r->count++;
    if (subject) { /* subjects first: swap it into place */
        uint32_t *refs = t->refs + r->first;
        uint32_t last = r->count - 1;
        uint32_t tmp = refs[r->subjects];
        refs[r->subjects] = refs[last];
        refs[last] = tmp;
        r->subjects++;
    }
}

static bool wanted(const struct trim_state *t, const struct trim_record *r)
{
    const uint32_t *refs = t->refs + r->first;
    if (r->kind == TRIM_STATE_ALL) {
        for (uint32_t i = 0; i < r->subjects; i++)
            if (!t->objects[refs[i]].needed)
                return false;
        return true; /* no subjects: a call on nothing in particular (a debug name on the device) */
    }
    for (uint32_t i = 0; i < r->subjects; i++)
        if (t->objects[refs[i]].needed)
            return true;
    return false;
}

/* One pass from the newest record back; true when it kept anything new. */
static bool close_pass(struct trim_state *t)
{
    bool changed = false;
    for (uint32_t i = t->record_count; i-- > 0;) {
        struct trim_record *r = &t->records[i];
        if (r->dropped || r->kept || r->kind == TRIM_DESTROY || !wanted(t, r))
            continue;
        r->kept = changed = true;
        for (uint32_t k = 0; k < r->count; k++)
            t->objects[t->refs[r->first + k]].needed = true;
    }
    return changed;
}

void trim_state_close(struct trim_state *t)
{
    for (uint32_t i = 0; i < t->object_count; i++)
        t->objects[i].needed = t->objects[i].alive;
    while (close_pass(t))
        ;
    /* A destroy is kept for objects made again only because a kept call names them. */
    for (uint32_t i = 0; i < t->record_count; i++) {
        struct trim_record *r = &t->records[i];
        if (r->kind == TRIM_DESTROY && !r->dropped)
            r->kept = wanted(t, r);
    }
}
