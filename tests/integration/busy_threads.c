/*
 * tests/integration/busy_threads.c — threads that write mapped memory, record,
 * submit and wait, without end, for kill_threads.py to kill.
 *
 * usage: busy_threads THREADS [segv|abort|exit ROUNDS]
 * The main thread blocks the stop signals once the workers run, so a signal
 * sent to the process is taken by a worker. With segv or abort, worker 1
 * crashes itself after ROUNDS rounds (a fault on a thread that is not main);
 * with exit, worker 1 calls exit(0) while the others go on calling Vulkan
 * (the capture's exit-time close races with them).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "one_device.h"

#define SIZE 65536 /* bytes per buffer: 16 pages for the page guard */
#define MAX_THREADS 16

static VkDevice device;
static VkQueue queue;
static VkPhysicalDeviceMemoryProperties memory;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *crash_mode;
static int crash_rounds;

struct worker {
    int index;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkBuffer src, dst;
    VkDeviceMemory src_memory, dst_memory;
    uint8_t *src_bytes, *dst_bytes;
    VkFence fence;
};

static uint32_t host_memory_type(uint32_t allowed)
{
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < memory.memoryTypeCount; i++)
        if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want)
            return i;
    return 0;
}

static void make_buffer(VkBuffer *buffer, VkDeviceMemory *mem, uint8_t **bytes, VkBufferUsageFlags usage)
{
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = SIZE, .usage = usage};
    vkCreateBuffer(device, &info, NULL, buffer);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, *buffer, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                  .memoryTypeIndex = host_memory_type(req.memoryTypeBits)};
    vkAllocateMemory(device, &alloc, NULL, mem);
    vkBindBufferMemory(device, *buffer, *mem, 0);
    vkMapMemory(device, *mem, 0, VK_WHOLE_SIZE, 0, (void **)bytes);
}

static void make_worker(struct worker *w)
{
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT};
    vkCreateCommandPool(device, &pool, NULL, &w->pool);
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = w->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    vkAllocateCommandBuffers(device, &alloc, &w->cmd);
    make_buffer(&w->src, &w->src_memory, &w->src_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    make_buffer(&w->dst, &w->dst_memory, &w->dst_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vkCreateFence(device, &fence, NULL, &w->fence);
}

/* One round: new bytes in a few pages of src, copied by the GPU to dst. */
static void round_trip(struct worker *w, unsigned round)
{
    for (unsigned page = round % 4; page < SIZE / 4096; page += 4)
        memset(w->src_bytes + page * 4096, (int)(round + (unsigned)w->index), 4096);
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(w->cmd, &begin);
    VkBufferCopy copy = {.size = SIZE};
    vkCmdCopyBuffer(w->cmd, w->src, w->dst, 1, &copy);
    vkEndCommandBuffer(w->cmd);
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &w->cmd};
    pthread_mutex_lock(&queue_lock);
    vkQueueSubmit(queue, 1, &submit, w->fence);
    pthread_mutex_unlock(&queue_lock);
    vkWaitForFences(device, 1, &w->fence, VK_TRUE, UINT64_MAX);
    vkResetFences(device, 1, &w->fence);
}

static void crash(void)
{
    if (!strcmp(crash_mode, "exit"))
        exit(0);
    if (!strcmp(crash_mode, "abort"))
        abort();
    volatile int *nowhere = NULL;
    *nowhere = 1;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    for (unsigned round = 0;; round++) {
        round_trip(w, round);
        if (crash_mode && w->index == 1 && (int)round == crash_rounds)
            crash();
    }
    return NULL;
}

static int create_device(void)
{
    if (volkInitialize() != VK_SUCCESS)
        return 4;
    return one_device_open("busy_threads", &memory, &device, &queue);
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 0;
    if (threads < 2 || threads > MAX_THREADS || (argc > 2 && argc != 4)) {
        fprintf(stderr, "usage: busy_threads THREADS(2-16) [segv|abort|exit ROUNDS]\n");
        return 2;
    }
    if (argc == 4) {
        crash_mode = argv[2];
        crash_rounds = atoi(argv[3]);
    }
    int rc = create_device();
    if (rc)
        return rc;
    static struct worker workers[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    for (int i = 0; i < threads; i++) {
        workers[i].index = i;
        make_worker(&workers[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_create(&ids[i], NULL, work, &workers[i]);
    sigset_t stop;
    sigemptyset(&stop);
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaddset(&stop, signals[i]);
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* the workers take them */
    fprintf(stderr, "busy_threads: %d workers running\n", threads);
    pthread_join(ids[0], NULL); /* never returns: the test kills us */
    return 0;
}
