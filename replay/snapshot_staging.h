/*
 * replay/snapshot_staging.h — the snapshot's use of the staging module
 * (readback/include/staging.h): one host-visible staging buffer and one
 * command buffer on the last device's first queue, for the snapshot's reads
 * (trim) and writes (replaying a trimmed trace), with a full memory barrier
 * recorded first. Slow and simple: made, submitted, waited for and freed per
 * piece; a snapshot copies each resource once.
 */
#ifndef RT_REPLAY_SNAPSHOT_STAGING_H
#define RT_REPLAY_SNAPSHOT_STAGING_H

#include "replay_internal.h"
#include "staging.h"

struct snapshot_staging {
    struct replay_device *dev;
    struct rt_staging staging;
    VkBuffer buffer;     /* staging's: transfer source and destination, storage */
    void *map;
    VkCommandBuffer cmd; /* begun; a full memory barrier recorded first */
};

/** Staging of SIZE bytes on the last device the trace created, recording begun. */
rt_status snapshot_staging_begin(struct replay *r, VkDeviceSize size, struct snapshot_staging *s) RT_MUST_CHECK;
/** Ends, submits and waits for the command buffer. */
rt_status snapshot_staging_submit(struct snapshot_staging *s) RT_MUST_CHECK;
void snapshot_staging_end(struct snapshot_staging *s);

/** An image layout barrier over one subresource (both aspects of a depth/stencil format). */
void snapshot_image_barrier(struct snapshot_staging *s, VkImage image, VkImageAspectFlags aspects, uint32_t mip,
                            uint32_t layer, VkImageLayout from, VkImageLayout to);
/** The aspects a barrier on an image of FORMAT covers: depth and stencil together. */
VkImageAspectFlags snapshot_barrier_aspects(VkFormat format, VkImageAspectFlags aspect);

#endif
