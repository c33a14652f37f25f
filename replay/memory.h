/*
 * replay/memory.h — what memory.c and rebind.c share about a captured
 * allocation (private to replay/).
 *
 * Every captured allocation is made again here, its "home": in direct mode
 * with the capture's memory type, in rebind mode with the type nearest the
 * capture's flags that the replay device has. Host-visible homes are mapped
 * and zeroed when made (the capture's new memory read as zeros), and every
 * memory update lands in the home at its captured offset: the home is the
 * capture's layout, the source of truth for bytes.
 *
 * Rebind mode (rebind.c) puts each buffer and image at its captured offset of
 * the home when the replay device's requirements allow it (resources.h:
 * replay_fits_in_place), so aliases stay aliases; a resource that does not
 * fit gets an allocation of its own (a "moved" binding), filled from the home
 * when bound, kept up to date by every memory update over it, and copied back
 * to the home when destroyed.
 */
#ifndef RT_REPLAY_MEMORY_H
#define RT_REPLAY_MEMORY_H

#include "replay_internal.h"

struct binding {
    bool is_image;
    bool linear;               /* a buffer or a linear image: its bytes mean the same at any offset */
    uint64_t resource;         /* live handle */
    struct replay_extent at;   /* captured offset and sizes (resources.h) */
    bool moved;                /* false: bound to the home at at.offset */
    VkDeviceMemory memory;     /* moved: its own allocation */
    uint8_t *mapped;           /* moved and host-visible */
    bool coherent;
};

struct replay_memory {
    struct replay_device *dev;
    VkDeviceSize size;         /* captured allocationSize */
    VkMemoryPropertyFlags captured_flags;
    VkDeviceMemory live;       /* the home */
    VkDeviceSize live_size;    /* its allocationSize (a dedicated allocation's may differ) */
    uint32_t type;             /* its memory type here */
    uint8_t *mapped;           /* host-visible homes: mapped from the start */
    bool coherent;
    struct binding *bindings;  /* rebind mode: the resources bound into it */
    size_t binding_count, binding_capacity;
    bool warned_image_update, warned_alias;
};

struct replay_memory *replay_memory_of(struct replay *r, uint64_t captured);
void replay_memory_flush(const struct replay_device *dev, VkDeviceMemory memory);
void replay_memory_invalidate(const struct replay_device *dev, VkDeviceMemory memory);
/** Frees the moved bindings' allocations (the home is memory.c's). */
void replay_rebind_release(struct replay_memory *m);

/* rebind.c */
rt_status replay_rebind_buffer(struct replay *r, VkBuffer buffer, uint64_t captured_memory, VkDeviceSize offset);
rt_status replay_rebind_image(struct replay *r, VkImage image, uint64_t captured_memory, VkDeviceSize offset);
/** A destroyed resource's binding goes (a moved one's bytes back to the home first). */
void replay_rebind_drop(struct replay *r, uint64_t captured_memory, uint64_t resource);
/** A memory update, written to the home when IN_HOME: the moved bindings over it get it too. */
void replay_rebind_update(struct replay_memory *m, uint64_t offset, const uint8_t *data, size_t size, bool in_home);
/** Overlays the moved bindings' bytes of [offset, offset + size) on out (alias: replay_memory_read). */
bool replay_rebind_read(const struct replay_memory *m, uint64_t offset, size_t size, unsigned alias,
                        uint8_t *out, uint8_t *covered);
/** Where a bound buffer's bytes are on the host, or NULL. */
uint8_t *replay_rebind_host_pointer(const struct replay_memory *m, uint64_t buffer, VkDeviceSize offset);

#endif
