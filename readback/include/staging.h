/*
 * readback/include/staging.h — the one staging-copy module: a host-visible,
 * coherent, mapped buffer, and a one-shot primary command buffer (its own
 * pool and fence) that is begun, submitted on a queue, waited for and freed.
 *
 * Owns: making and freeing those objects through the dispatch table it is
 * given, the memory-type choice for staging (rt_readback_host_memory_type),
 * and the barrier that makes the copies' writes visible to the host before
 * the wait. What is recorded between begin and submit is the caller's.
 * Used by readback.c (screenshots, in the capture layer and in replay),
 * replay/snapshot_staging.c (trim's reads of live contents and a trimmed
 * trace's writes of them) and replay/draws_split.c (rt_staging_buffer only:
 * its copies go into the program's own command buffer).
 * Must not touch: the trace, capture or replay state. Slow and simple: one
 * submission and one wait per use.
 */
#ifndef RT_STAGING_H
#define RT_STAGING_H

#include "readback.h"

struct rt_staging {
    struct rt_readback_device dev;
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;           /* the whole buffer, mapped */
    VkCommandPool pool;
    VkCommandBuffer cmd; /* begun (ONE_TIME_SUBMIT) by rt_staging_begin */
    VkFence fence;
};

/**
 * A buffer of SIZE bytes (at least 1) with USAGE in host-visible coherent
 * memory, bound, not mapped. On error nothing is left to free.
 */
rt_status rt_staging_buffer(const struct rt_readback_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                            VkBuffer *buffer_out, VkDeviceMemory *memory_out) RT_MUST_CHECK;

/**
 * A mapped staging buffer of SIZE bytes with USAGE, and a command buffer
 * from a pool of queue family FAMILY, begun. On error S holds nothing
 * (rt_staging_end is still safe).
 */
rt_status rt_staging_begin(const struct rt_readback_device *dev, uint32_t family, VkDeviceSize size,
                           VkBufferUsageFlags usage, struct rt_staging *s) RT_MUST_CHECK;

/**
 * Records a barrier from every earlier write to host reads, ends the command
 * buffer, submits it on QUEUE after WAIT_COUNT binary semaphores (at most 16;
 * they are consumed once the submission was made, *waited_out then true) and
 * waits for it. WAITED_OUT may be NULL when WAIT_COUNT is 0.
 */
rt_status rt_staging_submit(struct rt_staging *s, VkQueue queue, uint32_t wait_count, const VkSemaphore *waits,
                            bool *waited_out) RT_MUST_CHECK;

/** Frees what S holds (its device must be idle of it); S is zeroed. */
void rt_staging_end(struct rt_staging *s);

/** "VK_ERROR_OUT_OF_DEVICE_MEMORY" for a result (vk.xml's name). */
const char *rt_staging_result_name(VkResult result);

#endif
