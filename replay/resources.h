/*
 * replay/resources.h — what replay remembers about each live buffer and
 * image: one record per object, made when it is created and removed when it
 * is destroyed. A driver may give a new object the handle of a destroyed one;
 * the new object then starts from a fresh record, never the old one's state
 * (an image made after a destroyed linear image is not linear).
 *
 * Plain C over common/'s hash map, keyed by live handle value, so that it is
 * tested without a device (tests/unit/test_replay_resources.c).
 */
#ifndef RT_REPLAY_RESOURCES_H
#define RT_REPLAY_RESOURCES_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#include "hashmap.h"

struct replay_buffer {
    VkDeviceSize size;
    bool bound;               /* to captured memory (below) */
    uint64_t memory;          /* captured VkDeviceMemory id */
    VkDeviceSize offset;      /* its offset in that memory */
};

struct replay_image {
    VkFormat format;
    bool linear;              /* VK_IMAGE_TILING_LINEAR: mapped writes reach it at captured offsets */
    bool bound;
    uint64_t memory;          /* captured VkDeviceMemory id */
    VkDeviceSize offset;      /* its captured offset in that memory */
    VkDeviceSize captured_size; /* its memory requirements' size at capture; 0 if the trace never asked */
};

struct replay_resources {
    struct rt_hashmap buffers; /* live VkBuffer -> struct replay_buffer * */
    struct rt_hashmap images;  /* live VkImage -> struct replay_image * */
};

void replay_resources_init(struct replay_resources *res);
void replay_resources_finish(struct replay_resources *res);

/** A fresh record for a created buffer (replacing any left under its handle); NULL when out of memory. */
struct replay_buffer *replay_resources_add_buffer(struct replay_resources *res, uint64_t buffer);
struct replay_image *replay_resources_add_image(struct replay_resources *res, uint64_t image);

/** The record of a live object, or NULL when replay never made it (or it was destroyed). */
struct replay_buffer *replay_resources_buffer(const struct replay_resources *res, uint64_t buffer);
struct replay_image *replay_resources_image(const struct replay_resources *res, uint64_t image);

/** On destroy: the record goes. Unknown handles are ignored. */
void replay_resources_remove_buffer(struct replay_resources *res, uint64_t buffer);
void replay_resources_remove_image(struct replay_resources *res, uint64_t image);

/* --- rebind placement ----------------------------------------------------------
 * In rebind mode each captured allocation has one replay allocation of the
 * same layout, and a resource goes to its captured offset there whenever the
 * replay device's requirements allow it: then resources that overlapped at
 * capture (aliases) overlap here too, and nothing else does. */

/** Where one resource sits in a captured allocation: the bytes it covered at
 * capture, and the bytes it needs here from the same offset. */
struct replay_extent {
    VkDeviceSize offset;       /* its captured offset (the same here when placed) */
    VkDeviceSize capture_size; /* bytes it covered at capture */
    VkDeviceSize replay_size;  /* bytes it covers here */
};

/** True when extents A and B share a byte at capture. */
bool replay_extents_alias(struct replay_extent a, struct replay_extent b);

/** True when a resource with the replay device's requirements REQ can sit at
 * SELF.offset of an allocation of SIZE bytes and memory type TYPE, beside the
 * COUNT resources of PLACED already there: the offset is aligned, the bytes
 * fit, the type is allowed, and it overlaps here only resources it overlapped
 * at capture. */
bool replay_fits_in_place(const VkMemoryRequirements *req, uint32_t type, VkDeviceSize size,
                          struct replay_extent self, const struct replay_extent *placed, size_t count);

#endif
