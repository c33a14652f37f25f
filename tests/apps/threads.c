/* tests/apps/threads.c — rt_app_threads: N worker threads (default 4) each
 * record a secondary command buffer with their share of the scene every
 * frame, from their own command pools; the main thread executes the
 * secondaries inside its render pass and submits. Secondaries run in array
 * order, so the picture does not depend on which thread finishes first. */
#include "app.h"

#include <pthread.h>

#include "threads_frag.h"
#include "threads_vert.h"

#define MAX_THREADS 16
#define COLS 8
#define ROWS 6
#define OBJECTS (COLS * ROWS)

struct shape_push {
    float center[2], radius, angle, aspect;
    uint32_t sides, color;
};

struct threads;

struct worker {
    struct threads *owner;
    uint32_t index;
    pthread_t thread;
    VkCommandPool pools[RT_APP_SLOTS]; /* command pools are per thread */
    VkCommandBuffer cmd[RT_APP_SLOTS];
    rt_status status;
};

struct threads {
    int thread_count; /* --threads */
    struct rt_app *app;
    struct worker workers[MAX_THREADS];
    uint32_t started;
    /* Work hand-out: the main thread bumps generation and waits until pending
     * drops to 0; the lock also publishes frame and quit to the workers. */
    pthread_mutex_t lock;
    pthread_cond_t wake, finished;
    bool sync_ready, quit;
    uint64_t generation;
    uint32_t pending;
    const struct rt_app_frame *frame;
    VkRenderPass pass;
    VkFramebuffer framebuffers[RT_APP_MAX_IMAGES];
    VkPipelineLayout layout;
    VkPipeline pipeline;
};

static void draw_object(struct threads *t, VkCommandBuffer cmd, uint32_t i, uint32_t frame)
{
    const VkExtent2D e = t->app->extent;
    uint32_t sides = 3 + i % 6;
    struct shape_push push = {
        .center = {-1.0f + (2.0f * (float)(i % COLS) + 1.0f) / COLS,
                   -1.0f + (2.0f * (float)(i / COLS) + 1.0f) / ROWS},
        .radius = 0.8f / ROWS,
        .angle = 0.05f * (float)(frame * (1 + i % 5)) + 0.3f * (float)i,
        .aspect = (float)e.width / (float)e.height,
        .sides = sides,
        .color = ((i * 67u + 40u) & 0xff) | ((i * 151u + 90u) & 0xff) << 8 |
                 ((i * 23u + 200u) & 0xff) << 16 | 0xffu << 24,
    };
    vkCmdPushConstants(cmd, t->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, &push);
    vkCmdDraw(cmd, 3 * sides, 1, 0, 0);
}

/* A worker's part of the frame: objects index, index + N, index + 2N, ... */
static rt_status record_part(struct threads *t, struct worker *w)
{
    const struct rt_app_frame *f = t->frame;
    VkCommandBuffer cmd = w->cmd[f->slot];
    /* The slot's previous frame has completed: its pool may be reset. */
    RT_VK(vkResetCommandPool(t->app->device, w->pools[f->slot], 0));
    VkCommandBufferInheritanceInfo inherit = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
        .renderPass = t->pass,
        .subpass = 0,
        .framebuffer = t->framebuffers[f->image_index],
    };
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT |
                 VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
        .pInheritanceInfo = &inherit,
    };
    RT_VK(vkBeginCommandBuffer(cmd, &begin));
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->pipeline);
    rt_app_set_viewport(t->app, cmd);
    for (uint32_t i = w->index; i < OBJECTS; i += (uint32_t)t->thread_count)
        draw_object(t, cmd, i, f->number);
    RT_VK(vkEndCommandBuffer(cmd));
    return rt_ok_status();
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct threads *t = w->owner;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&t->lock);
        while (t->generation == seen && !t->quit)
            pthread_cond_wait(&t->wake, &t->lock);
        bool quit = t->quit;
        seen = t->generation;
        pthread_mutex_unlock(&t->lock);
        if (quit)
            return NULL;
        w->status = record_part(t, w);
        pthread_mutex_lock(&t->lock);
        if (--t->pending == 0)
            pthread_cond_signal(&t->finished);
        pthread_mutex_unlock(&t->lock);
    }
}

static rt_status create_worker(struct rt_app *app, struct threads *t, uint32_t index)
{
    struct worker *w = &t->workers[index];
    *w = (struct worker){.owner = t, .index = index, .status = rt_ok_status()};
    for (uint32_t s = 0; s < RT_APP_SLOTS; s++) {
        VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                        .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                        .queueFamilyIndex = app->queue_family};
        RT_VK(vkCreateCommandPool(app->device, &pool, NULL, &w->pools[s]));
        VkCommandBufferAllocateInfo alloc = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .commandPool = w->pools[s],
            .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
            .commandBufferCount = 1,
        };
        RT_VK(vkAllocateCommandBuffers(app->device, &alloc, &w->cmd[s]));
    }
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot start worker thread %u", index);
    t->started++;
    return rt_ok_status();
}

