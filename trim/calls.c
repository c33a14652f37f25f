/*
 * trim/calls.c — what each call before frame A does to what the snapshot
 * will hold. A call that makes handles is a creation; a destroy or free ends
 * lives; vkCmd* calls and their Begin/End are a command buffer's recording
 * (only the last one since a reset or begin counts); binds, descriptor
 * updates and a mapping still in place set state; submits, presents, waits,
 * resets and the like leave nothing (their effects are in the contents and
 * states the snapshot reads back), but submits run the layout changes of
 * what they submit. Which call is which (its role, and the argument block
 * it is read as) is the command table's: gen/command_flags.py, "trim".
 */
#include <string.h>

#include "trim_internal.h"
#include "vkcodec.h"

#define ID(h) ((uint64_t)(uintptr_t)(h))
#define MAX_WALKED 4096

struct walked {
    VkObjectType type;
    uint64_t id;
    bool output;
};

struct walk {
    uint32_t n;
    bool overflow;
    struct walked h[MAX_WALKED];
};

static void collect(void *user, VkObjectType type, void *slot, bool output)
{
    struct walk *w = user;
    uint64_t id;
    memcpy(&id, slot, sizeof id);
    if (!id)
        return;
    if (w->n == MAX_WALKED) {
        w->overflow = true;
        return;
    }
    w->h[w->n++] = (struct walked){type, id, output};
}

static bool dispatchable(VkObjectType type)
{
    return type == VK_OBJECT_TYPE_INSTANCE || type == VK_OBJECT_TYPE_PHYSICAL_DEVICE ||
           type == VK_OBJECT_TYPE_DEVICE || type == VK_OBJECT_TYPE_QUEUE || type == VK_OBJECT_TYPE_COMMAND_BUFFER;
}

/* What the trim does with CMD: gen/command_flags.py decides it ("trim"). */
static enum rt_vk_trim_role role_of(enum rt_vk_cmd cmd)
{
    return (enum rt_vk_trim_role)rt_vk_commands[cmd].trim_role;
}

static enum rt_vk_trim_args args_of(enum rt_vk_cmd cmd)
{
    return (enum rt_vk_trim_args)rt_vk_commands[cmd].trim_args;
}

static uint32_t find(struct trim_state *t, const struct walked *h)
{
    return trim_object_find(t, h->type, h->id);
}

static uint32_t input_of_type(struct trim_state *t, const struct walk *w, VkObjectType type)
{
    for (uint32_t i = 0; i < w->n; i++)
        if (!w->h[i].output && w->h[i].type == type)
            return find(t, &w->h[i]);
    return TRIM_NONE;
}

static uint32_t owner_of(struct trim_state *t, const struct walk *w, VkObjectType type)
{
    VkObjectType parent = type == VK_OBJECT_TYPE_COMMAND_BUFFER   ? VK_OBJECT_TYPE_COMMAND_POOL
                          : type == VK_OBJECT_TYPE_DESCRIPTOR_SET ? VK_OBJECT_TYPE_DESCRIPTOR_POOL
                          : type == VK_OBJECT_TYPE_IMAGE          ? VK_OBJECT_TYPE_SWAPCHAIN_KHR
                                                                  : VK_OBJECT_TYPE_UNKNOWN;
    uint32_t o = parent ? input_of_type(t, w, parent) : TRIM_NONE;
    for (uint32_t i = 0; o == TRIM_NONE && i < w->n; i++)
        if (!w->h[i].output && dispatchable(w->h[i].type))
            o = find(t, &w->h[i]);
    return o;
}

/* Inputs of a record: every handle the call names that is not a subject. */
static void add_inputs(struct trim_state *t, uint32_t rec, const struct walk *w, VkObjectType skip)
{
    for (uint32_t i = 0; i < w->n; i++)
        if (!w->h[i].output && w->h[i].type != skip)
            trim_record_ref(t, rec, find(t, &w->h[i]), false);
}

static void creation(struct trim_state *t, const struct rt_trace_packet *p, enum rt_vk_cmd cmd, const void *args,
                     const struct walk *w)
{
    uint32_t rec = trim_record_add(t, p->seq, TRIM_CREATE);
    add_inputs(t, rec, w, VK_OBJECT_TYPE_UNKNOWN);
    uint32_t index = 0;
    for (uint32_t i = 0; i < w->n && rec != TRIM_NONE; i++) {
        if (!w->h[i].output)
            continue;
        uint32_t o = trim_object_add(t, w->h[i].type, w->h[i].id, rec, owner_of(t, w, w->h[i].type));
        trim_record_ref(t, rec, o, true);
        if (o != TRIM_NONE)
            trim_layouts_created(t, cmd, args, o, index++);
    }
}

static void destruction(struct trim_state *t, const struct rt_trace_packet *p, enum rt_vk_cmd cmd,
                        const struct walk *w)
{
    /* The command table names the type it destroys: vkDestroyBuffer(device,
     * VK_NULL_HANDLE) destroys nothing, not the device. */
    VkObjectType type = (VkObjectType)rt_vk_commands[cmd].object_type;
    for (uint32_t i = 0; !type && i < w->n; i++)
        if (!w->h[i].output)
            type = w->h[i].type; /* else the destroyed handles are the last ones named */
    uint32_t rec = trim_record_add(t, p->seq, TRIM_DESTROY);
    uint32_t ended[MAX_WALKED], n = 0;
    for (uint32_t i = 0; i < w->n && rec != TRIM_NONE; i++) {
        uint32_t o = w->h[i].output ? TRIM_NONE : find(t, &w->h[i]);
        trim_record_ref(t, rec, o, w->h[i].type == type);
        if (o != TRIM_NONE && w->h[i].type == type)
            ended[n++] = o;
    }
    for (uint32_t i = 0; i < n; i++)
        trim_object_kill(t, ended[i]);
}

/* vkResetDescriptorPool frees every set of the pool: a destroy of those. */
static void pool_reset(struct trim_state *t, const struct rt_trace_packet *p, const struct walk *w)
{
    uint32_t pool = input_of_type(t, w, VK_OBJECT_TYPE_DESCRIPTOR_POOL);
    if (pool == TRIM_NONE)
        return;
    uint32_t rec = trim_record_add(t, p->seq, TRIM_DESTROY);
    add_inputs(t, rec, w, VK_OBJECT_TYPE_UNKNOWN);
    for (uint32_t i = pool + 1; i < t->object_count && rec != TRIM_NONE; i++)
        if (t->objects[i].owner == pool && t->objects[i].alive) {
            trim_record_ref(t, rec, i, true);
            trim_object_kill(t, i);
        }
}

/* A record whose subjects are the handles of TYPES (0-terminated). */
static uint32_t state(struct trim_state *t, const struct rt_trace_packet *p, const struct walk *w,
                      enum trim_record_kind kind, VkObjectType subject)
{
    uint32_t rec = trim_record_add(t, p->seq, kind);
    for (uint32_t i = 0; i < w->n && rec != TRIM_NONE; i++)
        if (!w->h[i].output)
            trim_record_ref(t, rec, find(t, &w->h[i]), w->h[i].type == subject);
    return rec;
}

/* Binds: the buffers and images are the subjects, each followed by its memory. */
static void binding(struct trim_state *t, const struct rt_trace_packet *p, const struct walk *w)
{
    uint32_t rec = trim_record_add(t, p->seq, TRIM_STATE_ANY);
    uint32_t resource = TRIM_NONE;
    for (uint32_t i = 0; i < w->n && rec != TRIM_NONE; i++) {
        if (w->h[i].output)
            continue;
        uint32_t o = find(t, &w->h[i]);
        bool subject = w->h[i].type == VK_OBJECT_TYPE_BUFFER || w->h[i].type == VK_OBJECT_TYPE_IMAGE;
        trim_record_ref(t, rec, o, subject);
        if (subject)
            resource = o;
        else if (w->h[i].type == VK_OBJECT_TYPE_DEVICE_MEMORY && resource != TRIM_NONE)
            t->objects[resource].memory = o;
    }
}

static void unmapping(struct trim_state *t, const struct walk *w)
{
    uint32_t mem = input_of_type(t, w, VK_OBJECT_TYPE_DEVICE_MEMORY);
    if (mem != TRIM_NONE && t->objects[mem].map != TRIM_NONE) {
        t->records[t->objects[mem].map].dropped = true;
        t->objects[mem].map = TRIM_NONE;
    }
}

static void mapping(struct trim_state *t, const struct rt_trace_packet *p, const struct walk *w)
{
    unmapping(t, w); /* a second map of mapped memory fails; the first stays the one */
    uint32_t rec = state(t, p, w, TRIM_STATE_ANY, VK_OBJECT_TYPE_DEVICE_MEMORY);
    uint32_t mem = input_of_type(t, w, VK_OBJECT_TYPE_DEVICE_MEMORY);
    if (mem != TRIM_NONE)
        t->objects[mem].map = rec;
}

/* Other calls: subjects are the non-dispatchable handles, or the dispatchable
 * ones when there are none; kept when all are needed. */