static rt_status create_pipeline(struct rt_app *app, struct threads *t)
{
    RT_TRY(rt_app_render_pass(app, VK_FORMAT_UNDEFINED, &t->pass));
    RT_TRY(rt_app_framebuffers(app, t->pass, VK_NULL_HANDLE, t->framebuffers));
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(struct shape_push)};
    VkPipelineLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = 1, .pPushConstantRanges = &range,
    };
    RT_VK(vkCreatePipelineLayout(app->device, &layout, NULL, &t->layout));
    struct rt_app_pipeline_desc d = {.layout = t->layout, .render_pass = t->pass};
    rt_status st = rt_app_shader(app, threads_vert, sizeof threads_vert, &d.vert);
    if (rt_ok(&st))
        st = rt_app_shader(app, threads_frag, sizeof threads_frag, &d.frag);
    if (rt_ok(&st))
        st = rt_app_graphics_pipeline(app, &d, &t->pipeline);
    vkDestroyShaderModule(app->device, d.vert, NULL);
    vkDestroyShaderModule(app->device, d.frag, NULL);
    return st;
}

static rt_status threads_setup(struct rt_app *app, void *user)
{
    struct threads *t = user;
    t->app = app;
    RT_TRY(create_pipeline(app, t));
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, NULL);
    pthread_cond_init(&t->finished, NULL);
    t->sync_ready = true;
    for (uint32_t i = 0; i < (uint32_t)t->thread_count; i++)
        RT_TRY(create_worker(app, t, i));
    return rt_ok_status();
}

static rt_status threads_record(struct rt_app *app, void *user, struct rt_app_frame *f)
{
    struct threads *t = user;
    pthread_mutex_lock(&t->lock);
    t->frame = f;
    t->pending = (uint32_t)t->thread_count;
    t->generation++;
    pthread_cond_broadcast(&t->wake); /* workers record now */
    while (t->pending > 0)
        pthread_cond_wait(&t->finished, &t->lock);
    pthread_mutex_unlock(&t->lock);
    VkCommandBuffer secondaries[MAX_THREADS];
    for (uint32_t i = 0; i < (uint32_t)t->thread_count; i++) {
        RT_TRY(t->workers[i].status);
        secondaries[i] = t->workers[i].cmd[f->slot];
    }
    VkClearValue clear = {.color = {{0.05f, 0.05f, 0.05f, 1.0f}}};
    rt_app_begin_render_pass(app, f->cmd, t->pass, t->framebuffers[f->image_index],
                             &clear, 1, VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS);
    vkCmdExecuteCommands(f->cmd, (uint32_t)t->thread_count, secondaries);
    vkCmdEndRenderPass(f->cmd);
    return rt_ok_status();
}

/* Stops the workers that were started (a failed setup may have started only
 * some of them). */
static void stop_workers(struct threads *t)
{
    if (!t->sync_ready)
        return;
    pthread_mutex_lock(&t->lock);
    t->quit = true;
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->lock);
    for (uint32_t i = 0; i < t->started; i++)
        pthread_join(t->workers[i].thread, NULL);
    pthread_cond_destroy(&t->finished);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
}

static void threads_teardown(struct rt_app *app, void *user)
{
    struct threads *t = user;
    stop_workers(t);
    for (uint32_t i = 0; i < MAX_THREADS; i++)
        for (uint32_t s = 0; s < RT_APP_SLOTS; s++)
            vkDestroyCommandPool(app->device, t->workers[i].pools[s], NULL);
    vkDestroyPipeline(app->device, t->pipeline, NULL);
    vkDestroyPipelineLayout(app->device, t->layout, NULL);
    rt_app_framebuffers_destroy(app, t->framebuffers);
    vkDestroyRenderPass(app->device, t->pass, NULL);
}

int main(int argc, char **argv)
{
    struct threads t = {.thread_count = 4};
    const struct rt_app_int_option options[] = {
        {"threads", "worker threads recording secondary command buffers", &t.thread_count, 1,
         MAX_THREADS},
    };
    const struct rt_app_desc desc = {
        .name = "threads",
        .summary = "48 spinning polygons recorded into secondary command buffers by worker\n"
                   "threads every frame, executed by the main thread's render pass.",
        .options = options,
        .option_count = 1,
        .setup = threads_setup,
        .record = threads_record,
        .teardown = threads_teardown,
    };
    return rt_app_main(&desc, &t, argc, argv);
}