static void other(struct trim_state *t, const struct rt_trace_packet *p, const struct walk *w)
{
    bool plain = false;
    for (uint32_t i = 0; i < w->n; i++)
        plain |= !w->h[i].output && !dispatchable(w->h[i].type);
    uint32_t rec = trim_record_add(t, p->seq, TRIM_STATE_ALL);
    for (uint32_t i = 0; i < w->n && rec != TRIM_NONE; i++)
        if (!w->h[i].output)
            trim_record_ref(t, rec, find(t, &w->h[i]), plain != dispatchable(w->h[i].type));
}

/* ---------------------------------------------------------- command buffers */

static struct trim_cmdbuf *cmdbuf_of(struct trim_state *t, uint32_t cb)
{
    return cb != TRIM_NONE && t->objects[cb].info != TRIM_NONE ? &t->cmdbufs[t->objects[cb].info] : NULL;
}

/* A begin, reset or one-time submit ends the recording: its calls go. */
static void discard(struct trim_state *t, uint32_t cb)
{
    struct trim_cmdbuf *c = cmdbuf_of(t, cb);
    if (!c)
        return;
    for (uint32_t i = 0; i < c->recording_count; i++)
        t->records[c->recording[i]].dropped = true;
    c->recording_count = c->transition_count = 0;
    c->begun = false;
}

static void recording(struct trim_state *t, const struct rt_trace_packet *p, enum rt_vk_cmd cmd,
                      const void *args, const struct walk *w)
{
    uint32_t cb = input_of_type(t, w, VK_OBJECT_TYPE_COMMAND_BUFFER);
    struct trim_cmdbuf *c = cmdbuf_of(t, cb);
    if (!c)
        return; /* a command buffer the trace never allocated: replay will say so */
    if (args_of(cmd) == RT_VK_TRIM_ARGS_BEGIN) {
        discard(t, cb);
        const VkCommandBufferBeginInfo *info = ((const struct rt_vk_args_vkBeginCommandBuffer *)args)->pBeginInfo;
        c->one_time = info && (info->flags & VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
        c->begun = true;
    }
    uint32_t rec = trim_record_add(t, p->seq, TRIM_RECORDING);
    trim_record_ref(t, rec, cb, true);
    add_inputs(t, rec, w, VK_OBJECT_TYPE_UNKNOWN);
    if (rec == TRIM_NONE || !trim_grow((void **)&c->recording, &c->recording_cap, c->recording_count,
                                       sizeof *c->recording))
        return;
    c->recording[c->recording_count++] = rec;
    trim_layouts_record(t, cb, cmd, args);
}

static void pool_discard(struct trim_state *t, const struct walk *w)
{
    uint32_t pool = input_of_type(t, w, VK_OBJECT_TYPE_COMMAND_POOL);
    for (uint32_t i = pool == TRIM_NONE ? t->object_count : pool + 1; i < t->object_count; i++)
        if (t->objects[i].owner == pool && t->objects[i].alive)
            discard(t, i);
}

/* ------------------------------------------------------------------ queues */

static void semaphore_set(struct trim_state *t, uint64_t id, bool signaled)
{
    uint32_t s = trim_object_find(t, VK_OBJECT_TYPE_SEMAPHORE, id);
    if (s != TRIM_NONE && !t->objects[s].timeline)
        t->objects[s].signaled = signaled;
}

static void submitted(struct trim_state *t, uint64_t cb_id)
{
    uint32_t cb = trim_object_find(t, VK_OBJECT_TYPE_COMMAND_BUFFER, cb_id);
    struct trim_cmdbuf *c = cmdbuf_of(t, cb);
    if (!c)
        return;
    trim_layouts_submit(t, cb);
    if (c->one_time) /* invalid once it ran: nothing after A may submit it again */
        discard(t, cb);
}

static void submit1(struct trim_state *t, const struct rt_vk_args_vkQueueSubmit *a)
{
    for (uint32_t i = 0; i < a->submitCount; i++) {
        const VkSubmitInfo *s = &a->pSubmits[i];
        for (uint32_t k = 0; k < s->waitSemaphoreCount; k++)
            semaphore_set(t, ID(s->pWaitSemaphores[k]), false);
        for (uint32_t k = 0; k < s->commandBufferCount; k++)
            submitted(t, ID(s->pCommandBuffers[k]));
        for (uint32_t k = 0; k < s->signalSemaphoreCount; k++)
            semaphore_set(t, ID(s->pSignalSemaphores[k]), true);
    }
}

static void submit2(struct trim_state *t, const struct rt_vk_args_vkQueueSubmit2 *a)
{
    for (uint32_t i = 0; i < a->submitCount; i++) {
        const VkSubmitInfo2 *s = &a->pSubmits[i];
        for (uint32_t k = 0; k < s->waitSemaphoreInfoCount; k++)
            semaphore_set(t, ID(s->pWaitSemaphoreInfos[k].semaphore), false);
        for (uint32_t k = 0; k < s->commandBufferInfoCount; k++)
            submitted(t, ID(s->pCommandBufferInfos[k].commandBuffer));
        for (uint32_t k = 0; k < s->signalSemaphoreInfoCount; k++)
            semaphore_set(t, ID(s->pSignalSemaphoreInfos[k].semaphore), true);
    }
}

static void queue_effects(struct trim_state *t, enum rt_vk_cmd cmd, const void *args)
{
    const VkAcquireNextImageInfoKHR *acquire;
    const VkPresentInfoKHR *present;
    switch (args_of(cmd)) {
    case RT_VK_TRIM_ARGS_SUBMIT:
        submit1(t, args);
        break;
    case RT_VK_TRIM_ARGS_SUBMIT2:
        submit2(t, args);
        break;
    case RT_VK_TRIM_ARGS_ACQUIRE:
        semaphore_set(t, ID(((const struct rt_vk_args_vkAcquireNextImageKHR *)args)->semaphore), true);
        break;
    case RT_VK_TRIM_ARGS_ACQUIRE_INFO:
        acquire = ((const struct rt_vk_args_vkAcquireNextImage2KHR *)args)->pAcquireInfo;
        if (acquire)
            semaphore_set(t, ID(acquire->semaphore), true);
        break;
    case RT_VK_TRIM_ARGS_PRESENT:
        present = ((const struct rt_vk_args_vkQueuePresentKHR *)args)->pPresentInfo;
        for (uint32_t k = 0; present && k < present->waitSemaphoreCount; k++)
            semaphore_set(t, ID(present->pWaitSemaphores[k]), false);
        break;
    default:
        break;
    }
}

/* ---------------------------------------------------------------- dispatch */

static void track(struct trim_state *t, const struct rt_trace_packet *p, enum rt_vk_cmd cmd, const void *args,
                  const struct walk *w)
{
    enum rt_vk_trim_role role = role_of(cmd);
    unsigned flags = rt_vk_cmd_flags(cmd);
    bool outputs = false;
    for (uint32_t i = 0; i < w->n; i++)
        outputs |= w->h[i].output;
    if (role == RT_VK_TRIM_ROLE_SNAPSHOT_HOLDS)
        queue_effects(t, cmd, args);
    else if (role == RT_VK_TRIM_ROLE_RESETS_COMMAND_BUFFER)
        discard(t, input_of_type(t, w, VK_OBJECT_TYPE_COMMAND_BUFFER));
    else if (role == RT_VK_TRIM_ROLE_RESETS_COMMAND_POOL)
        pool_discard(t, w);
    else if (role == RT_VK_TRIM_ROLE_RESETS_DESCRIPTOR_POOL)
        pool_reset(t, p, w);
    else if (role == RT_VK_TRIM_ROLE_UNMAPS)
        unmapping(t, w);
    else if (flags & RT_VK_CMD_FLAG_DESTROYS)
        destruction(t, p, cmd, w);
    else if (role == RT_VK_TRIM_ROLE_RECORDS)
        recording(t, p, cmd, args, w);
    else if (outputs)
        creation(t, p, cmd, args, w);
    else if ((flags & RT_VK_CMD_FLAG_QUERY) && role != RT_VK_TRIM_ROLE_KEEPS_QUERY)
        return;
    else if (role == RT_VK_TRIM_ROLE_BINDS_MEMORY)
        binding(t, p, w);
    else if (role == RT_VK_TRIM_ROLE_MAPS_MEMORY)
        mapping(t, p, w);
    else if (role == RT_VK_TRIM_ROLE_UPDATES_DESCRIPTORS)
        (void)state(t, p, w, TRIM_STATE_ANY, VK_OBJECT_TYPE_DESCRIPTOR_SET);
    else
        other(t, p, w);
}

rt_status trim_track_call(void *user, const struct rt_trace_packet *p, enum rt_vk_cmd cmd, const void *args)
{
    struct trim_state *t = user;
    static struct walk w; /* calls do not nest, and trim runs one replay */
    w.n = 0;
    w.overflow = false;
    rt_vk_walk_handles(cmd, args, collect, &w);
    if (w.overflow)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %llu names more than %d handles, more than trim follows",
                         (unsigned long long)p->seq, MAX_WALKED);
    t->calls_seen++;
    track(t, p, cmd, args, &w);
    return t->error;
}
